"""The judging clock counts judging only: paused while hidden, capped after an idle stretch."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from parastudio.desktop.judging_clock import JudgingClock


class FakeTime:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_hidden_time_and_idle_time_are_not_counted():
    now = FakeTime()
    clock = JudgingClock(now, idle_limit_s=60)
    clock.start()
    now.t += 5
    clock.pause()  # another tab for 90 s
    now.t += 90
    clock.resume()
    now.t += 3
    assert clock.elapsed_ms() == 8000
    now.t += 500  # went for coffee: counts as the idle limit
    assert clock.elapsed_ms() == 8000 + 57_000 and not clock.running
    clock.activity()
    now.t += 2
    assert clock.elapsed_ms() == 8000 + 57_000 + 2000


@given(st.lists(st.tuples(st.sampled_from(["pause", "resume", "activity", "wait"]), st.floats(0, 200)),
                max_size=30))
def test_never_more_than_the_visible_time_and_never_negative(steps):
    now = FakeTime()
    clock = JudgingClock(now, idle_limit_s=60)
    clock.start()
    visible, shown = 0.0, True
    for action, seconds in steps:
        if action == "wait":
            now.t += seconds
            visible += seconds if shown else 0.0
        elif action == "pause":
            clock.pause()
            shown = False
        elif action == "resume":
            clock.resume()
            shown = True
        else:
            clock.activity()
    assert 0 <= clock.elapsed_ms() <= round(1000 * visible) + 1
