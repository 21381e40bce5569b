"""The Tune screen (Ctrl+8): export the open study's dev set, tune in a worker, show before and after, judge again.

Keys (one table, :data:`KEYS`): Ctrl+T exports and tunes, Ctrl+B builds a new study from candidates
re-generated with the tuned weights (for the same judges), Esc cancels the running work. The work runs in
the thread pool behind a progress dialog with Cancel (:mod:`desktop.workers`); the screen only shows what
:mod:`core.tuning.study_tuning` returns: the before/after figures as a table model, the objective per MERT
iteration as a plot, the weights and the signature.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import Qt, QThreadPool, Signal
from PySide6.QtGui import QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressDialog,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from parastudio.core.demo import demo_files
from parastudio.core.store.database import Database
from parastudio.core.tuning.study_tuning import TuneSettings, restudy, tune_study
from parastudio.core.tuning.tune import TuneOptions
from parastudio.desktop.rows_model import RowsTableModel
from parastudio.desktop.workers import Worker

FIGURES = {"pivot": ("precision", "recall", "f1", "accuracy"),
           "mert": ("rp", "rr", "rf", "recall", "f1", "accuracy")}


@dataclass(frozen=True)
class TuneKey:
    keys: str
    action: str
    label: str


KEYS = (
    TuneKey("Ctrl+T", "start_tuning", "Export the dev set and tune"),
    TuneKey("Ctrl+B", "start_restudy", "New study from re-generated candidates"),
    TuneKey("Esc", "cancel", "Cancel the running work"),
)


class TuneScreen(QWidget):
    study_made = Signal(int)  # a new study to judge again

    def __init__(self, db: Database, parent: QWidget | None = None):
        super().__init__(parent)
        self.db = db
        self.study_id: int | None = None
        self.study_name = ""
        self.worker: Worker | None = None
        self.result: dict | None = None
        self.last_result = None
        demo = demo_files()
        self.setFocusPolicy(Qt.StrongFocus)  # its keys work once the tab is shown (the main window focuses it)
        layout = QVBoxLayout(self)
        self.title = QLabel("<b>Tune</b> · no study chosen")
        self.title.setTextFormat(Qt.RichText)
        layout.addWidget(self.title)
        box = QGroupBox("Tuning")
        form = QFormLayout(box)
        self.system_combo = QComboBox()
        self.system_combo.addItems(["beam", "spg", "pivot"])
        self.objective_combo = QComboBox()
        self.objective_combo.addItems(["rf", "f1", "accuracy"])
        self.aggregate_combo = QComboBox()
        self.aggregate_combo.addItems(["adjudicated", "majority", "agree"])
        self.application_combo = QComboBox()
        self.application_combo.addItems(["simplification", "compression", "similarity"])
        self.tables_edit = QLineEdit(str(demo.table))
        self.tables_edit.setToolTip("one or more tables, separated by ; (pivot: a table with h1..h4)")
        self.lm_edit = QLineEdit(str(demo.lm))
        self.nbest_spin = QSpinBox(minimum=1, maximum=200, value=20)
        self.iterations_spin = QSpinBox(minimum=1, maximum=50, value=10)
        self.restarts_spin = QSpinBox(minimum=0, maximum=50, value=5)
        self.heldout_spin = QDoubleSpinBox(minimum=0.0, maximum=0.9, singleStep=0.05, value=0.25)
        for label, widget in (("S&ystem:", self.system_combo), ("&Objective:", self.objective_combo),
                              ("A&ggregate labels:", self.aggregate_combo),
                              ("A&pplication (SPG):", self.application_combo), ("&Tables:", self.tables_edit),
                              ("&LM:", self.lm_edit), ("&N-best:", self.nbest_spin),
                              ("&Iterations (at most):", self.iterations_spin), ("&Restarts:", self.restarts_spin),
                              ("&Held out:", self.heldout_spin)):
            form.addRow(label, widget)
        row = QHBoxLayout()
        row.addWidget(box, 1)
        right = QVBoxLayout()
        self.model = RowsTableModel(("part", "when", *FIGURES["mert"]))
        self.table_view = QTableView()
        self.table_view.setModel(self.model)
        self.table_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table_view.verticalHeader().setVisible(False)
        right.addWidget(self.table_view, 1)
        self.plot = QLabel("the objective per iteration appears here after tuning")
        self.plot.setAlignment(Qt.AlignCenter)
        self.plot.setMinimumHeight(200)
        right.addWidget(self.plot, 1)
        row.addLayout(right, 1)  # half the width for the form: the tables' and LM's paths show whole
        layout.addLayout(row, 1)
        buttons = QHBoxLayout()
        self.buttons = {}
        for key in KEYS:
            button = QPushButton(f"{key.label}  [{key.keys}]")
            button.clicked.connect(getattr(self, key.action))
            buttons.addWidget(button)
            self.buttons[key.action] = button
            QShortcut(QKeySequence(key.keys), self, activated=getattr(self, key.action),
                      context=Qt.WidgetWithChildrenShortcut)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.buttons["start_restudy"].setEnabled(False)
        self.summary = QLabel()
        self.summary.setTextFormat(Qt.RichText)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        layout.addWidget(self.summary)

    def set_study(self, study_id: int, name: str) -> None:
        self.study_id, self.study_name = study_id, name
        self.title.setText(f"<b>Tune</b> · study <b>{html.escape(name)}</b> (the study chosen on Annotate)")

    def settings(self) -> TuneSettings:
        return TuneSettings(
            system=self.system_combo.currentText(), objective=self.objective_combo.currentText(),
            aggregate=self.aggregate_combo.currentText(),
            tables=[p.strip() for p in self.tables_edit.text().split(";") if p.strip()],
            lm=self.lm_edit.text().strip() or None, application=self.application_combo.currentText(),
            nbest=self.nbest_spin.value(),
            options=TuneOptions(heldout=self.heldout_spin.value(), restarts=self.restarts_spin.value(),
                                iterations=self.iterations_spin.value()))

    # work ----------------------------------------------------------------------------------
    def _run(self, function, *args, title: str, done) -> Worker:
        self.dialog = QProgressDialog(title, "Cancel", 0, 100, self)
        self.dialog.setWindowTitle("Paraphrase Studio")
        self.dialog.setMinimumDuration(0)
        self.dialog.setAutoClose(False)
        self.dialog.setAutoReset(False)
        worker = Worker(function, self.db, *args)
        worker.signals.progress.connect(lambda percent, message: (self.dialog.setValue(percent),
                                                                  self.dialog.setLabelText(message)))
        self.dialog.canceled.connect(worker.cancel)

        def finished(result) -> None:
            self.dialog.close()
            self.setFocus()  # the keys work again without the mouse
            self.worker = None
            self.last_result = result
            done(result)

        def cancelled() -> None:
            self.dialog.close()
            self.setFocus()
            self.worker = None
            self.last_result = "cancelled"
            self.summary.setText("cancelled: nothing was written")

        def failed(message: str) -> None:
            self.dialog.close()
            self.setFocus()
            self.worker = None
            self.last_result = message
            self.summary.setText(f"<b>could not finish</b>: {html.escape(message)}")

        worker.signals.finished.connect(finished)
        worker.signals.cancelled.connect(cancelled)
        worker.signals.failed.connect(failed)
        self.worker = worker
        self.last_result = None
        QThreadPool.globalInstance().start(worker)
        return worker

    def start_tuning(self) -> Worker | None:
        if self.study_id is None or self.worker is not None:
            return None
        settings = self.settings()
        self._forget_result()
        return self._run(tune_study, self.study_id, settings, title=f"Tuning {settings.system} on {self.study_name}",
                         done=self.show_result)

    def start_restudy(self) -> Worker | None:
        if self.study_id is None or self.result is None or self.worker is not None:
            return None
        return self._run(restudy, self.study_id, self.result, title="Generating with the tuned weights",
                         done=self._study_made)

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()

    def _forget_result(self) -> None:
        """A new run replaces the last one's figures, plot and re-study button at once: a run cancelled or
        failed leaves none of the previous run's on the screen (issue 28)."""
        self.result = None
        self.model.set_rows([])
        self.plot.clear()
        self.plot.setText("the objective per iteration appears here after tuning")
        self.buttons["start_restudy"].setEnabled(False)

    def _study_made(self, study_id: int) -> None:
        self.summary.setText(self.summary.text() + f"<br>New study made (id {study_id}): judge it on Annotate.")
        self.study_made.emit(study_id)

    def show_result(self, result: dict) -> None:
        self.result = result
        columns = FIGURES["pivot" if result["system"] == "pivot" else "mert"]
        rows, keys = [], []
        for part in ("dev", "heldout"):
            for when in ("before", "after"):
                figures = result[when].get(part)
                if figures:
                    rows.append([part, when, *(f"{100 * figures[c]:.1f}" for c in columns)])
                    keys.append([part, when, *(figures[c] for c in columns)])
        self.model.set_rows(rows, headers=("part", "when", *columns), sort_keys=keys)
        pixmap = QPixmap(result["files"]["plot"])
        if not pixmap.isNull():
            self.plot.setPixmap(pixmap)
        weights = result["weights"][result["system"]]
        mert = result.get("mert")
        iterations = f"{len(mert['iterations'])} MERT iteration(s), " if mert else ""
        self.summary.setText(f"{iterations}{result['seconds']:.1f} s · weights <code>{html.escape(str(weights))}</code>"
                             f"<br>written to {html.escape(result['files']['weights'])} · signature "
                             f"<code>{html.escape(result['signature'])}</code>")
        self.buttons["start_restudy"].setEnabled(result["system"] != "pivot")
