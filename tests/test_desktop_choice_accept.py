"""The choice task's preview-then-Accept on the real screen (seed 001 Fig. 4.4), and the auto-skip told."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
pytest.importorskip("pytestqt")
from desktop_study_fixtures import make_choice_study  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.desktop.annotation_screen import AnnotationScreen  # noqa: E402
from parastudio.desktop.judgment_writer import JudgmentWriter  # noqa: E402


@pytest.fixture
def choice_screen(qtbot, tmp_path):
    path = tmp_path / "choice.sqlite"
    study_id = make_choice_study(path)
    db = open_database(path, create=True)
    writer = JudgmentWriter(db)
    screen = AnnotationScreen(db, writer)
    qtbot.addWidget(screen)
    screen.show()
    with qtbot.waitSignal(screen.open_done, timeout=120_000):
        screen.open(study_id, "ann", "choice")
    screen.setFocus()  # as the main window gives it; offscreen, the custom field may take it on show
    yield db, study_id, screen
    screen.close_session()
    screen.progress.stop()
    writer.close()
    db.close()


def test_a_digit_previews_the_option_in_the_sentence_and_enter_accepts_it(qtbot, choice_screen):
    db, study_id, screen = choice_screen
    first = screen.item
    qtbot.keyClick(screen, Qt.Key_2)
    assert screen.item.assignment_id == first.assignment_id  # nothing recorded yet
    shown = screen.choice_sentence_label.text()
    assert first.options[1].split()[-1] in shown and screen.option_buttons[1].isChecked()
    qtbot.keyClick(screen, Qt.Key_1)  # another pick replaces the preview
    assert screen.option_buttons[0].isChecked() and not screen.option_buttons[1].isChecked()
    screen.writer.drain()
    assert list(ops.iter_judgments(db, study_id)) == []
    qtbot.keyClick(screen, Qt.Key_Return)
    assert screen.item is None or screen.item.assignment_id != first.assignment_id
    screen.writer.drain()
    (row,) = list(ops.iter_judgments(db, study_id))
    assert (row["value"], row["text"]) == ("option:1", first.options[0])


def test_enter_without_a_pick_records_nothing_and_the_original_needs_enter_too(qtbot, choice_screen):
    db, study_id, screen = choice_screen
    first = screen.item
    qtbot.keyClick(screen, Qt.Key_Return)
    qtbot.keyClick(screen, Qt.Key_O)
    assert screen.item.assignment_id == first.assignment_id and screen.original_button.isChecked()
    qtbot.keyClick(screen, Qt.Key_A)  # A is the preference's "left is better": nothing on a choice task
    assert screen.item.assignment_id == first.assignment_id
    qtbot.keyClick(screen, Qt.Key_Enter)
    screen.writer.drain()
    (row,) = list(ops.iter_judgments(db, study_id))
    assert row["value"] == "original"
