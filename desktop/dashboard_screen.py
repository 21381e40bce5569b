"""The dashboard: agreement and the seeds' report tables, recomputed off the UI
thread whenever the study has new judgments (checked every few seconds while
the screen is visible), each with its signature so a figure can be recomputed.

The last tables are the automatic metrics against the judges, system level, one per criterion whose labels
are numbers (``parastudio metaeval``'s; :func:`core.study_metaeval.metaeval_system_tables`).

The first table is every agreement statistic the CLI prints (Cohen, fixed-chance
and Fleiss κ, Krippendorff's α, with 95 % bootstrap intervals); each table can
be exported as CSV or Markdown (Ctrl+E) and its plot as PNG or SVG (Ctrl+P)."""

from __future__ import annotations

import html

from PySide6.QtCore import QStringListModel, Qt, QThreadPool, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListView,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from parastudio.core.judging.pace import study_pace_table
from parastudio.core.progress import Progress, no_progress
from parastudio.core.stats.report_render import format_cell, render_table, render_table_plot
from parastudio.core.stats.report_tables import Report, build_report
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.core.study_judgments import (
    competence_alert,
    early_stopping,
    pattern_pairs_extracted,
    sampling_note,
    study_da_scores,
    study_judgment_records,
    study_preferences,
)
from parastudio.core.study_metaeval import metaeval_system_tables
from parastudio.core.textio import atomic_output
from parastudio.desktop import file_dialogs
from parastudio.desktop.rows_model import RowsTableModel
from parastudio.desktop.workers import Worker

POLL_MS = 4000


# Bootstrap replicates of the agreement intervals on screen: enough for two significant digits, quick enough
# to recompute while judges work (the CLI report uses 1,000; the signature says which).
DASHBOARD_BOOTSTRAP = 300


def compute_report(db: Database, study_id: int, title: str, progress: Progress = no_progress) -> tuple[Report, int]:
    """The report of the study's live judgments, and how many there were (the metrics against the judges come
    after it, :meth:`DashboardScreen._metaeval`: on a large study they take a minute the other tables need not
    wait for)."""
    records = study_judgment_records(db, study_id)
    if not len(records):
        return Report(title=title), 0
    report = build_report(records, title=title, bootstrap=DASHBOARD_BOOTSTRAP, progress=progress,
                          pairs_extracted=pattern_pairs_extracted(db, study_id),
                          sampling=sampling_note(db, study_id),
                          preferences=study_preferences(db, study_id),
                          da_scores=study_da_scores(db, study_id),
                          early_stopping=early_stopping(db, study_id))
    report.tables.append(study_pace_table(db, study_id))  # each judge's pace over their latest sitting (issue 44)
    return report, len(records)


