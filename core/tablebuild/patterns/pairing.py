"""English patterns aligned with the same pivot pattern, paired (seed 002 §3.3).

"If patterns e1 and e2 are aligned with the same pivot pattern c, e1 and e2 may
be paraphrase patterns." Both carry slot numbers given by c (Algorithm 2), so
e1's slot n and e2's slot n stand for the same pivot slot. A pair is written
with e1's slots renumbered from left to right per tag (the form in which e1 is
looked up in a sentence) and e2's slots renamed the same way: "give [NN_1]
[NN_2]" -> "give [NN_2] to [NN_1]" (seed 002 §4.4). A pattern is not paired
with itself (e2 = e1 with the same slot mapping); one whose slots it swaps is.

Every pivot of a pair is kept with its four feature values (h1, h2 from the
MLE counts, h3, h4 from lexical weighting): the pair's score under any weights
is then a function of what the table holds (:mod:`.scoring`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable

from parastudio.core.tablebuild.patterns.features import EntryFeatures
from parastudio.core.tablebuild.patterns.slot_format import canonical_numbers, renamed

Features = tuple[float, float, float, float]


@dataclass(frozen=True)
class PivotedPair:
    e1: str
    e2: str
    pivots: tuple[str, ...]
    features: tuple[Features, ...]  # (h1, h2, h3, h4) per pivot, in the order of ``pivots``


def pair_patterns(entries: Iterable[EntryFeatures]) -> dict[tuple[str, str], list[tuple[str, Features]]]:
    """(e1, e2) -> [(pivot, (h1, h2, h3, h4)), ...] for every two English patterns sharing a pivot."""
    by_pivot: dict[str, list[EntryFeatures]] = defaultdict(list)
    for entry in entries:
        by_pivot[entry.pivot].append(entry)
    pairs: dict[tuple[str, str], list[tuple[str, Features]]] = defaultdict(list)
    for pivot, group in by_pivot.items():
        if len(group) < 2:
            continue
        split = [entry.english.split() for entry in group]
        for a, first in enumerate(group):
            names = canonical_numbers(split[a])
            e1 = " ".join(renamed(split[a], names))
            for b, second in enumerate(group):
                if a == b:
                    continue
                e2 = " ".join(renamed(split[b], names))
                if e2 == e1:
                    continue
                pairs[(e1, e2)].append((pivot, (first.log_p_pivot_given_english, second.log_p_english_given_pivot,
                                                first.lw_pivot_given_english, second.lw_english_given_pivot)))
    return pairs
