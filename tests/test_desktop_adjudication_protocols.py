"""The adjudication dialog and the Inspect screen on every protocol (issue 39), real SQLite studies, offscreen:
each item the dialog offers is decided by a key, the criteria never adjudicated are named with their reason, and an
adjudicated candidate reads "adjudicated" in Inspect with the decision and its adjudicator."""

from __future__ import annotations

import html
import re

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from adjudication_fixtures import disagreeing_study  # noqa: E402

from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")


@pytest.fixture
def adjudication(qtbot):
    """Opens the dialog as carol on a study file; yields the dialog with its items read."""
    from parastudio.desktop.adjudication_screen import AdjudicationDialog

    opened = []

    def open_dialog(path, study):
        db = open_database(path)
        dialog = AdjudicationDialog(db, study, "s", "carol")
        qtbot.addWidget(dialog)
        dialog.show()
        with qtbot.waitSignal(dialog.worker.signals.finished, timeout=120_000):
            pass
        opened.append((dialog, db))
        return dialog

    yield open_dialog
    for dialog, db in opened:
        dialog.close()
        db.close()


def plain(rich: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", rich)).lower()


def stored_decisions(path, study) -> dict:
    with open_database(path) as db:
        return {d.key: d.decision for d in ops.disagreements(db, study) if d.decision is not None}


def test_a_preference_pair_is_shown_left_and_right_and_decided_by_a_e_b(qtbot, tmp_path, adjudication):
    """Before: "could not read: KeyError: None", and no key would have decided a pair."""
    path = tmp_path / "prefs.sqlite"
    study = disagreeing_study(path, ["preference"])
    dialog = adjudication(path, study)
    assert "could not read" not in dialog.header.text() and len(dialog.items) > 1
    pressed = {}
    for key, value in zip("aeb" * len(dialog.items), ("left", "tie", "right") * len(dialog.items)):
        item = dialog.items[dialog.index]
        if item.key in pressed:
            break
        shown = plain(dialog.sentences.text())  # as the judges read them: truecased, changed words marked
        assert shown.index("left" + item.candidate) < shown.index("right" + item.right)
        qtbot.keyClick(dialog, key)
        pressed[item.key] = value
    assert len(pressed) == len(dialog.items) and stored_decisions(path, study) == pressed


@pytest.mark.parametrize("scores", [["da"], ["esa"], ["da", "esa"]])
def test_a_study_of_scores_offers_nothing_and_says_why_in_one_line_each(qtbot, tmp_path, adjudication, scores):
    """Before: every item whose two scores differed was offered, and no key recorded a decision."""
    path = tmp_path / "scores.sqlite"
    study = disagreeing_study(path, scores, adjudicator=None)
    with open_database(path) as db:
        # The researcher's list is refused for such a study; a name kept from before still opens the dialog.
        ops.update_study_settings(db, study, adjudicators=["carol"])
    dialog = adjudication(path, study)
    assert dialog.items == [] and dialog.model.rowCount() == 0
    assert "No disagreement to adjudicate" in dialog.header.text()
    assert "agree on every item" not in dialog.header.text()  # they do not: their scores are not adjudicated
    lines = dialog.note.text().split("<br>")
    assert dialog.note.isVisible() and len(lines) == len(scores)
    for name, line in zip(scores, lines):
        assert line.startswith(f"<b>{name}</b> is not adjudicated: ") and "averaged" in line


def test_every_item_offered_beside_a_score_is_decided_by_its_own_keys(qtbot, tmp_path, adjudication):
    """Yes/no, 3-point and 5-point items beside a DA criterion: each offered item takes each of its keys, the last
    pressed is what is stored; the DA criterion is named, never offered."""
    from parastudio.desktop.adjudication_screen import decision_keys

    path = tmp_path / "mixed.sqlite"
    study = disagreeing_study(path, ["meaning", "adequacy", "quality5", "da"])
    dialog = adjudication(path, study)
    assert {item.scale for item in dialog.items} == {"binary", "3-point", "5-point"}
    assert "<b>da</b> is not adjudicated" in dialog.note.text()
    expected = {}
    for index in range(len(dialog.items)):
        dialog.show_item(index)
        item = dialog.items[index]
        decisions = decision_keys(item)
        assert decisions and all(keys for keys, _, _ in decisions)
        keys, value, _ = decisions[index % len(decisions)]
        qtbot.keyClick(dialog, keys[0].lower())
        expected[item.key] = value
    assert stored_decisions(path, study) == expected


def test_a_choice_task_is_decided_by_the_original_key_or_an_options_digit(qtbot, tmp_path, adjudication):
    path = tmp_path / "choice.sqlite"
    study = disagreeing_study(path, ["choice"])
    dialog = adjudication(path, study)
    first, second = dialog.items
    labels = [dialog.buttons_row.itemAt(i).widget().text() for i in range(dialog.buttons_row.count())]
    assert labels[0].startswith("Keep the original") and labels[1:] == [
        "was the first state  [1]", "became the first country  [2]", "was first  [3]"]
    assert "option:1 · was the first state" in dialog.labels.text()  # what ann chose, readable
    qtbot.keyClick(dialog, "2")
    assert dialog.items[dialog.index] is not first and dialog.items[0].decision == "option:2"
    qtbot.keyClick(dialog, "o")
    assert stored_decisions(path, study) == {first.key: "option:2", second.key: "original"}


def test_inspect_shows_an_adjudicated_candidate_with_its_decision_and_adjudicator(qtbot, tmp_path):
    """Before: the adjudicated candidate still read "disagreed" and its decision was listed nowhere."""
    from PySide6.QtCore import Qt

    from parastudio.desktop.inspect_screen import COLUMNS, InspectScreen

    path = tmp_path / "meaning.sqlite"
    study = disagreeing_study(path, ["meaning"])
    db = open_database(path)
    try:
        entry = next(d for d in ops.disagreements_for(db, study, "carol") if d.item == "1")
        ops.record_adjudication(db, study, "carol", entry.key, "no")
        inspect = InspectScreen(db)
        qtbot.addWidget(inspect)
        inspect.set_study(study, "s")
        inspect.show()
        inspect.refresh()
        qtbot.waitUntil(lambda: inspect.loaded, timeout=120_000)
        inspect.verdict_combo.setCurrentText("adjudicated")
        assert [row.item for row in inspect.model.rows] == ["1"]
        model = inspect.model
        shown = {COLUMNS[c]: model.data(model.index(0, c)) for c in range(len(COLUMNS))}
        assert shown["verdict"] == "adjudicated" and shown["adjudication"] == "meaning=no by carol"
        assert "settles to rejected" in model.data(model.index(0, 0), Qt.ToolTipRole)
        assert "1 rejected · 1 adjudicated" in inspect.status.text()
        inspect.show_details(0)
        qtbot.waitUntil(lambda: "Adjudicated" in inspect.details.toPlainText(), timeout=120_000)
        assert "meaning: no, decided by carol" in inspect.details.toPlainText()
        inspect.verdict_combo.setCurrentText("disagreed")
        assert "1" not in [row.item for row in inspect.model.rows]
    finally:
        db.close()
