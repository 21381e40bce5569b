"""A key goes one way down, and a study opens off the UI thread (issue 28, Deliver 3 and Found 9), on the real
annotation screen and real SQLite studies."""

from __future__ import annotations

import shutil
import threading

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import candidate_rows, make_study  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from sqlalchemy import select  # noqa: E402

from parastudio.core.judging.desk import open_desk  # noqa: E402
from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.core.store.models import Judgment  # noqa: E402
from parastudio.desktop.annotation_screen import AnnotationScreen  # noqa: E402
from parastudio.desktop.judgment_writer import JudgmentWriter  # noqa: E402

# Key texts as the desk reads them, and the key press that types each on the screen. The mix holds keys of
# another scale (3 on a yes/no item, Y on a 1-3 item), shifted letters and keys that move.
QT_KEYS = {"Y": (Qt.Key_Y, Qt.NoModifier), "N": (Qt.Key_N, Qt.NoModifier), "1": (Qt.Key_1, Qt.NoModifier),
           "0": (Qt.Key_0, Qt.NoModifier), "2": (Qt.Key_2, Qt.NoModifier), "3": (Qt.Key_3, Qt.NoModifier),
           "Shift+N": (Qt.Key_N, Qt.ShiftModifier), "Left": (Qt.Key_Left, Qt.NoModifier),
           "Right": (Qt.Key_Right, Qt.NoModifier), "F": (Qt.Key_F, Qt.NoModifier)}
SEQUENCE = ["Y", "3", "N", "2", "Left", "1", "0", "Shift+N", "F", "Y", "3", "Right", "Left", "2", "N"] * 4


def stored(path, annotator: str):
    """The answers stored for ``annotator``, in the order given: (assignment, value, flag)."""
    db = open_database(path)
    try:
        annotator_id = ops.find_annotator(db, ops.find_study(db), annotator)
        with db.reading() as session:
            return [tuple(row) for row in session.execute(
                select(Judgment.assignment_id, Judgment.value, Judgment.flag)
                .where(Judgment.annotator_id == annotator_id, Judgment.action == "answer").order_by(Judgment.id))]
    finally:
        db.close()


def test_the_screen_records_what_the_desk_says_for_the_same_keys(qtbot, tmp_path, screen_for):
    """The screen hands each key to the desk: the same key texts given to the Qt-free desk on a copy of the
    study record the same answers, in the same order, to the same items (a screen that decided a value itself,
    or answered a key of another scale, records something else)."""
    path = tmp_path / "screen.sqlite"
    make_study(path, annotators=("ann",))
    copy = tmp_path / "desk.sqlite"
    shutil.copy(path, copy)
    db = open_database(path)
    screen = screen_for(db, ops.find_study(db))
    for key in SEQUENCE:
        if screen.item is None:
            break
        qtbot.keyClick(screen, *QT_KEYS[key])
    screen.writer.drain()
    on_screen = stored(path, "ann")

    desk_db = open_database(copy)
    desk = open_desk(desk_db, ops.find_study(desk_db), "ann").desk
    given = []
    for key in SEQUENCE:
        if desk.item is None:
            break
        record = desk.press(key).record
        if record is not None and record.kind == "answer":
            given.append((record.assignment_id, record.value, record.flag))
    desk_db.close()
    assert len(on_screen) >= 20 and {value for _, value, _ in on_screen} >= {"yes", "no", "1", "2"}
    assert on_screen == given


def test_opening_a_study_reads_the_store_off_the_ui_thread_and_shows_no_item_before(qtbot, tmp_path):
    db = open_database(tmp_path / "s.sqlite", create=True)
    study = ops.create_study(db, "s", criteria=["meaning"], seed=1)
    ops.import_candidates(db, study, candidate_rows())
    ops.assign(db, study, ["ann"])
    writer = JudgmentWriter(db)
    screen = AnnotationScreen(db, writer)
    qtbot.addWidget(screen)
    screen.show()
    shown = []
    screen.item_shown.connect(shown.append)
    with qtbot.waitSignal(screen.open_done, timeout=120_000):
        screen.open(study, "ann", "s")
        # Until the worker is done: "Loading…", no item, and a key answers nothing.
        assert screen.loading and screen.item is None and "Loading" in screen.done_label.text()
        qtbot.keyClick(screen, Qt.Key_Y)
    assert screen.lock is not None and screen.item is not None and len(shown) == 1
    assert screen.desk_thread != threading.get_ident()  # the store was read on another thread
    writer.drain()
    assert stored(tmp_path / "s.sqlite", "ann") == []  # the Y pressed while loading recorded nothing
    screen.close_session()
    screen.progress.stop()
    writer.close()
    db.close()


def test_a_study_closed_while_it_opens_leaves_no_judging_lock(qtbot, tmp_path):

    path = tmp_path / "s.sqlite"
    study = make_study(path, annotators=("ann",))
    db = open_database(path)
    writer = JudgmentWriter(db)
    screen = AnnotationScreen(db, writer)
    qtbot.addWidget(screen)
    screen.open(study, "ann", "toy")
    screen.close_session()  # before the worker is done
    assert screen.item is None and screen.desk is None
    # The dropped open's lock is released once it lands: the judge can open the study again elsewhere.
    qtbot.waitUntil(lambda: _opens(db, study), timeout=120_000)
    assert screen.item is None and screen.desk is None  # the late result was not shown
    writer.close()
    db.close()


def _opens(db, study) -> bool:
    from parastudio.core.store import session_lock

    try:
        opened = open_desk(db, study, "ann")
    except session_lock.SessionTaken:
        return False
    session_lock.release(db, opened.lock)
    return True
