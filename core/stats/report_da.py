"""The report's table for direct assessment (issue 30): per-system mean z with 95 % intervals, and α.

How each number is computed: :mod:`core.stats.direct_assessment`, whose object gives the signature.
"""

from __future__ import annotations

from typing import Sequence

from parastudio.core.stats.direct_assessment import DAScore, DirectAssessment
from parastudio.core.stats.report_model import Column, ReportTable


def da_tables(scores: Sequence[DAScore], model: DirectAssessment = DirectAssessment()) -> list[ReportTable]:
    """One per-system table per criterion scored 0-100 (``da``, ``esa``), or none without scores."""
    return [_criterion_table(criterion, [s for s in scores if s.criterion == criterion], model)
            for criterion in sorted({s.criterion for s in scores})]


def _criterion_table(criterion: str, scores: Sequence[DAScore], model: DirectAssessment) -> ReportTable:
    alpha = model.alpha(scores)
    judges = len({s.annotator for s in scores})
    items = len({s.item for s in scores})
    shown = "undefined" if alpha is None else f"{alpha:.4f}"
    return ReportTable(
        key=f"da_systems:{criterion}",
        title=f"Per-system mean z-score, '{criterion}' (0-100 scores)",
        columns=[Column("system"), Column("candidates", "count"), Column("mean raw score", "kappa"),
                 Column("mean z", "kappa"), Column("z 95% low", "kappa"), Column("z 95% high", "kappa")],
        rows=[[r.system, r.items, r.mean_raw, r.mean_z, r.low, r.high] for r in model.systems(scores)],
        signature=model.signature(items, judges, criterion=criterion),
        note=f"Scores 0-100 standardized per judge (z, sample sd); a candidate's z is its judges' mean; 95 % "
        f"Student t intervals over candidates. Krippendorff's α (interval, raw scores): {shown}.",
    )
