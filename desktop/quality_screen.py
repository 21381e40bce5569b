"""Quality control: per annotator, consistency on repeated items and the share
of planted controls judged bad, with pass or fail (Appraise-style, as WMT); below, each judge's competence per
criterion by MACE or Dawid-Skene (:mod:`core.stats.judge_competence`) with the data it stands on."""

from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel, Qt, QThreadPool, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from parastudio.core.stats.judge_competence import COMPETENCE_MODELS, CompetenceModel
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.core.study_judgments import da_reliability, study_competence
from parastudio.desktop.rows_model import RowsTableModel
from parastudio.desktop.workers import Worker

HEADERS = ("annotator", "repeat pairs", "consistency", "controls judged", "controls judged bad", "result", "why")
COMPETENCE_HEADERS = ("annotator", "criterion", "competence", "judgments", "items in fit", "judgments in fit")
MODEL_NAMES = {"mace": "MACE (Hovy et al. 2013)", "dawid-skene": "Dawid–Skene (1979)"}


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


class QualityScreen(QWidget):
    computed = Signal()

    def __init__(self, db: Database, parent: QWidget | None = None):
        super().__init__(parent)
        self.db = db
        self.study_id: int | None = None
        self._request = 0  # the latest refresh; older results arriving late are dropped
        self.reports: list[ops.QualityReport] = []
        layout = QVBoxLayout(self)
        self.title = QLabel()
        self.title.setTextFormat(Qt.RichText)
        layout.addWidget(self.title)
        controls = QHBoxLayout()
        self.min_consistency = QDoubleSpinBox(minimum=0, maximum=1, singleStep=0.05,
                                              value=ops.DEFAULT_QC_THRESHOLDS["min_consistency"])
        self.min_control = QDoubleSpinBox(minimum=0, maximum=1, singleStep=0.05,
                                          value=ops.DEFAULT_QC_THRESHOLDS["min_control_pass"])
        consistency_label, control_label = QLabel("Minimum &consistency:"), QLabel("Minimum control &pass rate:")
        consistency_label.setBuddy(self.min_consistency)
        control_label.setBuddy(self.min_control)
        for widget in (consistency_label, self.min_consistency, control_label, self.min_control):
            controls.addWidget(widget)
        self.refresh_button = QPushButton("Recompute  [F5]")
        self.refresh_button.clicked.connect(self.refresh)
        controls.addWidget(self.refresh_button)
        controls.addStretch(1)
        layout.addLayout(controls)
        self.model = RowsTableModel(HEADERS)
        proxy = QSortFilterProxyModel(self)
        proxy.setSourceModel(self.model)
        proxy.setSortRole(Qt.UserRole)
        self.view = QTableView()
        self.view.setModel(proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(0, Qt.AscendingOrder)
        self.view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.verticalHeader().setVisible(False)
        layout.addWidget(self.view, 1)
        self.note = QLabel(
            "Consistency: share of repeated items an annotator judged the same way twice. Controls: candidates "
            "with a phrase swapped in from another sentence, which must be judged bad on the criteria that show "
            "the source. An annotator passes when every measured rate reaches its minimum.")
        self.note.setWordWrap(True)
        layout.addWidget(self.note)
        # Direct assessment (issue 30): each judge's one-sided test on the degraded candidates they scored.
        self.da_label = QLabel()
        self.da_label.setTextFormat(Qt.RichText)
        self.da_label.setWordWrap(True)
        layout.addWidget(self.da_label)
        self.reliability = []
        self._add_competence(layout)
        self.min_consistency.valueChanged.connect(self.refresh)
        self.min_control.valueChanged.connect(self.refresh)

    def _add_competence(self, layout: QVBoxLayout) -> None:
        row = QHBoxLayout()
        self.competence_model = QComboBox()
        for model in COMPETENCE_MODELS:
            self.competence_model.addItem(MODEL_NAMES[model], model)
        caption = QLabel("Judge co&mpetence by:")
        caption.setBuddy(self.competence_model)
        row.addWidget(caption)
        row.addWidget(self.competence_model)
        row.addStretch(1)
        layout.addLayout(row)
        self.competence_rows = RowsTableModel(COMPETENCE_HEADERS)
        self.competence_view = QTableView()
        self.competence_view.setModel(self.competence_rows)
        self.competence_view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.competence_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.competence_view.verticalHeader().setVisible(False)
        layout.addWidget(self.competence_view, 1)
        self.competence_note = QLabel()
        self.competence_note.setWordWrap(True)
        layout.addWidget(self.competence_note)
        self.competence = []
        self.competence_model.currentIndexChanged.connect(self.refresh)

    def set_study(self, study_id: int, name: str) -> None:
        self.study_id = study_id
        self.title.setText(f"<b>Quality control</b> · study <b>{name}</b>")
        self.refresh()

    def refresh(self) -> None:
        if self.study_id is None:
            return
        thresholds = {"min_consistency": self.min_consistency.value(),
                      "min_control_pass": self.min_control.value()}
        study_id, db = self.study_id, self.db
        self._request += 1
        request = self._request
        model = CompetenceModel(self.competence_model.currentData())
        worker = Worker(lambda _report: (request, ops.quality_control(db, study_id, thresholds),
                                         da_reliability(db, study_id), study_competence(db, study_id, model)))
        worker.signals.finished.connect(self._show)  # bound: dropped if this screen goes first
        self._worker = worker
        QThreadPool.globalInstance().start(worker)

    def _show(self, outcome: tuple) -> None:
        """``outcome``: (request, quality reports[, direct assessment reliability per judge[, competence]])."""
        request, reports, *more = outcome
        reliability = more[0] if more else []
        competence = more[1] if len(more) > 1 else []
        if request != self._request:
            return  # a refresh started before the latest one: its judgments may be out of date
        self.reports, self.reliability = reports, reliability
        self.da_label.setText("" if not reliability else "<b>Direct assessment</b>, degraded candidates (words "
                              "dropped or repeated) scored lower, one-sided Wilcoxon: " + "; ".join(
            f"{r.annotator}: {r.pairs} pairs, p {'–' if r.p_value is None else f'{r.p_value:.3g}'}"
            f" ({'reliable' if r.p_value is not None and r.p_value < 0.05 else 'not shown reliable'})"
            for r in reliability))
        rows, keys, colours = [], [], []
        for r in reports:
            result = "not measured yet" if r.passed is None else ("PASS" if r.passed else "FAIL")
            rows.append([r.annotator, r.repeat_pairs, _rate(r.consistency), r.controls_judged,
                         _rate(r.control_pass_rate), result, "; ".join(r.reasons)])
            keys.append([r.annotator, r.repeat_pairs, -1 if r.consistency is None else r.consistency,
                         r.controls_judged, -1 if r.control_pass_rate is None else r.control_pass_rate, result,
                         ""])
            colours.append(None if r.passed is None else ("#d9f2d9" if r.passed else "#f8d0d0"))
        self.model.set_rows(rows, sort_keys=keys, colours=colours)
        self._show_competence(competence)
        self.computed.emit()

    def _show_competence(self, competence: list) -> None:
        """Each judge's competence per fitted criterion; one line per criterion the models do not apply to."""
        self.competence = competence
        rows = [[judge.annotator, result.criterion, f"{judge.competence:.3f}", judge.judgments,
                 len(result.fit.items), result.fit.judgments]
                for result in competence if result.fit is not None for judge in result.fit.judges.values()]
        self.competence_rows.set_rows(rows)
        signatures = [f"{r.criterion}: {r.fit.signature}" for r in competence if r.fit is not None]
        self.competence_note.setText("\n".join([f"{r.criterion}: {r.note}" for r in competence if r.fit is None]
                                               + signatures))
