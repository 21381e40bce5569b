"""Waiting in a Qt event loop from the drivers the tests start in subprocesses.

``QTest.qWait`` holds Python's GIL while it spins (PySide6 6.11): a worker thread then gets almost no time, and a
screen that loads its rows in a worker stays "loading" for minutes. A ``QEventLoop`` lets the GIL go, as the app's
own ``exec`` does."""

from __future__ import annotations


def wait(milliseconds: int) -> None:
    """Process events for ``milliseconds`` with worker threads running meanwhile."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(milliseconds, loop.quit)
    loop.exec()
