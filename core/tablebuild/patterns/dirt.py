"""DIRT (Lin and Pantel 2001), the monolingual baseline seed 002 §4.2 compares with, over our English patterns.

DIRT's extended distributional hypothesis: two patterns whose slots tend to be
filled by the same words mean the same. Lin and Pantel's paths have two slots
X and Y; seed 002 applies DIRT to its own patterns ("we implemented DIRT and
extracted paraphrase patterns from the English part"), so a pattern here is
an English pattern of Algorithm 1 and its slots are its numbered slots (one,
two or more); a slot's filler is the word the slot stands for (the head of its
subtree). Notation -> names: |p, s, w| -> ``counts[(p, s, w)]``.

* mutual information (Lin and Pantel, eq. 1):
  mi(p, s, w) = log( |p,s,w| × |*,s,*| / (|p,s,*| × |*,s,w|) ), only positive values kept;
* slot similarity (eq. 2): sim(s1, s2) = Σ_{w ∈ T(p1,s) ∩ T(p2,s)} (mi(p1,s,w) + mi(p2,s,w))
  / (Σ_{w ∈ T(p1,s)} mi(p1,s,w) + Σ_{w ∈ T(p2,s)} mi(p2,s,w));
* pattern similarity (eq. 3): the geometric mean of its slots' similarities (for two slots
  sqrt(sim(X1, X2) × sim(Y1, Y2)), as the paper).

Two patterns are compared when they have the same slots (same tags and numbers), slot n with
slot n; ``|*, s, *|`` counts over the patterns with slot s. As seed 002 §4.2: only patterns seen
more than ``min_count`` (10) times, and the top ``top`` (5) paraphrases of each target pattern.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Iterable, Sequence

from parastudio.core.vocabulary import parse_slot


def dirt_pairs(occurrences: Iterable[tuple[str, Sequence[str]]], *, min_count: int = 10,
               top: int = 5) -> list[tuple[str, str, float]]:
    """``(e1, e2, similarity)``, e2 among e1's ``top`` most similar patterns (similarity > 0), best first.

    ``occurrences``: ``(pattern, filler words in slot order)`` per pattern occurrence.
    """
    frequency: Counter = Counter()
    fillers: Counter = Counter()  # (pattern, slot, word)
    for pattern, words in occurrences:
        frequency[pattern] += 1
        slots = [t for t in pattern.split() if parse_slot(t)]
        for slot, word in zip(slots, words):
            fillers[(pattern, slot, word)] += 1
    kept = {p for p, n in frequency.items() if n > min_count}
    per_pattern_slot: Counter = Counter()  # |p, s, *|
    per_slot_word: Counter = Counter()  # |*, s, w|
    per_slot: Counter = Counter()  # |*, s, *|
    for (pattern, slot, word), n in fillers.items():
        if pattern in kept:
            per_pattern_slot[(pattern, slot)] += n
            per_slot_word[(slot, word)] += n
            per_slot[slot] += n
    mi: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for (pattern, slot, word), n in fillers.items():
        if pattern not in kept:
            continue
        value = math.log(n * per_slot[slot] / (per_pattern_slot[(pattern, slot)] * per_slot_word[(slot, word)]))
        if value > 0:
            mi[(pattern, slot)][word] = value
    # math.fsum: sums correctly rounded whatever the order (a set's order changes with PYTHONHASHSEED)
    totals = {key: math.fsum(values.values()) for key, values in mi.items()}
    by_signature: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for pattern in sorted(kept):
        by_signature[tuple(sorted(t for t in pattern.split() if parse_slot(t)))].append(pattern)
    result: list[tuple[str, str, float]] = []
    for signature, patterns in by_signature.items():
        # Candidates share at least one filler word in some slot (others have similarity 0).
        index: dict[tuple[str, str], set[str]] = defaultdict(set)
        for pattern in patterns:
            for slot in signature:
                for word in mi.get((pattern, slot), {}):
                    index[(slot, word)].add(pattern)
        for pattern in patterns:
            candidates = set()
            for slot in signature:
                for word in mi.get((pattern, slot), {}):
                    candidates |= index[(slot, word)]
            candidates.discard(pattern)
            scored = []
            for other in candidates:
                product = 1.0
                for slot in signature:
                    first, second = mi.get((pattern, slot), {}), mi.get((other, slot), {})
                    shared = math.fsum(first[w] + second[w] for w in first.keys() & second.keys())
                    denominator = totals.get((pattern, slot), 0.0) + totals.get((other, slot), 0.0)
                    product *= shared / denominator if denominator else 0.0
                similarity = product ** (1 / len(signature))
                if similarity > 0:
                    scored.append((-similarity, other))
            result += [(pattern, other, -negative) for negative, other in sorted(scored)[:top]]
    return result
