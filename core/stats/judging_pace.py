"""A judge's pace, read from the judging clock: seconds per item, sittings, and the pace block by block.

The judging screen times each item with a clock that runs only while the judge is judging (it pauses while the
screen is hidden and after a minute without a key): a judgment's ``duration_ms``. From those and the moments the
answers were given:

* :func:`median_seconds`: a judge's typical time per item, the median (one item left open over lunch, a few
  seconds each, would pull a mean far from what the judge does);
* :meth:`PaceBlocks.sittings`: a judge's answers cut into sittings wherever no answer came for
  ``sitting_gap_minutes``;
* :meth:`PaceBlocks.blocks`: the median seconds per item in consecutive blocks of ``block_size`` answers of one
  sitting, so fatigue (slower and slower) or haste (faster and faster) late in a sitting shows;
* :func:`pace_table`: the Dashboard's table, each judge's latest sitting block by block.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Iterable, Mapping, Sequence

from parastudio.core.stats.report_model import Column, PlotSpec, ReportTable
from parastudio.core.stats.signature import Signed


@dataclass(frozen=True)
class TimedAnswer:
    """One answer: when it was given and how long the judging clock ran on its item (None: not timed, e.g. an
    answer imported from a CSV)."""

    at: datetime
    duration_ms: int | None


def median_seconds(durations_ms: Iterable[int | None]) -> float | None:
    """The median of the timed durations, in seconds; None when none is timed."""
    timed = [d for d in durations_ms if d is not None]
    return statistics.median(timed) / 1000 if timed else None


def seconds_left(items_left: int, median_s: float | None) -> float | None:
    """Time the items left take at ``median_s`` per item (None while the pace is unknown)."""
    if median_s is None:
        return None
    return max(0, items_left) * median_s


def duration_text(seconds: float | None) -> str:
    """``"1 h 05 min"``, ``"12 min"``, ``"40 s"``; "–" when unknown."""
    if seconds is None:
        return "–"
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


@dataclass(frozen=True)
class PaceBlocks(Signed):
    """Median seconds per item in consecutive blocks of ``block_size`` answers, within a sitting: answers with no
    gap of ``sitting_gap_minutes`` or more between two of them, in the order given."""

    block_size: int = 25
    sitting_gap_minutes: float = 30.0
    name = "pace-blocks"

    def __post_init__(self) -> None:
        if self.block_size < 1:
            raise ValueError(f"block_size must be at least 1, not {self.block_size}")
        if not self.sitting_gap_minutes > 0:
            raise ValueError(f"sitting_gap_minutes must be above 0, not {self.sitting_gap_minutes}")

    def settings(self) -> dict[str, object]:
        return {"block": self.block_size, "sitting-gap-min": self.sitting_gap_minutes, "measure": "median",
                "clock": "judging"}

    def sittings(self, answers: Iterable[TimedAnswer]) -> list[list[TimedAnswer]]:
        """The answers by time, cut wherever two follow each other ``sitting_gap_minutes`` or more apart."""
        gap = timedelta(minutes=self.sitting_gap_minutes)
        found: list[list[TimedAnswer]] = []
        for answer in sorted(answers, key=lambda a: a.at):
            if not found or answer.at - found[-1][-1].at >= gap:
                found.append([])
            found[-1].append(answer)
        return found

    def blocks(self, sitting: Sequence[TimedAnswer]) -> list[float | None]:
        """The median seconds per item of each block of ``block_size`` answers (the last may be shorter)."""
        return [median_seconds(a.duration_ms for a in sitting[start:start + self.block_size])
                for start in range(0, len(sitting), self.block_size)]


def sitting_minutes(sitting: Sequence[TimedAnswer]) -> float:
    """From the first answer of a sitting to its last, in minutes (wall time)."""
    return (sitting[-1].at - sitting[0].at).total_seconds() / 60 if sitting else 0.0


def pace_table(answers: Mapping[str, Sequence[TimedAnswer]], pace: PaceBlocks = PaceBlocks()) -> ReportTable:
    """Each judge's latest sitting, block by block: a row per block, a column per judge (median seconds per item,
    rounded to 0.1 s); a judge whose sitting is shorter has no number in the later rows."""
    judges = sorted(name for name, given in answers.items() if given)
    latest = {name: pace.sittings(answers[name])[-1] for name in judges}
    blocks = {name: pace.blocks(latest[name]) for name in judges}
    rows = []
    for number in range(max((len(b) for b in blocks.values()), default=0)):
        first = number * pace.block_size + 1
        cells = [None if number >= len(blocks[name]) or blocks[name][number] is None
                 else round(blocks[name][number], 1) for name in judges]
        rows.append([number + 1, f"{first}–{first + pace.block_size - 1}", *cells])
    lengths = ", ".join(f"{name}: {len(latest[name])} answers in {duration_text(60 * sitting_minutes(latest[name]))}"
                        for name in judges)
    return ReportTable(
        key="pace",
        title=f"Judges' pace over their latest sitting: median seconds per item, block by block of "
              f"{pace.block_size} answers",
        columns=[Column("block", "count"), Column("answers"), *(Column(name) for name in judges)],
        rows=rows,
        signature=pace.signature(sum(len(s) for s in latest.values()), len(judges)),
        note=("A sitting ends where a judge gave no answer for "
              f"{pace.sitting_gap_minutes:g} minutes; seconds are the judging clock's (it pauses when the screen "
              f"is hidden and after a minute without a key). {lengths}." if judges else "No timed answers yet."),
        plot=PlotSpec("line", 0, tuple(range(2, 2 + len(judges))), "median seconds per item") if judges else None)
