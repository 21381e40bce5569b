"""Every judged candidate of a study as one row: its text, systems, verdict, length, rules applied, scores.

The Inspect screen and ``parastudio inspect`` list these rows (green accepted,
red rejected, amber disagreed, blue adjudicated, :mod:`core.stats.verdicts`: an adjudicator's decision
settles the criterion its judges disagree on, and the row says whose decision it was). Read with a
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
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from sqlalchemy import text

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.protocol import CHOICE_TASK
from parastudio.core.stats.verdicts import (
    ADJUDICATED,
    candidate_verdict,
    is_positive,
    settled_verdict,
    shown_verdict,
    verdict_of_votes,
)
from parastudio.core.store.criteria import score_scales
from parastudio.core.store.database import Database
from parastudio.core.store.sentence_ids import sentence_id

# Systems whose model_score and true_score are the same model in the same units (log10).
TRUE_SCORE_COMPARABLE = ("beam", "mcpg-true", "mcpg-translator")
SEARCH_ERROR_TOLERANCE = 1e-4


@dataclass(frozen=True, slots=True)
class Adjudication:
    """An adjudicator's decision that settles one criterion of a candidate, and the verdict it gives it."""

    decision: str
    adjudicator: str
    verdict: str | None

    def to_json(self) -> dict:
        return {"decision": self.decision, "adjudicator": self.adjudicator, "verdict": self.verdict}

    def __str__(self) -> str:
        return f"{self.decision} by {self.adjudicator}"


@dataclass(slots=True)
class CandidateRow:
    candidate_id: int
    item: str
    sentence: str  # the study's key of the source (written as source_key, and as sentence_id when a number)
    source: str
    text: str
    systems: tuple[str, ...]
    verdict: str | None  # settled: an adjudicator's decision counts where the judges disagree (what statistics read)
    criteria: dict[str, str | None]  # criterion -> its settled verdict
    labels: dict[str, list[str]]  # criterion -> every judge's label
    source_length: int
    rules: int  # rewrites applied (identity segments not counted); -1 when the derivation is unknown
    model_score: float | None
    true_score: float | None
    # What each producing system reported: (candidate id, system, rank, model score, true score), by system name.
    producers: tuple[tuple, ...] = ()
    adjudications: dict[str, Adjudication] = field(default_factory=dict)  # criterion -> the decision settling it
    adjudicated: bool = False  # the decisions made the verdict other than the judges' labels alone make it

    @property
    def shown_verdict(self) -> str | None:
        """What the row reads: ``adjudicated`` when its verdict rests on an adjudicator's decision."""
        return ADJUDICATED if self.adjudicated else self.verdict

    def shown_criterion(self, criterion: str) -> str | None:
        return ADJUDICATED if criterion in self.adjudications else self.criteria.get(criterion)

    @property
    def adjudication_text(self) -> str:
        """The decisions, ``criterion=decision by adjudicator`` joined by ``; `` ('' when none)."""
        return "; ".join(f"{name}={adjudication}" for name, adjudication in self.adjudications.items())

    @property
    def scores(self) -> dict[str, dict]:
        """Per system: rank, model_score, true_score (built when asked: most rows are never asked)."""
        return {system: {"rank": rank, "model_score": model_score, "true_score": true_score}
                for _, system, rank, model_score, true_score in self.producers}

    @property
    def search_error(self) -> bool:
        for _, system, _, model_score, true_score in self.producers:
            if system in TRUE_SCORE_COMPARABLE and model_score is not None and true_score is not None \
                    and true_score - model_score > SEARCH_ERROR_TOLERANCE:
                return True
        return False

    def to_json(self) -> dict:
        return {"item": self.item, "sentence_id": sentence_id(self.sentence), "source_key": self.sentence,
                "source": self.source, "candidate": self.text,
                "systems": list(self.systems), "verdict": self.shown_verdict, "outcome": self.verdict,
                "criteria": {name: self.shown_criterion(name) for name in self.criteria}, "labels": self.labels,
                "adjudications": {name: a.to_json() for name, a in self.adjudications.items()}, "source_length": self.source_length, "rules": self.rules,
                "model_score": self.model_score, "true_score": self.true_score, "search_error": self.search_error}


# Separators of the packed labels (ASCII unit and record separators: never in a stored label).
_UNIT, _RECORD = "\x1f", "\x1e"


