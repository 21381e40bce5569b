"""The input aligner: which source words a selection of the translation covers (seed 001 §3.3.3, §3.4.1).

Exact alignment (the selection is a span of the unedited translation):

1. the phrases of the translation's segmentation that the selection touches;
2. a phrase only partly selected at either end is *extended* to the whole
   phrase, since its coverage is known only for the whole phrase ("became the
   first" -> "became the first state"), except when its selected part holds
   only function words: then the selection is *reduced* by that part ("the
   first state", where "became the" is one phrase -> "first state");
3. the source coverage is the union of the selected phrases' source spans.

Fuzzy alignment (the user edited the translation, §3.4.1 end): a first-order
HMM over the words of the unedited translation (the observations) whose
hidden states are the selection's words, plus "none". The paper gives the
shape (sensor model from string edit distance, transitions from the order of
the selection's words; Equations 3.1-3.6) but no numbers; our reconstruction:

* states ``BEFORE``, ``S_1 .. S_m`` (the selection's words) and ``AFTER``, so
  that "none" before the selection and after it are told apart and the
  selection is matched as one stretch, in order ("words should match parts of
  the translation output sequentially");
* transitions: ``BEFORE`` stays or enters ``S_k`` (``k = 1`` most likely: the
  user may have dropped leading words); ``S_k`` moves to ``S_{k+1}`` (likely),
  skips ahead to ``S_{k+d}`` (a word the user added, less likely with each
  skipped word), stays on ``S_k`` (a word the user deleted, unlikely) or
  leaves to ``AFTER``; ``AFTER`` stays;
* sensor: ``P(w | S_k) = exp(-SHARPNESS * d)`` with ``d`` the Levenshtein
  distance of the two words over the longer one's length (1 for identical
  words), and ``P(w | none) = NONE_EMISSION``.

Viterbi gives the words of the translation matched to the selection; their
first and last positions are the aligned span, then aligned exactly as above.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import Levenshtein

from parastudio.core.engine.decoders.cat.function_words import is_function_word
from parastudio.core.engine.decoders.cat.segmentation import Translation


class AlignmentError(ValueError):
    """The selection cannot be aligned to the translation's source (the message says why)."""


@dataclass(frozen=True)
class Alignment:
    """A selection aligned: target span ``[start, end)`` of the translation and its source coverage."""

    start: int
    end: int
    source_start: int
    source_end: int
    requested: tuple[int, int]  # the span as selected (or as matched, for a fuzzy alignment)
    fuzzy: bool = False

    @property
    def coverage(self) -> tuple[int, int]:
        return self.source_start, self.source_end

    def to_json(self) -> dict:
        return {"span": [self.start, self.end], "coverage": [self.source_start, self.source_end],
                "requested": list(self.requested), "fuzzy": self.fuzzy}


def _only_function_words(words: Sequence[str]) -> bool:
    return all(is_function_word(w) or not any(c.isalnum() for c in w) for w in words)


def align_exact(translation: Translation, start: int, end: int) -> Alignment:
    """Seed 001 §3.4.1 on a span of the unedited translation (module docstring, rules 1-3)."""
    n = len(translation.tokens)
    if not 0 <= start < end <= n:
        raise AlignmentError(f"the span [{start}, {end}) is not inside the translation's {n} tokens")
    touched = [p for p in translation.phrases if p.start < end and p.end > start and p.end > p.start]
    first, last = touched[0], touched[-1]
    new_start, new_end = first.start, last.end
    if start > first.start and _only_function_words(translation.tokens[start:min(end, first.end)]):
        new_start = first.end
    if end < last.end and _only_function_words(translation.tokens[max(start, last.start):end]):
        new_end = last.start
    if new_start >= new_end:  # the selection was function words inside one phrase: nothing left to reduce to
        new_start, new_end = first.start, last.end
    kept = [p for p in translation.phrases if p.start >= new_start and p.end <= new_end and p.end > p.start]
    spans = sorted((p.source_start, p.source_end) for p in kept)
    for (_, previous_end), (next_start, _) in zip(spans, spans[1:]):
        if next_start != previous_end:
            raise AlignmentError("the selection's source words are not contiguous (the decoder reordered them); "
                                 "select a span whose phrases translate one stretch of the source")
    return Alignment(new_start, new_end, spans[0][0], spans[-1][1], (start, end))


# The fuzzy aligner's constants (our reconstruction; the paper gives none).
SHARPNESS = 6.0
NONE_EMISSION = math.exp(-SHARPNESS * 0.6)  # a word 60 % different is as likely "none" as matched
P_ENTER_FIRST = 0.1  # BEFORE -> S_1 (BEFORE stays with 1 - the entry mass)
P_ENTER_LATER = 0.01  # BEFORE -> S_k, k > 1, each
P_NEXT = 0.8
P_SKIP = 0.05  # S_k -> S_{k+d}, times SKIP_DECAY ** (d - 2) for d >= 2
SKIP_DECAY = 0.3
P_STAY = 0.02
P_LEAVE = 0.1  # S_k -> AFTER (for k = m it takes the whole rest)
LOG_SKIP, LOG_SKIP_DECAY = math.log(P_SKIP), math.log(SKIP_DECAY)


