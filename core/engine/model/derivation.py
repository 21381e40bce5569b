"""Derivations: the rules that turn a source sentence into a candidate.

A derivation is a sequence of segments, left to right, that tiles both the
source and the target. Seed 000's assumptions hold: rules have disjoint
supports (A1) and there is no reordering (A2), so the target is the
concatenation of the segments' targets in source order. Unchanged words are
identity segments with probability 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, Iterable

from parastudio.core.engine.tables.rules import Match, Rule, identity_rule


@dataclass(frozen=True, slots=True)
class Segment:
    """Rule applied to source tokens ``[src_start, src_end)``, giving target ``[tgt_start, tgt_end)``."""

    src_start: int
    src_end: int
    tgt_start: int
    tgt_end: int
    rule: Rule
    identity: bool = False

    def to_json(self) -> dict:
        return {
            "src": [self.src_start, self.src_end],
            "tgt": [self.tgt_start, self.tgt_end],
            "source": " ".join(self.rule.source),
            "target": " ".join(self.rule.target),
            "p": self.rule.prob,
            "identity": self.identity,
        }


class LazySegments(Sequence):
    """A derivation whose :class:`Segment` objects are built when first read (``load()`` gives them).

    Most candidates are written without their derivation (a Moses n-best file, a plain list), and building an
    n-best list's segments cost generate more than its search. Reads, compares and hashes as the tuple of its
    segments, and pickles as that tuple (a worker process's candidates cross to the parent).
    """

    __slots__ = ("_load", "_segments")

    def __init__(self, load: Callable[[], Iterable[Segment]]):
        self._load, self._segments = load, None

    def _built(self) -> tuple[Segment, ...]:
        if self._segments is None:
            self._segments = tuple(self._load())
            self._load = None
        return self._segments

    def __len__(self) -> int:
        return len(self._built())

    def __getitem__(self, position):
        return self._built()[position]

    def __iter__(self):
        return iter(self._built())

    def __eq__(self, other) -> bool:
        if isinstance(other, (LazySegments, tuple)):
            return self._built() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._built())

    def __repr__(self) -> str:
        return repr(self._built())

    def __reduce__(self):
        return tuple, (self._built(),)


def apply_matches(source: Sequence[str], matches: Iterable[Match]) -> tuple[tuple[str, ...], tuple[Segment, ...]]:
    """Apply disjoint rule matches to ``source``; other words stay (identity).

    Raises ``ValueError`` if two matches overlap.
    """
    ordered = sorted(matches, key=lambda m: m.start)
    target: list[str] = []
    segments: list[Segment] = []
    position = 0
    for match in ordered:
        if match.start < position:
            raise ValueError(f"rules overlap at source token {match.start}")
        for i in range(position, match.start):
            segments.append(Segment(i, i + 1, len(target), len(target) + 1, identity_rule(source[i]), True))
            target.append(source[i])
        start = len(target)
        target.extend(match.rule.target)
        segments.append(Segment(match.start, match.end, start, len(target), match.rule))
        position = match.end
    for i in range(position, len(source)):
        segments.append(Segment(i, i + 1, len(target), len(target) + 1, identity_rule(source[i]), True))
        target.append(source[i])
    return tuple(target), tuple(segments)


def changed_segments(segments: Iterable[Segment]) -> list[Segment]:
    """The segments that really rewrite something (what a reviewer highlights)."""
    return [s for s in segments if not s.identity and s.rule.source != s.rule.target]
