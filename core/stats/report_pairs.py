"""Agreement per annotator pair and criterion: kappa (weighted too on numeric scales), confusion matrix, drift."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from parastudio.core.stats.agreement import MISSING, landis_koch_label
from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.pair_agreement import KappaDrift, PairConfusion, PairKappas
from parastudio.core.stats.report_model import Column, PlotSpec, ReportTable


def pair_tables(records: JudgmentRecords, criterion: str, block_size: int, *, by_label: bool = True) -> list[ReportTable]:
    """The pair summary, and unless ``by_label`` is False (a 0-100 score, whose 101 labels make a confusion
    matrix of noise and an unweighted κ of exact-score matches) each pair's confusion matrix and drift."""
    matrix = records.rating_matrix(criterion)
    q = matrix.n_categories
    numeric = matrix.category_values is not None
    # Weighted kappa needs an order of the labels, which a numeric scale has.
    kappas = PairKappas(("none", "linear", "quadratic") if numeric else ("none",))
    confusion_of, drift = PairConfusion(), KappaDrift(block_size)
    summary_rows, tables = [], []
    for first, second in combinations(range(matrix.n_annotators), 2):
        name_a, name_b = matrix.annotator_ids[first], matrix.annotator_ids[second]
        a, b = matrix.codes[:, first], matrix.codes[:, second]
        both = np.flatnonzero((a != MISSING) & (b != MISSING))
        if both.size == 0:
            continue
        # Judging order: when the later of the two judgments was given.
        when = np.maximum(matrix.source_rows[both, first], matrix.source_rows[both, second])
        both = both[np.argsort(when, kind="stable")]
        kappa, *weighted = kappas(a[both], b[both], q)
        summary_rows.append([name_a, name_b, int(both.size), float(np.mean(a[both] == b[both])), kappa,
                             landis_koch_label(kappa), *weighted])
        if not by_label:
            continue
        confusion = confusion_of(a[both], b[both], q)
        tables.append(
            ReportTable(
                key=f"confusion:{criterion}:{name_a}:{name_b}",
                title=f"Confusion matrix, '{criterion}': {name_a} (rows) × {name_b} (columns)",
                columns=[Column(f"{name_a} \\ {name_b}")] + [Column(label, "count") for label in matrix.categories],
                rows=[[label, *map(int, confusion[i])] for i, label in enumerate(matrix.categories)],
                signature=confusion_of.signature(int(both.size), 2, criterion=criterion),
            )
        )
        drift_rows = [[number, f"{start + 1}–{start + size}", size, block_kappa]
                      for number, start, size, block_kappa in drift(a[both], b[both], q)]
        tables.append(
            ReportTable(
                key=f"drift:{criterion}:{name_a}:{name_b}",
                title=f"Drift of agreement, '{criterion}': {name_a} × {name_b}, κ per block of {drift.block_size} items",
                columns=[Column("block", "count"), Column("items (judging order)"), Column("n", "count"), Column("κ", "kappa")],
                rows=drift_rows,
                signature=drift.signature(int(both.size), 2, criterion=criterion),
                plot=PlotSpec("line", 0, (3,), "Cohen's κ"),
            )
        )
    columns = [Column("annotator A"), Column("annotator B"), Column("shared items", "count"), Column("observed", "percent"), Column("κ", "kappa"), Column("Landis & Koch")]
    columns += [Column(f"κ {weighting}", "kappa") for weighting in kappas.weightings[1:]]
    summary = ReportTable(
        key=f"pairs:{criterion}",
        title=f"Agreement per annotator pair, '{criterion}'",
        columns=columns,
        rows=summary_rows,
        signature=kappas.signature(matrix.n_units, matrix.n_annotators, criterion=criterion),
        note="Weighted κ places labels at their rank on the scale.",
    )
    return [summary, *tables]
