"""Pairwise preference items (issue 30): two systems' candidates for one source sentence, side by side.

For every pair of systems (or the pairs named), the same number of source sentences is drawn among those both
systems have a candidate for, so each comparison rests on as many sentences as every other. Each system's
candidate for a sentence is its best ranked one. Which candidate is shown on the left is drawn per pair from a
seed recorded with it (``PreferencePair.order_seed``), and both judges of a pair see the same order, so their
answers can be compared. A string both systems produced is a tie by construction: it is recorded, never shown.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from typing import Sequence

from sqlalchemy import select

from core.store.database import Database
from core.store.models import Candidate, CandidateSystem, PreferencePair, SourceSentence, System


@dataclass
class PairsReport:
    """Per system pair ``"A:B"``: sentences drawn, and how many of them are ties by construction."""

    sentences: dict[str, int] = field(default_factory=dict)
    identical: dict[str, int] = field(default_factory=dict)


def parse_system_pairs(text: str) -> list[tuple[str, str]]:
    """``"A:B,C:D"`` as ``[("A", "B"), ("C", "D")]``; ValueError naming the part that is not ``A:B``."""
    pairs = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        a, colon, b = part.partition(":")
        if not colon or not a.strip() or not b.strip() or a.strip() == b.strip():
            raise ValueError(f"--pairs: expected SYSTEM_A:SYSTEM_B with two different systems, got {part!r}")
        pairs.append((a.strip(), b.strip()))
    if not pairs:
        raise ValueError("--pairs: expected at least one SYSTEM_A:SYSTEM_B")
    return pairs


def order_is_swapped(order_seed: str) -> bool:
    """Whether the pair's second system goes on the left: one fair coin drawn from the recorded seed."""
    return random.Random(order_seed).random() < 0.5


def best_candidates(session, study_id: int) -> dict[tuple[int, str], int]:
    """(source sentence, system) -> the system's best ranked candidate for it (unranked last, then by id)."""
    rows = session.execute(
        select(Candidate.source_id, System.name, CandidateSystem.candidate_id, CandidateSystem.rank)
        .select_from(CandidateSystem).join(System, System.id == CandidateSystem.system_id)
        .join(Candidate, Candidate.id == CandidateSystem.candidate_id)
        .where(System.study_id == study_id, Candidate.kind == "candidate")).all()
    best: dict[tuple[int, str], tuple[tuple, int]] = {}
    for source_id, system, candidate_id, rank in rows:
        key = (rank is None, rank or 0, candidate_id)
        if (source_id, system) not in best or key < best[(source_id, system)][0]:
            best[(source_id, system)] = (key, candidate_id)
    return {k: v for k, (_key, v) in best.items()}


def make_preference_pairs(session, study_id: int, seed: int,
                          system_pairs: Sequence[tuple[str, str]] | None = None) -> PairsReport:
    """Add the pairs of every system pair that has none yet (``system_pairs``: only those), balanced.

    Each new system pair gets ``n`` sentences, ``n`` the fewest sentences any of them shares; ValueError when
    a named system is unknown or two systems share no sentence.
    """
    best = best_candidates(session, study_id)
    systems = sorted({system for _source, system in best})
    if system_pairs is None:
        system_pairs = list(itertools.combinations(systems, 2))
    for a, b in system_pairs:
        for name in (a, b):
            if name not in systems:
                raise ValueError(f"--pairs: no system {name!r} in the study; it has {', '.join(systems) or 'none'}")
    made = {frozenset((left, right)) for left, right in session.execute(
        select(PreferencePair.left_system, PreferencePair.right_system).where(PreferencePair.study_id == study_id))}
    new = [(a, b) for a, b in dict.fromkeys(system_pairs) if frozenset((a, b)) not in made]
    report = PairsReport()
    if not new:
        return report
    shared = {(a, b): sorted(s for s, system in best if system == a and (s, b) in best) for a, b in new}
    for (a, b), sources in shared.items():
        if not sources:
            raise ValueError(f"systems {a!r} and {b!r} share no source sentence: they cannot be compared")
    per_pair = min(len(sources) for sources in shared.values())
    for (a, b), sources in shared.items():
        drawn = sorted(random.Random(f"{seed}:pairs:{a}:{b}").sample(sources, per_pair))
        identical = 0
        for source_id in drawn:
            order_seed = f"{seed}:order:{a}:{b}:{source_id}"
            left, right = (b, a) if order_is_swapped(order_seed) else (a, b)
            same = best[(source_id, a)] == best[(source_id, b)]
            identical += same
            session.add(PreferencePair(study_id=study_id, source_id=source_id, left_system=left, right_system=right,
                                       left_candidate_id=best[(source_id, left)],
                                       right_candidate_id=best[(source_id, right)],
                                       order_seed=order_seed, identical=same))
        report.sentences[f"{a}:{b}"] = per_pair
        report.identical[f"{a}:{b}"] = identical
    session.flush()
    return report


def ties_by_construction(db: Database, study_id: int) -> list[tuple[str, str, str]]:
    """(sentence id, left system, right system) of every pair whose two systems produced the same string."""
    with db.reading() as session:
        return [tuple(row) for row in session.execute(
            select(SourceSentence.external_id, PreferencePair.left_system, PreferencePair.right_system)
            .join(SourceSentence, SourceSentence.id == PreferencePair.source_id)
            .where(PreferencePair.study_id == study_id, PreferencePair.identical.is_(True))
            .order_by(PreferencePair.id))]
