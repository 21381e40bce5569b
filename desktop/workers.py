"""Running core work off the UI thread, with results delivered as signals."""

from __future__ import annotations

import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, Signal


class WorkerSignals(QObject):
    finished = Signal(object)
    failed = Signal(str)
    progress = Signal(int, str)


class Worker(QRunnable):
    """Calls ``function(report_progress, *args)`` in the thread pool.

    ``report_progress(percent, message)`` emits ``progress``; an exception is
    reported through ``failed`` with its message, never raised into Qt.
    """

    def __init__(self, function: Callable[..., Any], *args: Any):
        super().__init__()
        self.function = function
        self.args = args
        self.signals = WorkerSignals()
        self.cancelled = False

    def report(self, percent: int, message: str) -> None:
        self.signals.progress.emit(percent, message)

    def run(self) -> None:
        try:
            result = self.function(self.report, *self.args)
        except Exception as error:  # the UI shows it; nothing may crash the app
            traceback.print_exc()
            self.signals.failed.emit(f"{type(error).__name__}: {error}")
            return
        if not self.cancelled:
            self.signals.finished.emit(result)
