"""MCPG's random numbers: a counter-based stream, the same in Python and in the compiled search (issue 24).

Draw ``d`` of episode ``e`` under seed ``s`` is a pure function of ``(s, e, d)``:
SplitMix64's finaliser (Steele, Lea & Flood, "Fast splittable pseudorandom
number generators", OOPSLA 2014) applied to ``mix(mix(mix(s) ^ e) ^ d)``, its
top 53 bits scaled to a float in [0, 1). No state is carried from one episode
to the next, so ``core/engine/native/mcpg_core.cpp`` (which implements the same
three lines with ``uint64_t``) draws exactly the same numbers for the same
tree, and an episode's draws do not depend on how many the earlier ones made.
"""

from __future__ import annotations

MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MULTIPLY_1 = 0xBF58476D1CE4E5B9
_MULTIPLY_2 = 0x94D049BB133111EB
_UNIT = 2.0**-53


def mix(value: int) -> int:
    """SplitMix64's step and finaliser on a 64-bit unsigned integer."""
    z = (value + _GOLDEN) & MASK
    z = ((z ^ (z >> 30)) * _MULTIPLY_1) & MASK
    z = ((z ^ (z >> 27)) * _MULTIPLY_2) & MASK
    return z ^ (z >> 31)


def draw(seed: int, episode: int, index: int) -> float:
    """The ``index``-th number of ``episode`` under ``seed``, in [0, 1)."""
    return (mix(mix(mix(seed & MASK) ^ episode) ^ index) >> 11) * _UNIT


class CounterRandom:
    """The draws of one episode at a time: :meth:`start` an episode, then :meth:`random` as often as needed."""

    def __init__(self, seed: int):
        self.seed_key = mix(seed & MASK)
        self.start(0)

    def start(self, episode: int) -> None:
        self.episode_key = mix(self.seed_key ^ episode)
        self.draws = 0

    def random(self) -> float:
        index = self.draws
        self.draws = index + 1
        return (mix(self.episode_key ^ index) >> 11) * _UNIT
