"""The per-pivot feature values h1..h4 of seed 002 §3.3 (Equations 2, 4, 5 and 6).

For an English pattern e and a pivot pattern c (an :class:`AlignedEntry`), in natural logs:

* ``score_MLE(c|e) = ln p_MLE(c|e)``, ``p_MLE(c|e) = count(c, e) / Σ_c' count(c', e)`` (Eq. 2, 4);
  ``score_MLE(e|c)`` likewise over Σ_e' count(c, e');
* ``score_LW(c|e) = (1/n) Σ_i ln( (1/|{j | (i, j) ∈ a}|) Σ_{(i,j) ∈ a} w(c_i|e_j) )`` (Eq. 5,
  garbled in the PDF text and reconstructed here: the lexical weight of Koehn et al. 2003 in logs,
  divided by n, the number of words of c, "so as not to penalize long patterns", footnote 3);
  ``score_LW(e|c)`` likewise with the roles swapped and n the number of words of e;
* ``w(c_i|e_j) = count(c_i, e_j) / Σ_c' count(c', e_j)`` from the word-aligned corpus (Eq. 6).

Which words: slots are not words (a slot maps to its slot by construction and
carries no lexical evidence), so i and j run over the patterns' words and n
counts words only. ``a`` is the aligned pattern's internal alignment between
words. A word of e with no link in it is unaligned in its sentence (Algorithm 2
takes every pivot word aligned with a pattern word), and gets ``w(e_j|NULL)``,
as Koehn et al. and Moses do; the w table counts unaligned words against NULL
(:class:`core.tablebuild.phrase_scoring.WordTranslationTable`, built with the
English side as its source).

For a pair (e1, e2) through pivot c: h1 = score_MLE(c|e1), h2 = score_MLE(e2|c),
h3 = score_LW(c|e1), h4 = score_LW(e2|c).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Sequence

from parastudio.core.tablebuild.patterns.aligned_counts import AlignedEntry, AlignedPatternCounts
from parastudio.core.tablebuild.patterns.pivot_patterns import PatternLink
from parastudio.core.tablebuild.phrase_scoring import NULL, WordTranslationTable
from parastudio.core.vocabulary import parse_slot


@dataclass(frozen=True)
class EntryFeatures:
    """An aligned pattern with the four quantities its pairs' features are made of."""

    english: str
    pivot: str
    count: int
    log_p_pivot_given_english: float  # score_MLE(c|e): h1 when e is e1
    log_p_english_given_pivot: float  # score_MLE(e|c): h2 when e is e2
    lw_pivot_given_english: float  # score_LW(c|e): h3 when e is e1
    lw_english_given_pivot: float  # score_LW(e|c): h4 when e is e2


def _words(tokens: Sequence[str]) -> list[int]:
    return [index for index, token in enumerate(tokens) if parse_slot(token) is None]


def lexical_score(given: Sequence[str], explained: Sequence[str], links: Sequence[tuple[int, int]],
                  weight) -> float:
    """Eq. 5: mean over the words x_i of ``explained`` of ln(mean of weight(x_i, y_j) over its linked words
    y_j of ``given``), ``weight(x, NULL)`` for an unlinked word. ``links`` are (explained index, given index)."""
    linked: dict[int, list[int]] = {}
    for i, j in links:
        linked.setdefault(i, []).append(j)
    words = _words(explained)
    total = 0.0
    for i in words:
        if i in linked:
            value = sum(weight(explained[i], given[j]) for j in linked[i]) / len(linked[i])
        else:
            value = weight(explained[i], NULL)
        total += math.log(value)
    return total / len(words)


def lw_pivot_given_english(english: Sequence[str], pivot: Sequence[str], links: Sequence[PatternLink],
                           words: WordTranslationTable) -> float:
    """score_LW(c|e); ``links`` are (pivot index, English index); ``words`` has English as its source side."""
    return lexical_score(english, pivot, links, lambda c, e: words.target_given_source(c, e))


def lw_english_given_pivot(english: Sequence[str], pivot: Sequence[str], links: Sequence[PatternLink],
                           words: WordTranslationTable) -> float:
    """score_LW(e|c)."""
    flipped = [(e, c) for c, e in links]
    return lexical_score(pivot, english, flipped, lambda e, c: words.source_given_target(e, c))


def entry_features(counts: AlignedPatternCounts, words: WordTranslationTable) -> Iterator[EntryFeatures]:
    for entry in counts.entries():
        yield features_of(entry, counts, words)


def features_of(entry: AlignedEntry, counts: AlignedPatternCounts, words: WordTranslationTable) -> EntryFeatures:
    english, pivot = entry.english.split(), entry.pivot.split()
    return EntryFeatures(
        english=entry.english, pivot=entry.pivot, count=entry.count,
        log_p_pivot_given_english=math.log(entry.count / counts.english_total(entry.english)),
        log_p_english_given_pivot=math.log(entry.count / counts.pivot_totals[entry.pivot]),
        lw_pivot_given_english=lw_pivot_given_english(english, pivot, entry.links, words),
        lw_english_given_pivot=lw_english_given_pivot(english, pivot, entry.links, words),
    )
