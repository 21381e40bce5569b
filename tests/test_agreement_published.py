"""Agreement statistics against published worked examples and second libraries."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.stats.agreement import (
    RatingMatrix,
    bootstrap_intervals,
    cohen_kappa,
    fixed_chance_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    landis_koch_label,
    observed_agreement,
    summarize_agreement,
)

# Fleiss (1971) Table 1: 30 patients, 6 psychiatrists, 5 diagnoses; kappa 0.430
# (0.4302445 in R irr::kappam.fleiss).
FLEISS_1971 = [
    [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5], [2, 2, 2, 4, 4, 4],
    [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4], [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5],
    [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4], [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5],
    [3, 3, 3, 3, 3, 5], [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4], [1, 4, 4, 4, 4, 5],
    [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4], [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
]

# Krippendorff (2011) "Computing Krippendorff's alpha-reliability": 4 coders, 12 units, missing = None.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def matrix_from_rows(rows):
    """rows: units x annotators labels (None missing)."""
    units, annotators, labels = [], [], []
    for unit, row in enumerate(rows):
        for annotator, label in enumerate(row):
            if label is not None:
                units.append(unit)
                annotators.append(f"r{annotator}")
                labels.append(str(label))
    return RatingMatrix.from_judgments(units, annotators, labels)


def wikipedia_cohen():
    # Wikipedia "Cohen's kappa": 50 proposals; yes/yes 20, A yes B no 5, A no B yes 10, no/no 15.
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    return matrix_from_rows(list(zip(a, b)))


def test_wikipedia_cohen_kappa_is_0_4():
    matrix = wikipedia_cohen()
    a, b = matrix.pair(0, 1)
    assert cohen_kappa(a, b, 2) == pytest.approx(0.4, abs=1e-9)
    assert observed_agreement(matrix.category_counts()) == pytest.approx(0.7, abs=1e-12)


def test_fleiss_1971_kappa():
    matrix = matrix_from_rows(FLEISS_1971)
    assert fleiss_kappa(matrix.category_counts()) == pytest.approx(0.4302445, abs=1e-6)


def test_fleiss_wikipedia_example():
    # Wikipedia "Fleiss' kappa": 10 subjects, 14 raters, 5 categories; P-bar 0.378, kappa 0.210.
    counts = np.array([
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ])
    assert observed_agreement(counts) == pytest.approx(0.378021978, abs=1e-6)
    assert fleiss_kappa(counts) == pytest.approx(0.209930704, abs=1e-6)


def independent_alpha(rows, metric):
    """Krippendorff's alpha from the coincidence matrix, written from his 2011 paper."""
    values = sorted({v for row in rows for v in row if v is not None})
    index = {v: i for i, v in enumerate(values)}
    q = len(values)
    o = np.zeros((q, q))
    for unit in zip(*rows):
        present = [v for v in unit if v is not None]
        m = len(present)
        if m < 2:
            continue
        for i, c in enumerate(present):
            for j, k in enumerate(present):
                if i != j:
                    o[index[c], index[k]] += 1 / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()

    def delta(c, k):
        if metric == "nominal":
            return float(c != k)
        if metric == "interval":
            return (values[c] - values[k]) ** 2
        low, high = min(c, k), max(c, k)
        return (sum(n_c[low : high + 1]) - (n_c[low] + n_c[high]) / 2) ** 2

    observed = sum(o[c, k] * delta(c, k) for c in range(q) for k in range(q))
    expected = sum(n_c[c] * n_c[k] * delta(c, k) for c in range(q) for k in range(q)) / (n - 1)
    return 1 - observed / expected


@pytest.mark.parametrize("level, published", [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorff_2011_example(level, published):
    units_by_coder = KRIPPENDORFF_2011
    matrix = matrix_from_rows(list(zip(*units_by_coder)))
    ours = krippendorff_alpha(matrix.category_counts(), level, matrix.category_values)
    assert ours == pytest.approx(published, abs=5e-4)
    assert ours == pytest.approx(independent_alpha(units_by_coder, level), abs=1e-9)


def test_string_labels_give_no_ordinal_or_interval_alpha():
    summary = summarize_agreement(wikipedia_cohen(), bootstrap=0)
    assert summary.statistics["krippendorff_alpha_ordinal"] is None
    assert summary.statistics["krippendorff_alpha_interval"] is None


@pytest.mark.parametrize("weighting", ["none", "linear", "quadratic"])
def test_weighted_kappa_matches_sklearn(weighting):
    sklearn = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(7)
    a = rng.integers(0, 5, size=200)
    b = np.where(rng.random(200) < 0.6, a, rng.integers(0, 5, size=200))
    expected = sklearn.cohen_kappa_score(a, b, labels=list(range(5)), weights=None if weighting == "none" else weighting)
    assert cohen_kappa(a, b, 5, weighting) == pytest.approx(expected, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=40), st.sampled_from(["none", "linear", "quadratic"]))
def test_weighted_kappa_property_vs_sklearn(pairs, weighting):
    sklearn = pytest.importorskip("sklearn.metrics")
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    ours = cohen_kappa(a, b, 4, weighting)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = sklearn.cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights=None if weighting == "none" else weighting)
    if ours is None:  # 0/0: both annotators always used one same label
        assert not math.isfinite(theirs)
    else:
        assert ours == pytest.approx(theirs, abs=1e-9)


def test_fixed_chance_kappa_seed004():
    # P(E) = 1/3: P(A) = 0.7707 gives 0.6560 (seed 004 reports adequacy kappa 0.6560).
    assert fixed_chance_kappa(0.7706666666666667, 3) == pytest.approx(0.656, abs=1e-9)
    assert fixed_chance_kappa(0.5, 1) is None


