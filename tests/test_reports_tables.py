"""Report tables reproduce the seeds' layouts and numbers on small studies."""

from __future__ import annotations

import csv
import io
import json

import pytest

from parastudio.core.cli import main
from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.report_render import format_cell, render_plots
from parastudio.core.stats.report_tables import build_report


def study() -> JudgmentRecords:
    rows = []
    # Seed 003 style: two judges, yes/no criteria, two systems, 4 items each.
    well = {"moses": [("yes", "yes"), ("yes", "no"), ("no", "no"), ("yes", "yes")], "mcpg": [("yes", "yes")] * 3 + [("no", "yes")]}
    meaning = {"moses": [("yes", "yes"), ("no", "no"), ("no", "no"), ("yes", "no")], "mcpg": [("yes", "yes"), ("yes", "yes"), ("no", "no"), ("no", "no")]}
    for system in ("moses", "mcpg"):
        for i in range(4):
            for judge in (0, 1):
                rows.append((f"i{i}", f"J{judge}", "well_formed", well[system][i][judge], system))
                rows.append((f"i{i}", f"J{judge}", "meaning", meaning[system][i][judge], system))
    return JudgmentRecords.from_columns(*zip(*rows))


def table(report, key):
    return next(t for t in report.tables if t.key == key)


def test_seed003_table_both_and_at_least_one():
    report = build_report(study())
    t = table(report, "seed003_table1")
    moses = next(row for row in t.rows if row[0] == "moses")
    names = [c.name for c in t.columns]
    assert moses[names.index("well_formed: % both yes")] == pytest.approx(0.5)
    assert moses[names.index("well_formed: % ≥1 yes")] == pytest.approx(0.75)
    # moses meaning: agreement 3/4, marginals J0 2 yes, J1 1 yes -> p_e = 0.5 -> kappa 0.5
    assert moses[names.index("meaning: κ")] == pytest.approx(0.5)
    # conjunction: J0 yes,no,no,yes ; J1 yes,no,no,no -> both 1/4, any 2/4
    assert moses[names.index("all criteria: % both yes")] == pytest.approx(0.25)
    assert moses[names.index("all criteria: % ≥1 yes")] == pytest.approx(0.5)
    assert "kappa:cohen" in t.signature and "version:" in t.signature


def test_seed001_unified_score_and_sign_tests():
    rows = []
    # 3 approaches, 4 annotators, 6 items; success when >= 2 of 4 say yes.
    votes = {"1": [0, 1, 1, 0, 0, 0], "7": [2, 2, 1, 3, 0, 2], "10": [4, 3, 4, 2, 4, 3]}
    for system, per_item in votes.items():
        for i, count in enumerate(per_item):
            for a, annotator in enumerate("ABCD"):
                rows.append((f"t{i}", annotator, "success", "yes" if a < count else "no", system))
    report = build_report(JudgmentRecords.from_columns(*zip(*rows)))
    fig = table(report, "seed001_fig4_5:success")
    by_system = {row[0]: row for row in fig.rows}
    assert by_system["10"][1:5] == [6, 6, 5, 3]  # per annotator successes
    assert by_system["1"][5] == 0 and by_system["7"][5] == 4 and by_system["10"][5] == 6
    tests = table(report, "seed001_sign_tests:success")
    one_vs_ten = next(row for row in tests.rows if row[:2] == ["1", "10"])
    assert one_vs_ten[3:6] == [0, 6, 0]
    assert one_vs_ten[6] == pytest.approx(2 / 2**6)


@pytest.mark.parametrize("tasks", [{"1": 6, "10": 6}, {"1": 4, "10": 6}])
def test_seed001_says_when_the_approaches_stand_on_different_numbers_of_items(tasks):
    """An approach that made no suggestion for a case has no task there: the note names each one's items."""
    rows = [(f"t{i}", annotator, "success", "yes" if i % 2 else "no", system)
            for system, count in tasks.items() for i in range(count) for annotator in "AB"]
    fig = table(build_report(JudgmentRecords.from_columns(*zip(*rows))), "seed001_fig4_5:success")
    assert {row[0]: row[-1] for row in fig.rows} == tasks
    unequal = len(set(tasks.values())) > 1
    assert ("different numbers of items (1: 4, 10: 6)" in fig.note) is unequal
    assert ("different numbers of items" in fig.note) is unequal


