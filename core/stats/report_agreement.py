"""The agreement table of a report: every statistic ``parastudio agreement`` computes, per criterion, with 95 % CIs.

Observed agreement, Cohen's κ (two judges), fixed-chance κ with P(E) = 1/q
(q from the criterion's scale where the records know it, seed 004 §5),
Fleiss' κ and Krippendorff's α (nominal, ordinal, interval), each with a
seeded percentile bootstrap interval over items (:mod:`core.stats.agreement`).
"""

from __future__ import annotations

from typing import Sequence

from parastudio.core.progress import Progress, no_progress
from parastudio.core.stats.agreement import STATISTIC_NAMES, AgreementStatistics
from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.report_model import Column, ReportTable

LABELS = {
    "observed": "observed",
    "cohen_kappa": "Cohen κ",
    "fixed_chance_kappa": "fixed-chance κ",
    "fleiss_kappa": "Fleiss κ",
    "krippendorff_alpha_nominal": "α nominal",
    "krippendorff_alpha_ordinal": "α ordinal",
    "krippendorff_alpha_interval": "α interval",
}


def agreement_table(records: JudgmentRecords, criteria: Sequence[str], *, bootstrap: int = 1000,
                    seed: int = 0, progress: Progress = no_progress) -> ReportTable:
    columns = [Column("criterion"), Column("items", "count"), Column("judges", "count"), Column("q", "count")]
    for name in STATISTIC_NAMES:
        columns += [Column(LABELS[name], "kappa"), Column(f"{LABELS[name]} 95% low", "kappa"),
                    Column(f"{LABELS[name]} 95% high", "kappa")]
    statistics = AgreementStatistics(bootstrap=bootstrap, seed=seed)
    rows, items, judges, q_from = [], 0, 0, []
    for criterion in criteria:
        matrix = records.rating_matrix(criterion)
        scale = records.scale_of(criterion)
        q = len(set(scale) | set(matrix.categories)) if scale else matrix.n_categories
        q_from.append(f"{criterion}={'scale' if scale else 'observed'}")
        summary = statistics.summarize(matrix, n_scale_categories=q, progress=progress)
        row: list = [criterion, summary.n_items, summary.n_annotators, q]
        for name in STATISTIC_NAMES:
            low_high = summary.ci95[name] or (None, None)
            row += [summary.statistics[name], *low_high]
        rows.append(row)
        items, judges = max(items, summary.n_items), max(judges, summary.n_annotators)
    return ReportTable(
        key="agreement",
        title="Agreement per criterion: κ and α with 95 % bootstrap intervals",
        columns=columns,
        rows=rows,
        signature=statistics.signature(items, judges, q_from=",".join(q_from)),
        note="Cohen's κ needs exactly two judges per item; fixed-chance κ takes P(E) = 1/q with q the number of "
        "labels of the scale; intervals resample items with replacement (undefined statistics left out).",
    )
