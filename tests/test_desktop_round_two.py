"""The app as judges and researchers meet it, round two (issue 28): judges never see each other's labels, every
screen fits, the small things say what they do."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from core.store import operations as ops  # noqa: E402
from core.store.adjudicator_role import set_adjudicators  # noqa: E402
from core.store.database import open_database  # noqa: E402
from desktop_study_fixtures import make_study  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")


@pytest.fixture
def disagreeing(tmp_path):
    """A study where ann says yes (3) and bob no (1) to their first 12 items: those both judged are disagreements
    (and both still have items to judge)."""
    path = tmp_path / "study.sqlite"
    study = make_study(path)
    with open_database(path) as db:
        for name, binary, scale in (("ann", "yes", "3"), ("bob", "no", "1")):
            annotator = ops.find_annotator(db, study, name)
            for _ in range(12):
                item = ops.next_item(db, annotator)
                ops.record_judgment(db, item.assignment_id, binary if item.scale == "binary" else scale)
    return path, study


def open_window(qtbot, path, annotator):
    from desktop.main_window import MainWindow

    window = MainWindow(path, annotator=annotator, table="none.gz", lm="none.bin")
    qtbot.addWidget(window)
    window.show()
    qtbot.wait(100)
    dialog = getattr(window, "instructions_dialog", None)
    if dialog is not None and dialog.isVisible():
        dialog.accept()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=5000)
    return window


def test_a_judge_is_refused_adjudication_before_any_label_is_shown(qtbot, disagreeing):
    """Issue 28 Found 6: a judge opened the adjudication dialog (Ctrl+Shift+A) and read the other judge's labels."""
    path, _ = disagreeing
    window = open_window(qtbot, path, "ann")
    qtbot.keyClick(window, Qt.Key_A, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.wait(200)
    assert getattr(window, "adjudication", None) is None
    assert not any("said" in getattr(w, "text", lambda: "")() for w in QApplication.allWidgets()
                   if w.isVisible() and hasattr(w, "text") and isinstance(w.text(), str))
    assert "ann is not an adjudicator of this study" in window.statusBar().currentMessage()
    window.close()


def test_an_adjudicator_named_by_the_researcher_sees_both_labels(qtbot, disagreeing):
    path, study = disagreeing
    with open_database(path) as db:
        set_adjudicators(db, study, ["carol"])
    window = open_window(qtbot, path, "carol")
    qtbot.keyClick(window, Qt.Key_A, Qt.ControlModifier | Qt.ShiftModifier)
    dialog = window.adjudication
    qtbot.waitUntil(lambda: bool(dialog.items), timeout=10_000)
    assert "ann</b> said" in dialog.labels.text() and "bob</b> said" in dialog.labels.text()
    dialog.close()
    window.close()
