"""Direct assessment judged by keys on the app's annotation screen (issue 30), real SQLite study, offscreen."""

import html

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import judging_screen  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from sqlalchemy import select  # noqa: E402

from parastudio.core.judging.protocols.direct_assessment import da_score_after_key as moved  # noqa: E402
from parastudio.core.judging.view import shown_text  # noqa: E402
from parastudio.core.store.models import Assignment, Judgment  # noqa: E402

SHIFT = Qt.ShiftModifier
NONE = Qt.NoModifier
# Key presses for one item, and the score they must record (counted by hand from the key contract).
# The arrows move between items as on every protocol (issue 44); + typed with Shift (a US keyboard) is +.
SCRIPTS = [
    ([(Qt.Key_7, NONE), (Qt.Key_Plus, NONE), (Qt.Key_Plus, SHIFT)], 72),
    ([(Qt.Key_Plus, NONE)], 51),  # an untouched score starts at 50
    ([(Qt.Key_5, NONE), (Qt.Key_PageDown, NONE)], 40),
    ([(Qt.Key_9, NONE), (Qt.Key_PageUp, NONE), (Qt.Key_PageUp, NONE)], 100),
    ([(Qt.Key_Home, NONE), (Qt.Key_Minus, NONE)], 0),
    ([(Qt.Key_3, NONE), (Qt.Key_PageDown, NONE), (Qt.Key_PageUp, NONE), (Qt.Key_Minus, NONE)], 29),
]


@pytest.fixture
def da_screen(qtbot, tmp_path):
    with judging_screen(qtbot, tmp_path / "da.sqlite", "da") as screen_and_db:
        yield screen_and_db


def test_scores_are_set_by_keys_and_recorded_by_enter(qtbot, da_screen):
    screen, db = da_screen
    expected, turn = {}, 0
    while screen.item is not None:
        item = screen.item
        assert screen.pages.currentWidget() is screen.da_view
        # As the study shows it (readable by default): the string the exports say the judge read.
        assert screen.da_view.candidate_label.text() == html.escape(shown_text(
            item.candidate, screen.display, source=item.source, original=item.source_display))
        qtbot.keyClick(screen, Qt.Key_Return)  # nothing to record yet: the item stays
        assert screen.item.assignment_id == item.assignment_id
        keys, score = SCRIPTS[turn % len(SCRIPTS)]
        for key, modifier in keys:
            qtbot.keyClick(screen, key, modifier)
        assert screen.da_view.slider.value() == score == screen.da_view.score
        qtbot.keyClick(screen, Qt.Key_Return)
        expected[item.assignment_id] = str(score)
        turn += 1
    screen.writer.drain()
    with db.reading() as session:
        stored = dict(session.execute(select(Assignment.id, Judgment.value)
                                      .join(Judgment, Judgment.id == Assignment.live_judgment_id)).all())
    assert turn > len(SCRIPTS) and stored == expected


def test_going_back_shows_the_recorded_score_and_keys_start_from_it(qtbot, da_screen):
    screen, db = da_screen
    first = screen.item
    for key in (Qt.Key_6, Qt.Key_Return):
        qtbot.keyClick(screen, key)
    qtbot.keyClick(screen, Qt.Key_Up)
    assert screen.item.assignment_id == first.assignment_id and screen.da_view.score == 60
    qtbot.keyClick(screen, Qt.Key_Plus)
    qtbot.keyClick(screen, Qt.Key_Return)
    screen.writer.drain()
    with db.reading() as session:
        live = session.scalar(select(Judgment.value).join(Assignment, Assignment.live_judgment_id == Judgment.id)
                              .where(Assignment.id == first.assignment_id))
    assert live == "61"


def test_moves_are_clamped_to_the_scale():
    assert moved(100, "+") == 100 and moved(0, "PgDown") == 0 and moved(95, "PgUp") == 100
    assert moved(None, "-") == 49 and moved(None, "F") is None and moved(50, "Right") is None


def test_the_arrows_move_between_items_and_leave_the_score_alone(qtbot, da_screen):
    """Issue 44: ← / → changed the score on DA and moved elsewhere; now they move here too, recording nothing."""
    screen, db = da_screen
    first = screen.item
    qtbot.keyClick(screen, Qt.Key_4)
    qtbot.keyClick(screen, Qt.Key_Right)
    second = screen.item
    assert second.assignment_id != first.assignment_id and screen.da_view.score is None
    qtbot.keyClick(screen, Qt.Key_Down)
    assert screen.item.assignment_id not in (first.assignment_id, second.assignment_id)
    qtbot.keyClick(screen, Qt.Key_Left)
    qtbot.keyClick(screen, Qt.Key_Up)
    assert screen.item.assignment_id == first.assignment_id
    screen.writer.drain()
    with db.reading() as session:
        assert session.scalar(select(Judgment.id)) is None
    help_text = screen.keys_help.text()
    for written in ("<b>+</b> score +1", "<b>PgUp</b> score +10", "<b>Enter</b> record the score",
                    "<b>← / ↑</b> previous", "<b>→ / ↓</b> next"):
        assert written in help_text
