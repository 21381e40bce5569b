"""Counts of aligned (English, pivot) patterns over a corpus (seed 002 §3.3, Equation 2).

An aligned pattern's identity is its English pattern with slots numbered
through the pivot, and the pivot pattern: ``("take [NN_1] into
consideration", "tener en cuenta [NN_1]")``. The English pattern's marginal
counts it under its own left-to-right numbering (:func:`.slot_format.canonical`),
so "give [NN_2] [NN_1]" and "give [NN_1] [NN_2]" are one English pattern e
seen with two different pivots-with-slot-mappings.

Each aligned pattern keeps the internal word alignments it was seen with;
its lexical weights use the most frequent one (ties: the smallest), as Moses
scores a phrase pair seen with several (:mod:`core.tablebuild.phrase_scoring`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterator

from parastudio.core.tablebuild.patterns.pivot_patterns import AlignedPattern, PatternLink
from parastudio.core.tablebuild.patterns.slot_format import canonical


@dataclass(frozen=True)
class AlignedEntry:
    """One distinct aligned pattern: ``english`` numbered through ``pivot``; ``count`` = count(c, e)."""

    english: str
    pivot: str
    count: int
    links: tuple[PatternLink, ...]


class AlignedPatternCounts:
    def __init__(self) -> None:
        self.joint: dict[tuple[str, str], Counter] = {}
        self.english_totals: Counter = Counter()  # canonical English pattern -> Σ_c count(c, e)
        self.pivot_totals: Counter = Counter()  # pivot pattern -> Σ_e count(c, e)
        self.occurrences = 0

    def add(self, aligned: AlignedPattern) -> None:
        english, pivot = " ".join(aligned.english), " ".join(aligned.pivot)
        seen = self.joint.get((english, pivot))
        if seen is None:
            seen = self.joint[(english, pivot)] = Counter()
        seen[aligned.links] += 1
        self.english_totals[" ".join(canonical(aligned.english))] += 1
        self.pivot_totals[pivot] += 1
        self.occurrences += 1

    def merge(self, other: "AlignedPatternCounts") -> None:
        for key, seen in other.joint.items():
            mine = self.joint.get(key)
            if mine is None:
                self.joint[key] = Counter(seen)
            else:
                mine.update(seen)
        self.english_totals.update(other.english_totals)
        self.pivot_totals.update(other.pivot_totals)
        self.occurrences += other.occurrences

    def __len__(self) -> int:
        return len(self.joint)

    def entries(self) -> Iterator[AlignedEntry]:
        """Every distinct aligned pattern with its count and most frequent internal alignment."""
        for (english, pivot), seen in self.joint.items():
            links = min(seen.items(), key=lambda item: (-item[1], item[0]))[0]
            yield AlignedEntry(english, pivot, sum(seen.values()), links)

    def english_total(self, english: str) -> int:
        return self.english_totals[" ".join(canonical(english.split()))]
