"""An item that comes late, and an exception nothing catches (issue 39): the packaged bundle's smoke run pressed a
key on an item that had not arrived (``'NoneType' object has no attribute 'scale'``), then hung until killed. The
study's opening is held on an event until after the key is pressed, so the race is the same on any machine."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import make_study  # noqa: E402
from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402

from parastudio.core.interruption import Terminated  # noqa: E402
from parastudio.core.store import operations as ops  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")


def test_a_key_before_the_first_item_acts_on_nothing_and_the_smoke_run_waits_for_the_item(
        qtbot, tmp_path, monkeypatch):
    import parastudio.desktop.annotation_screen as annotation_screen
    from parastudio.desktop.frozen_entry import judge_first_item_by_key
    from parastudio.desktop.main_window import MainWindow

    path = tmp_path / "study.sqlite"
    study = make_study(path, annotators=("ann",))
    gate, real_open = threading.Event(), annotation_screen.open_desk

    def held_open(*args, **kwargs):
        gate.wait()
        return real_open(*args, **kwargs)

    monkeypatch.setattr(annotation_screen, "open_desk", held_open)
    window = MainWindow(path, annotator="ann", table="none.gz", lm="none.bin")
    qtbot.addWidget(window)
    window.show()
    screen = window.annotate.screen
    results = []
    try:
        judge_first_item_by_key(window, results.append)
        assert screen.loading and screen.item is None and results == []
        qtbot.keyClick(screen, Qt.Key_Y)  # before the item: acts on nothing
        assert screen.item is None
    finally:
        gate.set()
    qtbot.waitUntil(lambda: bool(results), timeout=120_000)
    assert results == [True]
    # The smoke run's key; the Y pressed while loading recorded nothing ("ann" is the study's only judge).
    assert len(list(ops.iter_judgments(window.db, study))) == 1


class _Window(QWidget):
    def __init__(self, closed: list):
        super().__init__()
        self.closed = closed

    def closeEvent(self, event):  # noqa: N802 (Qt's name)
        self.closed.append(True)
        super().closeEvent(event)


def _raise(error: BaseException):
    raise error


@pytest.mark.parametrize("error, status, said", [
    (AttributeError("'NoneType' object has no attribute 'scale'"), 1,
     "parastudio: error: unexpected AttributeError: 'NoneType' object has no attribute 'scale'"),
    (KeyboardInterrupt(), 130, "parastudio: interrupted"),
    (Terminated(), 143, "parastudio: terminated"),
])
def test_an_exception_nothing_catches_ends_the_app_said_on_stderr(qtbot, capfd, error, status, said):
    """Raised in a slot, where Qt would print it and go on: the app says so, closes its windows (each saves what it
    holds) and its event loop ends with a non-zero status instead of running on or hanging."""
    from parastudio.desktop.app import run_event_loop

    closed = []
    window = _Window(closed)
    qtbot.addWidget(window)
    window.show()
    app = QApplication.instance()
    # Ends a loop the hook failed to end, so a regression fails this test instead of hanging it (never fires
    # otherwise: stopped below).
    guard = QTimer(singleShot=True, interval=60_000)
    guard.timeout.connect(lambda: app.exit(99))
    guard.start()
    QTimer.singleShot(0, lambda: _raise(error))
    try:
        assert run_event_loop(app) == status
    finally:
        guard.stop()
    assert closed == [True]
    lines = capfd.readouterr().err.strip().splitlines()
    assert lines[-1].startswith(said)
    assert ("Traceback" in lines[0]) == (status == 1)  # a bug's traceback; one line for Ctrl+C and SIGTERM
