"""Derivations found by the compiled true-score program, and a source's first target scored from a mapped
binary table's columns.

:class:`SegmentPath` is what :func:`best_derivation <core.engine.truescore.best_derivation>` returns from
``_truescore_core``: segments built when first read. :func:`best_from_columns` is its first target of a source
(seed 000, Algorithm 1, the same dynamic program): the rules it can use come from
:func:`~core.engine.binary_table_rows.rule_columns_toward` as numbers (span, target, rule number, log10 p),
so no :class:`Rule` is built but those of the derivation, when read. The reference is
:func:`best_derivation_reference <core.engine.truescore.best_derivation_reference>` over
:meth:`SourceRuleIndex.for_target <core.engine.truescore.SourceRuleIndex.for_target>`: the same rules in the same
order, so the same score bits and segments (tests/test_truescore_paths.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.engine.derivation import Segment
from core.engine.rules import identity_rule

try:
    from core.engine import _truescore_core
except ImportError:  # not built: the Python dynamic program runs
    _truescore_core = None


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
