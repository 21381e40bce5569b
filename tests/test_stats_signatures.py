"""Statistics signatures are read from the object that computed the numbers (sacrebleu's ``get_signature()``):
changing a setting of the computation changes the signature, a report table carries its computation's
signature, and the settings in a signature are enough to compute the table's numbers again."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.stats import binomtest, wilcoxon
from sklearn.metrics import cohen_kappa_score

from parastudio.core.stats.agreement import AgreementStatistics
from parastudio.core.stats.judgment_records import JudgmentRecords, ScoreRecords
from parastudio.core.stats.pair_agreement import KappaDrift, PairConfusion, PairKappas
from parastudio.core.stats.report_render import render
from parastudio.core.stats.report_tables import build_report, sign_test_table
from parastudio.core.stats.significance import PairwiseTests

CHANGED = [
    (PairwiseTests(), "test", "wilcoxon"),
    (PairwiseTests(), "correction", "none"),
    (AgreementStatistics(), "bootstrap", 37),
    (AgreementStatistics(), "seed", 5),
    (PairKappas(), "weightings", ("none", "quadratic")),
    (KappaDrift(), "block_size", 7),
]


@pytest.mark.parametrize("statistic, field, value", CHANGED)
def test_changing_a_setting_changes_the_signature(statistic, field, value):
    changed = dataclasses.replace(statistic, **{field: value})
    assert changed.signature(10, 2) != statistic.signature(10, 2)
    shown = ",".join(value) if isinstance(value, tuple) else str(value)
    assert any(part.endswith(f":{shown}") or shown in part for part in changed.signature(10, 2).split("|"))
    # The data part is not a setting: the same computation on other data keeps its settings part.
    assert statistic.signature(10, 2).split("|items:")[0] == statistic.signature(99, 3).split("|items:")[0]


def parse(signature: str) -> dict[str, str]:
    return dict(part.split(":", 1) for part in signature.split("|"))


def records() -> JudgmentRecords:
    """Two judges, yes/no, three systems over six sentences, in judging order."""
    rng = np.random.default_rng(3)
    rows = []
    for system in ("beam", "mcpg", "spg"):
        for i in range(6):
            for judge in ("J0", "J1"):
                yes = rng.random() < {"beam": 0.3, "mcpg": 0.6, "spg": 0.9}[system]
                rows.append((f"{system}{i}", judge, "meaning", "yes" if yes else "no", system))
    return JudgmentRecords.from_columns(*zip(*rows))


SCORES = {"beam": {f"s{i}": v for i, v in enumerate([0.0, 0.5, 0.0, 1.0, 0.0, 0.5, 0.0, 0.0])},
          "mcpg": {f"s{i}": v for i, v in enumerate([1.0, 0.5, 1.0, 1.0, 0.5, 1.0, 1.0, 0.5])},
          "spg": {f"s{i}": v for i, v in enumerate([1.0, 1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0])}}


def holm(p_values):
    """Holm (1979) by its definition: the i-th smallest p times (m - i), never below an earlier one, at most 1."""
    order = sorted(range(len(p_values)), key=p_values.__getitem__)
    adjusted, running = [0.0] * len(p_values), 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


@pytest.mark.parametrize("tests", [PairwiseTests("sign", "holm"), PairwiseTests("sign", "none"),
                                   PairwiseTests("wilcoxon", "holm")])
def test_a_sign_test_table_carries_its_tests_signature_and_the_signature_recomputes_it(tests):
    table = sign_test_table(ScoreRecords(SCORES), "t", "t", 2, aggregate="mean", tests=tests)
    assert table.signature == tests.signature(8, 2, unit="source-sentence", score="mean")
    settings = parse(table.signature)
    assert settings["stat"] == f"{tests.test}-test"
    p_values = []
    for row in table.rows:
        a = [SCORES[row[0]][s] for s in SCORES[row[0]]]
        b = [SCORES[row[1]][s] for s in SCORES[row[0]]]
        if settings["test"] == "exact-binomial-two-sided":
            wins = sum(x > y for x, y in zip(a, b)), sum(y > x for x, y in zip(a, b))
            p_values.append(binomtest(wins[0], sum(wins), 0.5, alternative="two-sided").pvalue)
        else:
            assert settings["test"] == "wilcoxon-signed-rank-two-sided"
            p_values.append(wilcoxon(a, b, zero_method="wilcox", alternative="two-sided").pvalue)
    assert [row[6] for row in table.rows] == pytest.approx(p_values)
    expected = holm(p_values) if settings["correction"] == "holm" else p_values
    assert [row[7] for row in table.rows] == pytest.approx(expected)
    assert table.columns[7].name == ("p (Holm)" if tests.correction == "holm" else "p (uncorrected)")


def test_report_tables_carry_the_signatures_of_their_computations():
    judged = records()
    report = build_report(judged, block_size=4, bootstrap=60)
    tables = {table.key: table for table in report.tables}
    text = render(report, "md")
    for table in report.tables:
        assert f"Signature: `{table.signature}`" in text
    # Agreement: bootstrap and seed read back from the signature give the same intervals.
    agreement = tables["agreement"]
    settings = parse(agreement.signature)
    assert (settings["bootstrap"], settings["seed"]) == ("60", "0")
    again = AgreementStatistics(int(settings["bootstrap"]), int(settings["seed"])).summarize(
        judged.rating_matrix("meaning"), n_scale_categories=2)
    names = [column.name for column in agreement.columns]
    assert agreement.rows[0][names.index("Cohen κ 95% low")] == pytest.approx(again.ci95["cohen_kappa"][0])
    assert agreement.rows[0][names.index("Cohen κ 95% high")] == pytest.approx(again.ci95["cohen_kappa"][1])
    # Drift: the block in the signature is the block of the rows, each block's kappa as sklearn computes it.
    drift = tables["drift:meaning:J0:J1"]
    assert drift.signature == KappaDrift(4).signature(18, 2, criterion="meaning")
    block = int(parse(drift.signature)["block"])
    labels = {judge: [v for v, j in zip(judged.values, judged.annotators) if j == judge] for judge in ("J0", "J1")}
    assert [row[2] for row in drift.rows] == [block] * 4 + [2]
    for number, row in enumerate(drift.rows):
        a, b = (labels[j][number * block:(number + 1) * block] for j in ("J0", "J1"))
        expected = cohen_kappa_score(a, b) if len(set(a) | set(b)) > 1 else None
        assert (row[3] is None and (expected is None or np.isnan(expected))) or row[3] == pytest.approx(expected)
    assert tables["pairs:meaning"].signature == PairKappas(("none",)).signature(18, 2, criterion="meaning")
    assert tables["confusion:meaning:J0:J1"].signature == PairConfusion().signature(18, 2, criterion="meaning")
    # Another block size is another computation: other rows, another signature.
    other = {t.key: t for t in build_report(judged, block_size=5, bootstrap=60).tables}["drift:meaning:J0:J1"]
    assert other.signature != drift.signature and [row[2] for row in other.rows] == [5, 5, 5, 3]


def test_a_numeric_scale_gets_weighted_kappas_and_says_so():
    levels = [(1, 2), (3, 3), (2, 3), (1, 1), (3, 2)]  # (judge A, judge B) per item
    rows = [(f"i{i}", judge, "fluency", str(level), "beam")
            for i, pair in enumerate(levels) for judge, level in zip("AB", pair)]
    pairs = {t.key: t for t in build_report(JudgmentRecords.from_columns(*zip(*rows))).tables}["pairs:fluency"]
    weights = parse(pairs.signature)["weights"].split(",")
    assert weights == ["none", "linear", "quadratic"]
    names = [column.name for column in pairs.columns]
    a, b = [pair[0] for pair in levels], [pair[1] for pair in levels]
    for weighting in weights[1:]:
        assert pairs.rows[0][names.index(f"κ {weighting}")] == pytest.approx(cohen_kappa_score(a, b, weights=weighting))


# Seed 003's, seed 004's and seed 001's per-system tables: each signed by the object that computed it.
from parastudio.core.stats.judged_shares import FixedChanceShares, PositiveShares, UnifiedSuccesses  # noqa: E402
from parastudio.core.stats.report_tables import POSITIVE_LABELS  # noqa: E402

SHARES_CHANGED = [
    (PositiveShares(("yes",)), "min_judges", 3, "min-judges:3"),
    (PositiveShares(("yes",)), "positive", ("yes", "good"), "positive:yes,good"),
    (UnifiedSuccesses(("yes",)), "unified_min", 3, "unified-min:3"),
    (UnifiedSuccesses(("yes",)), "positive", ("yes", "ok"), "positive:yes,ok"),
    (FixedChanceShares((("use", ("1", "2", "3")),), (("use", "scale"),)), "scales",
     (("use", ("1", "2", "3", "4")),), "q:use=4"),
    (FixedChanceShares((("use", ("1", "2", "3")),), (("use", "scale"),)), "q_from", (("use", "observed"),),
     "q-from:use=observed"),
]


@pytest.mark.parametrize("statistic, field, value, part", SHARES_CHANGED)
def test_changing_a_setting_of_a_per_system_table_changes_its_signature(statistic, field, value, part):
    changed = dataclasses.replace(statistic, **{field: value})
    assert changed.signature(10, 2) != statistic.signature(10, 2)
    assert part in changed.signature(10, 2).split("|") and part not in statistic.signature(10, 2).split("|")


def three_judges() -> JudgmentRecords:
    """Three judges; yes/no meaning, a 1-3 usability scale and a choice task per item; two systems."""
    rng = np.random.default_rng(11)
    rows = []
    for system, rate in (("beam", 0.4), ("spg", 0.8)):
        for i in range(8):
            for judge in ("J0", "J1", "J2"):
                rows.append((f"{system}{i}", judge, "meaning", "yes" if rng.random() < rate else "no", system))
                rows.append((f"{system}{i}", judge, "usability", str(rng.integers(1, 4)), system))
                rows.append((f"{system}{i}", judge, "choice", "option:1" if rng.random() < rate else "original",
                             system))
    return JudgmentRecords.from_columns(*zip(*rows))


def test_seed003_004_001_tables_carry_their_computations_signatures_and_the_settings_recompute_them():
    judged = three_judges()
    for unified_min in (2, 3):
        tables = {t.key: t for t in build_report(judged, unified_min=unified_min, bootstrap=10).tables}
        seed003, seed004 = tables["seed003_table1"], tables["seed004_table1"]
        seed001 = tables["seed001_fig4_5:choice"]
        assert seed003.signature == PositiveShares(tuple(POSITIVE_LABELS)).signature(16, 3, kappa="fleiss")
        assert seed001.signature == UnifiedSuccesses(tuple(POSITIVE_LABELS), unified_min).signature(8, 3)
        assert parse(seed004.signature)["q"] == "usability=3" and parse(seed004.signature)["pe"] == "1/q"
        # Read the settings back from the signatures and compute the numbers by hand.
        needed = int(parse(seed001.signature)["unified-min"])
        assert needed == unified_min
        for row in seed001.rows:
            votes = {}
            for item, value, system in zip(judged.items, judged.values, judged.systems):
                if system == row[0] and value.startswith("option:"):
                    votes[item] = votes.get(item, 0) + 1
            assert row[4] == sum(count >= needed for count in votes.values())
        q = int(parse(seed004.signature)["q"].split("=")[1])
        for row in seed004.rows:
            labels = {}
            for item, _judge, criterion, value, system in zip(judged.items, judged.annotators, judged.criteria,
                                                             judged.values, judged.systems):
                if criterion == "usability" and row[0] == system:
                    labels.setdefault(item, []).append(value)
            pairs = [(a, b) for values in labels.values() for i, a in enumerate(values) for b in values[i + 1:]]
            observed = sum(a == b for a, b in pairs) / len(pairs)  # Fleiss' P-bar with 3 judges on every item
            assert row[4] == pytest.approx((observed - 1 / q) / (1 - 1 / q))


def test_seed001_results_describe_and_sign_their_sign_tests_from_the_tests_that_ran(monkeypatch):
    from types import SimpleNamespace

    from parastudio.core.experiments import seed001_report

    rng = np.random.default_rng(5)
    rates = {"approach-1": 0.2, "approach-2": 0.5, "approach-10": 0.8}
    result = {"results": {name: [SimpleNamespace(case=SimpleNamespace(id=f"c{i}"), success=bool(rng.random() < rate))
                                 for i in range(30)] for name, rate in rates.items()}}
    lines, comparisons = seed001_report.sign_tests(result)
    signature = lines[0].split("Signature: `")[1].split("`")[0]
    assert signature == PairwiseTests("sign", "holm").signature(30, 0, unit="case", score="success-in-top-5")
    assert "exact-binomial-two-sided" in lines[0] and "holm" in lines[0] and "the 3 pairs" in lines[0]
    # Another correction is another computation: its own description, signature and marks.
    monkeypatch.setattr(seed001_report, "SIGN_TESTS", PairwiseTests("sign", "none"))
    uncorrected, again = seed001_report.sign_tests(result)
    assert "correction:none" in uncorrected[0] and "correction:holm" not in uncorrected[0]
    assert [c.p_holm for c in again] == [c.p_value for c in comparisons]
