"""When MCPG commits a root action: after a fixed eta episodes, or paced to a time budget.

The seeds fix eta, the episodes run before each commit (seed 000 §4.2:
100,000; seed 003 §4.3: 1,000,000), and give the search no time limit. A
search of a sentence makes up to ``D`` commits, so the seeds' search runs up
to ``eta * D`` episodes. Under a time budget ``B`` at ``r`` episodes per
second, the same search (equal effort for every decision, all decisions made)
has ``eta = r * B / D``: that is the eta the papers imply per second of
budget, ``r / D``. :class:`BudgetPace` applies it without knowing ``r`` in
advance: each decision gets an equal share of the time left, so eta is
whatever number of episodes fits in that share.

``D`` counts the decisions left as an upper bound, so the search never runs
out of time before it has committed: one per word not yet covered (every rule
covers at least one word, and a covered word is never transformed again),
plus the stop action in true-score mode.
"""

from __future__ import annotations

import time
from typing import Protocol


class Pace(Protocol):
    def due(self, since_commit: int, uncovered: int) -> bool:
        """Whether the root action is committed now, ``since_commit`` episodes after the last commit."""

    def committed(self, episodes: int) -> None:
        """Record a commit made after ``episodes`` episodes."""


class FixedPace:
    """The seeds' rule: commit every ``eta`` episodes."""

    def __init__(self, eta: int):
        if eta < 1:
            raise ValueError("episodes_per_step must be at least 1")
        self.eta = eta
        self.etas: list[int] = []

    def due(self, since_commit: int, uncovered: int) -> bool:
        return since_commit >= self.eta

    def committed(self, episodes: int) -> None:
        self.etas.append(episodes)


class BudgetPace:
    """Equal time for each decision left: eta = episodes that fit in ``time left / decisions left``."""

    def __init__(self, deadline: float, stop_is_a_decision: bool, clock=time.perf_counter):
        self.deadline = deadline
        self.extra = 1 if stop_is_a_decision else 0
        self.clock = clock
        self.slot_start = clock()
        self.etas: list[int] = []

    def due(self, since_commit: int, uncovered: int) -> bool:
        decisions_left = max(1, uncovered + self.extra)
        now = self.clock()
        return now - self.slot_start >= (self.deadline - self.slot_start) / decisions_left

    def committed(self, episodes: int) -> None:
        self.etas.append(episodes)
        self.slot_start = self.clock()
