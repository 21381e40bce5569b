"""Pairwise preference items (issue 30): two systems' candidates for one source sentence, side by side.

For every pair of systems (or the pairs named), the same number of source sentences is drawn among those both
systems have a candidate for, so each comparison rests on as many sentences as every other; a later assignment
(after more candidates are imported, or with more pairs named) tops every pair compared up to the same number. Each system's
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

from parastudio.core.person_names import clean_name
from parastudio.core.store.database import Database
from parastudio.core.store.models import Candidate, CandidateSystem, PreferencePair, SourceSentence, System


@dataclass
class PairsReport:
    """Per system pair ``"A:B"``: sentences drawn by this assignment, how many of them are ties by construction,
    and the pair's sentences in all (this and earlier assignments); ``unbalanced``: the pairs that already have
    more sentences than another pair can reach (pairs are never removed), with their count."""

    sentences: dict[str, int] = field(default_factory=dict)
    identical: dict[str, int] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    unbalanced: dict[str, int] = field(default_factory=dict)


def parse_system_pairs(text: str) -> list[tuple[str, str]]:
    """``"A:B,C:D"`` as ``[("A", "B"), ("C", "D")]``; ValueError naming the part that is not ``A:B``."""
    pairs = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        a, colon, b = part.partition(":")
        if colon and a.strip() and b.strip():
            # As the study stores system names, before comparing them: "zoë" composed and decomposed are one.
            a, b = clean_name(a, "system name"), clean_name(b, "system name")
        if not colon or not a.strip() or not b.strip() or a == b:
            raise ValueError(f"--pairs: expected SYSTEM_A:SYSTEM_B with two different systems, got {part!r}")
        pairs.append((a, b))
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
    """Add pairs so that every system pair compared has the same number of sentences, across assignments.

    The system pairs compared are those the study already has pairs for and those asked now (``system_pairs``,
    default every pair of systems). Each is topped up to ``n`` sentences, ``n`` the fewest sentences any of them
    shares, with sentences it does not have yet (candidates imported since the last assignment); a pair that
    already has more than ``n`` keeps them and is reported ``unbalanced``. ValueError when a named system is
    unknown or two systems share no sentence.
    """
    best = best_candidates(session, study_id)
    systems = sorted({system for _source, system in best})
    if system_pairs is None:
        system_pairs = list(itertools.combinations(systems, 2))
    for a, b in system_pairs:
        for name in (a, b):
            if name not in systems:
                raise ValueError(f"--pairs: no system {name!r} in the study; it has {', '.join(systems) or 'none'}")
    made: dict[frozenset, set[int]] = {}
    for left, right, source_id in session.execute(
            select(PreferencePair.left_system, PreferencePair.right_system, PreferencePair.source_id)
            # A training pair (core.store.training) names no two systems: it compares none.
            .where(PreferencePair.study_id == study_id, PreferencePair.left_system != PreferencePair.right_system)):
        made.setdefault(frozenset((left, right)), set()).add(source_id)
    compared = {frozenset(pair): pair for pair in [tuple(sorted(p)) for p in made] + list(system_pairs)}
    shared = {(a, b): sorted(s for s, system in best if system == a and (s, b) in best)
              for a, b in compared.values()}
    for (a, b), sources in shared.items():
        if not sources:
            raise ValueError(f"systems {a!r} and {b!r} share no source sentence: they cannot be compared")
    per_pair = min(len(sources) for sources in shared.values())
    report = PairsReport()
    for (a, b), sources in shared.items():
        have = made.get(frozenset((a, b)), set())
        report.totals[f"{a}:{b}"] = max(len(have), per_pair)
        if len(have) > per_pair:
            report.unbalanced[f"{a}:{b}"] = len(have)
        if len(have) >= per_pair:
            continue
        # A pair's first draw keeps the seed it always had; a top-up draws among the sentences it lacks.
        draw = random.Random(f"{seed}:pairs:{a}:{b}" + (f":{len(have)}" if have else ""))
        drawn = sorted(draw.sample([s for s in sources if s not in have], per_pair - len(have)))
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
        report.sentences[f"{a}:{b}"] = len(drawn)
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
