"""A candidate's derivation rule by rule, as a researcher reads it: each rewrite's source span (token positions
in the source sentence), its source and target phrases and its probability; identity segments (a word kept) are
left out. ``parastudio inspect --format jsonl`` writes it with each row."""

from __future__ import annotations

from typing import Iterable

from sqlalchemy import select

from parastudio.core.store.database import Database
from parastudio.core.store.models import Candidate

_BATCH = 500  # ids per query: well under SQLite's bound-parameter limit


def rule_steps(derivation) -> list[dict] | None:
    """The rewrites of a stored derivation, in order; None when no derivation is stored (an imported candidate)."""
    if not derivation:
        return None
    steps = []
    for segment in derivation:
        if not isinstance(segment, dict) or segment.get("identity") or segment.get("source") == segment.get("target"):
            continue
        span = segment.get("src")
        steps.append({"source_span": list(span) if span is not None else None, "source": segment.get("source"),
                      "target": segment.get("target"), "probability": segment.get("p")})
    return steps


def derivations_of(db: Database, candidate_ids: Iterable[int]) -> dict[int, list[dict] | None]:
    """:func:`rule_steps` of each candidate, read in batches."""
    ids = list(dict.fromkeys(candidate_ids))
    found: dict[int, list[dict] | None] = {}
    with db.reading() as session:
        for start in range(0, len(ids), _BATCH):
            for candidate_id, derivation in session.execute(
                    select(Candidate.id, Candidate.derivation).where(Candidate.id.in_(ids[start:start + _BATCH]))):
                found[candidate_id] = rule_steps(derivation)
    return found
