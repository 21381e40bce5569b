"""The anytime-valid sign tests as a report table, printed beside the fixed sign tests of the same criterion.

Same pairs, same orientation and same wins/ties as ``sign_tests:<criterion>``
(seed 003 §5); the p-value and decision stay valid however often the study was
looked at while judging (:mod:`core.stats.anytime_comparisons`).

A study judged through ``study assign-next`` with a stopping rule that stops
(``decided``, ``decided+K``) gave a pair of systems no more sentences once this
test decided it: the number of sentences was not fixed in advance, so a fixed-n
test's p-value would be too small (sampling to a foregone conclusion), while
this table's p-values hold under that stopping. Such a study's fixed-n sign
tests keep their counts and withhold their p-values (:class:`EarlyStopping`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from parastudio.core.stats.anytime_comparisons import GUARANTEE, criterion_comparisons
from parastudio.core.stats.anytime_sign_test import AnytimeSignTest
from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.report_model import Column, ReportTable


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


@dataclass(frozen=True)
class EarlyStopping:
    """How an adaptive study stopped judging pairs early: the criterion its anytime-valid tests read, and the
    stopping rules its batches were given out under (``decided``, ``decided+K``)."""

    criterion: str
    rules: tuple[str, ...]

    def withheld_note(self, anytime_key: str | None) -> str:
        """Why a fixed-n sign-test table shows no p-values, and where to read valid ones."""
        where = (f"read the anytime-valid table ({anytime_key}), whose p-values hold under such stopping"
                 if anytime_key else "no anytime-valid test is computed for this score")
        return (f"Fixed-n p-values withheld: the sentences were given out by study assign-next with stopping rule "
                f"{', '.join(self.rules)} on criterion '{self.criterion}', which stops judging a pair of systems "
                "once its anytime-valid test decides it; the number of sentences was not fixed in advance, so an "
                f"exact sign test's p-values would be too small. Wins and ties are counts and stay; {where}.")
