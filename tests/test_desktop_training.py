"""Training items on the judging screen (issue 44, item 7), by keys on the real main window over a study the
command line made (`study create`, `import-candidates`, `guidelines` with [[training]], `assign --training 2`):
the training items come first, and after each the status line says whether the judge agreed and why; after a
real item it says nothing of the kind; the researcher's `study progress` shows who passed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from cli_judging_studies import cli, write_candidates  # noqa: E402
from desktop_study_fixtures import candidate_rows, open_window  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from parastudio.core.cli import main  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")

GUIDELINES = '''introduction = "Say whether each sentence is good English."

[[training]]
criterion = "fluency"
candidate = "The man went to the market for buy bread."
answer = "no"
reason = "'for buy' is not English"

[[training]]
criterion = "fluency"
candidate = "The king gave his sons the land."
answer = "yes"
reason = "plain, correct English"
'''


def _study(folder, criteria: str, guidelines_text: str, annotators: str):
    """A study made from the command line with guidelines holding training items, two given to each judge."""
    database = folder / "study.sqlite"
    candidates = write_candidates(folder / "candidates.csv", [r for r in candidate_rows() if r.rank == 0])
    guidelines = folder / "guidelines.toml"
    guidelines.write_text(guidelines_text, encoding="utf-8")
    cli("study", "create", "trained", "--db", database, "--criteria", criteria, "--seed", 2)
    cli("study", "import-candidates", "--db", database, candidates)
    cli("study", "guidelines", "--db", database, guidelines)
    cli("study", "assign", "--db", database, "--annotators", annotators, "--training", "2")
    return database


@pytest.fixture
def study(tmp_path):
    return _study(tmp_path, "fluency", GUIDELINES, "ann,bob")


def test_the_judge_is_told_after_each_training_item_whether_they_agreed_and_why(qtbot, study, capsys):
    window = open_window(qtbot, study, "ann")
    screen = window.annotate.screen
    qtbot.waitUntil(lambda: screen.item is not None, timeout=120_000)
    assert screen.item.candidate == "The man went to the market for buy bread."  # training first
    assert "training item (a known answer, not counted)" in screen.header_label.text()
    qtbot.keyClick(screen, Qt.Key_Y)  # disagrees with the known "no"
    status = screen.status.text()
    assert "Training item: the expected answer was No</b>" in status and "you answered Yes" in status
    assert "for buy&#x27; is not English" in status
    assert screen.item.candidate == "The king gave his sons the land."
    qtbot.keyClick(screen, Qt.Key_Y)  # agrees
    status = screen.status.text()
    assert "Training item: you agreed" in status and "plain, correct English" in status
    assert "expected" not in status
    assert "· item 3 ·" in screen.header_label.text()
    qtbot.keyClick(screen, Qt.Key_N)  # a real item: no word on training
    assert "Training item" not in screen.status.text()
    window.close()
    capsys.readouterr()
    assert main(["study", "progress", "--db", str(study), "--json"]) == 0
    progress = json.loads(capsys.readouterr().out)
    assert progress["training"]["ann"] == {"agreed": 1, "answered": 2, "given": 2, "passed": False}
    assert progress["per_annotator"]["ann"]["done"] == 1  # the real item only


def test_the_studies_screen_shows_each_judges_training_agreed_of_given(qtbot, study):
    window = open_window(qtbot, study, "ann")
    screen = window.annotate.screen
    qtbot.waitUntil(lambda: screen.item is not None, timeout=120_000)
    for pressed in (Qt.Key_N, Qt.Key_Y):  # both as known
        qtbot.keyClick(screen, pressed)
    screen.writer.drain()
    studies = window.studies
    window.tabs.setCurrentWidget(studies)
    column = studies.judges.model.columnCount() - 1
    qtbot.waitUntil(lambda: studies.judges.model.rowCount() == 2
                    and studies.judges.model.row_at(0)[column] == "2 / 2, passed", timeout=120_000)
    judges = {studies.judges.model.row_at(row)[0]: studies.judges.model.row_at(row) for row in range(2)}
    assert judges["bob"][column] == "0 / 2, 0 answered"
    assert judges["ann"][1].startswith("0 / ")  # no real item judged yet: training is not progress
    window.close()


def test_a_score_and_a_pair_are_trained_by_keys_with_the_range_and_the_side_told(qtbot, tmp_path, capsys):
    # The guidelines of tests/test_training_other_protocols.py: a score, a pair, then a choice task (not given).
    guidelines = (Path(__file__).resolve().parent / "data" / "training_other_protocols.toml").read_text("utf-8")
    database = _study(tmp_path, "da,preference,choice", guidelines, "ann")
    window = open_window(qtbot, database, "ann")
    screen = window.annotate.screen
    qtbot.waitUntil(lambda: screen.item is not None, timeout=120_000)
    assert screen.item.candidate == "The king gave his sons the land."
    qtbot.keyClick(screen, Qt.Key_6)  # a score of 60: under the range that agrees
    qtbot.keyClick(screen, Qt.Key_Return)
    status = screen.status.text()
    assert "the expected answer was a score from 70 to 100</b>; you answered 60" in status
    assert screen.item.criterion == "preference"
    assert {screen.item.left, screen.item.right} == {"He went to the market to buy bread.",
                                                     "He go market for buy the bread."}
    left_is_better = screen.item.left == "He went to the market to buy bread."  # the order is drawn per pair
    qtbot.keyClick(screen, Qt.Key_A)  # left is better
    status = screen.status.text()
    if left_is_better:
        assert "Training item: you agreed" in status
    else:
        assert "the expected answer was right is better</b>" in status and "not English" in status
    window.close()
    capsys.readouterr()
    assert main(["study", "progress", "--db", str(database), "--json"]) == 0
    progress = json.loads(capsys.readouterr().out)
    assert progress["training"]["ann"]["answered"] == 2
    assert progress["training"]["ann"]["agreed"] == (1 if left_is_better else 0)
