"""The five statistics of a metric against the judges on a :class:`SegmentTable`, for the whole table or for a
resample of its source sentences (the formulas are in :mod:`core.stats.rank_agreement`).

* ``tau_b``: Kendall's τ_b over every pair of segments (no grouping);
* ``tau_b_item``: τ_b within each source sentence, averaged over the sentences where it is defined;
* ``acc_eq_item``: pairwise accuracy with tie calibration within each source sentence, averaged, one ε for all
  (WMT23's segment-level statistic);
* ``system_pearson`` and ``system_accuracy``: Pearson's r and pairwise accuracy of the systems' scores.

A system's human score is the mean over the source sentences it was judged on of its segments' mean there (the
project's convention, :mod:`core.stats.system_scores`); its metric score is its corpus score where the scores
file gives one for every system (BLEU, chrF, TER, iBLEU, source BLEU, edit rate: see
:mod:`core.stats.text_metrics`), else the same mean of its segments' metric scores. A resample counts each
source sentence as often as it was drawn (``weights``).
"""

from __future__ import annotations

import numpy as np

from parastudio.core.stats.metric_segments import SegmentTable
from parastudio.core.stats.rank_agreement import (
    GroupedPairs,
    counts_of_signs,
    kendall_tau_b,
    mean_over_groups,
    pairwise_accuracy,
    pearson,
)

# Every pair of segments is held in memory up to this many (about 20 MB), so τ_b of a resample or a permutation is
# a few vector sums; beyond, it is counted in O(n log n) each time (:func:`kendall_tau_b`).
FLAT_PAIR_LIMIT = 2_000_000

SEGMENT_STATISTICS = {
    "tau_b": "Kendall τ_b over all segments (no grouping)",
    "tau_b_item": "Kendall τ_b within each source sentence, averaged (item-grouped)",
    "acc_eq_item": "pairwise accuracy with tie calibration, item-grouped (acc*_eq, Deutsch et al. 2023)",
}
SYSTEM_STATISTICS = {
    "system_pearson": "Pearson r of the systems' scores",
    "system_accuracy": "pairwise accuracy of the systems' order (Kocmi et al. 2021)",
}
STATISTICS = {**SEGMENT_STATISTICS, **SYSTEM_STATISTICS}


