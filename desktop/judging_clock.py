"""How long a judge spent on an item: the clock runs only while they are judging.

It pauses while the annotation screen is hidden (another screen, another
window, the app minimized) and stops adding time once no key or click came
for :data:`IDLE_LIMIT_S` seconds (a judge who went for coffee): time past
the limit counts as that limit. The judgment stores what this clock read,
so durations measure judging, not the time an item sat on screen.
"""

from __future__ import annotations

import time

IDLE_LIMIT_S = 60.0


class JudgingClock:
    def __init__(self, now=time.monotonic, idle_limit_s: float = IDLE_LIMIT_S):
        self._now = now
        self.idle_limit_s = idle_limit_s
        self._counted = 0.0  # seconds counted before the current stretch
        self._stretch_start: float | None = None  # when the current visible stretch began
        self._last_activity = 0.0

    def start(self) -> None:
        """A new item is shown: count from zero (running if the screen is visible)."""
        self._counted = 0.0
        moment = self._now()
        self._last_activity = moment
        self._stretch_start = moment

    def pause(self) -> None:
        """The screen was hidden: what ran so far stays counted."""
        if self._stretch_start is not None:
            self._counted += self._stretch(self._now())
            self._stretch_start = None

    def resume(self) -> None:
        if self._stretch_start is None:
            moment = self._now()
            self._stretch_start = moment
            self._last_activity = moment

    def activity(self) -> None:
        """A key or click: the judge is here. Time idle past the limit stays uncounted."""
        moment = self._now()
        if self._stretch_start is not None:
            self._counted += self._stretch(moment)
            self._stretch_start = moment
        self._last_activity = moment

    @property
    def running(self) -> bool:
        return self._stretch_start is not None and self._now() - self._last_activity < self.idle_limit_s

    def elapsed_ms(self) -> int:
        running = self._stretch(self._now()) if self._stretch_start is not None else 0.0
        return round(1000 * (self._counted + running))

    def _stretch(self, moment: float) -> float:
        """Seconds of the current stretch that count: up to the idle limit after the last activity."""
        end = min(moment, max(self._last_activity, self._stretch_start) + self.idle_limit_s)
        return max(0.0, end - self._stretch_start)
