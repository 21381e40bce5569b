"""Why a system produced one candidate: its changed words, its derivation rule by rule, its scores side by side,
every judge's label and every adjudicator's decision (researchers only: annotator screens never show this).

With the paraphrase table and LM the candidate was made with, the scores are
recomputed: the LM's log10 P(candidate), the channel score of the derivation
the system found (LM plus the log10 probabilities of its rules), and the exact
true score (seed 000, :mod:`core.engine.model.truescore`), beside the model score
the system reported. A model score below the true score is seed 000's search
error. With the bilingual phrase table a pivot table was built from, each
rule also shows the pivot phrases behind its probability (seed 002 §3.3:
p(e2|e1) = sum over f of p(e2|f) p(f|e1), the largest terms first).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from sqlalchemy import text

from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.text.changed_words import changed_tokens
from parastudio.core.store.clock import iso_time
from parastudio.core.store.database import Database

PIVOTS_SHOWN = 5


@dataclass
class RuleStep:
    source: str
    target: str
    probability: float
    log10_share: float  # this rule's share of the rules' total log10 probability
    pivots: list[tuple[str, float]] = field(default_factory=list)  # (pivot phrase, its term of the pivot sum)


@dataclass
class JudgeLabel:
    annotator: str
    criterion: str
    value: str | None
    text: str | None
    answered_at: str | None
    duration_ms: int | None
    comment: str | None
    flag: bool


@dataclass
class CandidateDetails:
    candidate_id: int
    source: str
    text: str
    systems: list[str]
    changed_source: set[int]
    changed_candidate: set[int]
    steps: list[RuleStep]
    scores: dict  # system -> {"rank", "model_score", "true_score"} as reported
    lm_log10: float | None = None
    channel_log10: float | None = None
    true_log10: float | None = None
    judges: list[JudgeLabel] = field(default_factory=list)
    adjudications: list[JudgeLabel] = field(default_factory=list)  # the adjudicators' live decisions, oldest first

    @property
    def search_error(self) -> bool:
        """A system's model score below the exact true score it reported with it (seed 000 §3); the true
        score recomputed here stands in where the system reported none."""
        for system, score in self.scores.items():
            truth = score.get("true_score") if score.get("true_score") is not None else self.true_log10
            if system in ("beam", "mcpg-true", "mcpg-translator") and truth is not None \
                    and score.get("model_score") is not None and truth - score["model_score"] > 1e-4:
                return True
        return False


def pivot_phrases(e1: str, e2: str, bilingual: ParaphraseTable, limit: int | None = PIVOTS_SHOWN
                  ) -> list[tuple[str, float]]:
    """The pivots f behind p(e2|e1), each with its term p(e2|f) p(f|e1), largest first.

    ``bilingual`` is the Moses table the pivot was built from, loaded with its
    columns (``c0`` = p(first|second), ``c2`` = p(second|first), first field
    English): p(f|e1) is ``c2`` of the row e1 -> f and p(e2|f) is ``c0`` of e2 -> f.
    """
    forth = {rule.target: rule.features.get("c2") for rule in bilingual.rules_for(tuple(e1.split()))}
    terms = []
    for rule in bilingual.rules_for(tuple(e2.split())):
        p_f_given_e1 = forth.get(rule.target)
        p_e2_given_f = rule.features.get("c0")
        if isinstance(p_f_given_e1, float) and isinstance(p_e2_given_f, float):
            terms.append((" ".join(rule.target), p_f_given_e1 * p_e2_given_f))
    return sorted(terms, key=lambda term: (-term[1], term[0]))[:limit]


def candidate_details(db: Database, candidate_id: int, *, table: ParaphraseTable | None = None,
                      lm: LanguageModel | None = None, bilingual: ParaphraseTable | None = None) -> CandidateDetails:
    with db.read_connection() as connection:
        row = connection.execute(text(
            "SELECT c.text, s.text, c.scores, c.derivation FROM candidate c JOIN source_sentence s "
            "ON s.id = c.source_id WHERE c.id = :c"), {"c": candidate_id}).first()
        if row is None:
            raise LookupError(f"no candidate {candidate_id}")
        candidate_text, source, scores, derivation = row
        systems = [name for (name,) in connection.execute(text(
            "SELECT s.name FROM candidate_system cs JOIN system s ON s.id = cs.system_id "
            "WHERE cs.candidate_id = :c ORDER BY s.name"), {"c": candidate_id})]
        judges, adjudications = (
            [JudgeLabel(annotator, criterion, value, answer_text, iso_time(_as_datetime(answered_at)), duration,
                        comment, bool(flag))
             for annotator, criterion, value, answer_text, answered_at, duration, comment, flag in
             connection.execute(text(
                 "SELECT an.name, cr.name, j.value, j.text, j.answered_at, j.duration_ms, j.comment, j.flag "
                 "FROM assignment a JOIN judgment j ON j.id = a.live_judgment_id "
                 "JOIN annotator an ON an.id = a.annotator_id JOIN criterion cr ON cr.id = a.criterion_id "
                 f"WHERE a.candidate_id = :c AND a.kind = :kind ORDER BY {order}"),
                 {"c": candidate_id, "kind": kind})]
            for kind, order in (("normal", "cr.position, an.name"), ("adjudication", "j.id")))
    scores = json.loads(scores) if isinstance(scores, str) else (scores or {})
    derivation = json.loads(derivation) if isinstance(derivation, str) else derivation
    changed_source, changed_candidate = changed_tokens(source, candidate_text, derivation)
    rewrites = [s for s in (derivation or []) if isinstance(s, dict) and not s.get("identity")
                and s.get("source") != s.get("target")]
    logs = [_log10(s.get("p")) for s in rewrites]
    total = sum(log for log in logs if log is not None)
    steps = [RuleStep(s["source"], s["target"], float(s.get("p") or 0.0),
                      (log / total) if (log is not None and total) else 0.0,
                      pivot_phrases(s["source"], s["target"], bilingual) if bilingual is not None else [])
             for s, log in zip(rewrites, logs)]
    details = CandidateDetails(candidate_id, source, candidate_text, systems, changed_source, changed_candidate,
                               steps, scores, judges=judges, adjudications=adjudications)
    if lm is not None:
        details.lm_log10 = lm.score(candidate_text)
        details.channel_log10 = details.lm_log10 + total
    if table is not None:
        truth = TrueScorer(table, lm).score(source.split(), candidate_text.split())
        details.true_log10 = truth.log10_score
    return details


def _as_datetime(value):
    """SQLite hands raw SQL datetimes back as text; PostgreSQL as datetimes."""
    if isinstance(value, str):
        from datetime import datetime

        return datetime.fromisoformat(value)
    return value


def _log10(probability) -> float | None:
    import math

    try:
        value = float(probability)
    except (TypeError, ValueError):
        return None
    return math.log10(value) if value > 0 else None
