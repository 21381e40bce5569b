"""Two progress bars for a judging session: the annotator's own and the whole study's, and beside them the judge's
pace in this sitting (:class:`core.judging.pace.Sitting`: items judged, their median seconds per item, the time
left at that pace).

The bars count committed answers, recounted off the UI thread: the
annotator's shortly after their writes (throttled, so a fast annotator still
sees the bars move), the study's every few seconds (other judges work too).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QThreadPool, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QVBoxLayout, QWidget

from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.desktop.workers import Worker


class ProgressBars(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.db: Database | None = None
        self.study_id: int | None = None
        self.annotator_id: int | None = None
        self.my_done = self.my_total = self.study_done = self.study_total = 0
        row = QHBoxLayout(self)  # the pace beside the bars: the header stays two bars high (a 600-pixel screen)
        row.setContentsMargins(0, 0, 0, 0)
        self.sitting = None  # the judge's sitting (core.judging.pace.Sitting), set by the annotation screen
        self.pace = QLabel()
        self.pace.setWordWrap(True)
        self.pace.setMaximumWidth(260)
        row.addWidget(self.pace)
        layout = QVBoxLayout()
        row.addLayout(layout)
        self.mine = QProgressBar(format="mine: %v / %m")
        self.study = QProgressBar(format="study: %v / %m")
        for bar in (self.mine, self.study):
            layout.addWidget(bar)
        self._fit_text()
        self._every_few_seconds = QTimer(self, interval=5000)
        self._every_few_seconds.timeout.connect(self.recount)
        self._soon = QTimer(self, singleShot=True, interval=600)
        self._soon.timeout.connect(lambda: self.recount(whole_study=False))
        self._counting = False
        self._recount_after = False  # answers committed while a count was running

    def _fit_text(self) -> None:
        """Wide enough for the counts in the bars' font (the judge's zoom enlarges it)."""
        width = self.fontMetrics().horizontalAdvance("study: 00000 / 00000") + 24
        for bar in (self.mine, self.study):
            bar.setMinimumWidth(max(200, width))

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.FontChange:
            self._fit_text()
        super().changeEvent(event)

    def follow(self, db: Database, study_id: int, annotator_id: int) -> None:
        self.db, self.study_id, self.annotator_id = db, study_id, annotator_id
        self.recount()
        self._every_few_seconds.start()

    def stop(self) -> None:
        """No more counts (the window or the session is closing); ``follow`` starts them again."""
        self.study_id = None
        self._every_few_seconds.stop()
        self._soon.stop()

    def answer_committed(self) -> None:
        if self.study_id is None:
            return
        if self._counting:
            self._recount_after = True
        elif not self._soon.isActive():
            self._soon.start()

    def recount(self, whole_study: bool = True) -> None:
        if self.study_id is None or (self._counting and not whole_study):
            return
        db, study_id, annotator_id = self.db, self.study_id, self.annotator_id
        worker = Worker(lambda _report: (study_id, annotator_id, whole_study,
                                         ops.progress_counts(db, study_id, None if whole_study else annotator_id)))
        # Bound methods, not closures: Qt drops the connection if this widget is gone first.
        worker.signals.finished.connect(self._counted)
        worker.signals.failed.connect(self._count_failed)
        self._counting = True
        QThreadPool.globalInstance().start(worker)

    def _count_failed(self, _message: str) -> None:
        self._counting = False

    def _counted(self, result) -> None:
        study_id, annotator_id, whole_study, counts = result
        self._counting = False
        if self._recount_after:
            self._recount_after = False
            self._soon.start()
        if study_id != self.study_id or annotator_id != self.annotator_id:
            return
        mine = counts.get(annotator_id, (0, 0))
        if not whole_study:  # the study moves by what I did; the others are recounted every few seconds
            self.study_done += mine[0] - self.my_done
        self.my_done, self.my_total = mine
        if whole_study:
            self.study_done = sum(judged for judged, _ in counts.values())
            self.study_total = sum(total for _, total in counts.values())
        self.paint()

    def paint(self) -> None:
        self.mine.setMaximum(max(1, self.my_total))
        self.mine.setValue(min(self.my_done, self.my_total))
        self.study.setMaximum(max(1, self.study_total))
        self.study.setValue(min(self.study_done, self.study_total))
        self.pace.setText("" if self.sitting is None else self.sitting.pace(self.my_total - self.my_done).text())
