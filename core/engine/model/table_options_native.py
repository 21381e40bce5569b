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
import struct
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
        packed, phrase_id = _beam_core.rank_rules(
            self.model if cache.lm is not None else None, binary.rule_prob, binary.rule_target, binary.target_text,
            binary.target_offsets, found[0], found[1], merged, weights.phrase, weights.word_penalty, weights.lm,
            -1 if cache.limit is None else cache.limit, *registering)
        return RankedRules(binary, phrase, self.buckets.keep_features, packed, phrase_id)

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
        for k, (packed, phrase_id) in zip(having, results):
            out[k] = RankedRules(binary, phrases[k], keep, packed, phrase_id)
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
    :class:`Rule`) when first asked for (a search reads the options of its output only).

    ``packed`` holds the options' rule numbers (int64), rule scores and estimates (doubles) one array after the
    other, as rank_rules packs them: a decoder keeps every phrase it met, and three lists of Python numbers per
    phrase were most of a generate's memory."""

    __slots__ = ("binary", "phrase", "keep_features", "packed", "count", "phrase_id", "_made", "__dict__")

    def __init__(self, binary: BinaryTable, phrase: Phrase, keep_features: bool, packed: bytes,
                 phrase_id: int = -1):
        self.binary = binary
        self.phrase = phrase
        self.keep_features = keep_features
        self.packed = packed
        self.count = len(packed) // 24
        self.phrase_id = phrase_id  # registered with the core's OptionStore by rank_rules, -1 if not
        self._made: dict[int, PhraseOption] | None = None

    @property
    def numbers(self) -> tuple[int, ...]:
        return struct.unpack_from(f"={self.count}q", self.packed)

    @property
    def rule_scores(self) -> tuple[float, ...]:
        return struct.unpack_from(f"={self.count}d", self.packed, 8 * self.count)

    @property
    def estimates(self) -> tuple[float, ...]:
        return struct.unpack_from(f"={self.count}d", self.packed, 16 * self.count)

    @functools.cached_property
    def targets(self) -> list[Phrase]:
        """Every option's target words (decoding them is most of the cost: a registered phrase never asks)."""
        return self.binary.targets_of(self.numbers)

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, position: int) -> PhraseOption:
        if not isinstance(position, int):
            raise TypeError("RankedRules takes one position at a time")
        if position < 0:
            position += self.count
        if not 0 <= position < self.count:
            raise IndexError("RankedRules index out of range")
        made = self._made.get(position) if self._made is not None else None
        if made is None:
            count, packed = self.count, self.packed
            (number,) = struct.unpack_from("=q", packed, 8 * position)
            (rule_score,) = struct.unpack_from("=d", packed, 8 * (count + position))
            (estimate,) = struct.unpack_from("=d", packed, 8 * (2 * count + position))
            rule = self.binary.rule(number, self.phrase, self.keep_features)
            made = PhraseOption(rule, False, rule_score, estimate, rule.target)
            if self._made is None:
                self._made = {}
            self._made[position] = made
        return made


def usable(cache: OptionCache) -> bool:
    """Whether :class:`BinaryOptions` gives what ``cache.ranked`` gives (a negative limit slices otherwise)."""
    return cache.limit is None or cache.limit >= 0