class _Sql:
    """The few spellings that differ between SQLite and PostgreSQL."""

    def __init__(self, dialect: str):
        self.sqlite = dialect == "sqlite"
        self.concat = "group_concat" if self.sqlite else "string_agg"
        self.char = "char" if self.sqlite else "chr"

    def packed_labels(self) -> str:
        # One row per judged candidate: every live label as "criterion_id US value", joined by RS.
        return (f"SELECT a.candidate_id, {self.concat}(CAST(a.criterion_id AS TEXT) || {self.char}(31) || j.value, "
                f"{self.char}(30)) FROM assignment a JOIN judgment j ON j.id = a.live_judgment_id "
                "WHERE a.study_id = :s AND a.kind = 'normal' AND a.candidate_id IS NOT NULL AND a.unit IS NULL "
                "AND j.value IS NOT NULL GROUP BY a.candidate_id")

    @staticmethod
    def decisions() -> str:
        # The adjudicators' live decisions on whole candidates, oldest first (of two, the older stands, as in the
        # dev set's export: core.tuning.devset).
        return ("SELECT a.candidate_id, a.criterion_id, n.name, j.value FROM assignment a "
                "JOIN judgment j ON j.id = a.live_judgment_id JOIN annotator n ON n.id = a.annotator_id "
                "WHERE a.study_id = :s AND a.kind = 'adjudication' AND a.candidate_id IS NOT NULL AND a.unit IS NULL "
                "AND j.value IS NOT NULL ORDER BY j.id")

    def candidates(self) -> str:
        # The rewrites of a stored derivation counted by the database ('"identity": false', as the store
        # writes it): moving 100,000 derivations into Python is most of what opening a large study would cost.
        # A derivation written otherwise comes back whole and is counted in Python.
        derivation = "CAST(c.derivation AS TEXT)"
        return (f"SELECT c.id, s.external_id, s.text, c.text, CASE WHEN {derivation} LIKE '%\"identity\"%' "
                f"THEN (length({derivation}) - length(replace({derivation}, '\"identity\": false', ''))) / 17 "
                f"END, CASE WHEN {derivation} LIKE '%\"identity\"%' THEN NULL ELSE {derivation} END "
                "FROM candidate c JOIN source_sentence s ON s.id = c.source_id "
                "WHERE c.study_id = :s AND c.kind = 'candidate' ORDER BY c.id")


def _fetch(connection, sql: str, study_id: int) -> list[tuple]:
    """All rows of ``sql`` (one ``:s`` parameter, the study). On SQLite through the driver's own cursor:
    SQLAlchemy's per-row processing doubles the time of reading a 100,000-candidate study."""
    if connection.dialect.name == "sqlite":
        return connection.connection.driver_connection.execute(sql, {"s": study_id}).fetchall()
    return connection.execute(text(sql), {"s": study_id}).fetchall()


def _rule_count(derivation_json: str | None) -> int:
    """Rewrites applied by a derivation (identity segments not counted); -1 when it is unknown."""
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


class _Judged:
    """Labels, per-criterion verdicts and the verdict of one packed label string, worked out once per distinct
    string: most candidates of a large study share one of a few (two judges agree; yes/no), so a 100,000-candidate
    study costs a few hundred verdicts, not 100,000. The dicts handed out are shared: read them, never change them."""

    def __init__(self, names: dict[int, str], scales: dict[str, list[str] | None]):
        self.names, self.scales = {str(k): v for k, v in names.items()}, scales
        self.votes: dict[tuple[str, str], bool | None] = {}
        self.known: dict[str, tuple | None] = {}

    def __call__(self, packed: str) -> tuple | None:
        try:
            return self.known[packed]
        except KeyError:
            pass
        labels: dict[str, list[str]] = {}
        cast: dict[str, list] = {}
        for record in packed.split(_RECORD):
            criterion_id, _, value = record.partition(_UNIT)
            name = self.names.get(criterion_id)
            if name is None:
                continue
            key = (name, value)
            if key not in self.votes:
                self.votes[key] = is_positive(value, self.scales[name])
            labels.setdefault(name, []).append(value)
            cast.setdefault(name, []).append(self.votes[key])
        if labels:
            per_criterion = {name: verdict_of_votes(votes) for name, votes in cast.items()}
            result = (labels, per_criterion, candidate_verdict(per_criterion.values()))
        else:
            result = None
        self.known[packed] = result
        return result

    def settle(self, judged: tuple, decisions: dict[str, tuple[str, str]]) -> tuple:
        """``judged`` (labels, per-criterion verdicts, verdict) with the adjudicators' ``decisions`` (criterion ->
        (adjudicator, decision)) settling the criteria whose judges' labels differ; adds the decisions that did
        and whether they changed the verdict. New dicts: the shared ones stay as they were."""
        labels, per_criterion, verdict = judged
        adjudications = {}
        for name, (adjudicator, decision) in decisions.items():
            settled = settled_verdict(labels[name], decision, self.scales[name]) if name in labels else None
            if settled is not None:
                adjudications[name] = Adjudication(decision, adjudicator, settled)
        if not adjudications:
            return per_criterion, verdict, {}, False
        settled = {**per_criterion, **{name: a.verdict for name, a in adjudications.items()}}
        outcome = candidate_verdict(settled.values())
        return settled, outcome, adjudications, shown_verdict(outcome, verdict) == ADJUDICATED


