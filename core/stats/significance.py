"""Significance of differences between systems, and rank correlation.

* Sign test (seed 001 §4.1.3 and §4.2.2): on items scored for both systems,
  count wins of each; ties are dropped (and reported) and the two-sided exact
  binomial test with p = 1/2 is applied to the ``n = wins_a + wins_b``
  non-tied pairs (``scipy.stats.binomtest``). With ``n = 0`` the p-value is 1.
* Wilcoxon signed-rank for ordinal scores (``scipy.stats.wilcoxon``, zero
  differences dropped as in Wilcoxon's original test).
* Pairwise tables over several systems with Holm's step-down correction
  (:class:`PairwiseTests`, whose settings make its signature).
* Kendall's tau_A (seed 000 §3.2): ``tau_A = (n_p - n_d) / (n (n - 1) / 2)``
  with ``n_p`` pairs whose order is preserved and ``n_d`` pairs inverted; a pair
  tied in either ranking counts as neither. This is not scipy's tau_b, which
  divides by a tie-corrected denominator. (The seed's PDF text garbles the
  formula; the reconstruction follows its definitions of n_p, n_d and n.)
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Mapping, Sequence

import numpy as np

from parastudio.core.stats.signature import Signed


@dataclass(frozen=True)
class SignTestResult:
    n: int
    wins_a: int
    wins_b: int
    ties: int
    p_value: float

    def to_json_dict(self) -> dict:
        return {"n": self.n, "wins_a": self.wins_a, "wins_b": self.wins_b, "ties": self.ties, "p_value": self.p_value}


def sign_test(scores_a: Sequence[float], scores_b: Sequence[float]) -> SignTestResult:
    """Exact two-sided sign test on paired scores (higher is better)."""
    from scipy.stats import binomtest

    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    if a.shape != b.shape:
        raise ValueError("paired scores must have the same length")
    wins_a = int(np.count_nonzero(a > b))
    wins_b = int(np.count_nonzero(b > a))
    ties = int(a.size - wins_a - wins_b)
    n = wins_a + wins_b
    p_value = 1.0 if n == 0 else float(binomtest(wins_a, n, 0.5, alternative="two-sided").pvalue)
    return SignTestResult(n=n, wins_a=wins_a, wins_b=wins_b, ties=ties, p_value=min(p_value, 1.0))


@dataclass(frozen=True)
class WilcoxonResult:
    n: int
    statistic: float
    p_value: float


def wilcoxon_signed_rank(scores_a: Sequence[float], scores_b: Sequence[float]) -> WilcoxonResult:
    """Two-sided Wilcoxon signed-rank test; ``n`` counts the non-zero differences."""
    from scipy.stats import wilcoxon

    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    differences = a - b
    n = int(np.count_nonzero(differences))
    if n == 0:
        return WilcoxonResult(n=0, statistic=0.0, p_value=1.0)
    result = wilcoxon(a, b, zero_method="wilcox", alternative="two-sided")
    return WilcoxonResult(n=n, statistic=float(result.statistic), p_value=float(result.pvalue))


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm (1979) step-down adjusted p-values, in the input order."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted_sorted = np.maximum.accumulate(stepped)
    adjusted = np.empty(m)
    adjusted[order] = adjusted_sorted
    return adjusted.tolist()


@dataclass(frozen=True)
class PairwiseComparison:
    system_a: str
    system_b: str
    n_items: int
    wins_a: int
    wins_b: int
    ties: int
    p_value: float
    p_holm: float


TESTS = {"sign": "exact-binomial-two-sided", "wilcoxon": "wilcoxon-signed-rank-two-sided"}
CORRECTIONS = ("holm", "none")


@dataclass(frozen=True)
class PairwiseTests(Signed):
    """Every pair of systems compared on their shared items: ``test`` (``"sign"`` or ``"wilcoxon"``; wins and
    ties are reported for both, ties dropped from the test), p-values adjusted by ``correction`` over all pairs
    (``"holm"`` or ``"none"``)."""

    test: str = "sign"
    correction: str = "holm"

    @property
    def name(self) -> str:
        return f"{self.test}-test"

    def __post_init__(self) -> None:
        if self.test not in TESTS:
            raise ValueError(f"test must be 'sign' or 'wilcoxon', not {self.test!r}")
        if self.correction not in CORRECTIONS:
            raise ValueError(f"correction must be one of {CORRECTIONS}, not {self.correction!r}")

    def settings(self) -> dict[str, object]:
        # The test's full name says what the field alone does not: exact or not, two-sided.
        return {"test": TESTS[self.test], "ties": "dropped", "correction": self.correction}

    def compare(self, scores: Mapping[str, Mapping[str, float]]) -> list[PairwiseComparison]:
        """``scores`` maps system -> item -> score."""
        rows = []
        for system_a, system_b in combinations(list(scores), 2):
            shared = [item for item in scores[system_a] if item in scores[system_b]]
            a = np.array([scores[system_a][item] for item in shared], dtype=float)
            b = np.array([scores[system_b][item] for item in shared], dtype=float)
            signs = sign_test(a, b)
            p_value = signs.p_value if self.test == "sign" else wilcoxon_signed_rank(a, b).p_value
            rows.append((system_a, system_b, len(shared), signs, p_value))
        p_values = [row[4] for row in rows]
        adjusted = (holm_adjust(p_values) if self.correction == "holm" else p_values) if rows else []
        return [
            PairwiseComparison(a, b, n, s.wins_a, s.wins_b, s.ties, p, p_adjusted)
            for (a, b, n, s, p), p_adjusted in zip(rows, adjusted)
        ]


def pairwise_tests(scores: Mapping[str, Mapping[str, float]], test: str = "sign") -> list[PairwiseComparison]:
    """Every pair of systems compared on their shared items, Holm-corrected (:class:`PairwiseTests`)."""
    return PairwiseTests(test).compare(scores)


def kendall_tau_a(x: Sequence[float], y: Sequence[float]) -> float:
    """Seed 000's tau_A between two scorings of the same n elements.

    ``x[i]`` and ``y[i]`` are element i's score (or rank) in each ordering.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError("tau_A needs two one-dimensional sequences of the same length")
    n = x.size
    if n < 2:
        raise ValueError("tau_A needs at least two elements")
    difference = 0  # n_p - n_d
    for i in range(n - 1):
        difference += int(np.sum(np.sign(x[i + 1 :] - x[i]) * np.sign(y[i + 1 :] - y[i])))
    return difference / (n * (n - 1) / 2)


def kendall_tau_a_orders(order_a: Sequence, order_b: Sequence) -> float:
    """tau_A between two orderings (best first) of the same elements, e.g. an
    n-best list before and after reranking by true score (seed 000 §3.2)."""
    if sorted(map(repr, order_a)) != sorted(map(repr, order_b)) or len(set(order_a)) != len(order_a):
        raise ValueError("both orders must list the same distinct elements")
    position_b = {element: rank for rank, element in enumerate(order_b)}
    return kendall_tau_a(list(range(len(order_a))), [position_b[element] for element in order_a])
