"""A phrase's translation options ranked in C++ from a mapped binary table (its rules read by
:mod:`core.engine.tables.binary_table_rows`).

The Python path (:meth:`OptionCache.ranked <core.engine.model.translation_options.OptionCache.ranked>` over
``rules_for``, and :meth:`SourceRuleIndex.for_target <core.engine.model.truescore.SourceRuleIndex.for_target>` over
``span_rules``) builds a :class:`Rule` for every rule of every span of a sentence: about half of a whole
``generate`` on the 100 demo verses (docs/BENCHMARKS.md, "A whole generate beside Moses"). Here the compiled
core reads the ``.pstable`` arrays (:mod:`core.engine.tables.table_binary`) and only the rules kept become
:class:`Rule` objects. The Python path stays the reference: the same options, scores, order and rules,
bit for bit (tests/test_table_options_native.py).
"""

from __future__ import annotations

import functools
from typing import Sequence

from parastudio.core.engine.model.translation_options import OptionCache, PhraseOption
from parastudio.core.engine.tables.binary_table_rows import rule_range, rule_ranges, span_rules_toward
from parastudio.core.engine.tables.rules import Phrase
from parastudio.core.engine.tables.table_binary import BinaryTable, MappedBuckets, phrase_key

try:
    from parastudio.core.engine._search_cores import beam as _beam_core
except ImportError:  # not built: the Python path runs
    _beam_core = None


class BinaryOptions:
    """:meth:`OptionCache.ranked` for phrases of a mapped table, ranked in C++ (``model``: the core's KenLM)."""

    def __init__(self, cache: OptionCache, buckets: MappedBuckets, model):
        self.cache = cache
        self.buckets = buckets
        self.model = model

    def ranked(self, phrase: Phrase, store=None, vocabulary=None) -> RankedRules | None:
        """The options of ``phrase`` as ``cache.ranked(phrase, table.rules_for(phrase))``; None if it has no rules.

        With the core's ``store`` and :class:`Vocabulary <core.engine.decoders.compiled_search>` (a core that has one), the
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
        known = self.cache.known_slot(word)  # made while preparing: reading its rules again would be thrown away
        if known is not None:
            return known
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
