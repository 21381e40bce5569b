"""Pairwise preference judged by keys on the app's annotation screen (issue 30), real SQLite study, offscreen."""

import html
import re

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import judging_screen  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from sqlalchemy import select  # noqa: E402

from parastudio.core.judging.view import shown_text  # noqa: E402
from parastudio.core.store.models import Assignment, Judgment, PreferencePair  # noqa: E402

# Each key and the answer it must store, used in turn.
KEYS = [(Qt.Key_A, "left"), (Qt.Key_B, "right"), (Qt.Key_E, "tie"), (Qt.Key_1, "left"),
        (Qt.Key_3, "right"), (Qt.Key_2, "tie")]


@pytest.fixture
def preference_screen(qtbot, tmp_path):
    with judging_screen(qtbot, tmp_path / "prefs.sqlite", "preference", annotators=("ann", "bob")) as screen_and_db:
        yield screen_and_db


def read(label_html: str) -> str:
    """What a judge reads in a label's rich text: the text without its markup."""
    return html.unescape(re.sub(r"<[^>]*>", "", label_html))


def stored(db):
    with db.reading() as session:
        return dict(session.execute(select(Assignment.id, Judgment.value)
                                    .join(Judgment, Judgment.id == Assignment.live_judgment_id)).all())


def test_a_judge_answers_every_pair_by_keys_without_seeing_systems(qtbot, preference_screen):
    screen, db = preference_screen
    with db.reading() as session:
        systems = {name for p in session.scalars(select(PreferencePair)) for name in (p.left_system, p.right_system)}
    expected, turn = {}, 0
    while screen.item is not None:
        item = screen.item
        assert screen.pages.currentWidget() is screen.preference_view
        view = screen.preference_view
        # As the study shows them (readable by default): the strings the exports say the judge read.
        assert (read(view.left_label.text()), read(view.right_label.text())) == tuple(
            shown_text(text, screen.display, source=item.source, original=item.source_display)
            for text in (item.left, item.right))
        assert item.left != item.right
        shown = " ".join([view.left_label.text(), view.right_label.text(), view.source_label.text(),
                          screen.header_label.text(), screen.question_label.text()])
        assert not any(name in shown for name in systems)
        key, value = KEYS[turn % len(KEYS)]
        qtbot.keyClick(screen, key)
        expected[item.assignment_id] = value
        turn += 1
    screen.writer.drain()
    with db.reading() as session:
        pairs_shown = len(session.scalars(select(PreferencePair).where(PreferencePair.identical.is_(False))).all())
    assert turn == pairs_shown > 0 and stored(db) == expected  # both judges get every pair shown


def test_undo_and_going_back_show_the_answer_and_a_new_key_replaces_it(qtbot, preference_screen):
    screen, db = preference_screen
    first = screen.item
    qtbot.keyClick(screen, Qt.Key_A)
    second = screen.item
    assert second.assignment_id != first.assignment_id
    qtbot.keyClick(screen, Qt.Key_Up)  # back: the earlier answer's button is pressed
    assert screen.item.assignment_id == first.assignment_id
    assert screen.preference_view.buttons["left"].isChecked()
    qtbot.keyClick(screen, Qt.Key_B)
    with qtbot.waitSignal(screen.writer.undone, timeout=120_000):
        qtbot.keyClick(screen, Qt.Key_Z, Qt.ControlModifier)
    assert screen.item.assignment_id == first.assignment_id and screen.item.value is None
    qtbot.keyClick(screen, Qt.Key_E)
    screen.writer.drain()
    assert stored(db)[first.assignment_id] == "tie"


def marked_and_plain(label_html: str) -> tuple[list[str], list[str]]:
    """The words of a label shown on a background of their own (marked) and the others, in order."""
    marked, plain = [], []
    for piece in re.split(r"(<span style=\"[^\"]*background[^\"]*\">.*?</span>)", label_html):
        (marked if piece.startswith("<span") else plain).extend(read(piece).split())
    return marked, plain


def test_the_words_in_which_the_two_differ_are_marked_in_both(qtbot, tmp_path, private_qt_settings):
    from cli_judging_studies import judging_studies
    from desktop_study_fixtures import open_window

    window = open_window(qtbot, judging_studies(tmp_path), "ann")
    tab = window.annotate
    with qtbot.waitSignal(tab.screen.open_done, timeout=120_000):
        tab.open_study(tab.study_ids[tab.study_names.index("preference")])
    screen, pairs = tab.screen, 0
    while screen.item is not None:
        view = screen.preference_view
        left, right = (marked_and_plain(label.text()) for label in (view.left_label, view.right_label))
        left_words = {w.casefold() for w in left[0] + left[1]}
        right_words = {w.casefold() for w in right[0] + right[1]}
        assert left[0] and right[0], "a pair shown differs somewhere, marked on both sides"
        # What is left unmarked is what the two share, in the same order; a word only one side has is marked.
        assert [w.casefold() for w in left[1]] == [w.casefold() for w in right[1]]
        assert all(w.casefold() in right_words for w in left[1])
        assert {w.casefold() for w in left[0]} >= left_words - right_words
        assert {w.casefold() for w in right[0]} >= right_words - left_words
        qtbot.keyClick(screen, (Qt.Key_A, Qt.Key_B, Qt.Key_E)[pairs % 3])
        pairs += 1
    assert pairs > 0


def test_the_arrows_move_between_pairs_and_never_answer(qtbot, preference_screen):
    """Issue 44: ← / → / ↓ answered here and moved elsewhere; now they move here too."""
    screen, db = preference_screen
    first = screen.item
    qtbot.keyClick(screen, Qt.Key_Right)
    assert screen.item.assignment_id != first.assignment_id
    qtbot.keyClick(screen, Qt.Key_Down)
    qtbot.keyClick(screen, Qt.Key_Left)
    qtbot.keyClick(screen, Qt.Key_Up)
    assert screen.item.assignment_id == first.assignment_id
    screen.writer.drain()
    assert stored(db) == {}
    assert "<b>E</b> no difference" in screen.keys_help.text() and "<b>1–3</b>" in screen.keys_help.text()
