"""An anytime-valid sign test: a Beta-mixture martingale over the win rate, safe under optional stopping.

The fixed sign test (:func:`core.stats.significance.sign_test`) is valid only
when the number of pairs is fixed in advance; looking at its p-value after
every batch and stopping when it dips below 0.05 inflates the false-positive
rate far above 5 % (``parastudio experiment sequential-sign-test`` measures
it). This test stays valid however often it is looked at and whenever the
study stops.

Observations are outcomes in judging order: +1 (system A wins the pair), -1
(B wins), 0 (a tie, dropped as in the fixed test: it leaves the martingale
unchanged). With ``w`` wins of A and ``l`` of B among the first ``n = w + l``
non-tied outcomes and a Beta(a, b) prior over A's win rate p, the mixture
likelihood ratio against H0: p = 1/2 is (Robbins 1970's method of mixtures)::

    M_n = ∫ p^w (1 - p)^l dBeta(p; a, b) / (1/2)^n = B(a + w, b + l) / B(a, b) · 2^n

computed in log space (``scipy.special.betaln``). Under H0, M_n is a
nonnegative martingale with M_0 = 1, so by Ville's inequality
P(sup_n M_n ≥ 1/α) ≤ α: rejecting the first time M_n ≥ 1/α has type-I error
at most α at any stopping time. The anytime-valid p-value is
``min(1, 1 / max_{k ≤ n} M_k)`` (a running minimum: it never goes back up).
A symmetric prior (a = b) makes the test two-sided; the direction of a
decision is the side with more wins.

The confidence sequence for p comes from the same mixture tested against
every p: ``CS_n = {p : B(a + w, b + l) / B(a, b) / (p^w (1 - p)^l) < 1/α}``,
an interval around w/n (the denominator's log is concave in p), intersected
over time, so P(p ∉ CS_n for some n) ≤ α, again by Ville. CS_n excludes 1/2
exactly when M_n ≥ 1/α, so the interval and the test agree at the same α.

References: H. Robbins (1970), "Statistical methods related to the law of the
iterated logarithm", Ann. Math. Statist. 41; S. R. Howard, A. Ramdas,
J. McAuliffe, J. Sekhon (2021), "Time-uniform, nonparametric, nonasymptotic
confidence sequences", Ann. Statist. 49 (the conjugate mixture, §3); A. Ramdas,
P. Grünwald, V. Vovk, G. Shafer (2023), "Game-theoretic statistics and safe
anytime-valid inference", Statist. Sci. 38 (anytime p-values as inverse running
maxima of test martingales, §5).

Names: ``prior_a``, ``prior_b`` are (a, b); ``log_evidence`` is log M_n.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from parastudio.core.code_identity import code_version

# Robbins' uniform mixture: no view of the effect size before the study starts.
DEFAULT_PRIOR = (1.0, 1.0)
_BISECTION_STEPS = 60  # halves [0, 1] down to 1e-18, below float64's spacing near 1/2


def log_mixture_martingale(wins, losses, prior_a: float = 1.0, prior_b: float = 1.0) -> np.ndarray:
    """log M_n = log B(a + w, b + l) - log B(a, b) + n log 2, elementwise over arrays of wins and losses."""
    from scipy.special import betaln

    wins = np.asarray(wins, dtype=float)
    losses = np.asarray(losses, dtype=float)
    return betaln(prior_a + wins, prior_b + losses) - betaln(prior_a, prior_b) + (wins + losses) * np.log(2.0)


def log_mixture_against(p, wins, losses, prior_a: float = 1.0, prior_b: float = 1.0) -> np.ndarray:
    """log of the mixture likelihood ratio against H0: win rate = p (CS_n is where it is below log 1/α)."""
    from scipy.special import betaln, xlogy

    p, wins, losses = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (p, wins, losses)))
    with np.errstate(divide="ignore"):
        null = xlogy(wins, p) + xlogy(losses, 1.0 - p)
    return betaln(prior_a + wins, prior_b + losses) - betaln(prior_a, prior_b) - null


def _bisect(wins, losses, below, above, threshold, prior_a, prior_b):
    """The point between ``below`` (inside the set) and ``above`` (outside) where the log mixture crosses ``threshold``.

    The log mixture against p is convex in p, so it is monotone on each side of w/n; vectorized bisection
    keeps ``below`` inside and ``above`` outside the set. Returns the inside end (so a reported bound is in CS_n).
    """
    inside, outside = below.copy(), above.copy()
    for _ in range(_BISECTION_STEPS):
        middle = (inside + outside) / 2.0
        in_set = log_mixture_against(middle, wins, losses, prior_a, prior_b) < threshold
        inside = np.where(in_set, middle, inside)
        outside = np.where(in_set, outside, middle)
    return inside


def confidence_bounds(wins, losses, alpha: float, prior_a: float = 1.0, prior_b: float = 1.0
                      ) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi] of CS_n at each (w, l), before the running intersection (module docstring)."""
    wins = np.asarray(wins, dtype=float)
    losses = np.asarray(losses, dtype=float)
    n = wins + losses
    threshold = np.log(1.0 / alpha)
    centre = np.divide(wins, n, out=np.full_like(n, 0.5), where=n > 0)  # the maximum likelihood: always in CS_n
    zero, one = np.zeros_like(centre), np.ones_like(centre)
    low_in = log_mixture_against(zero, wins, losses, prior_a, prior_b) < threshold
    high_in = log_mixture_against(one, wins, losses, prior_a, prior_b) < threshold
    low = np.where(low_in, 0.0, _bisect(wins, losses, centre, zero, threshold, prior_a, prior_b))
    high = np.where(high_in, 1.0, _bisect(wins, losses, centre, one, threshold, prior_a, prior_b))
    return low, high


