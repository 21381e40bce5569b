"""Error span annotation by keys on the app's annotation screen (issue 30), real SQLite study, offscreen."""

import json

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import judging_screen  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from sqlalchemy import select  # noqa: E402

from parastudio.core.store.models import Assignment, Judgment  # noqa: E402

SHIFT, NONE = Qt.ShiftModifier, Qt.NoModifier
# The words are walked with Ctrl+arrows (with Shift: extended), as text editors do: the plain arrows move between
# items on every protocol (issue 44).
WORD, EXTEND = Qt.ControlModifier, Qt.ControlModifier | Qt.ShiftModifier


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
    # words 1-2 minor, word 4 major, then a mark removed and put back; Enter to score, 6 and + = 61, Enter.
    press(qtbot, screen, [(Qt.Key_Right, WORD), (Qt.Key_Right, EXTEND), (Qt.Key_M, NONE),
                          (Qt.Key_Right, WORD), (Qt.Key_Right, WORD), (Qt.Key_J, NONE),
                          (Qt.Key_Backspace, NONE), (Qt.Key_J, NONE)])
    assert screen.item.assignment_id == item.assignment_id
    qtbot.keyClick(screen, Qt.Key_Return)  # to the score: nothing recorded yet
    assert screen.esa_view.scoring and screen.item.assignment_id == item.assignment_id
    qtbot.keyClick(screen, Qt.Key_Return)  # no score yet: nothing happens
    assert screen.item.assignment_id == item.assignment_id
    press(qtbot, screen, [(Qt.Key_6, NONE), (Qt.Key_Plus, NONE), (Qt.Key_Return, NONE)])
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


def test_the_judge_marks_readable_words_and_the_marks_reach_the_rewrites(qtbot, tmp_path):
    """The study shows "I don't know, he stated." (5 words over 8 tokens): a mark on "don't" and one on
    "stated." are stored over those words, and reach the rewrites do not -> don 't and said -> stated."""
    from parastudio.core.store import operations as ops
    from parastudio.core.tuning.comparison_devset import da_records

    derivation = [{"src": [0, 1], "tgt": [0, 1], "source": "i", "target": "i", "identity": True},
                  {"src": [1, 3], "tgt": [1, 3], "source": "do not", "target": "don 't", "identity": False},
                  {"src": [3, 6], "tgt": [3, 6], "source": "know , he", "target": "know , he", "identity": True},
                  {"src": [6, 7], "tgt": [6, 7], "source": "said", "target": "stated", "identity": False},
                  {"src": [7, 8], "tgt": [7, 8], "source": ".", "target": ".", "identity": True}]
    rows = [ops.CandidateRow(sentence_id="0", text="i don 't know , he stated .", system="beam",
                             source="i do not know , he said .", derivation=derivation)]
    with judging_screen(qtbot, tmp_path / "readable.sqlite", "esa", rows=rows, name="readable") as (screen, db):
        study_id, writer = screen.study_id, screen.writer
        assert screen.esa_view.words == ["I", "don't", "know,", "he", "stated."]
        assert "don&#x27;t" in screen.esa_view.candidate_label.text()  # html.escape of "don't"
        # "don't" major; then → past the end stops on the last word read, "stated." (not on a 9th token): minor.
        press(qtbot, screen, [(Qt.Key_Right, WORD), (Qt.Key_J, NONE)] + [(Qt.Key_Right, WORD)] * 9
              + [(Qt.Key_M, NONE), (Qt.Key_Return, NONE), (Qt.Key_5, NONE), (Qt.Key_Return, NONE)])
        writer.drain()
        (record,) = da_records(db, study_id)
        (score,) = record["scores"]
        assert score["spans"] == [{"start": 1, "end": 2, "severity": "major"},
                                  {"start": 4, "end": 5, "severity": "minor"}]
        assert score["units"] == ["major", "minor"]


def test_the_arrows_move_between_items_and_a_score_key_ends_the_marking(qtbot, esa_screen):
    screen, db = esa_screen
    first = screen.item
    press(qtbot, screen, [(Qt.Key_Right, WORD), (Qt.Key_M, NONE), (Qt.Key_PageUp, NONE)])
    assert screen.esa_view.scoring and screen.esa_view.score == 60  # a score key goes on to the score
    qtbot.keyClick(screen, Qt.Key_Return)
    second = screen.item
    assert second.assignment_id != first.assignment_id
    qtbot.keyClick(screen, Qt.Key_Right)  # → moves on, marking nothing
    assert screen.item.assignment_id not in (first.assignment_id, second.assignment_id)
    press(qtbot, screen, [(Qt.Key_Left, NONE), (Qt.Key_Left, NONE)])
    assert screen.item.assignment_id == first.assignment_id
    screen.writer.drain()
    assert live(db, first.assignment_id) == ("60", '[{"start": 1, "end": 2, "severity": "minor"}]')
    for written in ("<b>Ctrl+→</b> next word", "<b>M</b> mark minor", "<b>Esc</b> back to marking",
                    "<b>→ / ↓</b> next"):
        assert written in screen.keys_help.text()
