"""The Suggestions screen: seed 001's visualisation tool (§4.1.3), done better, for the span paraphraser.

Choose a case set (the bundled round-trip or WEB-KJV cases, or a cases file
with its search graph) and one or two approaches; both are evaluated in a
worker (progress, Cancel). Every case of every approach is a row, green when
the gold is among the suggestions shown, red when not, filtered by approach,
span length, success, or to the cases where the two approaches disagree, and
sortable by any column. Beside it: the details of the selected case (the
sentence with the span highlighted, the gold, the suggestions with their
scores, the gold's fate through the pipeline and what each stage kept), both
approaches side by side on it, and Fig. 4.3's plot (success by span length per
approach), exported as PNG and SVG. Ctrl+T sends the selected case to a human
choice task (seed 001 §4.2) in the study ``suggestion-cases`` of the open
database. The rows come from :mod:`core.inspection.suggestion_cases`.
"""

from __future__ import annotations

import html
import tempfile
from pathlib import Path

from PySide6.QtCore import Qt, QThreadPool, Signal
from PySide6.QtGui import QColor, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from parastudio.core.engine.decoders.cat.approaches import APPROACHES
from parastudio.core.engine.decoders.cat.graph_store import open_graph
from parastudio.core.inspection.plots import plot_success_by_length
from parastudio.core.inspection.suggestion_cases import (
    CASE_SETS,
    COLUMNS,
    CaseRow,
    approaches_of,
    case_major,
    column_value,
    evaluate_rows,
    fate_counts,
    filter_case_rows,
    load_case_set,
    rows_of_case,
    sort_case_rows,
    success_by_length,
)
from parastudio.core.inspection.suggestion_study import DEFAULT_STUDY, judge_names, send_case, study_exists
from parastudio.core.store.database import Database
from parastudio.desktop import file_dialogs
from parastudio.desktop.row_views import ListRowsModel, rows_view
from parastudio.desktop.suggestion_case_html import GREEN, RED, details_html, side_by_side_html
from parastudio.desktop.workers import Worker

ANY, NONE = "(any)", "(none)"
SUCCESS_CHOICES = (ANY, "found", "not found")
CASES_FILE = "cases file…"

# The screen's keys: (key, what it does); the labels and the key line below the table are written from it.
KEYS = (
    ("Ctrl+E", "evaluate"),
    ("Esc", "cancel"),
    ("Ctrl+F", "filters"),
    ("Ctrl+L", "case list"),
    ("Ctrl+D", "details"),
    ("Ctrl+B", "both approaches"),
    ("Ctrl+P", "plot"),
    ("Ctrl+Shift+P", "export plot"),
    ("Ctrl+T", "send to a choice task"),
)
KEY_OF = {action: key for key, action in KEYS}


def _keyed(text: str, action: str) -> str:
    return f"{text}  [{KEY_OF[action]}]"


class CaseRowsModel(ListRowsModel):
    """The filtered, sorted case rows; green when the gold is shown, red when not."""

    COLUMNS = COLUMNS

    def __init__(self):
        super().__init__()
        self.all_rows: list[CaseRow] = []
        self.rows: list[CaseRow] = []
        self._sort = (-1, Qt.AscendingOrder)

    def load(self, rows: list[CaseRow]) -> None:
        self.all_rows = case_major(rows)  # both approaches of a case next to each other until sorted
        self.apply()

    def apply(self, **filters) -> None:
        self.beginResetModel()
        self.rows = filter_case_rows(self.all_rows, **filters)
        if self._sort[0] >= 0:
            self.rows = sort_case_rows(self.rows, self._sort[0], self._sort[1] == Qt.DescendingOrder)
        self.endResetModel()

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        if role == Qt.DisplayRole:
            value = column_value(row, index.column())
            return "–" if value is None else str(value)
        if role == Qt.BackgroundRole:
            return QColor(GREEN if row.success else RED)
        if role == Qt.ForegroundRole:
            return QColor("#000000")
        if role == Qt.ToolTipRole:
            return row.fate_gloss
        return None

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        """By a column; column -1 (no sort indicator) is the case-by-case order."""
        self.beginResetModel()
        self._sort = (column, order)
        if column >= 0:
            self.rows = sort_case_rows(self.rows, column, order == Qt.DescendingOrder)
        else:
            self.rows = case_major(self.rows)
        self.endResetModel()


