"""A pattern paraphrase table from parsed English, pivot sentences and their word alignment (seed 002 §3).

Steps: the English patterns of each sentence (given, Algorithm 1), their aligned
pivot patterns (Algorithm 2, :mod:`.pivot_patterns`), counted over the corpus
(:mod:`.aligned_counts`); the w table of the word alignment (Eq. 6); h1..h4 per
aligned pattern (:mod:`.features`); patterns sharing a pivot paired
(:mod:`.pairing`) and written with Eq. 3's score under ``lambdas``, kept when it
exceeds ``threshold`` (:mod:`.scoring`, :mod:`.table_file`).
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from parastudio.core.progress import Progress, no_progress
from parastudio.core.tablebuild.patterns.aligned_counts import AlignedPatternCounts
from parastudio.core.tablebuild.patterns.features import entry_features
from parastudio.core.tablebuild.patterns.pairing import pair_patterns
from parastudio.core.tablebuild.patterns.pivot_patterns import Element, aligned_pivot_pattern
from parastudio.core.tablebuild.patterns.scoring import DEFAULT_LAMBDAS, KEEP_ALL, extracted
from parastudio.core.tablebuild.patterns.table_file import PatternPair, scored_pair, write_table
from parastudio.core.tablebuild.phrase_scoring import WordTranslationTable

# One sentence pair: English words, the elements of each of its English patterns, pivot words, (English, pivot) links.
SentencePatterns = tuple[Sequence[str], Sequence[Sequence[Element]], Sequence[str], Sequence[tuple[int, int]]]


def count_aligned_patterns(sentences: Iterable[SentencePatterns], *, total: int | None = None,
                           progress: Progress = no_progress) -> tuple[AlignedPatternCounts, WordTranslationTable, dict]:
    counts, words = AlignedPatternCounts(), WordTranslationTable()
    english_patterns = unaligned = 0
    for number, (english, patterns, pivot, links) in enumerate(sentences, start=1):
        words.add_sentence(english, pivot, links)
        for elements in patterns:
            english_patterns += 1
            aligned = aligned_pivot_pattern(elements, english, pivot, links)
            if aligned is None:
                unaligned += 1
            else:
                counts.add(aligned)
        if number % 1000 == 0:
            progress(number, total, "aligned patterns")
    return counts, words, {"english_pattern_occurrences": english_patterns, "without_pivot_pattern": unaligned,
                           "aligned_pattern_occurrences": counts.occurrences, "distinct_aligned_patterns": len(counts),
                           "distinct_english_patterns": len(counts.english_totals),
                           "distinct_pivot_patterns": len(counts.pivot_totals)}


def _table_order(pairs: dict, lambdas: Sequence[float], threshold: float) -> Iterator[PatternPair]:
    by_e1: dict[str, list[PatternPair]] = {}
    for (e1, e2), pivots in pairs.items():
        pair = scored_pair(e1, e2, pivots, lambdas)
        if pair.score > 0 and extracted(math.log(pair.score), threshold):
            by_e1.setdefault(e1, []).append(pair)
    for e1 in sorted(by_e1):
        yield from sorted(by_e1[e1], key=lambda pair: (-pair.score, pair.e2))


def build_pattern_table(sentences: Iterable[SentencePatterns], output: Path, *, lambdas: Sequence[float] = DEFAULT_LAMBDAS,
                        threshold: float = KEEP_ALL, total: int | None = None, meta: dict | None = None,
                        progress: Progress = no_progress, compresslevel: int = 6) -> dict:
    """Write the pattern table (and its sidecar) to ``output``; return counts and timings."""
    timings: dict[str, float] = {}
    started = time.perf_counter()
    counts, words, stats = count_aligned_patterns(sentences, total=total, progress=progress)
    timings["align_patterns_seconds"] = time.perf_counter() - started
    started = time.perf_counter()
    entries = list(entry_features(counts, words))
    timings["features_seconds"] = time.perf_counter() - started
    started = time.perf_counter()
    progress(0, None, "pairing")
    pairs = pair_patterns(entries)
    stats["pivot_clusters_with_pairs"] = len({pivot for pivots in pairs.values() for pivot, _ in pivots})
    stats["pair_pivot_terms"] = sum(len(pivots) for pivots in pairs.values())
    stats["candidate_pairs"] = len(pairs)
    timings["pairing_seconds"] = time.perf_counter() - started
    started = time.perf_counter()
    lambdas = tuple(float(value) for value in lambdas)
    written = write_table(_table_order(pairs, lambdas, threshold), output,
                          {"lambdas": list(lambdas), "threshold": threshold, **(meta or {}), "build": stats},
                          compresslevel=compresslevel)
    timings["score_and_write_seconds"] = time.perf_counter() - started
    stats.update({"pairs": written, "distinct_e1": len({e1 for e1, _ in pairs}), "lambdas": list(lambdas),
                  "threshold": threshold, "timings": timings, "seconds": sum(timings.values())})
    return stats
