"""How sure the meta-evaluation is: bootstrap intervals over source sentences, permutation tests between every two
metrics, and the significance clusters those tests give (the WMT metrics task's protocol).

* **Bootstrap** (Efron and Tibshirani 1993; WMT resamples items): each of ``resamples`` draws takes as many source
  sentences as the table has, with replacement, from ``numpy.random.default_rng(seed)``
  (``rng.integers(0, S, size=S)``), and computes every statistic on them; the 95 % interval is the 2.5th and
  97.5th percentiles (numpy's linear interpolation) of the draws where the statistic is defined.
* **Permutation test** (PERM-BOTH of Deutsch, Dror and Roth 2021, as ``mt-metrics-eval``'s ``PermutationSigDiff``
  runs it for WMT23/24): both metrics' scores are z-scored; each of ``permutations`` draws swaps the two metrics'
  scores on a random half of the units (segments for a segment-level statistic, systems for a system-level one:
  ``rng.integers(0, 2, size=(permutations, units))`` of ``default_rng(seed)``, one draw shared by every pair),
  ``mix_better = where(swap, better, worse)``, ``mix_worse = where(swap, worse, better)``. The one-sided p-value
  that the better metric (the higher statistic) is not better is the share of draws with
  ``stat(mix_better) - stat(mix_worse) >= stat(better) - stat(worse)`` (equal within 1e-12; an undefined draw
  never counts).
* **Clusters** (``mt-metrics-eval``'s ``AssignRanks``): metrics in decreasing order of the statistic; a metric opens
  a new cluster when one of the current cluster's metrics beats it with ``p <= level``; cluster 1 is the best.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from parastudio.core.progress import Progress, no_progress
from parastudio.core.stats.metric_correlations import STATISTICS, MetricView, TableIndex, system_statistics, zscored

# A draw's difference equal to the observed one counts (>=); computed along another path, it may differ in its last
# bits, so differences this close are equal.
SAME_DIFFERENCE = 1e-12


def bootstrap_intervals(index: TableIndex, views: dict[str, MetricView], resamples: int, seed: int,
                        progress: Progress = no_progress) -> dict[str, dict[str, list[float] | None]]:
    """metric -> statistic -> ``[low, high]`` (None when no draw defines it) over ``resamples`` draws."""
    draws: dict[str, dict[str, list[float]]] = {name: {s: [] for s in STATISTICS} for name in views}
    rng = np.random.default_rng(seed)
    for done in range(resamples):
        drawn = rng.integers(0, index.n_sentences, size=index.n_sentences)
        weights = np.bincount(drawn, minlength=index.n_sentences).astype(float)
        human_systems = index.system_scores(index.human_cells, weights)
        for name, view in views.items():
            values = {**view.segment_statistics(weights, drawn),
                      **system_statistics(human_systems, view.metric_system_scores(weights))}
            for statistic in STATISTICS:
                if values[statistic] is not None:
                    draws[name][statistic].append(values[statistic])
        progress(done + 1, resamples, "bootstrap")
    return {name: {statistic: percentile_interval(values) for statistic, values in by_statistic.items()}
            for name, by_statistic in draws.items()}


def percentile_interval(values: list[float]) -> list[float] | None:
    if not values:
        return None
    low, high = np.percentile(np.asarray(values, dtype=float), [2.5, 97.5])
    return [float(low), float(high)]


def swap_masks(permutations: int, units: int, seed: int) -> np.ndarray:
    """Which units swap their two metrics' scores in each draw (module docstring)."""
    return np.random.default_rng(seed).integers(0, 2, size=(permutations, units)).astype(bool)


def permutation_tests(index: TableIndex, views: dict[str, MetricView], observed: dict[str, dict],
                      permutations: int, seed: int, progress: Progress = no_progress) -> dict[str, dict]:
    """statistic -> ``{"order": [metrics, best first], "p_values": {better: {worse: p}}}`` for every statistic
    and every two metrics where it is defined (module docstring)."""
    names = list(views)
    z_segments = {name: zscored(view.scores) for name, view in views.items()}
    human_systems = index.system_scores(index.human_cells)
    z_systems = {name: zscored(view.metric_system_scores()) for name, view in views.items()}
    segment_masks = swap_masks(permutations, len(index.table.segments), seed)
    system_masks = swap_masks(permutations, index.n_systems, seed)
    z_observed = {name: {**MetricView(index, z_segments[name], z_systems[name]).segment_statistics(),
                         **system_statistics(human_systems, z_systems[name])} for name in names}
    exceed: dict[str, dict[tuple[str, str], int]] = {statistic: {} for statistic in STATISTICS}
    pairs = list(combinations(names, 2))
    for done, (a, b) in enumerate(pairs):
        counts = {statistic: [0, 0] for statistic in STATISTICS}  # draws where a's side, b's side reached its delta
        for mask_segments, mask_systems in zip(segment_masks, system_masks):
            x = MetricView(index, np.where(mask_segments, z_segments[a], z_segments[b])).segment_statistics()
            y = MetricView(index, np.where(mask_segments, z_segments[b], z_segments[a])).segment_statistics()
            x.update(system_statistics(human_systems, np.where(mask_systems, z_systems[a], z_systems[b])))
            y.update(system_statistics(human_systems, np.where(mask_systems, z_systems[b], z_systems[a])))
            for statistic in STATISTICS:
                _count(counts[statistic], x[statistic], y[statistic], z_observed[a][statistic],
                       z_observed[b][statistic])
        for statistic in STATISTICS:
            exceed[statistic][(a, b)], exceed[statistic][(b, a)] = counts[statistic]
        progress(done + 1, len(pairs), "permutation tests")
    tests = {}
    for statistic in STATISTICS:
        order = sorted((name for name in names if observed[name][statistic] is not None),
                       key=lambda name: -observed[name][statistic])
        tests[statistic] = {"order": order, "p_values": {
            better: {worse: exceed[statistic][(better, worse)] / permutations for worse in order[i + 1:]}
            for i, better in enumerate(order)}}
    return tests


def _count(counts: list[int], x: float | None, y: float | None, a: float | None, b: float | None) -> None:
    """Adds one to ``counts[0]`` when a's side of the draw reached a's observed lead over b, to ``counts[1]`` when
    b's side reached b's lead over a (``x`` is the statistic of the mixture that keeps a's score unswapped)."""
    if None in (x, y, a, b):
        return
    if x - y >= a - b - SAME_DIFFERENCE:
        counts[0] += 1
    if y - x >= b - a - SAME_DIFFERENCE:
        counts[1] += 1


def clusters(order: list[str], p_values: dict[str, dict[str, float]], level: float) -> dict[str, int]:
    """metric -> its cluster (1 the best), from metrics in decreasing order and their p-values (module docstring)."""
    assigned: dict[str, int] = {}
    cluster, start = 1, 0
    for i, metric in enumerate(order):
        if any(p_values[order[k]][metric] <= level for k in range(start, i)):
            cluster += 1
            start = i
        assigned[metric] = cluster
    return assigned