def test_fleiss_none_when_unequal_judgments():
    rows = [["a", "a"], ["a", "b"], ["b", None]]
    matrix = matrix_from_rows([[v for v in row] for row in rows])
    assert fleiss_kappa(matrix.category_counts()) is None


@pytest.mark.parametrize("kappa, label", [(-0.1, "poor"), (0.0, "slight"), (0.2, "slight"), (0.21, "fair"), (0.59, "moderate"), (0.64, "substantial"), (0.84, "almost perfect"), (None, "undefined")])
def test_landis_koch(kappa, label):
    assert landis_koch_label(kappa) == label


def test_bootstrap_is_seeded_and_brackets_the_estimate():
    matrix = matrix_from_rows(FLEISS_1971)
    first = summarize_agreement(matrix, bootstrap=200, seed=3)
    second = summarize_agreement(matrix, bootstrap=200, seed=3)
    assert first.ci95 == second.ci95
    low, high = first.ci95["fleiss_kappa"]
    assert low < first.statistics["fleiss_kappa"] < high
    assert first.ci95["cohen_kappa"] is None


@given(st.integers(1, 40), st.integers(1, 6), st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_the_bootstrap_takes_exactly_its_replicates_and_leaves_undefined_values_out(replicates, n_units, seed):
    """Each of ``replicates`` resamples is ``n_units`` units drawn with replacement; an interval is the 2.5 and
    97.5 percentiles of the values defined on them, None when none is."""
    samples = []

    def statistic(sample):
        samples.append(sample.copy())
        mean = float(sample.mean())
        return {"mean": mean, "never": None, "odd": mean if len(samples) % 2 else math.nan}

    intervals = bootstrap_intervals(statistic, n_units, replicates, seed, ["mean", "never", "odd"])
    assert len(samples) == replicates
    assert all(len(sample) == n_units and 0 <= sample.min() and sample.max() < n_units for sample in samples)
    means = [float(sample.mean()) for sample in samples]
    assert intervals["mean"] == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])))
    assert intervals["odd"] == pytest.approx(tuple(np.percentile(means[::2], [2.5, 97.5])))
    assert intervals["never"] is None


def write_long_csv(path, rows, criterion="f"):
    lines = ["item,annotator,criterion,value"]
    for unit, row in enumerate(rows):
        for annotator, label in enumerate(row):
            if label is not None:
                lines.append(f"u{unit},r{annotator},{criterion},{label}")
    path.write_text("\n".join(lines) + "\n")


def test_cli_agreement_contract_two_annotators(tmp_path, capsys):
    path = tmp_path / "j.csv"
    rows = [("yes", "yes")] * 20 + [("yes", "no")] * 5 + [("no", "yes")] * 10 + [("no", "no")] * 15 + [("yes", None)]
    write_long_csv(path, rows)
    assert main(["agreement", str(path), "--criterion", "f", "--json", "--bootstrap", "50"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"n_items", "n_annotators", "observed", "cohen_kappa", "fixed_chance_kappa", "fleiss_kappa", "krippendorff_alpha", "ci95", "signature"}
    assert "|bootstrap:50|seed:0|" in out["signature"] and "|criterion:f|q:2|q-from:observed|" in out["signature"]
    assert out["n_items"] == 51 and out["n_annotators"] == 2
    assert out["cohen_kappa"] == pytest.approx(0.4, abs=1e-9)  # item judged by one annotator is left out
    assert out["observed"] == pytest.approx(0.7)
    assert out["fixed_chance_kappa"] == pytest.approx(0.4)
    assert out["fleiss_kappa"] is None  # one item has a single judgment
    assert out["krippendorff_alpha"]["ordinal"] is None and out["krippendorff_alpha"]["interval"] is None
    assert len(out["ci95"]["cohen_kappa"]) == 2


def test_cli_agreement_fleiss_and_categories(tmp_path, capsys):
    path = tmp_path / "j.csv"
    write_long_csv(path, FLEISS_1971)
    assert main(["agreement", str(path), "--criterion", "f", "--json", "--bootstrap", "0", "--categories", "10"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cohen_kappa"] is None
    assert out["fleiss_kappa"] == pytest.approx(0.4302445, abs=1e-6)
    p_a = out["observed"]
    assert out["fixed_chance_kappa"] == pytest.approx((p_a - 0.1) / 0.9, abs=1e-12)
    assert out["krippendorff_alpha"]["interval"] is not None


def test_cli_agreement_errors(tmp_path, capsys):
    path = tmp_path / "j.csv"
    path.write_text("item,annotator,criterion,value\n1,A,f,yes\n1,A,f,no\n")
    assert main(["agreement", str(path), "--criterion", "f", "--json"]) == 2
    assert f"{path}:3: expected one judgment" in capsys.readouterr().err
    path.write_text("item,annotator,criterion,value\n1,A,f,yes\n")
    assert main(["agreement", str(path), "--criterion", "g", "--json"]) == 1
    assert "criterion 'g'" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-2", "ye\x07s"])
def test_labels_that_are_not_labels_are_refused_with_their_line(tmp_path, capsys, value):
    path = tmp_path / "j.csv"
    path.write_text(f"item,annotator,criterion,value\n1,A,f,yes\n1,B,f,{value}\n", encoding="utf-8")
    assert main(["agreement", str(path), "--criterion", "f", "--json"]) == 2
    assert f"{path}:3: expected a label" in capsys.readouterr().err
    assert main(["report", str(path)]) == 2
