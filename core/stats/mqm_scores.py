"""MQM system scores (Freitag et al. 2021; the published tables of ``google/wmt-mqm-human-evaluation``).

Each judgment's value is its segment's MQM score negated (:mod:`core.judging.protocols.mqm`: ``-5.1`` for a Major
and a Minor punctuation error), so here a segment's score is ``-value``: error points, lower is better. A
*segment* is one system's output of one source sentence (a judgment made as one system's output counts for it
alone; one made of a string several systems wrote counts for each, :meth:`JudgmentRecords.per_system`). A
segment's score is the mean over its raters; a system's score is the mean over its segments, as the repository's
tables average (in its TED talks files every segment has one rater, so the mean over segments and the mean over
ratings are one number). Systems are ranked best (fewest points) first, as the published tables are.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import ClassVar

from parastudio.core.number_text import parse_decimal
from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.signature import Signed


@dataclass(frozen=True)
class SystemMqm:
    system: str
    score: float  # mean error points over the system's segments, lower is better
    segments: int
    ratings: int


def segment_points(records: JudgmentRecords, criterion: str) -> dict[tuple[str, str], list[float]]:
    """``(item, system)`` -> each rating's error points (the value negated) on ``criterion``."""
    chosen = records.select(criterion=criterion).per_system()
    systems = chosen.systems if chosen.systems is not None else ["-"] * len(chosen)
    points: dict[tuple[str, str], list[float]] = defaultdict(list)
    for item, system, value in zip(chosen.items, systems, chosen.values):
        points[(item, system)].append(-parse_decimal(value))
    return points


@dataclass(frozen=True)
class MqmSystemScores(Signed):
    """Per-system mean MQM error points (module docstring)."""

    name: ClassVar[str] = "mqm"

    def settings(self) -> dict[str, object]:
        return {"weights": "major5,minor1,minor-punctuation0.1,non-translation25,neutral0",
                "segment": "mean-over-raters", "system": "mean-over-segments", "order": "lower-is-better"}

    def systems(self, records: JudgmentRecords, criterion: str) -> list[SystemMqm]:
        per_system: dict[str, list[tuple[float, int]]] = defaultdict(list)
        for (_item, system), points in segment_points(records, criterion).items():
            per_system[system].append((sum(points) / len(points), len(points)))
        rows = [SystemMqm(system, sum(p for p, _ in segments) / len(segments), len(segments),
                          sum(n for _, n in segments))
                for system, segments in per_system.items()]
        return sorted(rows, key=lambda row: (row.score, row.system))
