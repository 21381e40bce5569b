"""Error span annotation by keys on the app's annotation screen (issue 30), real SQLite study, offscreen."""

import json

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from sqlalchemy import select  # noqa: E402

from core.store.models import Assignment, Judgment  # noqa: E402
from desktop_study_fixtures import judging_screen  # noqa: E402

SHIFT, NONE = Qt.ShiftModifier, Qt.NoModifier


@pytest.fixture
def esa_screen(qtbot, tmp_path):
    with judging_screen(qtbot, tmp_path / "esa.sqlite", "esa") as screen_and_db:
        yield screen_and_db


def press(qtbot, screen, keys):
    for key, modifier in keys:
        qtbot.keyClick(screen, key, modifier)


def live(db, assignment_id):
    with db.reading() as session:
        return session.execute(select(Judgment.value, Judgment.text)
                               .join(Assignment, Assignment.live_judgment_id == Judgment.id)
                               .where(Assignment.id == assignment_id)).one()


def test_marks_then_score_by_keys_are_stored_together(qtbot, esa_screen):
    screen, db = esa_screen
    item = screen.item
    assert screen.pages.currentWidget() is screen.esa_view
    # words 1-2 minor, word 4 major, then a mark removed and put back; Enter to score, 6 + → = 61, Enter.
    press(qtbot, screen, [(Qt.Key_Right, NONE), (Qt.Key_Right, SHIFT), (Qt.Key_M, NONE),
                          (Qt.Key_Right, NONE), (Qt.Key_Right, NONE), (Qt.Key_J, NONE),
                          (Qt.Key_Backspace, NONE), (Qt.Key_J, NONE)])
    assert screen.item.assignment_id == item.assignment_id
    qtbot.keyClick(screen, Qt.Key_Return)  # to the score: nothing recorded yet
    assert screen.esa_view.scoring and screen.item.assignment_id == item.assignment_id
    qtbot.keyClick(screen, Qt.Key_Return)  # no score yet: nothing happens
    assert screen.item.assignment_id == item.assignment_id
    press(qtbot, screen, [(Qt.Key_6, NONE), (Qt.Key_Right, NONE), (Qt.Key_Return, NONE)])
    assert screen.item is None or screen.item.assignment_id != item.assignment_id
    screen.writer.drain()
    value, text = live(db, item.assignment_id)
    assert value == "61"
    assert json.loads(text) == [{"start": 1, "end": 3, "severity": "minor"}, {"start": 4, "end": 5, "severity": "major"}]


def test_going_back_shows_the_marks_and_escape_returns_to_marking(qtbot, esa_screen):
    screen, db = esa_screen
    first = screen.item
    press(qtbot, screen, [(Qt.Key_J, NONE), (Qt.Key_Return, NONE), (Qt.Key_3, NONE), (Qt.Key_Return, NONE)])
    qtbot.keyClick(screen, Qt.Key_Up)
    assert screen.item.assignment_id == first.assignment_id
    assert screen.esa_view.marking.spans == [{"start": 0, "end": 1, "severity": "major"}]
    press(qtbot, screen, [(Qt.Key_Return, NONE), (Qt.Key_Escape, NONE)])
    assert not screen.esa_view.scoring
    press(qtbot, screen, [(Qt.Key_Backspace, NONE), (Qt.Key_Return, NONE), (Qt.Key_Return, NONE)])
    screen.writer.drain()
    assert live(db, first.assignment_id) == ("30", "[]")
