"""A phrase's translation options and a target's true-score rules read in C++ from a mapped binary table.

The Python path (:meth:`OptionCache.ranked <core.engine.translation_options.OptionCache.ranked>` over
``rules_for``, and :meth:`SourceRuleIndex.for_target <core.engine.truescore.SourceRuleIndex.for_target>` over
``span_rules``) builds a :class:`Rule` for every rule of every span of a sentence: about half of a whole
``generate`` on the 100 demo verses (docs/BENCHMARKS.md, "A whole generate beside Moses"). Here the compiled
core reads the ``.pstable`` arrays (:mod:`core.engine.table_binary`) and only the rules kept become
:class:`Rule` objects. The Python path stays the reference: the same options, scores, order and rules,
bit for bit (tests/test_table_options_native.py).
"""

from __future__ import annotations

import weakref
from typing import Iterator, Sequence

from core.engine.rules import Phrase, Rule
from core.engine.table_binary import BinaryTable, MappedBuckets, phrase_key
from core.engine.translation_options import OptionCache, PhraseOption

try:
    from core.engine import _beam_core
except ImportError:  # not built: the Python path runs
    _beam_core = None


# binary table -> {phrase: its rule_range()}: a decoder asks for every span of every sentence.
_RANGES: "weakref.WeakKeyDictionary[BinaryTable, dict[Phrase, tuple[int, int] | None]]" = weakref.WeakKeyDictionary()
_RANGES_KEPT = 1 << 17


def rule_range(binary: BinaryTable, phrase: Sequence[str]) -> tuple[int, int] | None:
    """Where the rules of ``phrase`` are in the rule arrays (found as MappedBuckets.get finds a phrase), None if
    it has none."""
    phrase = tuple(phrase)
    ranges = _RANGES.get(binary)
    if ranges is None:
        ranges = _RANGES[binary] = {}
    if phrase in ranges:
        return ranges[phrase]
    key = phrase_key(phrase)
    index = binary.find(key) if key is not None else -1
    found = None
    if index >= 0 and key.count(b" ") + 1 == len(phrase):
        first, last = binary.rule_offsets[index], binary.rule_offsets[index + 1]
        found = (first, last) if last > first else None
    if len(ranges) >= _RANGES_KEPT:
        ranges.clear()
    ranges[phrase] = found
    return found


def mapped_buckets(table) -> MappedBuckets | None:
    """The mapped binary store behind ``table`` when the compiled core can read it, else None."""
    buckets = getattr(table, "_by_source", None)
    if isinstance(buckets, MappedBuckets) and _beam_core is not None and hasattr(_beam_core, "rank_rules"):
        return buckets
    return None


class BinaryOptions:
    """:meth:`OptionCache.ranked` for phrases of a mapped table, ranked in C++ (``model``: the core's KenLM)."""

    def __init__(self, cache: OptionCache, buckets: MappedBuckets, model):
        self.cache = cache
        self.buckets = buckets
        self.model = model

    def ranked(self, phrase: Phrase) -> RankedRules | None:
        """The options of ``phrase`` as ``cache.ranked(phrase, table.rules_for(phrase))``; None if it has no rules."""
        binary, cache = self.buckets.binary, self.cache
        found = rule_range(binary, phrase)
        if found is None:
            return None
        merged = phrase_key(phrase) if cache.identities and len(phrase) == 1 else None
        weights = cache.weights
        rules, scores, estimates = _beam_core.rank_rules(
            self.model if cache.lm is not None else None, binary.rule_prob, binary.rule_target, binary.target_text,
            binary.target_offsets, found[0], found[1], merged, weights.phrase, weights.word_penalty, weights.lm,
            -1 if cache.limit is None else cache.limit)
        return RankedRules(binary, phrase, self.buckets.keep_features, rules, scores, estimates)


    def slot(self, word: str) -> PhraseOption:
        """``cache.slot(word)``, reading from the table only the rules that rewrite ``word`` into itself."""
        found = span_rules_toward(self.buckets, (word,), (word,))
        kept = [rule for _, _, rules in found for rule in rules if rule.target == (word,)] if found is not None else None
        return self.cache.slot(word, kept)


class RankedRules(Sequence):
    """A phrase's options ranked in C++: their scores and targets at once, each :class:`PhraseOption` (and its
    :class:`Rule`) when first asked for (a search reads the options of its output only)."""

    def __init__(self, binary: BinaryTable, phrase: Phrase, keep_features: bool, numbers: list[int],
                 rule_scores: list[float], estimates: list[float]):
        self.binary = binary
        self.phrase = phrase
        self.keep_features = keep_features
        self.numbers = numbers
        self.rule_scores = rule_scores
        self.estimates = estimates
        self.targets = binary.targets_of(numbers)
        self._made: dict[int, PhraseOption] = {}

    def __len__(self) -> int:
        return len(self.numbers)

    def __getitem__(self, position: int) -> PhraseOption:
        if not isinstance(position, int):
            raise TypeError("RankedRules takes one position at a time")
        if position < 0:
            position += len(self.numbers)
        made = self._made.get(position)
        if made is None:
            rule = self.binary.rule(self.numbers[position], self.phrase, self.keep_features)
            made = self._made[position] = PhraseOption(rule, False, self.rule_scores[position],
                                                       self.estimates[position], self.targets[position])
        return made


def usable(cache: OptionCache) -> bool:
    """Whether :class:`BinaryOptions` gives what ``cache.ranked`` gives (a negative limit slices otherwise)."""
    return cache.limit is None or cache.limit >= 0


def span_rules_toward(buckets: MappedBuckets, tokens: Sequence[str], target: Sequence[str]
                      ) -> Iterator[tuple[int, int, list[Rule]]] | None:
    """``(start, end, rules)`` for the spans of ``tokens`` with rules whose target is a contiguous, non-empty part
    of ``target`` (only those rules, in table order); None when only the Python path can tell (a token with a space).
    """
    if any(" " in word for word in target) or _beam_core is None or not hasattr(_beam_core, "rules_toward"):
        return None
    binary = buckets.binary
    tokens = tuple(tokens)
    n, m = len(tokens), len(target)
    spans, firsts, lasts = [], [], []
    for start in range(n):
        for end in range(start + 1, min(n, start + binary.max_source_length) + 1):
            found = rule_range(binary, tokens[start:end])
            if found is not None:
                spans.append((start, end))
                firsts.append(found[0])
                lasts.append(found[1])
    try:
        wanted = list({" ".join(target[k:k + length]).encode("utf-8")
                       for length in range(1, m + 1) for k in range(m - length + 1)})
    except UnicodeEncodeError:  # a lone surrogate: no stored target has one
        return None
    chosen = _beam_core.rules_toward(binary.rule_target, binary.target_text, binary.target_offsets, firsts, lasts,
                                     wanted)
    keep = buckets.keep_features
    return ((start, end, [binary.rule(number, tokens[start:end], keep) for number in numbers])
            for (start, end), numbers in zip(spans, chosen) if numbers)
