"""Minimum error rate training (Och 2003), as seed 004 §3.6 tunes SPG's weights on rf.

* :func:`optimise`: on fixed n-best lists, coordinate ascent by exact line searches
  (:mod:`core.tuning.line_search`) along every axis and a few random directions, repeated until no direction
  improves, from the given weights and from random restarts; the best point wins (the given start on a tie).
* :func:`mert`: Och's outer loop. Decode the development sentences with the current weights, add the n-best
  candidates to each sentence's pool, optimise on the pools, decode again with the new weights; stop when a
  decoding adds no candidate to any pool (the lists stopped growing) or after ``max_iterations``.

The decoder's score ``w . h`` ranks a sentence's candidates the same way for any positive multiple of ``w``, so
weights are rescaled to the L1 norm of the starting weights after each optimisation: the decoders' pruning
thresholds are in score units, and rescaling keeps them meaning what they meant at the start.

Notation -> names: Och's ``lambda`` -> ``weights``, ``f_s`` -> ``Hypothesis.features``, the error counts of a
candidate -> ``Hypothesis.stats`` (sufficient statistics the objective reads, summed over sentences).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from parastudio.core.progress import Progress, no_progress
from parastudio.core.tuning.line_search import Objective, evaluate, line_search


@dataclass(frozen=True)
class Hypothesis:
    """One candidate of a sentence's n-best list: its text (the pool key), feature vector and statistics."""

    key: str
    features: np.ndarray
    stats: np.ndarray


@dataclass(frozen=True)
class Optimum:
    weights: np.ndarray
    value: float
    line_searches: int


def _normalised(weights: np.ndarray, norm: float | None) -> np.ndarray:
    total = float(np.abs(weights).sum())
    if norm is None or total == 0.0:
        return weights
    return weights * (norm / total)


LineSearch = Callable[[np.ndarray, np.ndarray], tuple[float, float]]  # (point, direction) -> (gamma, value)
ValueAt = Callable[[np.ndarray], float]


def _ascend(line: LineSearch, value_at: ValueAt, start: np.ndarray, directions: Callable[[], list[np.ndarray]],
            max_rounds: int) -> tuple[np.ndarray, float, int]:
    point = np.array(start, dtype=float)
    value = value_at(point)
    searches = 0
    for _ in range(max_rounds):
        improved = False
        for direction in directions():
            gamma, found = line(point, direction)
            searches += 1
            if gamma != 0.0 and found > value + 1e-12:
                candidate = point + gamma * direction
                direct = value_at(candidate)
                if direct > value + 1e-12:  # the sweep's value, checked by direct evaluation
                    point, value, improved = candidate, direct, True
        if not improved:
            break
    return point, value, searches


def search(line: LineSearch, value_at: ValueAt, start: np.ndarray, *, seed: int = 0, restarts: int = 5,
           random_directions: int = 3, max_rounds: int = 20, fixed: Sequence[int] = (),
           restart_scale: np.ndarray | None = None) -> tuple[np.ndarray, float, int]:
    """Powell-style direction-set ascent with exact line searches: every free axis and ``random_directions``
    random unit directions per round until none improves, from ``start`` and from ``restarts`` random points
    (uniform in ``+-restart_scale`` per free coordinate around 0); the best point wins, ``start``'s on a tie."""
    start = np.asarray(start, dtype=float)
    dimension = len(start)
    free = [i for i in range(dimension) if i not in set(fixed)]
    rng = np.random.default_rng(seed)
    axes = [np.eye(dimension)[i] for i in free]

    def directions() -> list[np.ndarray]:
        found = list(axes)
        for _ in range(random_directions if len(free) > 1 else 0):
            vector = np.zeros(dimension)
            vector[free] = rng.normal(size=len(free))
            found.append(vector / np.linalg.norm(vector))
        return found

    if restart_scale is None:
        restart_scale = np.full(dimension, (float(np.abs(start).sum()) or 1.0) / max(1, len(free)))
    best_point, best_value, searches = _ascend(line, value_at, start, directions, max_rounds)
    for _ in range(restarts):
        origin = start.copy()
        origin[free] = rng.uniform(-1.0, 1.0, size=len(free)) * restart_scale[free]
        point, value, more = _ascend(line, value_at, origin, directions, max_rounds)
        searches += more
        if value > best_value + 1e-12:
            best_point, best_value = point, value
    return best_point, best_value, searches


