"""Exact line search over a piecewise-constant objective (Och 2003, "Minimum error rate training", §4-5).

Along a line ``w + gamma * d`` in weight space every unit of a development set (a sentence's n-best list, or a
labelled pair) contributes statistics that are piecewise constant in ``gamma``: they change only at a few
breakpoints. Summing the units' pieces gives the corpus statistics on every interval between consecutive
breakpoints, so the objective is known *exactly* everywhere on the line, and the best interval is found by one
sorted sweep instead of a grid.

* :func:`upper_envelope` gives, for an n-best list, where its best candidate changes: candidate ``c`` scores
  ``a_c + gamma * b_c`` (``a_c = w . h_c``, ``b_c = d . h_c``), and the argmax over lines is the upper envelope,
  found by sorting lines by slope and keeping the hull (the "convex hull trick"); argmax ties between identical
  lines go to the lowest index, as :func:`argmax_at` decides them.
* :class:`Piecewise` is one unit's statistics along the line; :func:`sweep` adds many and evaluates the
  objective on every interval; :func:`choose_gamma` picks the best interval's point (the current point when it
  is already among the best, so the search never moves without gain).

Notation -> names: Och's ``gamma`` -> ``gamma``, ``lambda`` -> ``point``, ``d`` -> ``direction``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

# Summed statistics of many units, one row per interval -> the objective's value on each interval.
Objective = Callable[[np.ndarray], np.ndarray]
# Two values closer than this are a tie (the objective is a ratio of counts).
TIE = 1e-12
# Breakpoints closer than this (relative) are one: two units whose candidates tie at the same weights compute
# that point with different rounding, and the sliver between the two results is not a real interval.
SAME_POINT = 1e-9


@dataclass(frozen=True)
class Piecewise:
    """One unit's statistics along a line: ``stats[k]`` holds on ``(breaks[k-1], breaks[k])``."""

    breaks: np.ndarray  # (m,) ascending
    stats: np.ndarray  # (m + 1, S)


def argmax_at(intercepts: np.ndarray, slopes: np.ndarray, gamma: float) -> int:
    """The best line at ``gamma`` (lowest index among equal scores): the direct evaluation the envelope must match."""
    return int(np.argmax(intercepts + gamma * slopes))


def upper_envelope(intercepts: np.ndarray, slopes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(breaks, winners)``: line ``winners[k]`` is the argmax between ``breaks[k-1]`` and ``breaks[k]``.

    Lines are taken by slope ascending; of lines with one slope only the best can ever win (highest
    intercept, then lowest index). A new, steeper line overtakes the hull's last line at
    ``x = (a_j - a_i) / (b_i - b_j)``; a hull line it overtakes before that line's own start never wins.
    """
    intercepts = np.asarray(intercepts, dtype=float)
    slopes = np.asarray(slopes, dtype=float)
    n = len(intercepts)
    if n == 0:
        raise ValueError("an empty n-best list has no envelope")
    # lexsort sorts by the last key first: slope, then intercept, then -index (so the lowest index comes last).
    order = np.lexsort((-np.arange(n), intercepts, slopes))
    hull: list[int] = []
    starts: list[float] = []
    for position, i in enumerate(order):
        if position + 1 < n and slopes[order[position + 1]] == slopes[i]:
            continue  # a better line of the same slope follows
        start = -np.inf
        while hull:
            j = hull[-1]
            start = (intercepts[j] - intercepts[i]) / (slopes[i] - slopes[j])
            if start <= starts[-1]:
                hull.pop()
                starts.pop()
                start = -np.inf
            else:
                break
        hull.append(int(i))
        starts.append(start)
    return np.array(starts[1:], dtype=float), np.array(hull, dtype=int)


def nbest_piecewise(features: np.ndarray, stats: np.ndarray, point: np.ndarray, direction: np.ndarray) -> Piecewise:
    """An n-best list's statistics along ``point + gamma * direction`` (the statistics of its best candidate)."""
    breaks, winners = upper_envelope(features @ point, features @ direction)
    return Piecewise(breaks, stats[winners])


def sweep(pieces: Sequence[Piecewise], objective: Objective) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(lower, upper, values)`` of every interval of the summed statistics, left to right.

    The first interval starts at ``-inf`` and the last ends at ``+inf``; breakpoints shared by several units
    (or repeated, or equal up to rounding: :data:`SAME_POINT`) leave no interval between them.
    """
    base = np.sum([piece.stats[0] for piece in pieces], axis=0)
    xs = [piece.breaks for piece in pieces if len(piece.breaks)]
    if not xs:
        return np.array([-np.inf]), np.array([np.inf]), objective(base[None, :])
    positions = np.concatenate(xs)
    deltas = np.concatenate([np.diff(piece.stats, axis=0) for piece in pieces if len(piece.breaks)])
    order = np.argsort(positions, kind="stable")
    positions, deltas = positions[order], deltas[order]
    running = base + np.cumsum(deltas, axis=0)
    gaps = positions[1:] - positions[:-1] > SAME_POINT * (1.0 + np.abs(positions[:-1]))
    last_of_group = np.flatnonzero(np.append(gaps, True))
    edges = positions[last_of_group]
    totals = np.vstack([base[None, :], running[last_of_group]])
    lower = np.concatenate([[-np.inf], edges])
    upper = np.concatenate([edges, [np.inf]])
    return lower, upper, objective(totals)


def choose_gamma(lower: np.ndarray, upper: np.ndarray, values: np.ndarray, *, step: float = 1.0) -> tuple[float, float]:
    """``(gamma, value)`` of the best interval: ``gamma = 0`` when the interval around 0 is among the best,
    else the middle of the best interval nearest 0 (an unbounded one: ``step`` beyond its finite end)."""
    best = float(np.max(values))
    tied = np.flatnonzero(values >= best - TIE)
    # Zero counts as inside an interval only clear of its ends: a breakpoint within rounding of 0 means the
    # current point is itself a tie, where the tie-break and not the interval decides.
    around_zero = [k for k in tied if lower[k] < -SAME_POINT < SAME_POINT < upper[k]]
    if around_zero:
        return 0.0, float(values[around_zero[0]])
    distance = np.where(upper[tied] <= 0.0, -upper[tied], lower[tied])
    k = int(tied[np.argmin(distance)])
    low, high = lower[k], upper[k]
    if np.isinf(low) and np.isinf(high):
        return 0.0, float(values[k])
    if np.isinf(low):
        return float(high - step), float(values[k])
    if np.isinf(high):
        return float(low + step), float(values[k])
    return float((low + high) / 2.0), float(values[k])


def line_search(lists: Sequence[tuple[np.ndarray, np.ndarray]], point: np.ndarray, direction: np.ndarray,
                objective: Objective) -> tuple[float, float]:
    """The exact best ``(gamma, value)`` along ``point + gamma * direction`` for n-best lists ``(features, stats)``."""
    pieces = [nbest_piecewise(features, stats, point, direction) for features, stats in lists]
    return choose_gamma(*sweep(pieces, objective))


def evaluate(lists: Sequence[tuple[np.ndarray, np.ndarray]], point: np.ndarray, objective: Objective) -> float:
    """The objective of the best candidate of every list at ``point`` (direct, no envelope)."""
    total = np.sum([stats[int(np.argmax(features @ point))] for features, stats in lists], axis=0)
    return float(objective(total[None, :])[0])
