"""Which automatic metric orders candidates and systems as the judges did: the WMT metrics task's
meta-evaluation on a study's judgments (:mod:`core.stats.metric_correlations` for the statistics,
:mod:`core.stats.metric_resampling` for the intervals, tests and clusters).

:class:`MetaEvaluation` holds the run's settings (its signature is made of them) and returns one JSON-ready dict
(``docs/CLI.md``, ``parastudio metaeval``): per metric every statistic with its 95 % interval, the system scores,
the permutation tests' p-values and clusters per statistic, and the segments where each metric and the judges
disagree most: the largest gap between the segment's percentile rank by the judges and by the metric
(average ranks for ties, ``rank / n``), which an Inspect session can open by item id.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parastudio.core.progress import Progress, no_progress, scaled
from parastudio.core.stats.metric_correlations import STATISTICS, SYSTEM_STATISTICS, TableIndex, metric_view
from parastudio.core.stats.metric_resampling import bootstrap_intervals, clusters, permutation_tests
from parastudio.core.stats.metric_segments import SegmentTable
from parastudio.core.stats.signature import Signed


@dataclass(frozen=True)
class MetaEvaluation(Signed):
    """``bootstrap`` resamples of source sentences and ``permutations`` draws per pair of metrics (0: none),
    from ``seed``; ``level`` the p-value at or below which a metric beats another (clusters); ``disagreements``
    segments listed per metric."""

    bootstrap: int = 1000
    permutations: int = 1000
    seed: int = 0
    level: float = 0.05
    disagreements: int = 10
    name = "metaeval"

    def __post_init__(self) -> None:
        if self.bootstrap < 0 or self.permutations < 0 or self.disagreements < 0 or self.seed < 0:
            raise ValueError("bootstrap, permutations, disagreements and seed must be 0 or more")
        if not 0 < self.level < 1:
            raise ValueError(f"level must be between 0 and 1, not {self.level}")

    def settings(self) -> dict[str, object]:
        # What the fields do not say: the fixed choices of the protocol.
        return {"tau": "b", "acc": "eq-tie-calibrated-item-grouped", "resample": "source-sentences",
                "ci": "percentile-95", "perm": "both-zscored-one-sided", "bootstrap": self.bootstrap,
                "permutations": self.permutations, "seed": self.seed, "level": self.level}

    def run(self, table: SegmentTable, *, criterion: str, aggregate: str, judges: int,
            progress: Progress = no_progress) -> dict:
        index = TableIndex(table)
        views = {name: metric_view(index, name) for name in table.metric_names}
        observed = {name: view.statistics() for name, view in views.items()}
        intervals = bootstrap_intervals(index, views, self.bootstrap, self.seed, scaled(progress, 0, 30)) \
            if self.bootstrap else {}
        tests = permutation_tests(index, views, observed, self.permutations, self.seed,
                                  scaled(progress, 30, 100)) if self.permutations and len(views) > 1 else {}
        human_systems = index.system_scores(index.human_cells)
        judgments = sum(segment.judgments for segment in table.segments)
        report = {
            "criterion": criterion, "aggregate": aggregate,
            "signature": self.signature(len(table.segments), judges, criterion=criterion, aggregate=aggregate),
            "segments": len(table.segments), "sentences": index.n_sentences, "systems": table.system_names,
            "judgments": judgments, "statistics": STATISTICS,
            "human_system_scores": dict(zip(table.system_names, map(float, human_systems))),
            "metrics": {name: self._metric_entry(table, name, views[name], observed[name], intervals.get(name))
                        for name in views},
            "significance": {statistic: self._significance(test) for statistic, test in tests.items()},
            "disagreements": {name: self._disagreements(table, name) for name in views},
            "notes": list(table.notes) + _notes(table, index),
        }
        return report

    def _metric_entry(self, table: SegmentTable, name: str, view, observed: dict, intervals: dict | None) -> dict:
        entry = {"better": "lower" if name in table.lower_is_better else "higher",
                 "system_scores_from": "corpus" if name in table.corpus else "segment-mean"}
        for statistic in STATISTICS:
            entry[statistic] = {"value": observed[statistic],
                                "ci95": intervals.get(statistic) if intervals else None}
        entry["acc_eq_item"]["epsilon"] = observed["epsilon"]
        entry["tau_b_item"]["sentences"] = int(np.count_nonzero(~np.isnan(view.group_tau)))
        systems = view.metric_system_scores()
        entry["system_scores"] = {system: table.raw(name, float(value))
                                  for system, value in zip(table.system_names, systems)}
        return entry

    def _significance(self, test: dict) -> dict:
        grouped = clusters(test["order"], test["p_values"], self.level)
        return {"ranking": [{"metric": name, "cluster": grouped[name]} for name in test["order"]],
                "p_values": test["p_values"]}

    def _disagreements(self, table: SegmentTable, name: str) -> list[dict]:
        from scipy.stats import rankdata

        n = len(table.segments)
        if n == 0 or self.disagreements == 0:
            return []
        human_rank = rankdata(table.human) / n
        metric_rank = rankdata(table.metrics[name]) / n
        gap = metric_rank - human_rank
        order = sorted(range(n), key=lambda i: (-abs(gap[i]), table.segments[i].item, table.segments[i].system))
        rows = []
        for i in order[:self.disagreements]:
            segment = table.segments[i]
            rows.append({"item": segment.item, "sentence": segment.sentence, "system": segment.system,
                         "text": segment.text, "human": segment.human,
                         "metric": table.raw(name, float(table.metrics[name][i])),
                         "human_rank": float(human_rank[i]), "metric_rank": float(metric_rank[i]),
                         "metric_ranks_it": "higher" if gap[i] > 0 else "lower"})
        return rows


def _notes(table: SegmentTable, index: TableIndex) -> list[str]:
    notes = []
    if index.n_systems < 2:
        notes.append(f"{index.n_systems} system{'' if index.n_systems == 1 else 's'}: the system-level statistics ({', '.join(SYSTEM_STATISTICS)}) "
                     "need at least two and are undefined.")
    if len(index.pairs.first) == 0:
        notes.append("No source sentence has two judged segments: the item-grouped statistics are undefined.")
    return notes
