"""The anytime-valid sign test against direct computations: the Beta mixture by numerical integration, Ville's
guarantee and the confidence sequence's coverage by enumerating every sequence of a small study."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import beta as beta_distribution

from parastudio.core.stats.anytime_sign_test import (
    AnytimeSignTest,
    confidence_bounds,
    log_mixture_against,
    log_mixture_martingale,
)


def mixture_by_quadrature(wins: int, losses: int, a: float, b: float) -> float:
    """∫ p^w (1-p)^l dBeta(p; a, b) / (1/2)^n, integrated numerically."""
    value, _ = integrate.quad(lambda p: p**wins * (1 - p) ** losses * beta_distribution.pdf(p, a, b), 0.0, 1.0,
                              epsabs=0.0, epsrel=1e-11, limit=200)
    return value * 2.0 ** (wins + losses)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 25), st.integers(0, 25), st.floats(1.0, 6.0), st.floats(1.0, 6.0))
def test_martingale_equals_the_beta_mixture_integrated_numerically(wins, losses, a, b):
    direct = mixture_by_quadrature(wins, losses, a, b)
    assert math.exp(log_mixture_martingale(wins, losses, a, b)) == pytest.approx(direct, rel=1e-7)


def log_m_by_hand(wins: int, losses: int, a: float, b: float) -> float:
    def log_beta(x, y):
        return math.lgamma(x) + math.lgamma(y) - math.lgamma(x + y)

    return log_beta(a + wins, b + losses) - log_beta(a, b) + (wins + losses) * math.log(2)


def all_sequences(n: int) -> np.ndarray:
    """Every ±1 sequence of length n, one per row."""
    return np.array(list(product((1, -1), repeat=n)), dtype=int)


@pytest.mark.parametrize("n", [6, 10, 14])
@pytest.mark.parametrize("alpha", [0.05, 0.2, 0.5])
@pytest.mark.parametrize("prior", [(1.0, 1.0), (0.5, 0.5), (4.0, 4.0), (2.0, 5.0)])
def test_villes_guarantee_holds_exactly_over_every_sequence_under_the_null(n, alpha, prior):
    # Under H0 every ±1 sequence of length n has probability 2^-n: count those whose martingale ever reaches 1/α.
    sequences = all_sequences(n)
    wins = np.cumsum(sequences == 1, axis=1)
    losses = np.cumsum(sequences == -1, axis=1)
    log_m = log_mixture_martingale(wins, losses, *prior)
    false_positive = np.mean(log_m.max(axis=1) >= math.log(1 / alpha))
    assert false_positive <= alpha
    # The naive test, an exact binomial test repeated after every observation, breaks it at n = 14, alpha 0.05.
    if n == 14 and alpha == 0.05 and prior == (1.0, 1.0):
        from scipy.stats import binomtest

        rejects = {(w, k): binomtest(w, k, 0.5).pvalue <= alpha for k in range(1, n + 1) for w in range(k + 1)}
        naive = np.mean([any(rejects[(int(w[k - 1]), k)] for k in range(1, n + 1)) for w in wins])
        assert naive > alpha


@pytest.mark.parametrize("alpha", [0.2, 0.5])
def test_the_anytime_p_value_is_valid_over_every_sequence_with_ties(alpha):
    # Every sequence of +1 / 0 / -1 of length 6 under H0 with P(tie) = 1/3: P(p_anytime <= alpha) <= alpha.
    test = AnytimeSignTest(alpha=alpha)
    total = 0.0
    for sequence in product((1, 0, -1), repeat=6):
        if test.run(sequence).p_anytime <= alpha:
            total += (1 / 3) ** 6
    assert 0 < total <= alpha


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([1, -1, 0]), max_size=40), st.floats(0.5, 5.0), st.floats(0.5, 5.0))
def test_run_reports_the_running_maximum_and_counts(outcomes, a, b):
    result = AnytimeSignTest(alpha=0.05, prior_a=a, prior_b=b).run(outcomes)
    wins = losses = 0
    best = 0.0  # M_0 = 1
    for outcome in outcomes:
        wins += outcome == 1
        losses += outcome == -1
        if outcome != 0:
            best = max(best, log_m_by_hand(wins, losses, a, b))
    assert (result.wins_a, result.wins_b, result.ties, result.n) == (wins, losses, outcomes.count(0), wins + losses)
    assert result.p_anytime == pytest.approx(min(1.0, math.exp(-best)), rel=1e-9)
    assert result.log_evidence == pytest.approx(log_m_by_hand(wins, losses, a, b), abs=1e-9)


def test_the_p_value_stays_down_after_the_evidence_falls_back():
    # Eight wins then eight losses: M peaked after the eighth win; the p-value is 1 / that peak, not 1 / M_16.
    result = AnytimeSignTest().run([1] * 8 + [-1] * 8)
    assert result.p_anytime == pytest.approx(9 / 2**8)  # M_8 = 2^8 / (8 + 1) under the uniform prior
    assert result.leader_at_max == 1


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60), st.sampled_from([0.01, 0.05, 0.2]), st.floats(0.5, 4.0))
def test_confidence_bounds_are_where_the_mixture_against_p_crosses_one_over_alpha(wins, losses, alpha, a):
    assume(wins + losses > 0)
    low, high = (float(x) for x in confidence_bounds(wins, losses, alpha, a, a))
    threshold = math.log(1 / alpha)
    inside = np.linspace(low, high, 101)[1:-1]
    assert (log_mixture_against(inside, wins, losses, a, a) < threshold).all()
    for bound, step in ((low, -1e-7), (high, 1e-7)):
        if 0.0 < bound < 1.0:
            assert log_mixture_against(bound, wins, losses, a, a) < threshold
            assert log_mixture_against(bound + step, wins, losses, a, a) >= threshold
    assert low <= wins / (wins + losses) <= high


def test_run_intersects_the_intervals_over_time_as_a_grid_does():
    outcomes = [1, 1, -1, 1, 1, 1, -1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1]
    alpha = 0.1
    low, high = AnytimeSignTest(alpha=alpha).run(outcomes).win_rate_cs
    grid = np.linspace(0, 1, 200001)
    kept = np.ones_like(grid, dtype=bool)
    wins = losses = 0
    for outcome in outcomes:
        wins, losses = wins + (outcome == 1), losses + (outcome == -1)
        kept &= log_mixture_against(grid, wins, losses) < math.log(1 / alpha)
    assert low == pytest.approx(grid[kept].min(), abs=1e-5) and high == pytest.approx(grid[kept].max(), abs=1e-5)


@pytest.mark.parametrize("p", [0.3, 0.5, 0.85])
@pytest.mark.parametrize("alpha", [0.1, 0.3])
def test_the_confidence_sequence_covers_p_at_every_time_with_the_promised_probability(p, alpha):
    # Every sequence of 12 outcomes weighted by p^w (1-p)^l: the probability that some CS_k misses p is <= alpha.
    n = 12
    sequences = all_sequences(n)
    wins = np.cumsum(sequences == 1, axis=1)
    losses = np.cumsum(sequences == -1, axis=1)
    low, high = confidence_bounds(wins, losses, alpha)
    missed = ((low > p) | (high < p)).any(axis=1)
    weights = p ** wins[:, -1] * (1 - p) ** losses[:, -1]
    assert weights.sum() == pytest.approx(1.0)
    assert 0 < weights[missed].sum() <= alpha


def test_outcomes_other_than_plus_minus_one_and_zero_are_refused():
    with pytest.raises(ValueError, match=r"\+1"):
        AnytimeSignTest().run([1, 2, -1])
    with pytest.raises(ValueError, match="alpha"):
        AnytimeSignTest(alpha=1.0)