def word_similarity(a: str, b: str) -> float:
    """1 minus the Levenshtein distance over the longer word's length (case-insensitive)."""
    a, b = a.lower(), b.lower()
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - Levenshtein.distance(a, b) / longest


class FuzzyHMM:
    """The fuzzy aligner's HMM for one selection (module docstring); states ``0`` BEFORE, ``k`` = S_k, ``m+1`` AFTER."""

    def __init__(self, selection: Sequence[str]):
        self.selection = tuple(selection)
        m = self.m = len(self.selection)
        self.states = m + 2
        self.before, self.after = 0, m + 1
        log = math.log
        table: list[dict[int, float]] = [{} for _ in range(self.states)]  # state -> {next: log p}
        table[self.before][self.before] = log(max(1e-12, 1.0 - P_ENTER_FIRST - P_ENTER_LATER * (m - 1)))
        table[self.before][1] = log(P_ENTER_FIRST)
        for k in range(2, m + 1):
            table[self.before][k] = log(P_ENTER_LATER)
        for k in range(1, m + 1):
            table[k][k] = log(P_STAY)
            if k < m:
                table[k][k + 1] = log(P_NEXT)
                for d in range(2, m - k + 1):
                    # In logs: SKIP_DECAY ** (d - 2) underflows to 0.0 past ~620 words, and log(0) raised.
                    table[k][k + d] = LOG_SKIP + (d - 2) * LOG_SKIP_DECAY
                table[k][self.after] = log(P_LEAVE)
            else:
                table[k][self.after] = log(1.0 - P_STAY)
        table[self.after][self.after] = 0.0
        self.table = table
        # The first word is scored as if BEFORE had just been left or kept.
        self.initial = {self.before: 0.0, **{k: table[self.before][k] for k in range(1, m + 1)}}
        self.none = log(NONE_EMISSION)

    def emission(self, state: int, word: str) -> float:
        if state in (self.before, self.after):
            return self.none
        return -SHARPNESS * (1.0 - word_similarity(word, self.selection[state - 1]))

    def path_score(self, observed: Sequence[str], path: Sequence[int]) -> float:
        """log P(path, observed) (minus infinity for an impossible path): the quantity Viterbi maximizes."""
        if path[0] not in self.initial:
            return float("-inf")
        score = self.initial[path[0]] + self.emission(path[0], observed[0])
        for previous, state, word in zip(path, path[1:], observed[1:]):
            step = self.table[previous].get(state)
            if step is None:
                return float("-inf")
            score += step + self.emission(state, word)
        return score

    def viterbi(self, observed: Sequence[str]) -> tuple[float, list[int]]:
        """The best state path that enters the selection (ends on some S_k or in AFTER), and its score."""
        minus_inf = float("-inf")
        scores = [minus_inf] * self.states
        for state, start in self.initial.items():
            scores[state] = start + self.emission(state, observed[0])
        pointers: list[list[int]] = []
        for word in observed[1:]:
            new = [minus_inf] * self.states
            back = [-1] * self.states
            for state, score in enumerate(scores):
                if score == minus_inf:
                    continue
                for following, p in self.table[state].items():
                    if score + p > new[following]:
                        new[following], back[following] = score + p, state
            scores = [s + self.emission(state, word) if s != minus_inf else s for state, s in enumerate(new)]
            pointers.append(back)
        state = max(range(1, self.states), key=lambda s: scores[s])
        best = scores[state]
        path = [state]
        for back in reversed(pointers):
            state = back[state]
            path.append(state)
        path.reverse()
        return best, path


def matched_span(hmm: FuzzyHMM, observed: Sequence[str], path: Sequence[int]) -> tuple[int, int] | None:
    """The observed words matched to selection words, as a span; None when nothing really matched."""
    matched = [i for i, s in enumerate(path) if 1 <= s <= hmm.m]
    if not matched:
        return None
    # A stretch matched only at "none"-level emissions is no match.
    if max(word_similarity(observed[i], hmm.selection[path[i] - 1]) for i in matched) < 0.5:
        return None
    return matched[0], matched[-1] + 1


def fuzzy_match(observed: Sequence[str], selection: Sequence[str]) -> tuple[int, int] | None:
    """Viterbi: the span of ``observed`` (the unedited translation) that ``selection`` matches, or None."""
    if not selection or not observed:
        return None
    hmm = FuzzyHMM(selection)
    score, path = hmm.viterbi(observed)
    if score == float("-inf"):
        return None
    return matched_span(hmm, observed, path)


def align_fuzzy(translation: Translation, selection: Sequence[str]) -> Alignment:
    """Seed 001's fuzzy alignment of a selection taken from an edited translation, then aligned exactly."""
    span = fuzzy_match(translation.tokens, selection)
    if span is None:
        raise AlignmentError("the selection matches nothing in the machine translation (the edits are too large "
                             "for the fuzzy aligner)")
    exact = align_exact(translation, *span)
    return Alignment(exact.start, exact.end, exact.source_start, exact.source_end, span, fuzzy=True)


def align_selection(translation: Translation, tokens: Sequence[str], start: int, end: int) -> Alignment:
    """Exact when ``tokens`` is the translation itself, fuzzy when the user has edited it."""
    if tuple(tokens) == translation.tokens:
        return align_exact(translation, start, end)
    return align_fuzzy(translation, tokens[start:end])
