"""Bradley–Terry strengths (issue 30) against an independent fit: the likelihood minimized directly by scipy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from parastudio.core.stats.bradley_terry import BradleyTerry, DisconnectedComparisonsError, fit_strengths, win_matrix
from parastudio.core.stats.preference import PreferenceJudgment


def brute_force_strengths(wins: np.ndarray) -> np.ndarray:
    """Minimize -sum_ij w_ij log sigmoid(t_i - t_j) over t with t_0 = 0 (BFGS, tight tolerance), centred."""
    n = len(wins)

    def negative_log_likelihood(free):
        theta = np.concatenate([[0.0], free])
        diff = theta[:, None] - theta[None, :]
        return float(np.sum(wins * np.logaddexp(0.0, -diff)))

    result = minimize(negative_log_likelihood, np.zeros(n - 1), method="BFGS", options={"gtol": 1e-10})
    theta = np.concatenate([[0.0], result.x])
    return theta - theta.mean()


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5).flatmap(lambda n: st.lists(st.integers(0, 6), min_size=n * n, max_size=n * n)
                                 .map(lambda cells: np.array(cells, dtype=float).reshape(n, n))))
def test_fit_is_the_maximum_likelihood_found_by_direct_minimization(counts):
    np.fill_diagonal(counts, 0)
    wins = counts + 0.5 * (1 - np.eye(len(counts)))  # the prior: every pair compared, so the maximum exists
    assert np.allclose(fit_strengths(wins), brute_force_strengths(wins), atol=1e-4)


def test_strengths_order_systems_by_wins_and_intervals_cover_the_point():
    judgments = []
    # a beats b 8 times of 10, b beats c 7 of 10, a beats c 9 of 10, over 30 sentences
    for number, (left, right, left_wins) in enumerate(
            [("a", "b", 8), ("b", "c", 7), ("a", "c", 9)]):
        for k in range(10):
            value = "left" if k < left_wins else "right"
            judgments.append(PreferenceJudgment(f"s{number}-{k}", left, right, value, "judge"))
    rows = BradleyTerry(replicates=200, seed=1).strengths(judgments)
    assert [r.system for r in rows] == ["a", "b", "c"]
    for row in rows:
        assert row.low <= row.strength <= row.high
    expected = brute_force_strengths(win_matrix(judgments, ["a", "b", "c"]) + 0.5 * (1 - np.eye(3)))
    assert np.allclose([r.strength for r in sorted(rows, key=lambda r: r.system)], expected, atol=1e-4)
    assert {r.system: (r.wins, r.losses) for r in rows} == {"a": (17, 3), "b": (9, 11), "c": (4, 16)}


def test_systems_never_compared_with_each_other_are_refused():
    judgments = [PreferenceJudgment("1", "a", "b", "left", "j"), PreferenceJudgment("2", "c", "d", "left", "j")]
    with pytest.raises(DisconnectedComparisonsError):
        BradleyTerry(replicates=0).strengths(judgments)