def candidate_rows(db: Database, study_id: int, *, criteria: set[str] | None = None) -> list[CandidateRow]:
    """Every candidate with at least one live judgment on a normal item (of ``criteria``, when given)."""
    with db.read_connection() as connection:
        sql = _Sql(connection.dialect.name)
        scales, names = {}, {}
        for criterion_id, name, scale, levels in connection.execute(text(
                "SELECT id, name, scale, levels FROM criterion WHERE study_id = :s"), {"s": study_id}).fetchall():
            if protocol_of(scale).item == CHOICE_TASK:  # a choice task judges no candidate
                continue
            if criteria is None or name in criteria:
                names[criterion_id] = name
                levels = json.loads(levels) if isinstance(levels, str) else (levels or [])
                # A score criterion (DA, ESA) gives no verdict: None tells is_positive so.
                scales[name] = None if scale in score_scales() else [str(level["value"]) for level in levels]
        judged_as = _Judged(names, scales)
        # The labels are grouped on a second connection while this one reads systems and candidates: the
        # database works without the interpreter lock, so on two cores the grouping costs almost nothing.
        with ThreadPoolExecutor(max_workers=1) as pool:
            packed_rows = pool.submit(_fetch_apart, db, sql.packed_labels(), study_id)
            rows = _rows(connection, sql, study_id, judged_as, packed_rows)
    return rows


def _fetch_apart(db: Database, sql: str, study_id: int) -> dict:
    with db.read_connection() as connection:
        return dict(_fetch(connection, sql, study_id))


def _rows(connection, sql: _Sql, study_id: int, judged_as: _Judged, packed_rows: Future) -> list[CandidateRow]:
    """The rows of the candidates ``packed_rows`` (a future: candidate id -> packed labels) finds judged."""
    producers: dict[int, list[tuple]] = {}
    for produced in _fetch(connection, (
            "SELECT cs.candidate_id, s.name, cs.rank, cs.model_score, cs.true_score FROM candidate_system cs "
            "JOIN system s ON s.id = cs.system_id WHERE s.study_id = :s ORDER BY s.name"), study_id):
        producers.setdefault(produced[0], []).append(produced)
    candidates = _fetch(connection, sql.candidates(), study_id)
    decisions: dict[int, dict[str, tuple[str, str]]] = {}
    for candidate_id, criterion_id, adjudicator, decision in _fetch(connection, sql.decisions(), study_id):
        name = judged_as.names.get(str(criterion_id))
        if name is not None:
            decisions.setdefault(candidate_id, {}).setdefault(name, (adjudicator, decision))
    packed = packed_rows.result()
    rows = []
    for candidate_id, sentence, source, candidate_text, rules, derivation in candidates:
        labels = packed.get(candidate_id)
        judged = judged_as(labels) if labels else None
        if judged is None:
            continue
        labels, per_criterion, verdict = judged
        adjudications, adjudicated = {}, False
        if candidate_id in decisions:
            per_criterion, verdict, adjudications, adjudicated = judged_as.settle(judged, decisions[candidate_id])
        produced = tuple(producers.get(candidate_id, ()))
        first = produced[0] if produced else (None, None, None, None, None)
        rows.append(CandidateRow(
            candidate_id, str(candidate_id), sentence, source, candidate_text,
            tuple(system for _, system, *_ in produced), verdict, per_criterion, labels,
            source.count(" ") + 1 if source else 0, int(rules) if rules is not None else _rule_count(derivation),
            first[3], first[4], produced, adjudications, adjudicated))
    return rows


def filter_rows(rows: list[CandidateRow], *, system: str | None = None, criterion: str | None = None,
                verdict: str | None = None, min_length: int | None = None, max_length: int | None = None,
                rules: int | None = None) -> list[CandidateRow]:
    """The rows matching every given filter (``criterion`` with ``verdict``: that criterion's verdict). A verdict
    matches what a row reads and what it settles to: ``rejected`` keeps the candidates an adjudicator's decision
    rejects (they read ``adjudicated``) beside those the judges rejected, as rule blame and the plots count them."""
    kept = []
    for row in rows:
        if system is not None and system not in row.systems:
            continue
        if criterion is not None and criterion not in row.criteria:
            continue
        if verdict is not None and verdict not in (
                (row.shown_criterion(criterion), row.criteria.get(criterion)) if criterion else
                (row.shown_verdict, row.verdict)):
            continue
        if min_length is not None and row.source_length < min_length:
            continue
        if max_length is not None and row.source_length > max_length:
            continue
        if rules is not None and row.rules != rules:
            continue
        kept.append(row)
    return kept