class DashboardScreen(QWidget):
    def __init__(self, db: Database, parent: QWidget | None = None):
        super().__init__(parent)
        self.db = db
        self.study_id: int | None = None
        self.study_name = ""
        self.report: Report | None = None
        self._seen_judgments = -1
        self._busy = False
        self._summary = "no judgments yet"
        self._kept_title: str | None = None  # the table shown when a refresh began
        self._metaeval_cache: dict = {}  # used by one worker at a time (``_busy``)
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.title = QLabel()
        self.title.setTextFormat(Qt.RichText)
        top.addWidget(self.title, 1)
        self.refresh_button = QPushButton("Recompute now  [F5]")
        self.refresh_button.clicked.connect(lambda: self.refresh(force=True))
        self.export_table_button = QPushButton("Export table…  [Ctrl+E]")
        self.export_table_button.clicked.connect(self.export_table)
        self.export_plot_button = QPushButton("Export plot…  [Ctrl+P]")
        self.export_plot_button.clicked.connect(self.export_plot)
        self.export_table_button.setToolTip("the table shown, as CSV or Markdown (by the file name)")
        self.export_plot_button.setToolTip("the plot of the table shown, as PNG or SVG (by the file name)")
        for button in (self.refresh_button, self.export_table_button, self.export_plot_button):
            top.addWidget(button)
        QShortcut(QKeySequence("Ctrl+E"), self, activated=self.export_table, context=Qt.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence("Ctrl+P"), self, activated=self.export_plot, context=Qt.WidgetWithChildrenShortcut)
        layout.addLayout(top)
        splitter = QSplitter(Qt.Horizontal)
        self.tables_model = QStringListModel()
        self.tables_view = QListView()
        self.tables_view.setModel(self.tables_model)
        self.tables_view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.tables_view.selectionModel().currentChanged.connect(lambda current, _: self._show_table(current.row()))
        splitter.addWidget(self.tables_view)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        self.table_title = QLabel()
        self.table_title.setTextFormat(Qt.RichText)
        self.table_title.setWordWrap(True)
        right_layout.addWidget(self.table_title)
        self.model = RowsTableModel()
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.view.verticalHeader().setVisible(False)
        right_layout.addWidget(self.view, 1)
        self.signature = QLabel()
        self.signature.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.signature.setWordWrap(True)
        right_layout.addWidget(self.signature)
        splitter.addWidget(right)
        self.tables_view.setWordWrap(True)
        splitter.setSizes([420, 860])
        layout.addWidget(splitter, 1)
        # The study's competence watch (`study competence-watch`): judges under its minimum, named while it runs.
        self.competence = QLabel()
        self.competence.setWordWrap(True)
        self.competence.setStyleSheet("color: #a00000")
        layout.addWidget(self.competence)
        self.status = QLabel()
        layout.addWidget(self.status)
        self._poll = QTimer(self, interval=POLL_MS)
        self._poll.timeout.connect(self.refresh)
        self._poll.start()

    def set_study(self, study_id: int, name: str) -> None:
        self.study_id, self.study_name = study_id, name
        self._seen_judgments = -1
        self.title.setText(f"<b>Dashboard</b> · study <b>{html.escape(name)}</b> · refreshed while the study "
                           "runs")
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> None:
        """Recompute in a worker if there are new judgments (or when forced)."""
        if self.study_id is None or self._busy or not (force or self.isVisible()):
            return
        study_id, name, seen, db = self.study_id, self.study_name, self._seen_judgments, self.db

        def work(report_progress):
            count = ops.judgment_count(db, study_id)
            if count == seen and not force:
                return study_id, None
            report_progress(10, 100, "reading judgments")
            report, judgments = compute_report(db, study_id, f"Human evaluation report: {name}", report_progress)
            return study_id, (report, judgments, count, competence_alert(db, study_id))

        worker = Worker(work)
        # Bound methods, not closures: Qt drops the connections if this screen goes first.
        worker.signals.finished.connect(self._done)
        worker.signals.failed.connect(self._failed)
        self._busy = True
        self._worker = worker
        self.status.setText("computing…")
        QThreadPool.globalInstance().start(worker)

    def cancel(self) -> None:
        """Stop polling and drop any computation still running (the window is closing)."""
        self._poll.stop()
        for worker in (getattr(self, "_worker", None), getattr(self, "_metaeval_worker", None)):
            if worker is not None:
                worker.cancel()

    def current_table(self):
        row = self.tables_view.currentIndex().row()
        if self.report is None or not 0 <= row < len(self.report.tables):
            return None
        return self.report.tables[row]

    def export_table(self, path: str | None = None) -> str | None:
        """The table shown, as CSV or Markdown (by the file name's suffix)."""
        table = self.current_table()
        if table is None:
            return None
        if path is None:
            path, _ = file_dialogs.get_save_file_name(self, "Export the table", f"{table.key.replace(':', '_')}.csv",
                                                      "CSV (*.csv);;Markdown (*.md)")
        if not path:
            return None
        output_format = "md" if path.lower().endswith(".md") else "csv"
        with atomic_output(path) as handle:
            handle.write(render_table(table, output_format))
        self.status.setText(f"wrote {path}")
        return path

    def export_plot(self, path: str | None = None) -> str | None:
        """The plot of the table shown, as PNG or SVG (by the file name's suffix)."""
        table = self.current_table()
        if table is None or table.plot is None:
            self.status.setText("this table has no plot")
            return None
        if path is None:
            path, _ = file_dialogs.get_save_file_name(self, "Export the plot", f"{table.key.replace(':', '_')}.png",
                                                      "PNG (*.png);;SVG (*.svg)")
        if not path:
            return None
        render_table_plot(table, path)
        self.status.setText(f"wrote {path}")
        return path

    def _failed(self, message: str) -> None:
        self._busy = False
        self.status.setText(f"could not compute: {message}")

    def _done(self, outcome) -> None:
        study_id, result = outcome
        self._busy = False
        if result is None or study_id != self.study_id:
            self.status.setText(f"up to date · {self._summary}")
            return
        titles = self.tables_model.stringList()
        row = self.tables_view.currentIndex().row()
        self._kept_title = titles[row] if 0 <= row < len(titles) else None  # shown again once it is back
        self.report, judgments, self._seen_judgments, alert = result
        self.competence.setText(alert or "")
        self._show_tables()
        self._summary = f"{judgments} live judgments · {len(self.report.tables)} tables"
        if judgments:
            self.status.setText(f"{self._summary} · the metrics against the judges coming…")
            self._metaeval(study_id, self.report)
        else:
            self.status.setText(self._summary)

    def _metaeval(self, study_id: int, report: Report) -> None:
        """The metrics against the judges (issue 43) in a second worker, added to ``report`` when they come."""
        db, cache = self.db, self._metaeval_cache
        worker = Worker(lambda _progress: (study_id, report, metaeval_system_tables(db, study_id, cache)))
        worker.signals.finished.connect(self._metaeval_done)
        worker.signals.failed.connect(self._failed)
        self._busy = True  # the cache is used by one worker at a time
        self._metaeval_worker = worker
        QThreadPool.globalInstance().start(worker)

    def _metaeval_done(self, outcome) -> None:
        study_id, report, tables = outcome
        self._busy = False
        if study_id != self.study_id or report is not self.report:
            return
        report.tables.extend(tables)
        self._show_tables()
        self._summary = f"{self._summary.split(' · ')[0]} · {len(report.tables)} tables"
        self.status.setText(self._summary)

    def _show_tables(self) -> None:
        """The report's tables listed, the one shown before the refresh shown again when it is among them."""
        current = max(0, self.tables_view.currentIndex().row())
        titles = [table.title for table in self.report.tables]
        self.tables_model.setStringList(titles)
        if self.report.tables:
            kept = self._kept_title
            row = titles.index(kept) if kept in titles else min(current, len(titles) - 1)
            self.tables_view.setCurrentIndex(self.tables_model.index(row))
            self._show_table(row)
        else:
            self.model.set_rows([], headers=[])
            self.table_title.setText("<i>No judgments yet.</i>")
            self.signature.setText("")

    def _show_table(self, row: int) -> None:
        if self.report is None or not 0 <= row < len(self.report.tables):
            return
        table = self.report.tables[row]
        cells = [[format_cell(value, column.kind) for value, column in zip(values, table.columns)]
                 for values in table.rows]
        keys = [[value if isinstance(value, (int, float)) else format_cell(value, column.kind)
                 for value, column in zip(values, table.columns)] for values in table.rows]
        self.model.set_rows(cells, headers=[column.name for column in table.columns], sort_keys=keys)
        note = f"<br><i>{html.escape(table.note)}</i>" if table.note else ""
        self.table_title.setText(f"<b>{html.escape(table.title)}</b>{note}")
        self.signature.setText(f"signature: {table.signature}")