def optimise(lists: Sequence[tuple[np.ndarray, np.ndarray]], objective: Objective, start: np.ndarray, *,
             seed: int = 0, restarts: int = 5, random_directions: int = 3, max_rounds: int = 20,
             norm: float | None = None, fixed: Sequence[int] = ()) -> Optimum:
    """The best weights found on fixed n-best lists ``(features, stats)`` (see the module docstring).

    ``fixed``: indices of weights left as they are (directions never move them).
    """
    point, value, searches = search(lambda p, d: line_search(lists, p, d, objective),
                                    lambda p: evaluate(lists, p, objective), start, seed=seed, restarts=restarts,
                                    random_directions=random_directions, max_rounds=max_rounds, fixed=fixed)
    return Optimum(_normalised(point, norm), value, searches)


@dataclass
class Iteration:
    """One decode-and-optimise round of :func:`mert`."""

    number: int
    weights: list[float]
    decoded_value: float  # the objective of the 1-best of the decoding at the start of the round
    pool_value: float  # the objective on the pooled n-best lists at the optimised weights
    pool_size: int
    added: int
    line_searches: int
    seconds: float

    def to_json(self) -> dict:
        return {"iteration": self.number, "weights": self.weights, "decoded_value": self.decoded_value,
                "pool_value": self.pool_value, "pool_size": self.pool_size, "added": self.added,
                "line_searches": self.line_searches, "seconds": round(self.seconds, 3)}


@dataclass
class MertResult:
    weights: np.ndarray
    start_value: float  # 1-best objective decoding with the starting weights
    final_value: float  # 1-best objective decoding with the returned weights
    iterations: list[Iteration] = field(default_factory=list)
    converged: bool = False  # the last decoding added no candidate


Decode = Callable[[np.ndarray], list[list[Hypothesis]]]


def one_best_value(decoded: list[list[Hypothesis]], objective: Objective) -> float:
    """The objective of each sentence's first candidate (the decoder's 1-best)."""
    rows = [sentence[0].stats for sentence in decoded if sentence]
    if not rows:
        return 0.0
    return float(objective(np.sum(rows, axis=0)[None, :])[0])


def mert(decode: Decode, start: Sequence[float], objective: Objective, *, max_iterations: int = 10,
         restarts: int = 5, random_directions: int = 3, seed: int = 0, fixed: Sequence[int] = (),
         progress: Progress = no_progress, should_stop: Callable[[], bool] | None = None) -> MertResult:
    """Och's MERT with re-decoding (see the module docstring); ``decode(weights)`` returns each sentence's n-best."""
    start = np.asarray(start, dtype=float)
    norm = float(np.abs(start).sum()) or None
    pools: list[dict[str, Hypothesis]] = []
    weights = start
    progress(0, max_iterations, "decoding with the starting weights")
    decoded = decode(weights)
    start_value = current_value = one_best_value(decoded, objective)
    result = MertResult(start, start_value, start_value)
    best_weights, best_value = start, start_value
    for number in range(1, max_iterations + 1):
        started = time.perf_counter()
        if len(pools) < len(decoded):
            pools.extend({} for _ in range(len(decoded) - len(pools)))
        added = 0
        for pool, sentence in zip(pools, decoded):
            for hypothesis in sentence:
                if hypothesis.key not in pool:
                    pool[hypothesis.key] = hypothesis
                    added += 1
        if number > 1 and added == 0:
            result.converged = True
            break
        lists = [(np.array([h.features for h in pool.values()]), np.array([h.stats for h in pool.values()]))
                 for pool in pools if pool]
        optimum = optimise(lists, objective, weights, seed=seed + number, restarts=restarts,
                           random_directions=random_directions, norm=norm, fixed=fixed)
        weights = optimum.weights
        result.iterations.append(Iteration(number, [float(w) for w in weights], current_value, optimum.value,
                                           sum(len(p) for p in pools), added, optimum.line_searches,
                                           time.perf_counter() - started))
        progress(number, max_iterations, f"MERT iteration {number}: objective {optimum.value:.4f} on the pool")
        decoded = decode(weights)
        current_value = one_best_value(decoded, objective)
        if current_value > best_value:
            best_weights, best_value = weights, current_value
        if should_stop is not None and should_stop():
            break
    # The weights whose own decoding scored best: a later round's weights may win on the pool, lose decoded.
    result.weights, result.final_value = best_weights, best_value
    return result
