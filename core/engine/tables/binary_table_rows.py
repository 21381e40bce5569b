"""A mapped binary table's rules read in C++: which rules a phrase has (:func:`rule_range`), and the rules of a
sentence's spans whose target lies inside a given target (:func:`span_rules_toward`; as columns for the true score,
:func:`core.engine.model.truescore_paths.rule_columns_toward`). The table itself (:mod:`core.engine.tables.paraphrase_table`) reads its rows through this
module; the translation options built from them are :mod:`core.engine.model.table_options_native`'s. Each function
returns None when only the Python path can tell, which stays the reference (tests/test_table_options_native.py).
"""

from __future__ import annotations

import weakref
from typing import Iterator, Sequence

from parastudio.core.engine.tables.rules import Phrase, Rule
from parastudio.core.engine.tables.table_binary import BinaryTable, MappedBuckets, phrase_key

try:
    from parastudio.core.engine._search_cores import beam as _beam_core
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


def span_ranges(binary: BinaryTable, tokens: tuple[str, ...]) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """The spans of ``tokens`` that have rules (by start, then end, as ParaphraseTable.span_rules yields them) and
    where each one's rules are: ``(spans, firsts, lasts)``."""
    n = len(tokens)
    every = [(start, end) for start in range(n) for end in range(start + 1, min(n, start + binary.max_source_length) + 1)]
    spans, firsts, lasts = [], [], []
    for span, found in zip(every, rule_ranges(binary, [tokens[start:end] for start, end in every])):
        if found is not None:
            spans.append(span)
            firsts.append(found[0])
            lasts.append(found[1])
    return spans, firsts, lasts


def ranges_and_parts(binary: BinaryTable, tokens: tuple[str, ...], target: Sequence[str]):
    """The spans of ``tokens`` with rules and their rule ranges, and ``target``'s contiguous non-empty parts
    ``{bytes: words}``; None when only the Python path can tell (a token with a space, a lone surrogate)."""
    if any(" " in word for word in target):
        return None
    m = min(len(target), binary.longest_phrase)  # no rule's target is longer
    spans, firsts, lasts = span_ranges(binary, tokens)
    try:
        parts = {" ".join(part).encode("utf-8"): part for part in (
            tuple(target[k:k + length]) for length in range(1, m + 1) for k in range(len(target) - length + 1))}
    except UnicodeEncodeError:  # a lone surrogate: no stored target has one
        return None
    return spans, firsts, lasts, parts


def span_rules_toward(buckets: MappedBuckets, tokens: Sequence[str], target: Sequence[str]
                      ) -> Iterator[tuple[int, int, list[Rule]]] | None:
    """``(start, end, rules)`` for the spans of ``tokens`` with rules whose target is a contiguous, non-empty part
    of ``target`` (only those rules, in table order); None when only the Python path can tell (a token with a space).
    """
    if _beam_core is None or not hasattr(_beam_core, "rules_toward"):
        return None
    binary = buckets.binary
    tokens = tuple(tokens)
    found = ranges_and_parts(binary, tokens, target)
    if found is None:
        return None
    spans, firsts, lasts, parts = found
    chosen = _beam_core.rules_toward(binary.rule_target, binary.target_text, binary.target_offsets, firsts, lasts,
                                     list(parts))
    keep = buckets.keep_features
    return ((start, end, [binary.rule(number, tokens[start:end], keep) for number in numbers])
            for (start, end), numbers in zip(spans, chosen) if numbers)
