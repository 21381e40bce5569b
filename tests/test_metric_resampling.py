"""The meta-evaluation's bootstrap, permutation tests and clusters (issue 43) against plain loops over the same
seeded draws, with every statistic computed the slow way (scipy, or brute force over pairs)."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr, zscore

from parastudio.core.stats.metric_correlations import TableIndex, metric_view
from parastudio.core.stats.metric_meta_evaluation import MetaEvaluation
from parastudio.core.stats.metric_resampling import bootstrap_intervals, clusters, permutation_tests
from parastudio.core.stats.metric_segments import JudgedSegment, SegmentTable
from tests.test_rank_agreement import brute_calibrated_accuracy

SEED = 11


def small_table(seed: int = 3) -> SegmentTable:
    """Six sentences, three systems (one missing a sentence), labels on a 3-point scale, three metrics."""
    rng = np.random.default_rng(seed)
    segments = [JudgedSegment(f"{s}-{y}", f"s{s}", f"sys{y}", f"text {s} {y}", float(rng.integers(0, 3)), 2)
                for s in range(6) for y in range(3) if (s, y) != (4, 2)]
    human = np.array([segment.human for segment in segments])
    metrics = {"good": human + rng.normal(0, 0.4, len(segments)).round(1),
               "noisy": rng.integers(0, 4, len(segments)).astype(float),
               "inverse": -human + rng.normal(0, 1.0, len(segments)).round(1)}
    return SegmentTable(segments, metrics, frozenset(), {})


def plain_statistics(table: SegmentTable, metric: np.ndarray, copies: list[int] | None = None) -> dict:
    """Every statistic by loops and scipy over the segments laid out one by one: sentence s repeated
    ``copies[s]`` times (each copy its own group), every sentence once when None."""
    sentences = list(dict.fromkeys(s.sentence for s in table.segments))
    copies = copies if copies is not None else [1] * len(sentences)
    rows = []  # (group, system, human, metric)
    group = 0
    for s, name in enumerate(sentences):
        for _ in range(copies[s]):
            rows += [(group, seg.system, seg.human, metric[i]) for i, seg in enumerate(table.segments)
                     if seg.sentence == name]
            group += 1
    human = [r[2] for r in rows]
    scores = [r[3] for r in rows]
    tau = kendalltau(human, scores).statistic if rows else math.nan
    per_group = []
    for g in range(group):
        h = [r[2] for r in rows if r[0] == g]
        m = [r[3] for r in rows if r[0] == g]
        value = kendalltau(h, m).statistic if len(h) > 1 else math.nan
        if not math.isnan(value):
            per_group.append(value)
    accuracy, _ = brute_calibrated_accuracy([r[0] for r in rows], human, scores, np.ones(group))
    systems = list(dict.fromkeys(seg.system for seg in table.segments))
    human_systems, metric_systems = [], []
    for system in systems:
        cells = {}
        for g, sys_name, h, m in rows:
            if sys_name == system:
                cells.setdefault(g, []).append((h, m))
        human_systems.append(np.mean([np.mean([h for h, _ in cell]) for cell in cells.values()]))
        metric_systems.append(np.mean([np.mean([m for _, m in cell]) for cell in cells.values()]))
    agree = [np.sign(human_systems[i] - human_systems[j]) == np.sign(metric_systems[i] - metric_systems[j])
             for i, j in combinations(range(len(systems)), 2)]
    return {"tau_b": None if math.isnan(tau) else tau,
            "tau_b_item": float(np.mean(per_group)) if per_group else None,
            "acc_eq_item": accuracy,
            "system_pearson": pearsonr(human_systems, metric_systems).statistic,
            "system_accuracy": sum(agree) / len(agree),
            "system_scores": (human_systems, metric_systems)}


def test_statistics_of_the_whole_table_are_the_plain_ones():
    table = small_table()
    index = TableIndex(table)
    for name in table.metric_names:
        ours = metric_view(index, name).statistics()
        plain = plain_statistics(table, table.metrics[name])
        for statistic in ("tau_b", "tau_b_item", "acc_eq_item", "system_pearson", "system_accuracy"):
            assert ours[statistic] == pytest.approx(plain[statistic], abs=1e-9), (name, statistic)


def test_corpus_system_scores_stand_in_for_the_segment_means():
    table = small_table()
    table.corpus["good"] = {"sys0": 3.0, "sys1": 1.0, "sys2": 2.0}
    index = TableIndex(table)
    human_systems, _ = plain_statistics(table, table.metrics["good"])["system_scores"]
    ours = metric_view(index, "good").statistics()
    assert ours["system_pearson"] == pytest.approx(pearsonr(human_systems, [3.0, 1.0, 2.0]).statistic)


def test_bootstrap_intervals_are_those_of_a_plain_loop_over_the_same_draws():
    table = small_table()
    index = TableIndex(table)
    views = {name: metric_view(index, name) for name in table.metric_names}
    resamples = 25
    ours = bootstrap_intervals(index, views, resamples, SEED)
    rng = np.random.default_rng(SEED)
    draws = {name: {} for name in views}
    for _ in range(resamples):
        drawn = rng.integers(0, 6, size=6)
        copies = np.bincount(drawn, minlength=6).tolist()
        for name in views:
            plain = plain_statistics(table, table.metrics[name], copies)
            for statistic in ("tau_b", "tau_b_item", "acc_eq_item", "system_pearson", "system_accuracy"):
                if plain[statistic] is not None and not math.isnan(plain[statistic]):
                    draws[name].setdefault(statistic, []).append(plain[statistic])
    for name in views:
        for statistic, values in draws[name].items():
            low, high = np.percentile(values, [2.5, 97.5])
            assert ours[name][statistic] == [pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9)], \
                (name, statistic)


def test_permutation_p_values_are_those_of_a_plain_loop_over_the_same_swaps():
    table = small_table()
    index = TableIndex(table)
    views = {name: metric_view(index, name) for name in table.metric_names}
    observed = {name: view.statistics() for name, view in views.items()}
    permutations = 30
    ours = permutation_tests(index, views, observed, permutations, SEED)
    n = len(table.segments)
    segment_swaps = np.random.default_rng(SEED).integers(0, 2, size=(permutations, n)).astype(bool)
    system_swaps = np.random.default_rng(SEED).integers(0, 2, size=(permutations, 3)).astype(bool)
    z = {name: zscore(table.metrics[name]) for name in views}
    z_systems = {name: zscore(plain_statistics(table, table.metrics[name])["system_scores"][1]) for name in views}
    human_systems = plain_statistics(table, table.metrics["good"])["system_scores"][0]

    def statistic_of(statistic, segment_scores, system_scores):
        if statistic.startswith("system"):
            agree = [np.sign(human_systems[i] - human_systems[j]) == np.sign(system_scores[i] - system_scores[j])
                     for i, j in combinations(range(3), 2)]
            return pearsonr(human_systems, system_scores).statistic if statistic == "system_pearson" \
                else sum(agree) / len(agree)
        return plain_statistics(table, segment_scores)[statistic]

    for statistic in ("tau_b", "tau_b_item", "acc_eq_item", "system_pearson", "system_accuracy"):
        order = sorted(views, key=lambda name: -observed[name][statistic])
        assert ours[statistic]["order"] == order
        for better, worse in combinations(order, 2):
            delta = statistic_of(statistic, z[better], z_systems[better]) - \
                statistic_of(statistic, z[worse], z_systems[worse])
            reached = 0
            for k in range(permutations):
                mix_better, mix_worse = [], []
                swaps = system_swaps[k] if statistic.startswith("system") else segment_swaps[k]
                ours_b = z_systems[better] if statistic.startswith("system") else z[better]
                ours_w = z_systems[worse] if statistic.startswith("system") else z[worse]
                for i, swap in enumerate(swaps):
                    mix_better.append(ours_b[i] if swap else ours_w[i])
                    mix_worse.append(ours_w[i] if swap else ours_b[i])
                mix_better, mix_worse = np.array(mix_better), np.array(mix_worse)
                if statistic_of(statistic, mix_better, mix_better) - \
                        statistic_of(statistic, mix_worse, mix_worse) >= delta - 1e-12:
                    reached += 1
            assert ours[statistic]["p_values"][better][worse] == pytest.approx(reached / permutations), \
                (statistic, better, worse)


def test_clusters_open_when_a_metric_of_the_current_cluster_beats_the_next():
    p_values = {"a": {"b": 0.3, "c": 0.04, "d": 0.001}, "b": {"c": 0.5, "d": 0.01}, "c": {"d": 0.3}}
    assert clusters(["a", "b", "c", "d"], p_values, 0.05) == {"a": 1, "b": 1, "c": 2, "d": 2}
    assert clusters(["a", "b", "c", "d"], p_values, 0.001) == {"a": 1, "b": 1, "c": 1, "d": 2}


def test_a_metric_that_follows_the_judges_beats_one_that_contradicts_them():
    table = small_table()
    report = MetaEvaluation(bootstrap=50, permutations=200, seed=SEED).run(table, criterion="c", aggregate="mean",
                                                                            judges=2)
    ranking = report["significance"]["tau_b"]["ranking"]
    assert ranking[0] == {"metric": "good", "cluster": 1}
    assert ranking[-1]["metric"] == "inverse" and ranking[-1]["cluster"] > 1
    assert report["significance"]["tau_b"]["p_values"]["good"]["inverse"] <= 0.05
    low, high = report["metrics"]["good"]["tau_b"]["ci95"]
    assert low <= report["metrics"]["good"]["tau_b"]["value"] <= high


def test_every_setting_of_the_meta_evaluation_and_the_metrics_is_in_its_signature():
    import dataclasses

    from parastudio.core.stats.text_metrics import TextMetrics

    base = MetaEvaluation()
    for name, value in (("bootstrap", 5), ("permutations", 7), ("seed", 3), ("level", 0.01)):
        assert dataclasses.replace(base, **{name: value}).signature(1, 1) != base.signature(1, 1), name
    for name, value in (("alpha", 0.5), ("tokenize", "intl")):
        assert dataclasses.replace(TextMetrics(), **{name: value}).signature(1, 0) != TextMetrics().signature(1, 0)
