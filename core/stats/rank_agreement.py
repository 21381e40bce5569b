"""How well a metric orders what judges ordered: Kendall's τ_b, tie-calibrated pairwise accuracy, Pearson and
system-level pairwise accuracy, the statistics of the WMT metrics task.

Every pair of segments ``(i, j)`` falls into one of five classes (Deutsch, Foster and Freitag 2023, "Ties Matter",
§3): concordant ``C`` (human and metric order them the same way), discordant ``D``, tied by the judges only
``T_h``, tied by the metric only ``T_m``, tied by both ``T_hm``. With ``n0`` pairs,

* Kendall's τ_b = ``(C - D) / sqrt((n0 - T_h - T_hm) (n0 - T_m - T_hm))`` (Kendall 1945; undefined when either
  side ties every pair). :func:`pair_counts` counts the classes in O(n log n): sort by (human, metric), then the
  discordant pairs are the strict inversions of the metric column, counted by a bottom-up merge sort.
* pairwise accuracy ``acc_eq = (C + T_hm) / n0`` (a tie is right only when both sides tie). Tie calibration
  (Deutsch et al. 2023, §5) treats two metric scores closer than ``ε`` as tied and picks the ``ε`` that maximizes
  ``acc_eq``: a pair whose metric difference ``|Δm| <= ε`` counts as a metric tie. The candidates for ``ε`` are 0 and
  every pair's ``|Δm|``; of equal accuracies (within 1e-12) the smallest ``ε`` wins (as ``mt-metrics-eval``'s
  ``tau_optimization``).
* *item-grouped* (WMT23's "group by item"): the pairs are only those of segments of one source sentence; a
  statistic is computed per sentence and averaged over the sentences where it is defined (τ_b) or that hold a pair
  (acc_eq, with one ``ε`` for all of them). :class:`GroupedPairs` holds those pairs.
* system level: Pearson's r between human and metric system scores, and pairwise accuracy over every two systems,
  ``|{sign(Δh) = sign(Δm)}| / |pairs|`` (Kocmi et al. 2021, "To Ship or Not to Ship", §3.3); system scores are
  means, so two within 1e-12 (relative) of each other are a tie.

Scores are oriented so that higher is better on both sides; every input is finite.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass(frozen=True)
class PairCounts:
    """The five classes of pairs (module docstring)."""

    concordant: float  # counts; weighted counts of a resample's copies may be any non-negative number
    discordant: float
    ties_human: float  # tied by the judges only
    ties_metric: float  # tied by the metric only
    ties_both: float

    @property
    def pairs(self) -> float:
        return self.concordant + self.discordant + self.ties_human + self.ties_metric + self.ties_both

    def tau_b(self) -> float | None:
        untied_human = self.pairs - self.ties_human - self.ties_both
        untied_metric = self.pairs - self.ties_metric - self.ties_both
        if untied_human == 0 or untied_metric == 0:
            return None
        return (self.concordant - self.discordant) / math.sqrt(untied_human) / math.sqrt(untied_metric)

    def accuracy(self) -> float | None:
        """``acc_eq`` at the counts' own ties (no calibration)."""
        return (self.concordant + self.ties_both) / self.pairs if self.pairs else None


