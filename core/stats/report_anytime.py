"""The anytime-valid sign tests as a report table, printed beside the fixed sign tests of the same criterion.

Same pairs, same orientation and same wins/ties as ``sign_tests:<criterion>``
(seed 003 §5); the p-value and decision stay valid however often the study was
looked at while judging (:mod:`core.stats.anytime_comparisons`).
"""

from __future__ import annotations

from typing import Sequence

from core.stats.anytime_comparisons import GUARANTEE, criterion_comparisons
from core.stats.anytime_sign_test import AnytimeSignTest
from core.stats.judgment_records import JudgmentRecords
from core.stats.report_model import Column, ReportTable


def anytime_sign_test_table(records: JudgmentRecords, criterion: str, n_judges: int, positive: Sequence[str],
                            test: AnytimeSignTest = AnytimeSignTest()) -> ReportTable:
    comparisons, sentences = criterion_comparisons(records, criterion, test, aggregate="mean", positive=positive)
    return ReportTable(
        key=f"anytime_sign_tests:{criterion}",
        title=f"Anytime-valid sign tests between systems, '{criterion}' (valid under continuous monitoring)",
        columns=[
            Column("system A"),
            Column("system B"),
            Column("n", "count"),
            Column("wins A", "count"),
            Column("wins B", "count"),
            Column("ties", "count"),
            Column("p (anytime, Holm)", "p"),
            Column("decision"),
            Column("win rate of A: low", "percent"),
            Column("win rate of A: high", "percent"),
        ],
        rows=[[c.system_a, c.system_b, c.result.n, c.result.wins_a, c.result.wins_b, c.result.ties, c.p_anytime,
               c.decision, *c.result.win_rate_cs] for c in comparisons],
        signature=test.signature(correction="holm", cs="bonferroni", unit="source-sentence", score="mean",
                                 order="pair-completion", items=len(sentences), judges=n_judges),
        note=f"{GUARANTEE.capitalize()}. Beta({test.prior_a:g},{test.prior_b:g}) mixture martingale, p = "
        "1 / its running maximum, Holm over the pairs; decided at p ≤ α = "
        f"{test.alpha:g}. Win rate of A: confidence sequence over the non-tied sentences (level α / pairs).",
    )
