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

from parastudio.core.engine.model.derivation import Segment
from parastudio.core.engine.tables.binary_table_rows import ranges_and_parts
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


class SegmentPath(Sequence):
    """A derivation found by the compiled dynamic program, its :class:`Segment` objects built when first read.

    Reranking an n-best list needs every target's score and few targets' derivations; building the frozen
    segments took more than twice the search itself. Reads, compares and hashes as the tuple of its segments.
    """

    __slots__ = ("_path", "_index", "_segments")

    def __init__(self, path: list[tuple[int, int, int, int, int]], index):
        self._path, self._index, self._segments = path, index, None

    def _built(self) -> tuple[Segment, ...]:
        if self._segments is None:
            index = self._index
            memo = index.segments
            if len(memo) > SEGMENTS_KEPT:
                memo.clear()
            self._segments = tuple(memo.get(step) or index.segment(*step) for step in self._path)
            self._index = None
        return self._segments

    def __len__(self) -> int:
        return len(self._path)

    def __getitem__(self, position):
        return self._built()[position]

    def __iter__(self):
        return iter(self._built())

    def __eq__(self, other) -> bool:
        if isinstance(other, (SegmentPath, tuple)):
            return self._built() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._built())

    def __repr__(self) -> str:
        return repr(self._built())


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