def _tied_pairs(sorted_values: np.ndarray) -> int:
    """Pairs of equal entries in an array sorted so that equal entries are adjacent."""
    if sorted_values.size < 2:
        return 0
    boundaries = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1], True])
    runs = np.diff(boundaries)
    return int((runs * (runs - 1) // 2).sum())


def _strict_inversions(ranks: np.ndarray) -> int:
    """``|{i < j : ranks[i] > ranks[j]}|`` for non-negative integer ranks, by a bottom-up merge sort in numpy:
    at each level every element of a right half counts the elements of its left half above it (one
    ``searchsorted`` over all blocks at once, the block number shifting each block's values apart)."""
    values = ranks.astype(np.int64)
    n = values.size
    if n < 2:
        return 0
    spread = int(values.max()) + 1
    positions = np.arange(n)
    inversions, width = 0, 1
    while width < n:
        block = positions // (2 * width)
        keys = block * spread + values  # ascending within each run of ``width``: so the left halves' keys are sorted
        right = (positions % (2 * width)) >= width
        left_keys = keys[~right]
        block_ends = np.searchsorted(left_keys, (block[right] + 1) * spread, side="left")
        not_above = np.searchsorted(left_keys, keys[right], side="right")
        inversions += int((block_ends - not_above).sum())
        values = np.sort(keys) - block * spread  # each block of 2 * width merged (blocks keep their positions)
        width *= 2
    return inversions


def pair_counts(human: Sequence[float], metric: Sequence[float]) -> PairCounts:
    """The five classes over every pair of the two score vectors, in O(n log n) (module docstring)."""
    h = np.asarray(human, dtype=float)
    m = np.asarray(metric, dtype=float)
    if h.shape != m.shape or h.ndim != 1:
        raise ValueError("human and metric scores must be two vectors of the same length")
    n = h.size
    total = n * (n - 1) // 2
    order = np.lexsort((m, h))  # by human, then metric: pairs tied in human are never inversions of the metric
    h_sorted, m_sorted = h[order], m[order]
    both_sorted = np.r_[True, (h_sorted[1:] != h_sorted[:-1]) | (m_sorted[1:] != m_sorted[:-1]), True] \
        if n > 1 else np.array([True, True])
    runs = np.diff(np.flatnonzero(both_sorted))
    ties_both = int((runs * (runs - 1) // 2).sum())
    ties_human = _tied_pairs(h_sorted) - ties_both
    ties_metric = _tied_pairs(np.sort(m)) - ties_both
    discordant = _strict_inversions(np.unique(m_sorted, return_inverse=True)[1]) if n > 1 else 0
    concordant = total - discordant - ties_human - ties_metric - ties_both
    return PairCounts(concordant, discordant, ties_human, ties_metric, ties_both)


def kendall_tau_b(human: Sequence[float], metric: Sequence[float]) -> float | None:
    """Kendall's τ_b, ``None`` when either vector ties every pair."""
    return pair_counts(human, metric).tau_b()


def counts_of_signs(human_signs: np.ndarray, metric_signs: np.ndarray, weights: np.ndarray | None = None,
                    extra_ties_both: float = 0.0) -> PairCounts:
    """The five classes from each pair's ``sign(h_i - h_j)`` and ``sign(m_i - m_j)``, each pair counted
    ``weights`` times (a bootstrap draw's copies of it), plus ``extra_ties_both`` pairs tied on both sides (the
    copies of one segment paired with each other)."""
    # Each pair's class 3 (sh + 1) + (sm + 1), 0 to 8, for sh, sm in -1, 0, 1: one pass counts all five.
    classes = np.asarray(human_signs, dtype=np.int8) * 3 + np.asarray(metric_signs, dtype=np.int8) + 4
    n = np.bincount(classes, weights=weights, minlength=9)
    return PairCounts(float(n[0] + n[8]), float(n[2] + n[6]), float(n[3] + n[5]), float(n[1] + n[7]),
                      float(n[4]) + extra_ties_both)


class GroupedPairs:
    """Every pair of segments that share a group (a source sentence): the pairs item-grouped statistics read.

    ``groups[i]`` is segment i's group number, 0 to ``n_groups - 1``."""

    def __init__(self, groups: Sequence[int], n_groups: int | None = None):
        groups = np.asarray(groups, dtype=np.int64)
        self.n_groups = int(n_groups if n_groups is not None else (groups.max() + 1 if groups.size else 0))
        order = np.argsort(groups, kind="stable")
        firsts, seconds = [], []
        boundaries = np.flatnonzero(np.r_[True, groups[order][1:] != groups[order][:-1], True]) if groups.size \
            else np.array([0])
        for start, end in zip(boundaries[:-1], boundaries[1:]):
            members = order[start:end]
            if members.size > 1:
                i, j = np.triu_indices(members.size, k=1)
                firsts.append(members[i])
                seconds.append(members[j])
        self.first = np.concatenate(firsts) if firsts else np.zeros(0, dtype=np.int64)
        self.second = np.concatenate(seconds) if seconds else np.zeros(0, dtype=np.int64)
        self.group = groups[self.first]
        self.pairs_per_group = np.bincount(self.group, minlength=self.n_groups)

    def signs(self, scores: np.ndarray) -> np.ndarray:
        return np.sign(scores[self.first] - scores[self.second]).astype(np.int8)

    def tau_b(self, human: np.ndarray, metric: np.ndarray) -> np.ndarray:
        """τ_b of each group (NaN where undefined: no pair, or one side ties every pair of the group)."""
        sh, sm = self.signs(np.asarray(human, float)), self.signs(np.asarray(metric, float))
        count = self.pairs_per_group.astype(float)
        agreement = np.bincount(self.group, weights=sh * sm, minlength=self.n_groups)  # C - D
        untied_h = np.bincount(self.group, weights=(sh != 0).astype(float), minlength=self.n_groups)
        untied_m = np.bincount(self.group, weights=(sm != 0).astype(float), minlength=self.n_groups)
        with np.errstate(divide="ignore", invalid="ignore"):
            tau = agreement / np.sqrt(untied_h) / np.sqrt(untied_m)
        tau[(count == 0) | (untied_h == 0) | (untied_m == 0)] = np.nan
        return tau

    def calibration(self, human: np.ndarray, metric: np.ndarray) -> "TieCalibration":
        return TieCalibration(self, np.asarray(human, float), np.asarray(metric, float))


def mean_over_groups(values: np.ndarray, weights: np.ndarray | None = None) -> float | None:
    """The (weighted) mean of the groups' values that are defined; None when none is."""
    defined = ~np.isnan(values)
    w = np.ones_like(values) if weights is None else np.asarray(weights, float)
    total = float(w[defined].sum())
    return float((values[defined] * w[defined]).sum() / total) if total > 0 else None


SAME_MEAN = 1e-12  # relative: system scores this close are one value (means summed in another order)
EQUAL_ACCURACY = 1e-12  # accuracies this close are one value (float sums of the same pairs)


class TieCalibration:
    """Item-grouped ``acc_eq`` with its optimal ε (module docstring), for any weighting of the groups.

    The pairs are sorted by ``|Δm|`` once; each weighting (a bootstrap resample's multiplicities) is then one
    cumulative sum: raising ε past a pair's ``|Δm|`` turns it into a metric tie, which gains 1 when the judges tie
    it and loses 1 when it was concordant."""

    def __init__(self, pairs: GroupedPairs, human: np.ndarray, metric: np.ndarray):
        self.pairs = pairs
        sh = pairs.signs(human)
        difference = np.abs(metric[pairs.first] - metric[pairs.second])
        self.order = np.argsort(difference, kind="stable")
        self.difference = difference[self.order]
        sm = pairs.signs(metric)[self.order]
        sh = sh[self.order]
        untied = (sh * sm > 0).astype(float)  # right while the metric keeps them apart
        tied = (sh == 0).astype(float)  # right once the metric ties them
        self.base = np.where(self.difference == 0, tied, untied)  # at ε = 0 exact ties are already ties
        self.gain = np.where(self.difference == 0, 0.0, tied - untied)
        self.group = pairs.group[self.order]
        # The last pair of each run of equal |Δm|: ε at that value ties the whole run.
        self.run_ends = np.flatnonzero(np.r_[self.difference[1:] != self.difference[:-1], True]) \
            if self.difference.size else np.zeros(0, dtype=np.int64)

    def best(self, group_weights: np.ndarray | None = None) -> tuple[float | None, float | None]:
        """``(acc_eq, ε)`` maximizing the weighted mean over groups with a pair; ``(None, None)`` with no pair."""
        per_group = self.pairs.pairs_per_group.astype(float)
        weights = np.ones(self.pairs.n_groups) if group_weights is None else np.asarray(group_weights, float)
        weights = np.where(per_group > 0, weights, 0.0)
        total = weights.sum()
        if total == 0 or self.difference.size == 0:
            return None, None
        pair_weight = weights[self.group] / per_group[self.group] / total
        start = float(pair_weight @ self.base)
        gains = np.cumsum(pair_weight * self.gain)[self.run_ends]
        # The smallest ε of equal maxima; sums of the same pairs in another order may differ in the last bits.
        top = float(gains.max())
        if top <= EQUAL_ACCURACY:  # no ε above 0 does better than exact ties alone
            return start, 0.0
        best = int(np.argmax(gains >= top - EQUAL_ACCURACY))
        return start + float(gains[best]), float(self.difference[self.run_ends[best]])


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Pearson's r; None for fewer than two points or a constant side."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.size < 2:
        return None
    dx, dy = x - x.mean(), y - y.mean()
    # r does not change with the scale of either side: each side divided by its largest deviation first, so that
    # squares of tiny deviations (1e-200) do not underflow to a "constant" side, nor huge ones overflow (as scipy).
    largest_x, largest_y = float(np.abs(dx).max()), float(np.abs(dy).max())
    if largest_x == 0 or largest_y == 0:
        return None
    dx, dy = dx / largest_x, dy / largest_y
    denominator = math.sqrt(float((dx * dx).sum())) * math.sqrt(float((dy * dy).sum()))
    return max(-1.0, min(1.0, float((dx * dy).sum()) / denominator))


def pairwise_accuracy(human: Sequence[float], metric: Sequence[float]) -> float | None:
    """Kocmi et al. (2021): the share of system pairs the metric orders as the judges do (a tie matches a tie)."""
    h, m = np.asarray(human, float), np.asarray(metric, float)
    if h.size < 2:
        return None
    i, j = _upper_pairs(h.size)
    return float(np.mean(_tolerant_signs(h[i] - h[j], h) == _tolerant_signs(m[i] - m[j], m)))


def _tolerant_signs(differences: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Signs of differences between means, with a difference within rounding of the values a tie: two systems'
    scores equal on paper may differ in their last bits when their means were summed in another order."""
    tolerance = SAME_MEAN * max(1.0, float(np.abs(values).max()))
    return np.where(np.abs(differences) <= tolerance, 0.0, np.sign(differences))


@functools.lru_cache(maxsize=16)
def _upper_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, k=1)
