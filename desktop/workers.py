"""Running core work off the UI thread, with results delivered as signals."""

from __future__ import annotations

import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QTimer, Signal

from parastudio.core.progress import Cancelled


class WorkerSignals(QObject):
    finished = Signal(object)
    failed = Signal(str)
    progress = Signal(int, str)
    cancelled = Signal()


class Worker(QRunnable):
    """Calls ``function(report_progress, *args)`` in the thread pool.

    ``report_progress(done, total, message)`` (a :class:`core.progress.Progress`)
    emits ``progress`` as a percentage, and raises
    :class:`core.progress.Cancelled` once ``cancel()`` was called, so long work stops at
    its next progress report and ``cancelled`` is emitted instead of
    ``finished``. Any other exception is reported through ``failed`` with its
    message, never raised into Qt.
    """

    # Workers in flight: a caller may drop its reference while the pool still
    # runs one, which would delete its signals object under it.
    _alive: set["Worker"] = set()

    def __init__(self, function: Callable[..., Any], *args: Any):
        super().__init__()
        self.function = function
        self.args = args
        self.signals = WorkerSignals()
        self.cancelled = False
        Worker._alive.add(self)
        for signal in (self.signals.finished, self.signals.failed, self.signals.cancelled):
            # Deferred, so every other slot of the final signal runs first.
            signal.connect(lambda *_: QTimer.singleShot(0, lambda: Worker._alive.discard(self)))

    def cancel(self) -> None:
        self.cancelled = True

    def report(self, done: int, total: int | None, message: str = "") -> None:
        if self.cancelled:
            raise Cancelled()
        percent = int(100 * done / total) if total else 0
        self._emit(self.signals.progress, max(0, min(100, percent)), message)

    def run(self) -> None:
        try:
            result = self.function(self.report, *self.args)
        except Cancelled:
            self._emit(self.signals.cancelled)
            return
        except Exception as error:  # the UI shows it; nothing may crash the app
            if self._emit(self.signals.failed, f"{type(error).__name__}: {error}"):
                traceback.print_exc()
            return
        if self.cancelled:
            self._emit(self.signals.cancelled)
        else:
            self._emit(self.signals.finished, result)

    @staticmethod
    def _emit(signal, *args) -> bool:
        """Emit unless the app is being torn down (its objects already deleted): nobody is left to tell."""
        try:
            signal.emit(*args)
            return True
        except RuntimeError:
            return False
