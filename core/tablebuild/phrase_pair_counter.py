"""Extract, count and score phrase pairs of a whole corpus in one fast pass.

Same results, float for float and line for line, as the readable reference in
:mod:`core.tablebuild.phrase_extraction` (Moses' extraction loop) and
:mod:`core.tablebuild.phrase_scoring` (Moses' four scores); the tests check the two
against each other. This version exists because the reference spends most of
its time on per-occurrence objects: a 30,000-verse corpus yields about five
million phrase-pair occurrences. What changes:

* the extraction loop keeps the covered target range, the "still linked
  outside" counts and the span's links incrementally as the source span grows,
  instead of recomputing them for every span;
* an occurrence is one dict increment keyed by ``(source, target, alignment)``,
  the alignment packed as ``bytes`` ``s0 t0 s1 t1 ...`` (relative indices), whose
  byte order is the order of the link tuples, so "most frequent alignment, ties
  to the smallest" is the same choice;
* the word translation probabilities w(e|f), w(f|e) are divided out once, and the
  link layout of each distinct (alignment, lengths) is computed once.

The arithmetic of each score is the reference's, in the same order (Python
``sum`` from 0, then one division, then the running product), so the floats
are identical; it lives in :mod:`core.tablebuild.phrase_table_lines`, the one
writer that the Spark build (:mod:`core.tablebuild.spark_phrase_table`) feeds too.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Iterator, Sequence

from parastudio.core.tablebuild.alignment import Link
from parastudio.core.tablebuild.phrase_scoring import NULL
from parastudio.core.tablebuild.phrase_table_lines import Layout, alignment_layout, moses_line, table_sort_key


class CorpusPhraseCounts:
    """Occurrences of every (source phrase, target phrase, internal alignment) and the word links of a corpus."""

    def __init__(self, max_length: int = 7) -> None:
        if not 1 <= max_length <= 255:
            raise ValueError(f"max_length must be in 1..255; got {max_length}")
        self.max_length = max_length
        self.occurrences: Counter = Counter()  # (source, target, packed alignment) -> count
        self.word_pairs: Counter = Counter()  # (f, e) -> links, NULL for an unaligned word
        self.occurrence_total = 0

    def add_sentence(self, source_words: Sequence[str], target_words: Sequence[str], links: Iterable[Link]) -> None:
        m, n, limit = len(source_words), len(target_words), self.max_length
        targets_of: list[list[int]] = [[] for _ in range(m)]
        aligned_count_target = [0] * n
        word_pairs = self.word_pairs
        for s, t in links:
            if not (0 <= s < m and 0 <= t < n):
                raise ValueError(f"link {s}-{t} outside a {m}x{n} sentence pair")
            targets_of[s].append(t)
            aligned_count_target[t] += 1
            word_pairs[(source_words[s], target_words[t])] += 1
        for t in range(n):
            if not aligned_count_target[t]:
                word_pairs[(NULL, target_words[t])] += 1
        for s in range(m):
            targets_of[s].sort()
            if not targets_of[s]:
                word_pairs[(source_words[s], NULL)] += 1

        occurrences = self.occurrences
        found = 0
        for source_start in range(m):
            used = list(aligned_count_target)
            min_target, max_target = n, -1
            span_links: list[tuple[int, int]] = []  # (relative source, absolute target), sorted
            for source_end in range(source_start, min(source_start + limit, m)):
                for t in targets_of[source_end]:
                    if t < min_target:
                        min_target = t
                    if t > max_target:
                        max_target = t
                    used[t] -= 1
                    span_links.append((source_end - source_start, t))
                if max_target < 0:
                    continue
                if max_target - min_target >= limit:
                    break  # the covered target range only widens as the source span grows
                if any(used[t] > 0 for t in range(min_target, max_target + 1)):
                    continue
                source = " ".join(source_words[source_start : source_end + 1])
                target_start = min_target
                while (
                    target_start >= 0
                    and target_start > max_target - limit
                    and (target_start == min_target or aligned_count_target[target_start] == 0)
                ):
                    packed = bytes([value for s, t in span_links for value in (s, t - target_start)])
                    target_end = max_target
                    while (
                        target_end < n
                        and target_end < target_start + limit
                        and (target_end == max_target or aligned_count_target[target_end] == 0)
                    ):
                        occurrences[(source, " ".join(target_words[target_start : target_end + 1]), packed)] += 1
                        found += 1
                        target_end += 1
                    target_start -= 1
        self.occurrence_total += found

    def moses_lines(self) -> Iterator[str]:
        """The scored table, one Moses line each (with newline), in LC_ALL=C order; see phrase_scoring."""
        source_totals: Counter = Counter()
        target_totals: Counter = Counter()
        for (f, e), count in self.word_pairs.items():
            source_totals[f] += count
            target_totals[e] += count
        # w(e|f) and w(f|e), divided as WordTranslationTable divides them.
        e_given_f = {key: count / source_totals[key[0]] for key, count in self.word_pairs.items()}
        f_given_e = {key: count / target_totals[key[1]] for key, count in self.word_pairs.items()}

        pairs: dict[tuple[str, str], list] = {}  # (f, e) -> [count, best count, best packed alignment]
        source_counts: Counter = Counter()
        target_counts: Counter = Counter()
        for (f, e, packed), count in self.occurrences.items():
            source_counts[f] += count
            target_counts[e] += count
            entry = pairs.get((f, e))
            if entry is None:
                pairs[(f, e)] = [count, count, packed]
            else:
                entry[0] += count
                if count > entry[1] or (count == entry[1] and packed < entry[2]):
                    entry[1], entry[2] = count, packed
        self.pair_total, self.source_total, self.target_total = len(pairs), len(source_counts), len(target_counts)

        layouts: dict[tuple[bytes, int, int], Layout] = {}
        for f, e in sorted(pairs, key=lambda key: table_sort_key(*key)):
            count_pair, _, packed = pairs[(f, e)]
            layout_key = (packed, len(f.split()), len(e.split()))
            layout = layouts.get(layout_key)
            if layout is None:
                layout = layouts[layout_key] = alignment_layout(*layout_key)
            yield moses_line(f, e, layout, target_counts[e], source_counts[f], count_pair, f_given_e, e_given_f)
