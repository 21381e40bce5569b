"""A judge's sitting on the annotation screen (issue 44): the pace beside the progress, the break reminder, the
judge's own list (Ctrl+L) and "go to item N" (Ctrl+G).

What is counted and when a break is due is :class:`core.judging.pace.Sitting`'s (Qt-free); the list is
:func:`core.judging.own_list.own_list`'s, read from the judge's own rows only. This paints them:

* beside the progress bars, "this sitting: N · S s per item · about T left" after every answer;
* after the answer that makes a break due, a page saying so in place of the next item, until the judge presses
  Ctrl+Enter (the judging clock is paused meanwhile; other keys do nothing there);
* Ctrl+L: the list in a dialog, Enter goes to the item chosen; Ctrl+G asks for an item number and goes there;
* closing the study logs the sitting (its length, judging time, answers, reminders, breaks) in the study's event
  log, with the release of the judging lock.
"""

from __future__ import annotations

import html
import time
from datetime import datetime, timezone

from PySide6.QtCore import QEvent, QObject, Qt, QThreadPool, Signal
from PySide6.QtWidgets import QAbstractItemView, QDialog, QHeaderView, QInputDialog, QLabel, QTableView, QVBoxLayout

from parastudio.core.judging.keys import KEY_BY_ACTION
from parastudio.core.judging.own_list import OwnListRow, own_list
from parastudio.core.judging.pace import PaceSettings, Sitting
from parastudio.core.store import operations as ops
from parastudio.desktop.rows_model import RowsTableModel
from parastudio.desktop.widget_parts import pressed_key
from parastudio.desktop.workers import Worker

OWN_LIST_HEADERS = ("item", "why", "criterion", "your answer", "seconds", "comment", "text")


class OwnListDialog(QDialog):
    """The judge's own list: ``chosen`` carries the position of the item Enter (or a double click) picked."""

    chosen = Signal(int)

    def __init__(self, rows: list[OwnListRow], fast_seconds: float, parent=None):
        super().__init__(parent)
        self.setWindowTitle("My list")
        self.rows = rows
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Your items that are flagged, commented, skipped or answered in under "
                                f"{fast_seconds:g} s · Enter goes to the item · Esc closes"
                                if rows else "Nothing flagged, commented, skipped or answered fast. Esc closes."))
        self.model = RowsTableModel(OWN_LIST_HEADERS)
        self.model.set_rows([[row.number, ", ".join(row.reasons), row.criterion, row.value or "–",
                              "–" if row.seconds is None else f"{row.seconds:.1f}", row.comment or "",
                              row.candidate or ""] for row in rows])
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.view.verticalHeader().setVisible(False)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.activated.connect(self._go)
        layout.addWidget(self.view, 1)
        self.resize(760, 420)
        if rows:
            self.view.setCurrentIndex(self.model.index(0, 0))
        self.view.setFocus()

    def _go(self, index) -> None:
        if index.isValid():
            self.chosen.emit(self.rows[index.row()].position)
            self.accept()


