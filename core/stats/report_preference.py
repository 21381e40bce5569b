"""The report's tables for pairwise preference (issue 30): Bradley–Terry strengths and sign tests.

Both read the same :class:`~core.stats.preference.PreferenceJudgment` list; how each number is computed is in
:mod:`core.stats.bradley_terry` and :mod:`core.stats.preference`, whose objects give the signatures.
"""

from __future__ import annotations

from typing import Sequence

from parastudio.core.stats.bradley_terry import BradleyTerry, DisconnectedComparisonsError
from parastudio.core.stats.preference import PreferenceJudgment, PreferenceSignTests
from parastudio.core.stats.report_model import Column, ReportTable


def _judges(judgments: Sequence[PreferenceJudgment]) -> int:
    return len({j.annotator for j in judgments if j.annotator is not None})


def bradley_terry_table(judgments: Sequence[PreferenceJudgment], model: BradleyTerry) -> ReportTable:
    sentences = len({j.sentence for j in judgments})
    try:
        rows = model.strengths(judgments)
        note = ("Bradley–Terry log-strengths (mean 0; a difference d means odds exp(d) that the first is "
                f"preferred), 95 % percentile-bootstrap intervals over source sentences ({model.replicates} "
                f"replicates); {model.prior_wins} virtual wins each way between systems compared; ties left out "
                "of the fit and counted (each tie by construction, one string from both systems, counts once).")
    except DisconnectedComparisonsError as error:
        rows, note = [], f"No strengths: {error}."
    return ReportTable(
        key="preference_bradley_terry",
        title="System strengths from pairwise preferences (Bradley–Terry)",
        columns=[Column("system"), Column("strength", "kappa"), Column("95% low", "kappa"),
                 Column("95% high", "kappa"), Column("answers won", "count"), Column("answers lost", "count"),
                 Column("ties", "count")],
        rows=[[r.system, r.strength, r.low, r.high, r.wins, r.losses, r.ties] for r in rows],
        signature=model.signature(sentences, _judges(judgments), unit="source-sentence"),
        note=note,
    )


def preference_sign_test_table(judgments: Sequence[PreferenceJudgment],
                               tests: PreferenceSignTests = PreferenceSignTests()) -> ReportTable:
    comparisons = tests.compare(judgments)
    return ReportTable(
        key="preference_sign_tests",
        title="Sign tests between systems from pairwise preferences",
        columns=[Column("system A"), Column("system B"), Column("sentences", "count"), Column("wins A", "count"),
                 Column("wins B", "count"), Column("ties", "count"), Column("p (exact, two-sided)", "p"),
                 Column("p (Holm)" if tests.correction == "holm" else "p (uncorrected)", "p")],
        rows=[[c.system_a, c.system_b, c.n_items, c.wins_a, c.wins_b, c.ties, c.p_value, c.p_holm]
              for c in comparisons],
        signature=tests.signature(len({j.sentence for j in judgments}), _judges(judgments)),
        note="Paired on the source sentence: a sentence is won by the system more of its judges preferred, tied "
        "when as many preferred each (or when both systems produced the same string). n = wins A + wins B.",
    )


def preference_status(judgments: Sequence[PreferenceJudgment], *, bootstrap: int = 1000, seed: int = 0) -> dict:
    """The ``preference`` object of ``study status --json``: ``{"bradley_terry": [{"system", "strength",
    "ci95", "wins", "losses", "ties"}], "sign_tests": [{"system_a", "system_b", "sentences", "wins_a", "wins_b",
    "ties", "p_value", "p_holm"}], "bradley_terry_signature", "sign_tests_signature", "note"}``."""
    model, tests = BradleyTerry(replicates=bootstrap, seed=seed), PreferenceSignTests()
    sentences, judges = len({j.sentence for j in judgments}), _judges(judgments)
    try:
        strengths, note = [row.to_json_dict() for row in model.strengths(judgments)], ""
    except DisconnectedComparisonsError as error:
        strengths, note = [], str(error)
    return {"bradley_terry": strengths,
            "sign_tests": [{"system_a": c.system_a, "system_b": c.system_b, "sentences": c.n_items,
                            "wins_a": c.wins_a, "wins_b": c.wins_b, "ties": c.ties, "p_value": c.p_value,
                            "p_holm": c.p_holm} for c in tests.compare(judgments)],
            "bradley_terry_signature": model.signature(sentences, judges, unit="source-sentence"),
            "sign_tests_signature": tests.signature(sentences, judges), "note": note}


def preference_tables(judgments: Sequence[PreferenceJudgment], *, bootstrap: int = 1000,
                      seed: int = 0, note: str = "") -> list[ReportTable]:
    """Both tables, or none when no preference was given; ``note`` is added to both (where the answers came
    from, when that changes what the tables can count)."""
    if not judgments:
        return []
    tables = [bradley_terry_table(judgments, BradleyTerry(replicates=bootstrap, seed=seed)),
              preference_sign_test_table(judgments)]
    for table in tables:
        table.note = f"{table.note} {note}".strip()
    return tables