@dataclass(frozen=True)
class AnytimeSignResult:
    """One comparison after the outcomes seen so far: ``n = wins_a + wins_b`` (ties dropped)."""

    n: int
    wins_a: int
    wins_b: int
    ties: int
    log_evidence: float  # log M_n now
    p_anytime: float  # min(1, 1 / max_k M_k)
    win_rate_cs: tuple[float, float]  # A's win rate, running intersection of CS_k, k <= n
    # +1 / -1: A / B had more wins when M was at its running maximum (the side a decision takes); 0 before any.
    leader_at_max: int = 0


@dataclass(frozen=True)
class AnytimeSignTest:
    """The test's settings; :meth:`run` applies it to outcomes in judging order, :meth:`signature` says how."""

    alpha: float = 0.05
    prior_a: float = DEFAULT_PRIOR[0]
    prior_b: float = DEFAULT_PRIOR[1]

    def __post_init__(self):
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be between 0 and 1, not {self.alpha}")
        if not (self.prior_a > 0 and self.prior_b > 0):
            raise ValueError(f"the Beta prior needs a > 0 and b > 0, not ({self.prior_a}, {self.prior_b})")

    def run(self, outcomes: Sequence[int], cs_alpha: float | None = None) -> AnytimeSignResult:
        """``outcomes``: +1 A wins, -1 B wins, 0 tie, in the order they became known.

        ``cs_alpha`` is the level of the confidence sequence (default ``alpha``; a family of m comparisons
        passes alpha / m so all m intervals hold at once).
        """
        signs = np.asarray(list(outcomes), dtype=int)
        if signs.size and not np.isin(signs, (-1, 0, 1)).all():
            raise ValueError("outcomes must be +1 (A wins), -1 (B wins) or 0 (tie)")
        decided = signs[signs != 0]
        wins = np.cumsum(decided == 1)
        losses = np.cumsum(decided == -1)
        log_m = log_mixture_martingale(wins, losses, self.prior_a, self.prior_b)
        best = max(0.0, float(log_m.max())) if log_m.size else 0.0  # M_0 = 1
        at_max = int(np.argmax(log_m)) if log_m.size else -1
        leader = int(np.sign(wins[at_max] - losses[at_max])) if at_max >= 0 and best > 0 else 0
        low, high = confidence_bounds(wins, losses, cs_alpha or self.alpha, self.prior_a, self.prior_b)
        interval = (float(low.max()), float(high.min())) if low.size else (0.0, 1.0)
        w = int(wins[-1]) if wins.size else 0
        l = int(losses[-1]) if losses.size else 0
        return AnytimeSignResult(n=w + l, wins_a=w, wins_b=l, ties=int(signs.size - decided.size),
                                 log_evidence=float(log_m[-1]) if log_m.size else 0.0,
                                 p_anytime=float(min(1.0, np.exp(-best))), win_rate_cs=interval,
                                 leader_at_max=leader)

    def signature(self, **options) -> str:
        """``stat:anytime-sign-test|...|version:V`` from this object's own settings (plus the caller's context)."""
        parts = ["stat:anytime-sign-test", "method:beta-mixture-martingale",
                 f"prior:beta({self.prior_a:g},{self.prior_b:g})", f"alpha:{self.alpha:g}", "ties:dropped",
                 "p:inverse-running-max"]
        parts += [f"{name.replace('_', '-')}:{value}" for name, value in options.items()]
        return "|".join(parts + [f"version:{code_version()}"])