class TableIndex:
    """What every metric's statistics share: the sentence pairs, each sentence's segments, and the systems'
    cells (system x sentence)."""

    def __init__(self, table: SegmentTable):
        self.table = table
        self.n_sentences = len(table.sentence_names)
        self.n_systems = len(table.system_names)
        self.pairs = GroupedPairs(table.sentence_of, self.n_sentences)
        order = np.argsort(table.sentence_of, kind="stable")
        bounds = np.searchsorted(table.sentence_of[order], np.arange(self.n_sentences + 1))
        self.members = [order[bounds[s]:bounds[s + 1]] for s in range(self.n_sentences)]
        self.cell = table.system_of * self.n_sentences + table.sentence_of
        cells = self.n_systems * self.n_sentences
        self.cell_count = np.bincount(self.cell, minlength=cells).reshape(self.n_systems, self.n_sentences)
        self.present = (self.cell_count > 0).astype(float)
        self.human_cells = self.cell_means(table.human)
        n = len(table.segments)
        self.flat = GroupedPairs(np.zeros(n, dtype=np.int64), 1) if n * (n - 1) // 2 <= FLAT_PAIR_LIMIT else None
        if self.flat is not None:
            self.flat_human = self.flat.signs(table.human)
            self.flat_sentences = (table.sentence_of[self.flat.first], table.sentence_of[self.flat.second])

    def flat_tau_b(self, metric_signs: np.ndarray, weights: np.ndarray | None) -> float | None:
        """τ_b over every pair of segments from the held pairs; a resample's copies weigh each pair
        ``w_s * w_t`` (the copies of its two sentences): the τ_b of the drawn segments laid out one by one. (The
        copies of one segment paired with each other are tied on both sides, which τ_b does not count.)"""
        if weights is None:
            return counts_of_signs(self.flat_human, metric_signs).tau_b()
        first, second = self.flat_sentences
        return counts_of_signs(self.flat_human, metric_signs, weights[first] * weights[second]).tau_b()

    def cell_means(self, values: np.ndarray) -> np.ndarray:
        """system x sentence: the mean of the system's segments of the sentence (0 where it has none)."""
        sums = np.bincount(self.cell, weights=values, minlength=self.cell_count.size).reshape(self.cell_count.shape)
        return np.divide(sums, self.cell_count, out=np.zeros_like(sums), where=self.cell_count > 0)

    def system_scores(self, cells: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        """Each system's weighted mean over its sentences (NaN for a system no drawn sentence judged)."""
        w = np.ones(self.n_sentences) if weights is None else weights
        mass = self.present @ w
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(mass > 0, (cells * self.present) @ w / np.where(mass > 0, mass, 1), np.nan)

    def drawn_segments(self, drawn: np.ndarray) -> np.ndarray:
        """The segments of the drawn sentences, a sentence drawn twice counted twice."""
        return np.concatenate([self.members[s] for s in drawn]) if len(drawn) else np.zeros(0, dtype=np.int64)


class MetricView:
    """One metric's (oriented) segment scores over a table, with what its statistics precompute."""

    def __init__(self, index: TableIndex, scores: np.ndarray, system_scores: np.ndarray | None = None):
        self.index = index
        self.scores = scores
        self.group_tau = index.pairs.tau_b(index.table.human, scores)
        self.calibration = index.pairs.calibration(index.table.human, scores)
        self.fixed_system_scores = system_scores  # corpus scores, which a resample of sentences does not change
        self.cells = index.cell_means(scores)
        self.flat_signs = index.flat.signs(scores) if index.flat is not None else None

    def segment_statistics(self, weights: np.ndarray | None = None, drawn: np.ndarray | None = None) -> dict:
        """``tau_b``, ``tau_b_item``, ``acc_eq_item`` and its ``epsilon``; ``drawn`` lists the drawn sentences of
        a resample and ``weights`` counts them."""
        human = self.index.table.human
        if self.flat_signs is not None:
            tau = self.index.flat_tau_b(self.flat_signs, weights)
        elif drawn is None:
            tau = kendall_tau_b(human, self.scores)
        else:
            chosen = self.index.drawn_segments(drawn)
            tau = kendall_tau_b(human[chosen], self.scores[chosen])
        accuracy, epsilon = self.calibration.best(weights)
        return {"tau_b": tau, "tau_b_item": mean_over_groups(self.group_tau, weights), "acc_eq_item": accuracy,
                "epsilon": epsilon}

    def metric_system_scores(self, weights: np.ndarray | None = None) -> np.ndarray:
        if self.fixed_system_scores is not None:
            return self.fixed_system_scores
        return self.index.system_scores(self.cells, weights)

    def system_statistics(self, weights: np.ndarray | None = None) -> dict:
        human = self.index.system_scores(self.index.human_cells, weights)
        return system_statistics(human, self.metric_system_scores(weights))

    def statistics(self, weights: np.ndarray | None = None, drawn: np.ndarray | None = None) -> dict:
        return {**self.segment_statistics(weights, drawn), **self.system_statistics(weights)}


def system_statistics(human: np.ndarray, metric: np.ndarray) -> dict:
    """Pearson and pairwise accuracy over the systems scored on both sides."""
    kept = ~(np.isnan(human) | np.isnan(metric))
    return {"system_pearson": pearson(human[kept], metric[kept]),
            "system_accuracy": pairwise_accuracy(human[kept], metric[kept])}


def metric_view(index: TableIndex, name: str) -> MetricView:
    """The view of metric ``name`` of the index's table, with its corpus system scores where the table has them."""
    table = index.table
    corpus = table.corpus.get(name)
    fixed = None if corpus is None else np.array([corpus[system] for system in table.system_names], dtype=float)
    return MetricView(index, table.metrics[name], fixed)


def zscored(values: np.ndarray) -> np.ndarray:
    """``(x - mean) / sd`` (population sd); zeros for a constant vector."""
    sd = float(values.std())
    return (values - values.mean()) / sd if sd > 0 else np.zeros_like(values)
