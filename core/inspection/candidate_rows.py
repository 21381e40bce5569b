"""Every judged candidate of a study as one row: its text, systems, verdict, length, rules applied, scores.

The Inspect screen and ``parastudio inspect`` list these rows (green accepted,
red rejected, amber disagreed, :mod:`core.inspection.verdicts`). Read with a
few plain SQL queries over the live judgments of normal items (repeats and
planted controls are never inspected as candidates), so a 100,000-candidate
study lists in about a second (``benchmarks/bench_inspect.py``).

``search_error``: the system's own score of the candidate is below its exact
true score (seed 000 §3: the decoder kept a worse derivation, or none of the
best one's rules survived pruning). Only the systems whose model score is the
true score's model (the beam decoder and both MCPG modes, log10) are flagged.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import text

from core.inspection.verdicts import candidate_verdict, is_positive, verdict_of_votes
from core.store.database import Database

# Systems whose model_score and true_score are the same model in the same units (log10).
TRUE_SCORE_COMPARABLE = ("beam", "mcpg-true", "mcpg-translator")
SEARCH_ERROR_TOLERANCE = 1e-4


@dataclass
class CandidateRow:
    candidate_id: int
    item: str
    sentence: str
    source: str
    text: str
    systems: tuple[str, ...]
    verdict: str | None
    criteria: dict[str, str | None]  # criterion -> its verdict
    labels: dict[str, list[str]]  # criterion -> every judge's label
    source_length: int
    rules: int  # rewrites applied (identity segments not counted); -1 when the derivation is unknown
    model_score: float | None
    true_score: float | None
    scores: dict = field(default_factory=dict)  # per system: rank, model_score, true_score

    @property
    def search_error(self) -> bool:
        for system, score in self.scores.items():
            if system in TRUE_SCORE_COMPARABLE and score.get("model_score") is not None \
                    and score.get("true_score") is not None \
                    and score["true_score"] - score["model_score"] > SEARCH_ERROR_TOLERANCE:
                return True
        return False

    def to_json(self) -> dict:
        return {"item": self.item, "sentence": self.sentence, "source": self.source, "candidate": self.text,
                "systems": list(self.systems), "verdict": self.verdict, "criteria": self.criteria,
                "labels": self.labels, "source_length": self.source_length, "rules": self.rules,
                "model_score": self.model_score, "true_score": self.true_score, "search_error": self.search_error}


def _fetch(connection, sql: str, study_id: int) -> list[tuple]:
    """All rows of ``sql`` (one ``:s`` parameter, the study). On SQLite through the driver's own cursor:
    SQLAlchemy's per-row processing doubles the time of reading a 100,000-candidate study."""
    if connection.dialect.name == "sqlite":
        return connection.connection.driver_connection.execute(sql, {"s": study_id}).fetchall()
    return connection.execute(text(sql), {"s": study_id}).fetchall()


def _rule_count(derivation_json: str | None) -> int:
    """Rewrites applied by a derivation (identity segments not counted); -1 when it is unknown.

    Counted on the stored JSON text (``"identity": false``, as the store writes it) without parsing it:
    parsing 100,000 derivations is most of the time it takes to open a large study."""
    if not derivation_json or derivation_json == "null":
        return -1
    if '"identity"' in derivation_json:
        return derivation_json.count('"identity": false')
    try:
        segments = json.loads(derivation_json)
    except ValueError:
        return -1
    if not isinstance(segments, list):
        return -1
    return sum(1 for s in segments if isinstance(s, dict) and not s.get("identity")
               and s.get("source") != s.get("target"))