class JudgingSitting:
    """Mixed into :class:`desktop.annotation_screen.AnnotationScreen` (uses its desk, writer, clock, progress bars
    and pages); :meth:`_build_sitting` is called once its widgets are built."""

    sitting: Sitting | None = None
    on_break = False
    own_list_dialog: OwnListDialog | None = None
    go_to_dialog: QInputDialog | None = None

    def _build_sitting(self) -> None:
        self._break_pending = False
        self._sitting_started_at = datetime.now(timezone.utc)
        self.installEventFilter(self)  # the break page takes the keys before the desk does
        self.item_shown.connect(self._after_item_shown)
        self.open_done.connect(self._start_sitting)
        self.writer.undone.connect(self._sitting_undone)

    # the sitting -------------------------------------------------------------------------
    def _start_sitting(self) -> None:
        if self.desk is None or self.lock is None:
            return
        self.on_break = self._break_pending = False
        self._sitting_started_at = datetime.now(timezone.utc)
        self.sitting = Sitting(started=time.monotonic())
        self.progress.sitting = self.sitting
        db, study_id, annotator_id, since = self.db, self.study_id, self.annotator_id, self._sitting_started_at

        def read(_report):
            try:
                settings = PaceSettings.of_study(ops.study_settings(db, study_id))
            except ValueError:  # a value no command would store: the defaults rather than no judging
                settings = PaceSettings()
            earlier = [ms for at, ms in ops.answer_times(db, study_id, annotator_id).get(annotator_id, [])
                       if at < since]
            return annotator_id, settings, earlier

        worker = Worker(read)
        worker.signals.finished.connect(self._sitting_read)
        QThreadPool.globalInstance().start(worker)

    def _sitting_read(self, result) -> None:
        annotator_id, settings, earlier = result
        if self.sitting is None or annotator_id != self.annotator_id:
            return
        self.sitting.settings = settings
        self.sitting.add_earlier(earlier)
        self.progress.paint()

    def _record_answer(self, record) -> None:
        """Hand an answer to the writer with the judging clock's time, and count it in the sitting."""
        duration_ms = self.clock.elapsed_ms()
        self.writer.answer(record.assignment_id, record.value, text=record.text, started_at=self.shown_at,
                           answered_at=datetime.now(timezone.utc), comment=record.comment, flag=record.flag,
                           duration_ms=duration_ms)
        if self.sitting is not None:
            self._break_pending = self.sitting.answered(duration_ms, time.monotonic())
            self.progress.paint()

    def _sitting_undone(self, annotator_id: int, assignment_id: int) -> None:
        if self.sitting is not None and annotator_id == self.annotator_id and assignment_id >= 0:
            self.sitting.undone()
            self.progress.paint()

    def sitting_summary(self) -> dict | None:
        """The sitting, ended, for the event log (None: no study was open)."""
        sitting, self.sitting, self.progress.sitting, self.on_break = self.sitting, None, None, False
        return None if sitting is None else {**sitting.summary(time.monotonic()),
                                             "started_at": ops.iso_time(self._sitting_started_at)}

    # breaks ------------------------------------------------------------------------------
    def _after_item_shown(self, _item) -> None:
        if self._break_pending:
            self._break_pending = False
            self.show_break()

    def show_break(self) -> None:
        """The reminder, in place of the next item, until the judge presses the key that ends it."""
        sitting = self.sitting
        self.on_break = True
        self.clock.pause()
        key = html.escape(KEY_BY_ACTION["end_break"].shown)
        self.done_label.setText(
            f"<h2>Time for a break.</h2><p>You have judged {sitting.stretch_items} items in "
            f"{sitting.stretch_minutes:.0f} minutes of judging. The study asks for a pause "
            f"{html.escape(sitting.settings.rule_text())}: stand up, look away from the screen.</p>"
            f"<p>Every answer is saved. Press <b>{key}</b> to go on judging.</p>")
        self.pages.setCurrentIndex(2)
        self.status.setText("break: the judging clock is paused")

    def end_break(self) -> None:
        if not self.on_break:
            return
        self.on_break = False
        self.sitting.break_over(time.monotonic())
        self.status.clear()
        self._show()  # the item that was due, its clock from zero

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if watched is self and event.type() == QEvent.KeyPress and self.on_break:
            if pressed_key(event) in KEY_BY_ACTION["end_break"].keys:
                self.end_break()
            return True  # no answer while the reminder is shown
        return super().eventFilter(watched, event)

    # the judge's own list and going to an item ----------------------------------------------
    def open_own_list(self) -> None:
        """Ctrl+L: the judge's own list, read once every answer given is written (in a worker)."""
        if self.annotator_id is None:
            return
        db, writer, annotator_id = self.db, self.writer, self.annotator_id
        fast = self.sitting.settings.fast_seconds if self.sitting is not None else PaceSettings().fast_seconds

        def read(_report):
            writer.drain(10)
            return annotator_id, fast, own_list(db, annotator_id, fast)

        worker = Worker(read)
        worker.signals.finished.connect(self._own_list_read)
        QThreadPool.globalInstance().start(worker)

    def _own_list_read(self, result) -> None:
        annotator_id, fast, rows = result
        if annotator_id != self.annotator_id:
            return
        self.own_list_dialog = OwnListDialog(rows, fast, self)
        self.own_list_dialog.chosen.connect(self.go_to_position)
        self.own_list_dialog.finished.connect(self._back_from_dialog)
        self.own_list_dialog.open()

    def go_to_item(self) -> None:
        """Ctrl+G: ask for an item number (as the header shows it), then go there."""
        if self.desk is None:
            return
        dialog = QInputDialog(self)
        dialog.setWindowTitle("Go to item")
        dialog.setLabelText("Item number:")
        dialog.setInputMode(QInputDialog.IntInput)
        dialog.setIntRange(1, 1_000_000)
        dialog.setIntValue(self.item.position + 1 if self.item is not None else 1)
        dialog.intValueSelected.connect(lambda number: self.go_to_position(number - 1))
        dialog.finished.connect(self._back_from_dialog)
        self.go_to_dialog = dialog
        dialog.open()

    def _back_from_dialog(self, _result=None) -> None:
        self.window().activateWindow()  # some window systems leave no window active after a dialog
        self.setFocus(Qt.OtherFocusReason)

    def go_to_position(self, position: int) -> None:
        if self.desk is not None and not self.loading and not self.on_break:
            self._apply(self.desk.go_to(position))
