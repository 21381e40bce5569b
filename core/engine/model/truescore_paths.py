"""Derivations found by the compiled true-score program, and a source's first target scored from a mapped
binary table's columns.

:class:`SegmentPath` is what :func:`best_derivation <core.engine.model.truescore.best_derivation>` returns from
``_truescore_core``: segments built when first read. :func:`best_from_columns` is its first target of a source
(seed 000, Algorithm 1, the same dynamic program): the rules it can use come from
:func:`rule_columns_toward` (read from a mapped binary table) as numbers (span, target, rule number, log10 p),
so no :class:`Rule` is built but those of the derivation, when read. The reference is
:func:`best_derivation_reference <core.engine.model.truescore.best_derivation_reference>` over
:meth:`SourceRuleIndex.for_target <core.engine.model.truescore.SourceRuleIndex.for_target>`: the same rules in the same
order, so the same score bits and segments (tests/test_truescore_paths.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Callable, NamedTuple

from parastudio.core.engine.model.derivation import LazySegments, Segment
from parastudio.core.engine.tables.binary_table_rows import ranges_and_parts, span_ranges
from parastudio.core.engine.tables.rules import Rule, identity_rule
from parastudio.core.engine.tables.table_binary import MappedBuckets

try:
    from parastudio.core.engine import _truescore_core
except ImportError:  # not built: the Python dynamic program runs
    _truescore_core = None
try:
    from parastudio.core.engine._search_cores import beam as _beam_core  # it reads the binary table's arrays
except ImportError:
    _beam_core = None


SEGMENTS_KEPT = 200_000  # per source index; past it the memo starts again


class SegmentPath(LazySegments):
    """A derivation found by the compiled dynamic program, its :class:`Segment` objects built when first read.

    Reranking an n-best list needs every target's score and few targets' derivations; building the frozen
    segments took more than twice the search itself. Reads, compares and hashes as the tuple of its segments.
    """

    __slots__ = ("_path",)

    def __init__(self, path: list[tuple[int, int, int, int, int]], index):
        super().__init__(lambda: _segments_of(path, index))
        self._path = path

    def __len__(self) -> int:
        return len(self._path)


def _segments_of(path: list[tuple[int, int, int, int, int]], index) -> tuple[Segment, ...]:
    memo = index.segments
    if len(memo) > SEGMENTS_KEPT:
        memo.clear()
    return tuple(memo.get(step) or index.segment(*step) for step in path)


class RuleColumns:
    """The rules one target of ``source`` can use, as columns: rule ``r`` rewrites ``source[starts[r]:ends[r]]``
    into ``targets[groups[r]]`` with ``log10 p = log_ps[r]``; ``make_rule(r)`` builds its :class:`Rule`."""

    def __init__(self, source: tuple[str, ...], starts: list[int], ends: list[int], groups: list[int],
                 log_ps: list[float], targets: list[tuple[str, ...]], make_rule):
        self.source, self.starts, self.ends, self.groups, self.log_ps = source, starts, ends, groups, log_ps
        self.targets, self.make_rule = targets, make_rule
        self.segments: dict[tuple[int, int, int, int, int], Segment] = {}  # what SegmentPath reads and fills

    def segment(self, i: int, j: int, k: int, l: int, rule: int) -> Segment:
        if rule < 0:
            made = Segment(i, j, k, l, identity_rule(self.source[i]), True)
        else:
            made = Segment(i, j, k, l, self.make_rule(rule), False)
        self.segments[(i, j, k, l, rule)] = made
        return made


def rule_columns_toward(buckets: MappedBuckets, tokens: Sequence[str], target: Sequence[str]) -> RuleColumns | None:
    """:func:`~core.engine.tables.binary_table_rows.span_rules_toward`'s rules as columns for the true score (spans in order, each span's rules in table
    order); None when only the Python path can tell."""
    if _beam_core is None or not hasattr(_beam_core, "rule_columns_toward"):
        return None
    binary, tokens = buckets.binary, tuple(tokens)
    found = ranges_and_parts(binary, tokens, target)
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


class TableRuleIndex(NamedTuple):
    """A source's compiled true-score index read straight from a mapped binary table (``RuleIndex.from_table``:
    its words interned in C++, its rule numbers the table's), and the :class:`Rule` of a derivation's step."""

    native: object
    make_rule: Callable[[int, int, int], Rule]  # (table rule number, source start, source end) -> its Rule


def index_from_table(buckets: MappedBuckets, tokens: Sequence[str]) -> TableRuleIndex | None:
    """The compiled index of every rule of ``tokens``' spans, as SourceRuleIndex.native builds it from its
    ``by_target`` (the same groups' rules in the same order, so the same bits and segments); None when only the
    Python path can tell (a core without ``from_table``)."""
    if _truescore_core is None or not hasattr(_truescore_core.RuleIndex, "from_table"):
        return None
    binary, tokens = buckets.binary, tuple(tokens)
    spans, firsts, lasts = span_ranges(binary, tokens)
    native = _truescore_core.RuleIndex.from_table(
        list(tokens), binary.rule_target, binary.rule_prob, binary.target_text, binary.target_offsets,
        [start for start, _ in spans], [end for _, end in spans], firsts, lasts)
    keep = buckets.keep_features

    def make_rule(number: int, start: int, end: int) -> Rule:
        return binary.rule(number, tokens[start:end], keep)

    return TableRuleIndex(native, make_rule)


def best_from_columns(target: tuple[str, ...], columns: RuleColumns
                      ) -> tuple[float, SegmentPath] | None:
    """best_derivation_reference(target, index.for_target(target)) in C++ over ``columns``; None if unreachable."""
    ids: dict[str, int] = {}
    source = [ids.setdefault(word, len(ids)) for word in columns.source]
    words, offsets = [], [0]
    for phrase in columns.targets:
        words.extend([ids.setdefault(word, len(ids)) for word in phrase])
        offsets.append(len(words))
    index = _truescore_core.RuleIndex(source, words, offsets, columns.groups, columns.starts, columns.ends,
                                      columns.log_ps)
    found = index.best([ids.get(word, -1) for word in target])
    if found is None:
        return None
    score, path = found
    return score, SegmentPath(path, columns)
