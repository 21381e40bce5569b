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

import functools
import weakref
from typing import Iterator, Sequence

from core.engine.rules import Phrase, Rule
from core.engine.table_binary import BinaryTable, MappedBuckets, phrase_key
from core.engine.translation_options import OptionCache, PhraseOption
from core.engine.truescore_paths import RuleColumns

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
    if ranges is not None and phrase in ranges:
        return ranges[phrase]
    return rule_ranges(binary, [phrase])[0]


_UNKNOWN = object()


def rule_ranges(binary: BinaryTable, phrases: Sequence[Phrase]) -> list[tuple[int, int] | None]:
    """:func:`rule_range` of each phrase (tuples); those not known yet looked up in one call to the core."""
    ranges = _RANGES.get(binary)
    if ranges is None:
        ranges = _RANGES[binary] = {}
    found = [ranges.get(phrase, _UNKNOWN) for phrase in phrases]
    missing = [k for k, known in enumerate(found) if known is _UNKNOWN]
    if not missing:
        return found
    keys = [phrase_key(phrases[k]) for k in missing]
    indices = _find_sources(binary, keys)
    if len(ranges) + len(missing) >= _RANGES_KEPT:
        ranges.clear()
    offsets = binary.rule_offsets
    for k, key, index in zip(missing, keys, indices):
        phrase, span = phrases[k], None
        # A token holding a space would join into another phrase's key: the word count tells them apart.
        if index >= 0 and key.count(b" ") + 1 == len(phrase):
            first, last = offsets[index], offsets[index + 1]
            span = (first, last) if last > first else None
        found[k] = ranges[phrase] = span
    return found


def _find_sources(binary: BinaryTable, keys: list[bytes | None]) -> list[int]:
    """``binary.find(key)`` for each key (-1 for None), in C++ when the core has it."""
    if _beam_core is None or not hasattr(_beam_core, "find_sources"):
        return [binary.find(key) if key is not None else -1 for key in keys]
    real = [key for key in keys if key is not None]
    indices = iter(_beam_core.find_sources(binary.source_text, binary.source_offsets, binary.source_hash,
                                           binary.slots, real))
    return [next(indices) if key is not None else -1 for key in keys]


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

    def ranked(self, phrase: Phrase, store=None, vocabulary=None) -> RankedRules | None:
        """The options of ``phrase`` as ``cache.ranked(phrase, table.rules_for(phrase))``; None if it has no rules.

        With the core's ``store`` and :class:`Vocabulary <core.engine.compiled_search>` (a core that has one), the
        core also registers them there, their targets read as bytes: ``phrase_id`` is then their id in ``store``."""
        binary, cache = self.buckets.binary, self.cache
        found = rule_range(binary, phrase)
        if found is None:
            return None
        merged = phrase_key(phrase) if cache.identities and len(phrase) == 1 else None
        weights = cache.weights
        registering = (store, vocabulary) if store is not None else ()
        rules, scores, estimates, *registered = _beam_core.rank_rules(
            self.model if cache.lm is not None else None, binary.rule_prob, binary.rule_target, binary.target_text,
            binary.target_offsets, found[0], found[1], merged, weights.phrase, weights.word_penalty, weights.lm,
            -1 if cache.limit is None else cache.limit, *registering)
        return RankedRules(binary, phrase, self.buckets.keep_features, rules, scores, estimates,
                           registered[0] if registered else -1)

    def ranked_many(self, phrases: list[Phrase], store, vocabulary) -> list[RankedRules | None]:
        """:meth:`ranked` of each phrase, registered with ``store``: the rules found and ranked in one call each."""
        binary, cache = self.buckets.binary, self.cache
        found = rule_ranges(binary, phrases)
        having = [k for k, span in enumerate(found) if span is not None]
        out: list[RankedRules | None] = [None] * len(phrases)
        if not having:
            return out
        weights = cache.weights
        merged = [phrase_key(phrases[k]) if cache.identities and len(phrases[k]) == 1 else None for k in having]
        results = _beam_core.rank_rules_many(
            self.model if cache.lm is not None else None, binary.rule_prob, binary.rule_target, binary.target_text,
            binary.target_offsets, [found[k][0] for k in having], [found[k][1] for k in having], merged,
            weights.phrase, weights.word_penalty, weights.lm, -1 if cache.limit is None else cache.limit, store,
            vocabulary)
        keep = self.buckets.keep_features
        for k, (rules, scores, estimates, phrase_id) in zip(having, results):
            out[k] = RankedRules(binary, phrases[k], keep, rules, scores, estimates, phrase_id)
        return out

    def slot(self, word: str) -> PhraseOption:
        """``cache.slot(word)``, reading from the table only the rules that rewrite ``word`` into itself."""
        binary = self.buckets.binary
        found = rule_range(binary, (word,)) if " " not in word else None
        key = phrase_key((word,))
        if found is None or key is None or not hasattr(_beam_core, "rules_toward"):
            rules = span_rules_toward(self.buckets, (word,), (word,))
            kept = [r for _, _, bucket in rules for r in bucket if r.target == (word,)] if rules is not None else None
            return self.cache.slot(word, kept)
        numbers = _beam_core.rules_toward(binary.rule_target, binary.target_text, binary.target_offsets, [found[0]],
                                          [found[1]], [key])[0]
        keep = self.buckets.keep_features
        return self.cache.slot(word, [binary.rule(number, (word,), keep) for number in numbers])