def candidate_rows(db: Database, study_id: int, *, criteria: set[str] | None = None) -> list[CandidateRow]:
    """Every candidate with at least one live judgment on a normal item (of ``criteria``, when given)."""
    with db.read_connection() as connection:
        scales, names = {}, {}
        for criterion_id, name, scale, levels in connection.execute(text(
                "SELECT id, name, scale, levels FROM criterion WHERE study_id = :s AND scale != 'choice'"),
                {"s": study_id}).fetchall():
            if criteria is None or name in criteria:
                names[criterion_id] = name
                levels = json.loads(levels) if isinstance(levels, str) else (levels or [])
                scales[name] = [str(level["value"]) for level in levels]
        # One vote per distinct label of each criterion, looked up, not recomputed, for each judgment; the
        # database counts equal labels of a candidate and criterion (two judges who agree: one row).
        votes: dict[tuple[int, str], bool | None] = {}
        labels: dict[int, dict[str, list[str]]] = defaultdict(dict)
        judged_votes: dict[int, dict[str, list]] = defaultdict(dict)
        for candidate_id, criterion_id, value, count in _fetch(connection, (
                "SELECT a.candidate_id, a.criterion_id, j.value, COUNT(*) FROM assignment a "
                "JOIN judgment j ON j.id = a.live_judgment_id "
                "WHERE a.study_id = :s AND a.kind = 'normal' AND a.candidate_id IS NOT NULL AND a.unit IS NULL "
                "GROUP BY a.candidate_id, a.criterion_id, j.value"), study_id):
            name = names.get(criterion_id)
            if name is None or value is None:
                continue
            key = (criterion_id, value)
            if key not in votes:
                votes[key] = is_positive(value, scales[name])
            labels[candidate_id].setdefault(name, []).extend([value] * count)
            judged_votes[candidate_id].setdefault(name, []).append(votes[key])
        systems: dict[int, list[str]] = defaultdict(list)
        scores: dict[int, dict] = defaultdict(dict)
        for candidate_id, name, rank, model_score, true_score in _fetch(connection, (
                "SELECT cs.candidate_id, s.name, cs.rank, cs.model_score, cs.true_score FROM candidate_system cs "
                "JOIN system s ON s.id = cs.system_id WHERE s.study_id = :s ORDER BY s.name"), study_id):
            systems[candidate_id].append(name)
            scores[candidate_id][name] = {"rank": rank, "model_score": model_score, "true_score": true_score}
        rows = []
        for candidate_id, sentence, source, candidate_text, derivation in _fetch(connection, (
                "SELECT c.id, s.external_id, s.text, c.text, c.derivation FROM candidate c "
                "JOIN source_sentence s ON s.id = c.source_id "
                "WHERE c.study_id = :s AND c.kind = 'candidate' ORDER BY c.id"), study_id):
            judged = labels.get(candidate_id)
            if not judged:
                continue
            derivation = derivation if isinstance(derivation, str) or derivation is None else json.dumps(derivation)
            per_criterion = {name: verdict_of_votes(cast) for name, cast in judged_votes[candidate_id].items()}
            produced = tuple(systems.get(candidate_id, ()))
            own = scores.get(candidate_id, {})
            first = own.get(produced[0], {}) if produced else {}
            rows.append(CandidateRow(
                candidate_id=candidate_id, item=str(candidate_id), sentence=sentence, source=source,
                text=candidate_text, systems=produced, verdict=candidate_verdict(per_criterion.values()),
                criteria=per_criterion, labels=judged, source_length=source.count(" ") + 1 if source else 0,
                rules=_rule_count(derivation), model_score=first.get("model_score"),
                true_score=first.get("true_score"), scores=own))
    return rows


def filter_rows(rows: list[CandidateRow], *, system: str | None = None, criterion: str | None = None,
                verdict: str | None = None, min_length: int | None = None, max_length: int | None = None,
                rules: int | None = None) -> list[CandidateRow]:
    """The rows matching every given filter (``criterion`` with ``verdict``: that criterion's verdict)."""
    kept = []
    for row in rows:
        if system is not None and system not in row.systems:
            continue
        if criterion is not None and criterion not in row.criteria:
            continue
        if verdict is not None and (row.criteria.get(criterion) if criterion else row.verdict) != verdict:
            continue
        if min_length is not None and row.source_length < min_length:
            continue
        if max_length is not None and row.source_length > max_length:
            continue
        if rules is not None and row.rules != rules:
            continue
        kept.append(row)
    return kept
