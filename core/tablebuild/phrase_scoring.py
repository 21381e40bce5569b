"""Phrase-table scores as Moses computes them (Koehn et al. 2003; Moses ``score``/``consolidate``).

Notation (Moses'): f is the source phrase (first field of the table), e the
target phrase. For every phrase pair the table holds, in this order,

    p(f|e)    = count(f, e) / count(e)        inverse phrase translation probability
    lex(f|e)                                  inverse lexical weighting
    p(e|f)    = count(f, e) / count(f)        direct phrase translation probability
    lex(e|f)                                  direct lexical weighting

with counts over all extracted phrase-pair occurrences. Lexical weighting
(Koehn et al. 2003, §3.3):

    lex(e|f, a) = Π_i  1/|{j : (j,i) ∈ a}|  Σ_{(j,i) ∈ a} w(e_i|f_j),
    and w(e_i|NULL) for a word e_i with no link,

where w comes from the word-aligned corpus as in Moses' train-model.perl
(get_lexical): w(e|f) = count(f, e) / Σ_e' count(f, e'), an unaligned target
word counting as aligned to NULL on the source side and vice versa. When a
phrase pair was seen with several internal alignments, Moses scores the most
frequent one; ties go to the smallest alignment in (source, target) order.

The counts field is ``count(e) count(f) count(f,e)`` (target, source, pair),
as in Moses' consolidate output.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from parastudio.core.tablebuild.alignment import Link

NULL = "NULL"


@dataclass
class WordTranslationTable:
    """w(e|f) and w(f|e) from a word-aligned corpus, NULL included."""

    pair_counts: Counter = field(default_factory=Counter)  # (f, e) -> count
    source_totals: Counter = field(default_factory=Counter)  # f -> Σ_e count(f, e)
    target_totals: Counter = field(default_factory=Counter)  # e -> Σ_f count(f, e)

    def add_sentence(self, source: Sequence[str], target: Sequence[str], links: Iterable[Link]) -> None:
        source_aligned = [False] * len(source)
        target_aligned = [False] * len(target)
        for s, t in links:
            source_aligned[s] = target_aligned[t] = True
            self.pair_counts[(source[s], target[t])] += 1
            self.source_totals[source[s]] += 1
            self.target_totals[target[t]] += 1
        for t, aligned in enumerate(target_aligned):
            if not aligned:
                self.pair_counts[(NULL, target[t])] += 1
                self.source_totals[NULL] += 1
                self.target_totals[target[t]] += 1
        for s, aligned in enumerate(source_aligned):
            if not aligned:
                self.pair_counts[(source[s], NULL)] += 1
                self.source_totals[source[s]] += 1
                self.target_totals[NULL] += 1

    def target_given_source(self, target_word: str, source_word: str) -> float:
        """w(e|f); ``source_word`` may be NULL."""
        total = self.source_totals.get(source_word, 0)
        return self.pair_counts.get((source_word, target_word), 0) / total if total else 0.0

    def source_given_target(self, source_word: str, target_word: str) -> float:
        """w(f|e); ``target_word`` may be NULL."""
        total = self.target_totals.get(target_word, 0)
        return self.pair_counts.get((source_word, target_word), 0) / total if total else 0.0


def lexical_weight_target_given_source(
    source: Sequence[str], target: Sequence[str], links: Iterable[Link], words: WordTranslationTable
) -> float:
    """lex(e|f, a): each target word explained by its linked source words, or by NULL."""
    linked: list[list[int]] = [[] for _ in target]
    for s, t in links:
        linked[t].append(s)
    weight = 1.0
    for t, sources in enumerate(linked):
        if not sources:
            weight *= words.target_given_source(target[t], NULL)
        else:
            weight *= sum(words.target_given_source(target[t], source[s]) for s in sources) / len(sources)
    return weight


def lexical_weight_source_given_target(
    source: Sequence[str], target: Sequence[str], links: Iterable[Link], words: WordTranslationTable
) -> float:
    """lex(f|e, a): each source word explained by its linked target words, or by NULL."""
    linked: list[list[int]] = [[] for _ in source]
    for s, t in links:
        linked[s].append(t)
    weight = 1.0
    for s, targets in enumerate(linked):
        if not targets:
            weight *= words.source_given_target(source[s], NULL)
        else:
            weight *= sum(words.source_given_target(source[s], target[t]) for t in targets) / len(targets)
    return weight


@dataclass(frozen=True)
class ScoredPhrasePair:
    source: str
    target: str
    p_source_given_target: float
    lex_source_given_target: float
    p_target_given_source: float
    lex_target_given_source: float
    alignment: tuple[Link, ...]
    count_target: int
    count_source: int
    count_pair: int

    def moses_line(self) -> str:
        scores = " ".join(
            repr(value)
            for value in (
                self.p_source_given_target,
                self.lex_source_given_target,
                self.p_target_given_source,
                self.lex_target_given_source,
            )
        )
        alignment = " ".join(f"{s}-{t}" for s, t in self.alignment)
        return (
            f"{self.source} ||| {self.target} ||| {scores} ||| {alignment} ||| "
            f"{self.count_target} {self.count_source} {self.count_pair}"
        )


class PhrasePairCounts:
    """Occurrences of (source phrase, target phrase, internal alignment)."""

    def __init__(self) -> None:
        self.alignments: dict[tuple[str, str], dict[tuple[Link, ...], int]] = defaultdict(dict)
        self.source_counts: Counter = Counter()
        self.target_counts: Counter = Counter()

    def add(self, source: str, target: str, links: tuple[Link, ...]) -> None:
        seen = self.alignments[(source, target)]
        seen[links] = seen.get(links, 0) + 1
        self.source_counts[source] += 1
        self.target_counts[target] += 1

    def __len__(self) -> int:
        return len(self.alignments)

    def scored(self, words: WordTranslationTable) -> list[ScoredPhrasePair]:
        """All pairs with their four Moses scores, in Moses' sorted order (LC_ALL=C sort)."""
        result = []
        for (source, target), alignments in self.alignments.items():
            count_pair = sum(alignments.values())
            best = min(alignments.items(), key=lambda item: (-item[1], item[0]))[0]
            source_words, target_words = source.split(), target.split()
            result.append(
                ScoredPhrasePair(
                    source=source,
                    target=target,
                    p_source_given_target=count_pair / self.target_counts[target],
                    lex_source_given_target=lexical_weight_source_given_target(source_words, target_words, best, words),
                    p_target_given_source=count_pair / self.source_counts[source],
                    lex_target_given_source=lexical_weight_target_given_source(source_words, target_words, best, words),
                    alignment=best,
                    count_target=self.target_counts[target],
                    count_source=self.source_counts[source],
                    count_pair=count_pair,
                )
            )
        # Sorting whole lines by code point equals LC_ALL=C sort on UTF-8 bytes.
        result.sort(key=lambda pair: f"{pair.source} ||| {pair.target} |||")
        return result
