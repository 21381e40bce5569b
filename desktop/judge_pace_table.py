"""The Studies screen's per-judge breakdown of the selected study (issue 44): judged of assigned, the judge's median
seconds per item, the time their open items take at that pace, their sittings and the latest one's length and
pace block by block (:func:`core.judging.pace.judge_paces`), and their training items agreed of given and whether
they passed (:func:`core.store.training.training_results`), read in a worker."""

from __future__ import annotations

from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from parastudio.core.judging.pace import JudgePace, judge_paces
from parastudio.core.stats.judging_pace import duration_text
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.desktop.rows_model import RowsTableModel
from parastudio.desktop.workers import Worker

HEADERS = ("judge", "judged", "s/item", "time left", "sittings", "latest sitting", "s/item per 25 answers",
           "training agreed")


def training_text(result: ops.TrainingResult | None) -> str:
    """A judge's training items (``study assign --training N``): agreed of given, and whether they passed."""
    if result is None:
        return "–"
    verdict = {None: f"{result.answered} answered", True: "passed", False: "not passed"}[result.passed]
    return f"{result.agreed} / {result.given}, {verdict}"


def pace_row(pace: JudgePace, training: ops.TrainingResult | None = None) -> list:
    median = "–" if pace.median_s is None else f"{pace.median_s:.1f}"
    latest = (f"{pace.latest_answers} answers, {duration_text(60 * pace.latest_minutes)}" if pace.latest_answers
              else "–")
    blocks = " → ".join("–" if b is None else f"{b:.1f}" for b in pace.latest_blocks) or "–"
    return [pace.name, f"{pace.judged} / {pace.assigned}", median, duration_text(pace.seconds_left), pace.sittings,
            latest, blocks, training_text(training)]


class JudgePaceTable(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("<b>Judges</b> of the selected study: their pace (median seconds per item, the judging "
                            "clock) and the time left at it")
        layout.addWidget(self.title)
        self.model = RowsTableModel(HEADERS)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.view.verticalHeader().setVisible(False)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.setMinimumHeight(40)  # a header and a row at least; the screen must fit 600 pixels high
        layout.addWidget(self.view)
        self.study_id: int | None = None
        self.db: Database | None = None

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """Read again whenever the researcher comes back to the screen: the judges work meanwhile."""
        if self.db is not None:
            self.show_study(self.db, self.study_id)
        super().showEvent(event)

    def show_study(self, db: Database, study_id: int | None) -> None:
        self.db, self.study_id = db, study_id
        if study_id is None:
            self.model.set_rows([])
            return
        worker = Worker(lambda _report: (study_id, judge_paces(db, study_id),
                                         {r.annotator: r for r in ops.training_results(db, study_id)}))
        worker.signals.finished.connect(self._read)
        QThreadPool.globalInstance().start(worker)

    def _read(self, result) -> None:
        study_id, paces, training = result
        if study_id == self.study_id:
            self.model.set_rows([pace_row(pace, training.get(pace.name)) for pace in paces])
