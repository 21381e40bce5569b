"""Judging effort where it decides something: the next batch goes to sentences whose comparisons are undecided.

Issue 29's adaptive assignment. A batch is a number of source sentences; for
each, the candidates of the systems of every *open* pair are assigned (through
:func:`core.store.assignment.assign`, so judges, orders, repeats and controls
are as in a normal batch). A pair of systems is open until the anytime-valid
sign test (:mod:`core.stats.anytime_comparisons`) decides it, with a stopping
rule set per study:

* ``never``: every pair stays open (the fixed design, in batches);
* ``decided``: a pair closes as soon as it is decided;
* ``decided+K``: a pair closes once K of its sentences have entered after the
  judgment at which it was decided (a margin for the win rate's interval).

A sentence where the two systems of a pair produced the same strings (one
candidate credited to both) is a tie whatever the judges say, so it is never
given out for that pair. Sentences are taken in an order shuffled with the
study's seed; the rule and the criterion it reads are saved in the study's
settings (``sampling``) so reports can say how the items were sampled.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

from sqlalchemy import select

from parastudio.core.person_names import distinct_names
from parastudio.core.stats.anytime_comparisons import criterion_comparisons, decision_times
from parastudio.core.stats.anytime_sign_test import AnytimeSignTest
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.core.store.models import Assignment, Candidate, CandidateSystem, SourceSentence, Study, System
from parastudio.core.study_judgments import study_judgment_records


@dataclass(frozen=True)
class StoppingRule:
    """When a pair stops getting items: ``never``, ``decided`` or ``decided+K``."""

    decided: bool
    margin: int = 0

    @classmethod
    def parse(cls, text: str) -> "StoppingRule":
        if text == "never":
            return cls(False)
        if text == "decided":
            return cls(True)
        head, _, margin = text.partition("+")
        if head == "decided" and margin.isdigit():
            return cls(True, int(margin))
        raise ValueError(f"expected a stopping rule never, decided or decided+K (K a whole number), got {text!r}")

    def __str__(self) -> str:
        return "never" if not self.decided else "decided" if not self.margin else f"decided+{self.margin}"


@dataclass(frozen=True)
class AdaptiveBatch:
    sentences: list[str]  # the source sentences given out, in order
    candidates: int  # candidates assigned
    open_pairs: list[tuple[str, str]]
    closed_pairs: list[tuple[str, str]]
    skipped_identical: int  # (sentence, pair) combinations never given out: the same strings for both systems
    report: ops.AssignReport | None


def candidates_by_sentence(db: Database, study_id: int) -> dict[str, dict[str, frozenset[int]]]:
    """sentence -> system -> the ids of the candidates that system produced for it."""
    table: dict[str, dict[str, set[int]]] = {}
    with db.reading() as session:
        rows = session.execute(
            select(SourceSentence.external_id, System.name, Candidate.id)
            .join(Candidate, Candidate.source_id == SourceSentence.id)
            .join(CandidateSystem, CandidateSystem.candidate_id == Candidate.id)
            .join(System, System.id == CandidateSystem.system_id)
            .where(Candidate.study_id == study_id, Candidate.kind == "candidate")).all()
    for sentence, system, candidate in rows:
        table.setdefault(sentence, {}).setdefault(system, set()).add(candidate)
    return {sentence: {system: frozenset(ids) for system, ids in by_system.items()}
            for sentence, by_system in table.items()}


def open_pairs(db: Database, study_id: int, criterion: str, rule: StoppingRule, test: AnytimeSignTest,
               systems: Sequence[str]) -> list[tuple[str, str]]:
    """The pairs of ``systems`` (both orders of a pair name it) that still need judgments under ``rule``."""
    pairs = list(combinations(sorted(systems), 2))
    if not rule.decided:
        return pairs
    records = study_judgment_records(db, study_id)
    comparisons, _ = criterion_comparisons(records, criterion, test)
    decided = {frozenset((c.system_a, c.system_b)) for c in comparisons if c.decision != "undecided"}
    if rule.margin:
        after = {frozenset(pair): entered for pair, (_, entered) in decision_times(records, criterion, test).items()}
        decided = {pair for pair in decided if after[pair] >= rule.margin}
    return [pair for pair in pairs if frozenset(pair) not in decided]


def assign_next(db: Database, study_id: int, annotators: Sequence[str], *, sentences: int, criterion: str,
                rule: StoppingRule, test: AnytimeSignTest = AnytimeSignTest(),
                judges_per_item: int | None = None) -> AdaptiveBatch:
    """Assign the next ``sentences`` source sentences that can still decide an open pair (module docstring)."""
    if sentences < 1:
        raise ValueError("a batch needs at least one sentence")
    annotators = distinct_names(annotators, "annotator name")  # refused before the settings below change
    produced = candidates_by_sentence(db, study_id)
    systems = sorted({system for by_system in produced.values() for system in by_system})
    pairs = open_pairs(db, study_id, criterion, rule, test, systems)
    closed = [pair for pair in combinations(systems, 2) if pair not in pairs]
    with db.reading() as session:
        assigned = set(session.scalars(select(Assignment.candidate_id).distinct().where(
            Assignment.study_id == study_id, Assignment.candidate_id.is_not(None))))
        seed = session.get(Study, study_id).seed
    order = sorted(produced)
    random.Random(f"{seed}:adaptive").shuffle(order)
    chosen, items, identical = [], set(), 0
    for sentence in order:
        if len(chosen) == sentences:
            break
        by_system = produced[sentence]
        wanted = set()
        for a, b in pairs:
            if a not in by_system or b not in by_system:
                continue
            if by_system[a] == by_system[b]:
                identical += 1
                continue
            wanted |= (by_system[a] | by_system[b]) - assigned
        if wanted:
            chosen.append(sentence)
            items |= wanted
    ops.update_study_settings(db, study_id, sampling={"mode": "adaptive", "rule": str(rule), "criterion": criterion,
                                                      "alpha": test.alpha, "test": test.signature()})
    report = ops.assign(db, study_id, list(annotators), judges_per_item=judges_per_item,
                        only_candidates=items) if items else None
    return AdaptiveBatch(chosen, len(items), pairs, closed, identical, report)
