"""Ctrl+Q with answers still on their way: a small dialog says what the closing waits for, and none is lost."""

from __future__ import annotations

import sqlite3
import threading

import pytest

pytest.importorskip("PySide6")

from desktop_study_fixtures import make_study, open_window  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.core.store.models import Assignment  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")


def test_ctrl_q_with_pending_answers_waits_for_them_says_so_and_loses_none(qtbot, tmp_path):

    path = tmp_path / "study.sqlite"
    make_study(path)
    window = open_window(qtbot, path)
    screen = window.annotate.screen
    qtbot.waitUntil(lambda: QApplication.focusWidget() is screen, timeout=120_000)

    # Another process holds the database's write lock for a while (a second judge on a shared file, a slow
    # disk): the answers given meanwhile wait in the writer's queue.
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    released = threading.Timer(1.5, lambda: other.execute("COMMIT"))
    given = []
    for _ in range(8):
        item = screen.item
        given.append(item.assignment_id)
        qtbot.keyClick(screen, Qt.Key_Y if item.scale == "binary" else Qt.Key_2)
    assert window.writer.pending() >= 7  # still queued: nothing could be written yet
    released.start()
    qtbot.keyClick(window, Qt.Key_Q, Qt.ControlModifier)  # Ctrl+Q
    released.join()
    other.close()
    assert not window.isVisible()
    assert window.closing_waited_for[0].startswith("Saving ")
    assert "answer(s) still on their way" in window.closing_waited_for[0]
    assert not window.closing_dialog.isVisible()
    with open_database(path) as db, db.reading() as session:
        judged = set(session.scalars(select(Assignment.id).where(Assignment.live_judgment_id.is_not(None))))
        answers = session.scalar(select(func.count(Assignment.id)).where(Assignment.live_judgment_id.is_not(None)))
    assert judged == set(given) and answers == 8


def test_ctrl_q_with_nothing_pending_still_says_what_it_does(qtbot, tmp_path):
    from parastudio.desktop.main_window import MainWindow

    path = tmp_path / "study.sqlite"
    make_study(path)
    window = MainWindow(path, annotator="ann", table="none.gz", lm="none.bin")
    qtbot.addWidget(window)
    window.show()
    qtbot.wait(50)
    window.close()
    assert window.closing_waited_for[0] == "Every answer is saved. Ending the judging session…"
