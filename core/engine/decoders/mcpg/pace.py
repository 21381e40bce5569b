"""When MCPG commits a root action: after a fixed number of episodes, eta (seed 003 §3, seed 000 §4.2).

Eta is a count, never a share of a clock: a search paced by the time left
(what the faithful profile once did under a time budget) commits after however
many episodes the machine managed, so its output depended on the load (issue 23:
eta of about 101 per decision at load 10 instead of about 708 at load 1). With a
count the same inputs and seed give the same bytes everywhere.
"""

from __future__ import annotations

from typing import Protocol


class Pace(Protocol):
    def due(self, since_commit: int, uncovered: int) -> bool:
        """Whether the root action is committed now, ``since_commit`` episodes after the last commit."""

    def committed(self, episodes: int) -> None:
        """Record a commit made after ``episodes`` episodes."""


class FixedPace:
    """The seeds' rule: commit every ``eta`` episodes; ``etas`` records the episodes each decision had."""

    def __init__(self, eta: int):
        if eta < 1:
            raise ValueError("episodes_per_step must be at least 1")
        self.eta = eta
        self.etas: list[int] = []

    def due(self, since_commit: int, uncovered: int) -> bool:
        return since_commit >= self.eta

    def committed(self, episodes: int) -> None:
        self.etas.append(episodes)
