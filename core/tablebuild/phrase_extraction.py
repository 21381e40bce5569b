"""Phrase pairs consistent with a word alignment (Koehn et al. 2003; Moses' ``extract``).

A source span and a target span form a phrase pair when at least one link
joins them, no link joins a word inside one span to a word outside the other,
and neither span is longer than ``max_length`` (Moses' default 7). For each
source span, Moses takes the smallest target span covering its links and then
also every widening of it by unaligned target words at either edge (within the
length limit); unaligned source words at span edges are covered because every
source span is tried. This is the loop of Moses' phrase-extract/extract-main.cpp
with our source in the role of its "E" loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Sequence

from parastudio.core.tablebuild.alignment import Link


@dataclass(frozen=True)
class PhrasePair:
    source_start: int
    source_end: int  # inclusive
    target_start: int
    target_end: int  # inclusive
    links: tuple[Link, ...]  # relative to the spans' starts, sorted (source, target)


def extract_phrase_pairs(
    source_length: int, target_length: int, links: Sequence[Link], *, max_length: int = 7
) -> Iterator[PhrasePair]:
    """Yield every phrase pair consistent with ``links`` (each exactly once)."""
    targets_of: list[list[int]] = [[] for _ in range(source_length)]
    aligned_count_target = [0] * target_length
    for s, t in links:
        if not (0 <= s < source_length and 0 <= t < target_length):
            raise ValueError(f"link {s}-{t} outside a {source_length}x{target_length} sentence pair")
        targets_of[s].append(t)
        aligned_count_target[t] += 1
    for source_start in range(source_length):
        for source_end in range(source_start, min(source_start + max_length, source_length)):
            min_target, max_target = target_length, -1
            used = list(aligned_count_target)
            for s in range(source_start, source_end + 1):
                for t in targets_of[s]:
                    min_target = min(min_target, t)
                    max_target = max(max_target, t)
                    used[t] -= 1
            if max_target < 0 or max_target - min_target >= max_length:
                continue
            # A target word in the span still "used" is linked to a source word outside.
            if any(used[t] > 0 for t in range(min_target, max_target + 1)):
                continue
            target_start = min_target
            while (
                target_start >= 0
                and target_start > max_target - max_length
                and (target_start == min_target or aligned_count_target[target_start] == 0)
            ):
                target_end = max_target
                while (
                    target_end < target_length
                    and target_end < target_start + max_length
                    and (target_end == max_target or aligned_count_target[target_end] == 0)
                ):
                    inside = tuple(
                        sorted(
                            (s - source_start, t - target_start)
                            for s in range(source_start, source_end + 1)
                            for t in targets_of[s]
                        )
                    )
                    yield PhrasePair(source_start, source_end, target_start, target_end, inside)
                    target_end += 1
                target_start -= 1
