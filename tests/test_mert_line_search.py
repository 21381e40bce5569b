"""MERT's exact line search against direct evaluation and brute force (Och 2003; seed 004 §3.6)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.tuning.line_search import argmax_at, evaluate, line_search, upper_envelope
from parastudio.core.tuning.mert import Hypothesis, mert, optimise
from parastudio.core.tuning.objectives import STATS, make_objective

small = st.integers(min_value=-6, max_value=6)


@st.composite
def lines(draw):
    n = draw(st.integers(min_value=1, max_value=8))
    return (np.array(draw(st.lists(small, min_size=n, max_size=n)), dtype=float),
            np.array(draw(st.lists(small, min_size=n, max_size=n)), dtype=float))


@given(lines(), st.floats(min_value=-50, max_value=50, allow_nan=False))
@settings(max_examples=400, deadline=None)
def test_the_envelope_names_the_argmax_found_by_direct_evaluation(pair, gamma):
    intercepts, slopes = pair
    breaks, winners = upper_envelope(intercepts, slopes)
    assume(not np.any(np.abs(breaks - gamma) < 1e-6))
    assert np.all(np.diff(breaks) > 0)
    assert len(winners) == len(breaks) + 1
    assert winners[np.searchsorted(breaks, gamma)] == argmax_at(intercepts, slopes, gamma)


def test_identical_lines_go_to_the_lowest_index_and_parallel_ones_to_the_higher():
    breaks, winners = upper_envelope(np.array([1.0, 1.0, 0.0]), np.array([0.0, 0.0, 0.0]))
    assert list(breaks) == [] and list(winners) == [0]
    breaks, winners = upper_envelope(np.array([0.0, 2.0, 0.0]), np.array([-1.0, 0.0, 1.0]))
    assert list(breaks) == [-2.0, 2.0] and list(winners) == [0, 1, 2]


@st.composite
def two_weight_problems(draw):
    """A few sentences' n-best lists with two features each and replacement statistics."""
    sentences = draw(st.integers(min_value=1, max_value=5))
    lists = []
    for _ in range(sentences):
        n = draw(st.integers(min_value=1, max_value=6))
        features = np.array(draw(st.lists(st.tuples(small, small), min_size=n, max_size=n)), dtype=float)
        length = draw(st.integers(min_value=3, max_value=12))
        rows = []
        for _ in range(n):
            correct, incorrect = draw(st.integers(0, 3)), draw(st.integers(0, 3))
            replaced = min(length, correct + incorrect + draw(st.integers(0, 2)))
            rows.append([correct, incorrect, 0, replaced, length, draw(st.integers(0, 1)), 1])
        lists.append((features, np.array(rows, dtype=float)))
    return lists


def _evaluate_many(lists, points, objective) -> np.ndarray:
    """The direct objective at every row of ``points`` (argmax per list, lowest index on ties)."""
    totals = sum(stats[np.argmax(points @ features.T, axis=1)] for features, stats in lists)
    return objective(totals)


def _evaluate_along(lists, point, direction, gammas, objective) -> np.ndarray:
    """The direct objective at ``point + gamma * direction`` for each gamma, scores as ``a + gamma * b``
    (two lines equal along the whole line stay equal, whatever the rounding of the point)."""
    gammas = np.asarray(gammas)[:, None]
    totals = sum(stats[np.argmax(features @ point + gammas * (features @ direction), axis=1)]
                 for features, stats in lists)
    return objective(totals)


def _crossing_points(lists, point, direction) -> list[float]:
    """Every gamma where any two candidates of a list tie: the only places the objective can change."""
    points = set()
    for features, _ in lists:
        a, b = features @ point, features @ direction
        for i, j in itertools.combinations(range(len(a)), 2):
            if b[i] != b[j]:
                points.add((a[j] - a[i]) / (b[i] - b[j]))
    return sorted(points)


@given(two_weight_problems(), st.sampled_from(["rf", "accuracy", "f1"]), st.tuples(small, small),
       st.tuples(small, small))