class RankedRules(Sequence):
    """A phrase's options ranked in C++: their scores and targets at once, each :class:`PhraseOption` (and its
    :class:`Rule`) when first asked for (a search reads the options of its output only)."""

    def __init__(self, binary: BinaryTable, phrase: Phrase, keep_features: bool, numbers: list[int],
                 rule_scores: list[float], estimates: list[float], phrase_id: int = -1):
        self.binary = binary
        self.phrase = phrase
        self.keep_features = keep_features
        self.numbers = numbers
        self.rule_scores = rule_scores
        self.estimates = estimates
        self.phrase_id = phrase_id  # registered with the core's OptionStore by rank_rules, -1 if not
        self._made: dict[int, PhraseOption] = {}

    @functools.cached_property
    def targets(self) -> list[Phrase]:
        """Every option's target words (decoding them is most of the cost: a registered phrase never asks)."""
        return self.binary.targets_of(self.numbers)

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
                                                       self.estimates[position], rule.target)
        return made


def usable(cache: OptionCache) -> bool:
    """Whether :class:`BinaryOptions` gives what ``cache.ranked`` gives (a negative limit slices otherwise)."""
    return cache.limit is None or cache.limit >= 0


def _ranges_and_parts(binary: BinaryTable, tokens: tuple[str, ...], target: Sequence[str]):
    """The spans of ``tokens`` with rules and their rule ranges, and ``target``'s contiguous non-empty parts
    ``{bytes: words}``; None when only the Python path can tell (a token with a space, a lone surrogate)."""
    if any(" " in word for word in target):
        return None
    n, m = len(tokens), min(len(target), binary.longest_phrase)  # no rule's target is longer
    every = [(start, end) for start in range(n) for end in range(start + 1, min(n, start + binary.max_source_length) + 1)]
    spans, firsts, lasts = [], [], []
    for span, found in zip(every, rule_ranges(binary, [tokens[start:end] for start, end in every])):
        if found is not None:
            spans.append(span)
            firsts.append(found[0])
            lasts.append(found[1])
    try:
        parts = {" ".join(part).encode("utf-8"): part for part in (
            tuple(target[k:k + length]) for length in range(1, m + 1) for k in range(len(target) - length + 1))}
    except UnicodeEncodeError:  # a lone surrogate: no stored target has one
        return None
    return spans, firsts, lasts, parts


def rule_columns_toward(buckets: MappedBuckets, tokens: Sequence[str], target: Sequence[str]) -> RuleColumns | None:
    """:func:`span_rules_toward`'s rules as columns for the true score (spans in order, each span's rules in table
    order); None when only the Python path can tell."""
    if _beam_core is None or not hasattr(_beam_core, "rule_columns_toward"):
        return None
    binary, tokens = buckets.binary, tuple(tokens)
    found = _ranges_and_parts(binary, tokens, target)
    if found is None:
        return None
    spans, firsts, lasts, parts = found
    at, groups, numbers, log_ps, used = _beam_core.rule_columns_toward(
        binary.rule_target, binary.rule_prob, binary.target_text, binary.target_offsets, firsts, lasts, list(parts))
    starts, ends = [spans[i][0] for i in at], [spans[i][1] for i in at]
    keep = buckets.keep_features
    words = list(parts.values())

    def make_rule(r: int) -> Rule:
        return binary.rule(numbers[r], tokens[starts[r]:ends[r]], keep)

    return RuleColumns(tokens, starts, ends, groups, log_ps, [words[w] for w in used], make_rule)


def span_rules_toward(buckets: MappedBuckets, tokens: Sequence[str], target: Sequence[str]
                      ) -> Iterator[tuple[int, int, list[Rule]]] | None:
    """``(start, end, rules)`` for the spans of ``tokens`` with rules whose target is a contiguous, non-empty part
    of ``target`` (only those rules, in table order); None when only the Python path can tell (a token with a space).
    """
    if _beam_core is None or not hasattr(_beam_core, "rules_toward"):
        return None
    binary = buckets.binary
    tokens = tuple(tokens)
    found = _ranges_and_parts(binary, tokens, target)
    if found is None:
        return None
    spans, firsts, lasts, parts = found
    chosen = _beam_core.rules_toward(binary.rule_target, binary.target_text, binary.target_offsets, firsts, lasts,
                                     list(parts))
    keep = buckets.keep_features
    return ((start, end, [binary.rule(number, tokens[start:end], keep) for number in numbers])
            for (start, end), numbers in zip(spans, chosen) if numbers)
