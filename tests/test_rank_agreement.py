"""Kendall's τ_b, tie-calibrated pairwise accuracy, Pearson and system pairwise accuracy (issue 43) against
scipy and against brute force over every pair."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau, pearsonr

from parastudio.core.stats.rank_agreement import (
    GroupedPairs,
    PairCounts,
    counts_of_signs,
    kendall_tau_b,
    mean_over_groups,
    pair_counts,
    pairwise_accuracy,
    pearson,
)

# Few distinct values make ties on both sides common; floats make them rare.
SCORES = st.one_of(st.integers(0, 4).map(float), st.floats(-100, 100, allow_nan=False, allow_infinity=False))


def brute_counts(human, metric) -> PairCounts:
    classes = {"C": 0, "D": 0, "Th": 0, "Tm": 0, "Thm": 0}
    for i, j in combinations(range(len(human)), 2):
        dh, dm = human[i] - human[j], metric[i] - metric[j]
        key = ("Thm" if dm == 0 else "Th") if dh == 0 else "Tm" if dm == 0 else "C" if (dh > 0) == (dm > 0) else "D"
        classes[key] += 1
    return PairCounts(classes["C"], classes["D"], classes["Th"], classes["Tm"], classes["Thm"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(SCORES, SCORES), max_size=40))
def test_pair_counts_are_the_counts_over_every_pair(points):
    human, metric = [p[0] for p in points], [p[1] for p in points]
    assert pair_counts(human, metric) == brute_counts(human, metric)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(SCORES, SCORES), min_size=2, max_size=60))
def test_tau_b_is_scipys(points):
    human, metric = [p[0] for p in points], [p[1] for p in points]
    expected = kendalltau(human, metric, variant="b").statistic
    assume(not (len(set(human)) > 1 and len(set(metric)) > 1 and math.isnan(expected)))
    ours = kendall_tau_b(human, metric)
    if math.isnan(expected):  # one side ties every pair
        assert ours is None
    else:
        assert ours == pytest.approx(expected, abs=1e-12)


def test_tau_b_of_a_long_vector_is_scipys():
    # The merge sort runs many levels here; a few hundred thousand pairs.
    rng = np.random.default_rng(43)
    human = rng.integers(0, 5, size=3000).astype(float)
    metric = human + rng.normal(0, 2, size=3000).round(1)
    assert kendall_tau_b(human, metric) == pytest.approx(kendalltau(human, metric).statistic, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(SCORES, SCORES, st.integers(1, 4)), min_size=1, max_size=25))
def test_weighted_sign_counts_are_the_counts_of_the_copies(points):
    """A pair counted w_i * w_j times, plus each segment's copies tied with each other: the counts of the data
    with segment i laid out w_i times."""
    human = np.array([p[0] for p in points])
    metric = np.array([p[1] for p in points])
    copies = np.array([p[2] for p in points])
    pairs = GroupedPairs(np.zeros(len(points), dtype=int), 1)
    weights = copies[pairs.first] * copies[pairs.second]
    extra = float((copies * (copies - 1) / 2).sum())
    counted = counts_of_signs(pairs.signs(human), pairs.signs(metric), weights.astype(float), extra)
    expanded = brute_counts(np.repeat(human, copies).tolist(), np.repeat(metric, copies).tolist())
    assert counted == PairCounts(*(float(v) for v in (expanded.concordant, expanded.discordant, expanded.ties_human,
                                                      expanded.ties_metric, expanded.ties_both)))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), SCORES, SCORES), max_size=40))
def test_grouped_tau_b_is_scipys_within_each_group(rows):
    groups = np.array([r[0] for r in rows], dtype=int)
    human = np.array([r[1] for r in rows])
    metric = np.array([r[2] for r in rows])
    taus = GroupedPairs(groups, 6).tau_b(human, metric)
    for group in range(6):
        members = groups == group
        expected = kendalltau(human[members], metric[members]).statistic if members.sum() > 1 else math.nan
        if math.isnan(expected):
            assert math.isnan(taus[group])
        else:
            assert taus[group] == pytest.approx(expected, abs=1e-12)


def brute_calibrated_accuracy(groups, human, metric, weights):
    """Every ε in {0} ∪ {|Δm|}: each group's (C + T_hm) / pairs with |Δm| <= ε a tie, the weighted mean over groups
    with a pair; the best, the smallest ε of equal bests."""
    by_group = {}
    for i, j in combinations(range(len(groups)), 2):
        if groups[i] == groups[j]:
            by_group.setdefault(groups[i], []).append((human[i] - human[j], metric[i] - metric[j]))
    if not by_group:
        return None, None
    candidates = sorted({0.0} | {abs(dm) for pairs in by_group.values() for _, dm in pairs})
    best = (None, None)
    total = sum(weights[g] for g in by_group)
    if total == 0:
        return None, None
    for epsilon in candidates:
        accuracy = 0.0
        for group, pairs in by_group.items():
            right = sum(1 for dh, dm in pairs
                        if (abs(dm) <= epsilon and dh == 0) or (abs(dm) > epsilon and dh * dm > 0))
            accuracy += weights[group] * right / len(pairs)
        accuracy /= total
        if best[0] is None or accuracy > best[0] + 1e-12:
            best = (accuracy, epsilon)
    return best


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3).map(float), st.integers(0, 6).map(lambda v: v / 2)),
                max_size=24),
       st.lists(st.integers(0, 3), min_size=4, max_size=4))
def test_tie_calibration_is_the_brute_force_best_epsilon(rows, multiplicities):
    groups = [r[0] for r in rows]
    human = np.array([r[1] for r in rows])
    metric = np.array([r[2] for r in rows])
    weights = np.array(multiplicities, dtype=float)
    pairs = GroupedPairs(np.array(groups, dtype=int), 4)
    for given_weights in (None, weights):
        expected = brute_calibrated_accuracy(groups, human, metric, np.ones(4) if given_weights is None else weights)
        accuracy, epsilon = pairs.calibration(human, metric).best(given_weights)
        if expected[0] is None:
            assert accuracy is None
        else:
            assert accuracy == pytest.approx(expected[0], abs=1e-12)
            assert epsilon == expected[1]


def test_tie_calibration_ties_a_metric_whose_differences_are_noise():
    # Judges tie half the pairs; the metric separates them by less than 0.01: ε = 0.005 calls those ties right.
    human = np.array([1.0, 1.0, 0.0, 0.0, 1.0, 0.0])
    metric = np.array([0.502, 0.5, 0.2, 0.205, 0.9, 0.1])
    accuracy, epsilon = GroupedPairs(np.array([0, 0, 1, 1, 2, 2]), 3).calibration(human, metric).best()
    assert (accuracy, epsilon) == (pytest.approx(1.0), pytest.approx(0.005))
    assert pair_counts(human[:2], metric[:2]).accuracy() == 0.0  # without calibration that pair is wrong


def test_mean_over_groups_skips_undefined_groups_and_weighs_the_rest():
    values = np.array([0.5, np.nan, -1.0])
    assert mean_over_groups(values) == pytest.approx(-0.25)
    assert mean_over_groups(values, np.array([3.0, 5.0, 1.0])) == pytest.approx((1.5 - 1.0) / 4)
    assert mean_over_groups(np.array([np.nan])) is None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(SCORES, SCORES), min_size=2, max_size=20))
def test_pearson_is_scipys(points):
    x, y = [p[0] for p in points], [p[1] for p in points]
    assume(len(set(x)) > 1 and len(set(y)) > 1)
    assert pearson(x, y) == pytest.approx(pearsonr(x, y).statistic, abs=1e-9)


def test_pearson_of_tiny_or_huge_deviations_is_scipys():
    """Deviations whose squares underflow (1e-226) or overflow (1e200) are still a line, not a constant side."""
    for x, y in (([0.0, 1.0], [1.1872109221212342e-226, 0.0]), ([1e200, -1e200, 3e199], [1.0, 2.0, 0.5])):
        assert pearson(x, y) == pytest.approx(pearsonr(x, y).statistic, abs=1e-9)


def test_pearson_of_a_constant_side_is_undefined():
    assert pearson([1, 1, 1], [1, 2, 3]) is None
    assert pearson([1], [2]) is None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(SCORES, SCORES), min_size=2, max_size=12))
def test_system_pairwise_accuracy_counts_every_pair_of_systems(points):
    human, metric = [p[0] for p in points], [p[1] for p in points]
    for side in (human, metric):  # differences within rounding are ties: the next test
        assume(all(a == b or abs(a - b) > 1e-9 * max(1.0, *map(abs, side)) for a, b in combinations(side, 2)))
    agree = [np.sign(human[i] - human[j]) == np.sign(metric[i] - metric[j])
             for i, j in combinations(range(len(points)), 2)]
    assert pairwise_accuracy(human, metric) == pytest.approx(sum(agree) / len(agree))


def test_system_scores_equal_but_for_rounding_are_a_tie():
    # 0.1 + 0.2 and 0.3 are one mean summed in two orders; a metric that ties them orders them as the judges do.
    assert 0.1 + 0.2 != 0.3
    assert pairwise_accuracy([0.1 + 0.2, 0.3, 0.9], [2.0, 2.0, 5.0]) == 1.0