class SuggestionInspectScreen(QWidget):
    choice_study_changed = Signal(int)  # a case went to a choice-task study (its id)

    def __init__(self, db: Database, parent: QWidget | None = None, *, lm_path: str | None = None):
        super().__init__(parent)
        self.db = db
        self.lm_path = lm_path
        self.lm = None  # loaded once, in the first evaluation's worker
        self.case_set = CASE_SETS[0]
        self.custom_files: tuple[str, str] | None = None
        self.worker: Worker | None = None
        self.evaluated = False
        # Removed with the screen or when the app exits (a folder per screen was left in the temp dir before).
        self._plots = tempfile.TemporaryDirectory(prefix="parastudio-suggestions-")
        self.plots_dir = Path(self._plots.name)
        self.plot_path: Path | None = None
        layout = QVBoxLayout(self)
        title = QLabel("<b>Suggestions</b> · seed 001's span paraphraser on its test cases: green when the gold is "
                       "among the top 5, red when not")
        title.setTextFormat(Qt.RichText)
        layout.addWidget(title)
        layout.addLayout(self._choices())
        layout.addLayout(self._filters())
        splitter = QSplitter(Qt.Horizontal)
        self.model = CaseRowsModel()
        self.view = rows_view(self.model, self.show_details, fit_columns=False)
        self.view.horizontalHeader().setSortIndicator(-1, Qt.AscendingOrder)  # case by case until a header is clicked
        splitter.addWidget(self.view)
        self.side = QTabWidget()
        self.details = QTextBrowser()
        self.both = QTextBrowser()
        self.side.addTab(self.details, _keyed("Details", "details"))
        self.side.addTab(self.both, _keyed("Both approaches", "both approaches"))
        self.side.addTab(self._plot_tab(), _keyed("Plot", "plot"))
        splitter.addWidget(self.side)
        splitter.setSizes([540, 460])
        layout.addWidget(splitter, 1)
        keys = QLabel(" · ".join(f"{key} {action}" for key, action in KEYS))
        keys.setStyleSheet("color:#555")
        keys.setWordWrap(True)
        layout.addWidget(keys)
        self.status = QLabel("Choose a case set and approaches, then Evaluate (Ctrl+E).")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        actions = {"evaluate": self.evaluate, "cancel": self.cancel, "filters": self.approach_filter.setFocus,
                   "case list": self.view.setFocus, "details": lambda: self.side.setCurrentIndex(0),
                   "both approaches": lambda: self.side.setCurrentIndex(1),
                   "plot": lambda: self.side.setCurrentIndex(2), "export plot": lambda: self.export_plot(),
                   "send to a choice task": lambda: self.send_to_choice_task()}
        for key, action in KEYS:
            QShortcut(QKeySequence(key), self, activated=actions[action], context=Qt.WidgetWithChildrenShortcut)

    # layout -------------------------------------------------------------------------------
    def _choices(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.case_set_combo = QComboBox()
        self.case_set_combo.addItems([*CASE_SETS, CASES_FILE])
        self.case_set_combo.activated.connect(lambda _: self._case_set_chosen())
        self.first_combo, self.second_combo = QComboBox(), QComboBox()
        self.first_combo.addItems(list(APPROACHES))
        self.second_combo.addItems([NONE, *APPROACHES])
        self.first_combo.setCurrentText("approach-1")
        self.second_combo.setCurrentText("approach-10")
        for text, widget in (("&Cases:", self.case_set_combo), ("Approach &1:", self.first_combo),
                             ("Approach &2:", self.second_combo)):
            label = QLabel(text)
            label.setBuddy(widget)
            row.addWidget(label)
            row.addWidget(widget)
        self.evaluate_button = QPushButton(_keyed("&Evaluate", "evaluate"))
        self.evaluate_button.clicked.connect(self.evaluate)
        self.cancel_button = QPushButton(_keyed("Cancel", "cancel"))
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setVisible(False)
        for widget in (self.evaluate_button, self.cancel_button, self.progress):
            row.addWidget(widget)
        row.addStretch(1)
        return row

    def _filters(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.approach_filter = QComboBox()
        self.approach_filter.addItem(ANY)
        self.success_filter = QComboBox()
        self.success_filter.addItems(SUCCESS_CHOICES)
        self.min_length, self.max_length = QSpinBox(minimum=0, maximum=1000), QSpinBox(minimum=0, maximum=1000,
                                                                                       value=1000)
        self.split_only = QCheckBox("only where the approaches &differ")
        for text, widget in (("Show appr&oach:", self.approach_filter), ("Span length f&rom:", self.min_length),
                             ("&to:", self.max_length), ("S&uccess:", self.success_filter)):
            label = QLabel(text)
            label.setBuddy(widget)
            row.addWidget(label)
            row.addWidget(widget)
        row.addWidget(self.split_only)
        for combo in (self.approach_filter, self.success_filter):
            combo.currentIndexChanged.connect(lambda _: self.apply_filters())
        for spin in (self.min_length, self.max_length):
            spin.valueChanged.connect(lambda _: self.apply_filters())
        self.split_only.toggled.connect(lambda _: self.apply_filters())
        row.addStretch(1)
        return row

    def _plot_tab(self) -> QWidget:
        tab = QWidget()
        layout = QVBoxLayout(tab)
        self.plot_label = QLabel("Evaluate to see the success by span length (seed 001 Fig. 4.3).")
        self.plot_label.setAlignment(Qt.AlignCenter)
        self.plot_label.setMinimumSize(200, 120)
        self.plot_label.setScaledContents(False)
        self.fates_label = QLabel()
        self.fates_label.setTextFormat(Qt.RichText)
        self.fates_label.setWordWrap(True)
        export = QPushButton(_keyed("Export the plot as PNG and SVG…", "export plot"))
        export.clicked.connect(lambda: self.export_plot())
        layout.addWidget(self.plot_label, 1)
        layout.addWidget(self.fates_label)
        layout.addWidget(export)
        return tab

    # evaluating ------------------------------------------------------------------------------
    def _case_set_chosen(self) -> None:
        text = self.case_set_combo.currentText()
        if text == CASES_FILE:
            self.choose_cases_file()
        else:
            self.case_set = text

    def choose_cases_file(self, cases: str | None = None, graph: str | None = None) -> None:
        """A cases file (JSON lines, as ``parastudio autoeval --cases``) and the search graph its ids refer to."""
        if cases is None:
            cases, _ = file_dialogs.get_open_file_name(self, "Cases file", "", "Cases (*.jsonl *.json);;All files (*)")
        if cases and graph is None:
            graph, _ = file_dialogs.get_open_file_name(self, "Its search graph or graph store", str(Path(cases).parent),
                                                       "Graphs (*.gz *.graph *.sqlite);;All files (*)")
        if not (cases and graph):
            self.case_set_combo.setCurrentText(self.case_set if self.custom_files is None else CASES_FILE)
            return
        self.custom_files = (cases, graph)
        self.case_set_combo.setCurrentText(CASES_FILE)
        self.status.setText(f"cases {cases} on graph {graph}: evaluate with Ctrl+E")

    def chosen_approaches(self) -> list[str]:
        names = [self.first_combo.currentText()]
        second = self.second_combo.currentText()
        if second not in (NONE, names[0]):
            names.append(second)
        return names

    def evaluate(self) -> None:
        if self.worker is not None:
            return
        names = self.chosen_approaches()
        approaches = [APPROACHES[name] for name in names]
        custom = self.custom_files if self.case_set_combo.currentText() == CASES_FILE else None
        which, graph = (custom[0], custom[1]) if custom else (self.case_set_combo.currentText(), None)
        lm, lm_path, plots_dir = self.lm, self.lm_path, self.plots_dir

        def run(report):
            case_set = load_case_set(which, graph)
            model = lm
            if model is None:
                from parastudio.core.demo import demo_files
                from parastudio.core.engine.lm.language_model import LanguageModel

                report(0, 1, "loading the language model")
                model = LanguageModel(lm_path or demo_files().lm)
            report(0, 1, "opening the search graph")
            with open_graph(case_set.graph, progress=report) as store:
                rows = evaluate_rows(store, case_set.cases, approaches, lm=model, progress=report)
            plot = plots_dir / f"success-by-length-{'-'.join(names)}.png"
            plot_success_by_length(success_by_length(rows), plot)
            return case_set.name, rows, model, plot

        worker = Worker(run)
        worker.signals.progress.connect(self._progressed)
        worker.signals.finished.connect(self._evaluated)
        worker.signals.failed.connect(lambda message: self._stopped(f"could not evaluate: {message}"))
        worker.signals.cancelled.connect(lambda: self._stopped("evaluation cancelled"))
        self.worker = worker
        self.evaluate_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.status.setText(f"evaluating {' and '.join(names)} on {which}…")
        QThreadPool.globalInstance().start(worker)

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.status.setText("cancelling…")

    def _progressed(self, percent: int, message: str) -> None:
        self.progress.setValue(percent)
        if message:
            self.status.setText(message)

    def _stopped(self, message: str) -> None:
        self.worker = None
        self.evaluate_button.setEnabled(True)
        self.cancel_button.setEnabled(False)
        self.progress.setVisible(False)
        self.status.setText(message)

    def _evaluated(self, result) -> None:
        name, rows, self.lm, self.plot_path = result
        self._stopped("")
        self.case_set = name
        self.evaluated = True
        self.approach_filter.blockSignals(True)
        self.approach_filter.clear()
        self.approach_filter.addItems([ANY, *approaches_of(rows)])
        self.approach_filter.blockSignals(False)
        self.model.load(rows)
        self.apply_filters()
        self.view.resizeColumnsToContents()
        for column in range(len(COLUMNS)):
            self.view.setColumnWidth(column, min(self.view.columnWidth(column), 180))
        self._show_plot()

    def apply_filters(self) -> None:
        approach = self.approach_filter.currentText()
        success = self.success_filter.currentText()
        self.model.apply(approach=None if approach in (ANY, "") else approach, min_length=self.min_length.value(),
                         max_length=self.max_length.value(),
                         success=None if success == ANY else success == "found", split=self.split_only.isChecked())
        if not self.model.all_rows:
            return
        totals = []
        for approach in approaches_of(self.model.all_rows):
            own = [row for row in self.model.all_rows if row.approach == approach]
            totals.append(f"{approach}: {sum(row.success for row in own)} of {len(own)}")
        shown = self.model.rowCount()
        found = sum(row.success for row in self.model.rows)
        self.status.setText(f"{self.case_set}, top 5 · {' · '.join(totals)} · {shown} rows shown "
                            f"({found} green, {shown - found} red)")
        if shown:
            self.view.selectRow(0)
        else:
            self.details.setHtml("<p><i>No case matches the filters.</i></p>")
            self.both.clear()

    # the selected case ----------------------------------------------------------------------------
    def current(self) -> CaseRow | None:
        row = self.view.currentIndex().row()
        return self.model.rows[row] if 0 <= row < len(self.model.rows) else None

    def show_details(self, index: int) -> None:
        if not 0 <= index < len(self.model.rows):
            return
        row = self.model.rows[index]
        self.details.setHtml(details_html(row))
        self.both.setHtml(side_by_side_html(list(rows_of_case(self.model.all_rows, row.case_id).values())))

    def send_to_choice_task(self, judges: list[str] | None = None) -> None:
        """Ctrl+T: the selected case as a choice task (seed 001 §4.2) in the study ``suggestion-cases``."""
        row = self.current()
        if row is None:
            self.status.setText("select a case first (evaluate with Ctrl+E)")
            return
        if not row.suggestions:
            self.status.setText(f"case {row.case_id}: {row.approach} made no suggestion to choose from")
            return
        if judges is None and not study_exists(self.db, DEFAULT_STUDY) and not judge_names(self.db):
            text, ok = QInputDialog.getText(self, "Judges of the choice tasks",
                                            f"Nobody judges in this database yet. Judges of “{DEFAULT_STUDY}” "
                                            "(names, comma separated):")
            judges = [name.strip() for name in text.split(",") if name.strip()] if ok else []
            if not judges:
                self.status.setText("no choice task made: it needs at least one judge")
                return
        db, case_set = self.db, self.case_set
        worker = Worker(lambda report: send_case(db, row, case_set, judges=judges))
        worker.signals.finished.connect(lambda sent: self._sent(sent, row))
        worker.signals.failed.connect(lambda message: self.status.setText(f"no choice task made: {message}"))
        self._send_worker = worker
        self.status.setText(f"sending case {row.case_id} to “{DEFAULT_STUDY}”…")
        QThreadPool.globalInstance().start(worker)

    def _sent(self, sent, row: CaseRow) -> None:
        self.last_sent = sent
        self.status.setText(sent.message(row.case_id, row.approach))
        if sent.added:
            self.choice_study_changed.emit(sent.study_id)

    # the plot -------------------------------------------------------------------------------------
    def _show_plot(self) -> None:
        if self.plot_path is not None:
            self.plot_label.setPixmap(QPixmap(str(self.plot_path)).scaledToWidth(
                max(300, min(640, self.side.width() - 30)), Qt.SmoothTransformation))
        parts = []
        for approach, counts in fate_counts(self.model.all_rows).items():
            parts.append(f"<b>{html.escape(approach)}</b>: " + ", ".join(
                f"{html.escape(fate)} {count}" for fate, count in counts.items()))
        self.fates_label.setText("The gold's fate · " + " · ".join(parts) if parts else "")

    def export_plot(self, path: str | None = None) -> None:
        """Writes the plot as PNG and as SVG beside it (``x.png`` and ``x.svg``), in a worker."""
        if not self.model.all_rows:
            self.status.setText("evaluate first: the plot needs the cases")
            return
        if path is None:
            path, _ = file_dialogs.get_save_file_name(self, "Export the plot (PNG and SVG)", "success-by-length.png",
                                                      "PNG and SVG (*.png *.svg)")
        if not path:
            return
        stem = Path(path).with_suffix("")
        table = success_by_length(self.model.all_rows)

        def run(report):
            return [str(plot_success_by_length(table, stem.with_suffix(suffix))) for suffix in (".png", ".svg")]

        worker = Worker(run)
        worker.signals.finished.connect(lambda paths: self._exported(paths))
        worker.signals.failed.connect(lambda message: self.status.setText(f"could not export the plot: {message}"))
        self._export_worker = worker
        QThreadPool.globalInstance().start(worker)

    def _exported(self, paths: list[str]) -> None:
        self.exported = paths
        self.status.setText(f"plot written to {' and '.join(paths)}")
