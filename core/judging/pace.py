"""A judge's sitting at the judging screen (issue 44): the items judged since they opened the study, their own
median seconds per item, the time left at that pace, and when a break is due. Qt-free: the screen hands
:class:`Sitting` each answer's judging-clock time (:mod:`desktop.judging_clock`, which runs only while the judge
judges) and a monotonic moment; tests hand it numbers.

A study's researcher sets the breaks (:class:`PaceSettings`, ``parastudio study pace``; stored in the study's
settings under ``pace``, which a judge's own login may read): a reminder after ``break_minutes`` of judging or
``break_items`` answers, whichever comes first (Appraise's 100-item tasks and Anki's session limits give the same
natural pause). Judging minutes are the clock's, so time the screen was hidden or idle is not counted; a judge
who was away from the screen for :data:`AWAY_MINUTES` between two answers has had their break, and a new stretch
begins. Dismissing the reminder starts a new stretch too.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import asdict, dataclass
from typing import Iterable

from parastudio.core.stats.judging_pace import (
    PaceBlocks,
    TimedAnswer,
    duration_text,
    median_seconds,
    pace_table,
    seconds_left,
    sitting_minutes,
)
from parastudio.core.stats.report_model import ReportTable
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database

DEFAULT_BREAK_MINUTES = 45.0
DEFAULT_BREAK_ITEMS = 200
DEFAULT_FAST_SECONDS = 2.0
AWAY_MINUTES = 5.0  # no judging for this long between two answers: a break was taken
DEFAULT_BLOCKS = PaceBlocks()  # 25 answers a block, a new sitting after 30 minutes without an answer
SETTING = "pace"  # the key of the study's settings that holds a PaceSettings


@dataclass(frozen=True)
class PaceSettings:
    """A study's pace settings: a break reminder after ``break_minutes`` of judging or ``break_items`` answers
    (0: never by that measure), and ``fast_seconds``: an answer given faster goes on the judge's own list."""

    break_minutes: float = DEFAULT_BREAK_MINUTES
    break_items: int = DEFAULT_BREAK_ITEMS
    fast_seconds: float = DEFAULT_FAST_SECONDS

    def __post_init__(self) -> None:
        for name, limit in (("break_minutes", 24 * 60), ("fast_seconds", 3600)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or not 0 <= value <= limit:
                raise ValueError(f"{name.replace('_', ' ')} must be a number from 0 to {limit}, not {value!r}")
        if isinstance(self.break_items, bool) or not isinstance(self.break_items, int) \
                or not 0 <= self.break_items <= 1_000_000:
            raise ValueError(f"break items must be a whole number from 0 to 1000000, not {self.break_items!r}")

    @classmethod
    def of_study(cls, settings: dict) -> PaceSettings:
        """The settings a study holds (its ``pace`` entry), the defaults for what it does not say."""
        stored = settings.get(SETTING) or {}
        return cls(**{name: stored[name] for name in asdict(cls()) if name in stored})

    def as_setting(self) -> dict:
        return asdict(self)

    def rule_text(self) -> str:
        """``"after 45 minutes of judging or 200 answers"``, as the reminder and the CLI say it."""
        parts = ([f"{self.break_minutes:g} minutes of judging"] if self.break_minutes else []) + \
                ([f"{self.break_items} answers"] if self.break_items else [])
        return "after " + " or ".join(parts) if parts else "never"


@dataclass(frozen=True)
class Pace:
    """What the judging screen shows beside the progress: ``items`` judged in this sitting, the judge's own
    median seconds per item (all their timed answers in the study), and the time the items left take at it."""

    items: int
    median_s: float | None
    items_left: int

    @property
    def seconds_left(self) -> float | None:
        return seconds_left(self.items_left, self.median_s)

    def text(self) -> str:
        if self.median_s is None:
            return f"this sitting: {self.items} · pace after your first answer"
        left = "nothing left" if self.items_left <= 0 else f"about {duration_text(self.seconds_left)} left"
        return f"this sitting: {self.items} · {self.median_s:.1f} s per item · {left}"


class Sitting:
    """One judge's sitting: from opening a study to closing it (see the module docstring). ``earlier_ms``: the
    judging-clock times of their answers given before it; ``started``: the monotonic moment it began."""

    def __init__(self, settings: PaceSettings = PaceSettings(), earlier_ms: Iterable[int] = (),
                 started: float = 0.0):
        self.settings = settings
        self.started = started
        self.items = 0  # answers given in this sitting (an undo takes one back)
        self.judging_ms = 0  # the judging clock over this sitting's answers
        self.reminders = 0  # break reminders shown
        self.breaks = 0  # breaks taken: away from judging for AWAY_MINUTES, or after a reminder
        self._sorted = sorted(d for d in earlier_ms if d is not None)
        self._stretch_ms = 0
        self._stretch_items = 0
        self._last = started  # the last answer (or the start, or the reminder's dismissal)
        self._due = False

    def add_earlier(self, durations_ms: Iterable[int | None]) -> None:
        """The judge's answers before this sitting (read from the store once it began): in the median only."""
        for duration in durations_ms:
            if duration is not None:
                bisect.insort(self._sorted, duration)

    def answered(self, duration_ms: int, at: float) -> bool:
        """An answer given at ``at`` after ``duration_ms`` of judging; True when a break reminder is due now."""
        if (at - self._last) - duration_ms / 1000 >= AWAY_MINUTES * 60:
            self._new_stretch()  # away from judging long enough before this item: that was a break
            self.breaks += 1
        self._last = at
        self.items += 1
        self.judging_ms += duration_ms
        self._stretch_ms += duration_ms
        self._stretch_items += 1
        bisect.insort(self._sorted, duration_ms)
        rule = self.settings
        if not self._due and ((rule.break_minutes and self._stretch_ms >= rule.break_minutes * 60_000)
                              or (rule.break_items and self._stretch_items >= rule.break_items)):
            self._due = True
            self.reminders += 1
        return self._due

    def undone(self) -> None:
        """The last answer was withdrawn: one item fewer judged (its time was still spent judging)."""
        self.items = max(0, self.items - 1)

    @property
    def break_due(self) -> bool:
        return self._due

    def break_over(self, at: float) -> None:
        """The judge dismissed the reminder: a new stretch begins."""
        if self._due:
            self._due = False
            self.breaks += 1
            self._new_stretch()
            self._last = at

    def _new_stretch(self) -> None:
        self._stretch_ms = self._stretch_items = 0

    @property
    def stretch_minutes(self) -> float:
        return self._stretch_ms / 60_000

    @property
    def stretch_items(self) -> int:
        return self._stretch_items

    def median_s(self) -> float | None:
        values, count = self._sorted, len(self._sorted)
        if not count:
            return None
        middle = count // 2
        return (values[middle] if count % 2 else (values[middle - 1] + values[middle]) / 2) / 1000

    def pace(self, items_left: int) -> Pace:
        return Pace(self.items, self.median_s(), items_left)

    def summary(self, at: float) -> dict:
        """The sitting for the study's event log: its length (wall time from opening), judging time, answers,
        reminders and breaks."""
        return {"seconds": round(max(0.0, at - self.started), 1), "judging_seconds": round(self.judging_ms / 1000, 1),
                "answers": self.items, "break_reminders": self.reminders, "breaks": self.breaks}


@dataclass(frozen=True)
class JudgePace:
    """One judge of a study as the researcher sees them: judged of assigned, their median seconds per item, the
    time their open items take at it, and their latest sitting (answers, minutes from its first answer to its
    last, and its median seconds per item block by block: :class:`core.stats.judging_pace.PaceBlocks`)."""

    name: str
    judged: int
    assigned: int
    median_s: float | None
    sittings: int
    latest_answers: int
    latest_minutes: float
    latest_blocks: tuple[float | None, ...]

    @property
    def seconds_left(self) -> float | None:
        return seconds_left(self.assigned - self.judged, self.median_s)


def timed_answers(db: Database, study_id: int) -> dict[str, list[TimedAnswer]]:
    """Judge name -> their timed answers (the researcher's read of every judge)."""
    names = ops.annotators_of(db, study_id)
    return {names[annotator]: [TimedAnswer(at, ms) for at, ms in given]
            for annotator, given in ops.answer_times(db, study_id).items() if annotator in names}


def judge_paces(db: Database, study_id: int, blocks: PaceBlocks = DEFAULT_BLOCKS) -> list[JudgePace]:
    """Every judge of the study with assignments, by name (the Studies screen's per-judge breakdown)."""
    names = ops.annotators_of(db, study_id)
    counts = ops.progress_counts(db, study_id)
    times = ops.answer_times(db, study_id)
    paces = []
    for annotator, name in names.items():
        judged, assigned = counts.get(annotator, (0, 0))
        answers = [TimedAnswer(at, ms) for at, ms in times.get(annotator, [])]
        sittings = blocks.sittings(answers)
        latest = sittings[-1] if sittings else []
        paces.append(JudgePace(name, judged, assigned, median_seconds(a.duration_ms for a in answers), len(sittings),
                               len(latest), sitting_minutes(latest), tuple(blocks.blocks(latest))))
    return sorted(paces, key=lambda pace: pace.name)


def study_pace_table(db: Database, study_id: int, blocks: PaceBlocks = DEFAULT_BLOCKS) -> ReportTable:
    """The Dashboard's table of each judge's latest sitting, block by block (drift)."""
    return pace_table(timed_answers(db, study_id), blocks)