@settings(max_examples=200, deadline=None)
def test_the_line_search_beats_a_fine_grid_and_equals_brute_force(lists, name, point, direction):
    point, direction = np.array(point, dtype=float), np.array(direction, dtype=float)
    assume(np.any(direction != 0))
    objective = make_objective(name, correct_known=7)
    gamma, value = line_search(lists, point, direction, objective)
    # The value is realised at the returned point, by direct evaluation.
    assert _evaluate_along(lists, point, direction, [gamma], objective)[0] == value
    # No point of a fine grid does better (a grid off the ties: at a tie the tie-break, not the weights, decides).
    grid = np.linspace(-30, 30, 6001) + 1.234567e-4
    assert _evaluate_along(lists, point, direction, grid, objective).max() <= value + 1e-12
    # Brute force: one point inside every interval between the pairwise crossings (and beyond both ends).
    # Equal up to rounding: rf of (p, r) and of (r, p) may differ in the last bit, and the search calls them a tie.
    crossings = _crossing_points(lists, point, direction)
    probes = np.array([crossings[0] - 1, crossings[-1] + 1] + [(x + y) / 2 for x, y in zip(crossings, crossings[1:])]
                      if crossings else [0.0])
    assert _evaluate_along(lists, point, direction, probes, objective).max() == pytest.approx(value, abs=1e-12)


@given(two_weight_problems())
@settings(max_examples=60, deadline=None)
def test_two_weights_reach_the_best_direction_of_a_fine_polar_grid(lists):
    """With two weights only the direction of w matters: the optimum over all angles is MERT's to find."""
    objective = make_objective("rf")
    # Start and grid off every tie (ties lie at angles atan2 of small integers), where the tie-break decides.
    found = optimise(lists, objective, np.array([1.0, 0.1234567]), seed=1, restarts=8)
    assert evaluate(lists, found.weights, objective) == found.value
    angles = np.linspace(0, 2 * np.pi, 20000, endpoint=False) + 1.234567e-5
    grid_best = _evaluate_many(lists, np.column_stack([np.cos(angles), np.sin(angles)]), objective).max()
    # The exact optimum over angles: one probe between consecutive critical angles (where two candidates tie).
    critical = set()
    for features, _ in lists:
        for i, j in itertools.combinations(range(len(features)), 2):
            dx, dy = features[i] - features[j]
            if dx or dy:
                base = np.arctan2(-dx, dy)  # direction orthogonal to h_i - h_j
                critical.update({base % (2 * np.pi), (base + np.pi) % (2 * np.pi)})
    critical = sorted(critical) or [0.0]
    probes = np.array([(x + y) / 2 for x, y in zip(critical, critical[1:] + [critical[0] + 2 * np.pi])])
    exact = _evaluate_many(lists, np.column_stack([np.cos(probes), np.sin(probes)]), objective).max()
    assert grid_best <= exact + 1e-12
    assert found.value <= exact + 1e-12
    # Two line searches along the second axis, from (1, 0) and (-1, 0), cover every open sector of directions.
    halves = [line_search(lists, np.array([s, 0.0]), np.array([0.0, 1.0]), objective)[1] for s in (1.0, -1.0)]
    assert max(halves) == pytest.approx(exact, abs=1e-12)


def test_mert_reaches_the_candidate_a_decoder_only_offers_after_re_decoding():
    """A toy decoder whose 3-best depends on the weights: "c" (the best) is in no n-best of the starting weights;
    the optimum on the first pool moves towards "b", whose neighbourhood's decoding brings "c" in."""
    objective = make_objective("rf")
    catalogue = {  # candidate -> (features, [correct, incorrect, unlabelled, replaced words, source words])
        "a": ((0.0, 0.0), [0, 0, 0, 0, 5]), "b": ((1.0, -1.0), [1, 0, 0, 1, 5]),
        "c": ((2.0, -3.0), [3, 0, 0, 3, 5]), "d": ((-1.0, 1.0), [0, 1, 0, 1, 5])}
    decodings = []

    def decode(weights):
        ranked = sorted(catalogue, key=lambda k: -np.dot(catalogue[k][0], weights))[:3]
        decodings.append(ranked)
        return [[Hypothesis(k, np.array(catalogue[k][0]), np.array(catalogue[k][1] + [0, 1], float))
                 for k in ranked]]

    result = mert(decode, [0.0, 1.0], objective, max_iterations=10, seed=3)
    assert "c" not in decodings[0]
    assert result.start_value == 0.0 and result.final_value == pytest.approx(0.75)
    assert result.converged and len(result.iterations) >= 2
    assert sorted(catalogue, key=lambda k: -np.dot(catalogue[k][0], result.weights))[0] == "c"
    assert np.abs(result.weights).sum() == pytest.approx(1.0)  # rescaled to the starting weights' L1 norm
    assert len(STATS) == 7