def test_seed004_shares_and_fixed_chance_kappa():
    rows = []
    labels = [("3", "3"), ("2", "3"), ("1", "1"), ("2", "2")]
    for i, (a, b) in enumerate(labels):
        rows.append((f"s{i}", "r1", "adequacy", a, "spg", "compression"))
        rows.append((f"s{i}", "r2", "adequacy", b, "spg", "compression"))
    report = build_report(JudgmentRecords.from_columns(*zip(*rows)))
    t = table(report, "seed004_table1")
    row = t.rows[0]
    assert row[0] == "compression / spg"
    assert row[1:4] == pytest.approx([2 / 8, 3 / 8, 3 / 8])
    assert row[4] == pytest.approx((0.75 - 1 / 3) / (2 / 3))
    assert "pe:1/q" in t.signature


def test_pair_tables_confusion_and_drift():
    report = build_report(study(), block_size=3)
    confusion = table(report, "confusion:meaning:J0:J1")
    assert sum(sum(row[1:]) for row in confusion.rows) == 8
    drift = table(report, "drift:meaning:J0:J1")
    assert [row[2] for row in drift.rows] == [3, 3, 2]


@pytest.mark.parametrize("fmt", ["md", "html", "csv", "json"])
def test_cli_report_formats_carry_the_numbers_of_the_tables(tmp_path, fmt):
    path = tmp_path / "judgments.csv"
    records = study()
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "annotator", "criterion", "value", "system"])
        writer.writerows(zip(records.items, records.annotators, records.criteria, records.values, records.systems))
    out = tmp_path / f"report.{fmt}"
    assert main(["report", str(path), "--format", fmt, "-o", str(out)]) == 0
    text = out.read_text()
    expected = table(build_report(records), "seed003_table1")
    if fmt == "json":
        got = next(t for t in json.loads(text)["tables"] if t["key"] == "seed003_table1")
        assert got["rows"] == [[pytest.approx(v) if isinstance(v, float) else v for v in row] for row in expected.rows]
        assert got["signature"] == expected.signature
    elif fmt == "csv":
        cells = {(row["row"], row["column"]): row["value"] for row in csv.DictReader(io.StringIO(text))
                 if row["table"] == "seed003_table1"}
        for row in expected.rows:
            for column, value in zip(expected.columns[1:], row[1:]):
                got = cells[(row[0], column.name)]
                assert (got == "" and value is None) or float(got) == pytest.approx(value)
    else:
        # Markdown and HTML show each number as format_cell writes it, row by row.
        for row in expected.rows:
            shown = [format_cell(value, column.kind) for value, column in zip(row, expected.columns)]
            if fmt == "md":
                assert "| " + " | ".join(shown) + " |" in text
            else:
                assert "".join(f"<td>{cell}</td>" for cell in shown) in text.replace("<td class=n>", "<td>")


def test_plots_png_and_svg(tmp_path):
    report = build_report(study())
    written = render_plots(report, tmp_path)
    assert any(p.suffix == ".png" for p in written) and any(p.suffix == ".svg" for p in written)
    assert (tmp_path / "seed003_table1.png").read_bytes()[:4] == b"\x89PNG"


def test_the_agreement_table_has_every_statistic_the_agreement_command_prints(tmp_path, capsys):
    records = study()
    path = tmp_path / "judgments.csv"
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "annotator", "criterion", "value", "system"])
        writer.writerows(zip(records.items, records.annotators, records.criteria, records.values, records.systems))
    report = build_report(records, bootstrap=200)
    t = table(report, "agreement")
    names = [c.name for c in t.columns]
    for row in t.rows:
        capsys.readouterr()
        assert main(["agreement", str(path), "--criterion", row[0], "--bootstrap", "200", "--json"]) == 0
        expected = json.loads(capsys.readouterr().out)
        assert row[names.index("items")] == expected["n_items"]
        for column, value in (("Cohen κ", expected["cohen_kappa"]), ("Fleiss κ", expected["fleiss_kappa"]),
                              ("fixed-chance κ", expected["fixed_chance_kappa"]),
                              ("α nominal", expected["krippendorff_alpha"]["nominal"]),
                              ("Cohen κ 95% low", (expected["ci95"]["cohen_kappa"] or [None])[0])):
            assert row[names.index(column)] == pytest.approx(value)
    assert "bootstrap:200" in t.signature
