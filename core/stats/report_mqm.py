"""The report's table for MQM (issue 43): each system's mean error points and its rank, as the published tables
of Freitag et al. (2021) give them. How each number is computed: :mod:`core.stats.mqm_scores`."""

from __future__ import annotations

from typing import Sequence

from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.mqm_scores import MqmSystemScores
from parastudio.core.stats.report_model import Column, PlotSpec, ReportTable

MQM_SCORES = MqmSystemScores()


def mqm_tables(records: JudgmentRecords, criteria: Sequence[str],
               model: MqmSystemScores = MQM_SCORES) -> list[ReportTable]:
    """One per-system table per MQM criterion."""
    tables = []
    for criterion in criteria:
        rows = model.systems(records, criterion)
        chosen = records.select(criterion=criterion)
        tables.append(ReportTable(
            key=f"mqm_systems:{criterion}",
            title=f"Per-system MQM score, '{criterion}' (error points per segment, lower is better)",
            columns=[Column("rank", "count"), Column("system"), Column("MQM", "kappa"), Column("segments", "count"),
                     Column("ratings", "count")],
            rows=[[rank, r.system, r.score, r.segments, r.ratings] for rank, r in enumerate(rows, 1)],
            signature=model.signature(len(set(chosen.items)), len(chosen.annotator_names()), criterion=criterion),
            note="A segment's points: Major 5, Minor 1, Minor Fluency/Punctuation 0.1, Major Non-translation 25, "
                 "Neutral 0 (Freitag et al. 2021), summed over its errors and averaged over its raters; a "
                 "system's score is the mean over its segments.",
            plot=PlotSpec("bar", 1, (2,), "MQM error points"),
        ))
    return tables
