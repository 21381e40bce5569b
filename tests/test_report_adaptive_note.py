"""A study judged through `study assign-next` with early stopping withholds the fixed-n sign tests' p-values in
`parastudio report` (issue 39): the note says why and points at the anytime-valid table, JSON cells are null,
CSV cells empty, and the signature says `p-values:withheld`. A fixed design (`study assign`, or assign-next with
`--stop never`) keeps them. Real SQLite studies, the real CLI entry point."""

from __future__ import annotations

import csv
import io
import json

import pytest

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database

SENTENCES = 24
WITHHELD = "Fixed-n p-values withheld"
FIXED_KEYS = ("sign_tests:meaning", "seed001_sign_tests:meaning")


def make_study(path) -> None:
    """Systems a and b; a is right and b wrong on every sentence, so the anytime-valid test decides early."""
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "s", criteria=["meaning"], application="simplification", seed=5)
        ops.import_candidates(db, study, [
            ops.CandidateRow(sentence_id=str(s), text=f"{system} says {s}", system=system, source=f"source {s}")
            for s in range(SENTENCES) for system in "ab"])


def judge_all(path) -> None:
    with open_database(path) as db:
        study = ops.find_study(db)
        for judge in ("j1", "j2"):
            annotator = ops.find_annotator(db, study, judge)
            while (item := ops.next_item(db, annotator)) is not None:
                ops.record_judgment(db, item.assignment_id, "no" if item.candidate.startswith("b ") else "yes")


def assign_next(path, rule: str, batches: int) -> None:
    for _ in range(batches):
        assert main(["study", "assign-next", "--db", str(path), "--annotators", "j1,j2", "--criterion", "meaning",
                     "--sentences", "3", "--stop", rule]) == 0
        judge_all(path)


def report(path, output_format: str, capsys):
    capsys.readouterr()
    assert main(["report", str(path), "--bootstrap", "0", "--format", output_format]) == 0
    return capsys.readouterr().out


def tables(path, capsys) -> dict[str, dict]:
    return {table["key"]: table for table in json.loads(report(path, "json", capsys))["tables"]}


def p_cells(path, capsys) -> dict[str, list[str]]:
    """The long-format CSV's p-value cells of each fixed-n sign-test table."""
    rows = csv.DictReader(io.StringIO(report(path, "csv", capsys)))
    cells: dict[str, list[str]] = {}
    for row in rows:
        if row["table"] in FIXED_KEYS and row["column"].startswith("p ("):
            cells.setdefault(row["table"], []).append(row["value"])
            assert ("p-values:withheld" in row["signature"]) == (row["value"] == "")
    return cells


def assert_withheld(path, capsys, rule: str) -> None:
    found = tables(path, capsys)
    anytime = found["anytime_sign_tests:meaning"]
    for key in FIXED_KEYS:
        table = found[key]
        assert WITHHELD in table["note"] and "anytime_sign_tests:meaning" in table["note"]
        assert f"stopping rule {rule}" in table["note"] and "stopped early" in table["title"]
        assert "p-values:withheld" in table["signature"]
        assert table["rows"] and all(row[6] is None and row[7] is None for row in table["rows"])
    # The counts stay, and are the anytime-valid table's.
    assert [row[3:6] for row in found["sign_tests:meaning"]["rows"]] == [row[3:6] for row in anytime["rows"]]
    assert all(row[6] is not None for row in anytime["rows"])
    assert set(p_cells(path, capsys)) == set(FIXED_KEYS)
    assert all(value == "" for values in p_cells(path, capsys).values() for value in values)
    assert WITHHELD in report(path, "md", capsys)


def assert_kept(path, capsys) -> None:
    found = tables(path, capsys)
    for key in FIXED_KEYS:
        table = found[key]
        assert WITHHELD not in table["note"] and "withheld" not in table["signature"] + table["title"]
        assert table["rows"] and all(0 < row[6] <= 1 and 0 < row[7] <= 1 for row in table["rows"])
    assert all(value != "" for values in p_cells(path, capsys).values() for value in values)
    assert WITHHELD not in report(path, "md", capsys)


@pytest.mark.parametrize("rule", ["decided", "decided+1"])
def test_early_stopping_withholds_the_fixed_n_p_values(tmp_path, capsys, rule):
    path = tmp_path / "adaptive.sqlite"
    make_study(path)
    assign_next(path, rule, 4)
    assert_withheld(path, capsys, rule)


def test_a_fixed_design_keeps_them(tmp_path, capsys):
    path = tmp_path / "fixed.sqlite"
    make_study(path)
    assert main(["study", "assign", "--db", str(path), "--annotators", "j1,j2"]) == 0
    judge_all(path)
    assert_kept(path, capsys)


def test_batches_that_never_stop_keep_them(tmp_path, capsys):
    path = tmp_path / "never.sqlite"
    make_study(path)
    assign_next(path, "never", 4)
    assert_kept(path, capsys)


def test_a_study_that_stopped_early_once_still_says_so_after_a_batch_that_never_stops(tmp_path, capsys):
    """The settings keep the last rule only; the event log keeps the earlier one."""
    path = tmp_path / "both.sqlite"
    make_study(path)
    assign_next(path, "decided", 4)
    assign_next(path, "never", 1)
    with open_database(path) as db:
        assert ops.study_settings(db, ops.find_study(db))["sampling"]["rule"] == "never"
    assert_withheld(path, capsys, "decided")


def test_the_dashboard_withholds_them_too(tmp_path):
    """The app's Dashboard builds the same report: no fixed-n p-value on a study that stopped early."""
    pytest.importorskip("PySide6")
    from parastudio.desktop.dashboard_screen import compute_report

    path = tmp_path / "adaptive.sqlite"
    make_study(path)
    assign_next(path, "decided", 4)
    with open_database(path, writing=False) as db:
        built, _count = compute_report(db, ops.find_study(db), "s")
    table = next(t for t in built.tables if t.key == "sign_tests:meaning")
    assert WITHHELD in table.note and table.rows and all(row[6] is None for row in table.rows)
