"""The Inspect screen: the judged candidates of a study, failures first, and why a system produced them.

Researchers only (nothing here reaches an annotator's screen). A table of
every judged candidate (green accepted, red rejected, amber disagreed),
filtered by system, criterion, verdict, sentence length and rules applied, and
sortable by any column; beside it the details of the selected candidate
(:func:`core.inspection.details.candidate_details`: the changed words, the
derivation rule by rule with its probability, share and pivots, the LM,
channel, model and true score side by side, every judge's label), the other
systems' candidates of the same sentence, the rules to blame across the study
with an exportable prune list, and two plots (rejection rate per system,
scores of accepted vs rejected).

Keys: Ctrl+F the filters, Up/Down through the rows, Ctrl+S opens the selected
candidate in the Scorer, Ctrl+B the rule blame (worked out the first time),
Ctrl+L exports the prune list, Ctrl+P loads the bilingual table whose pivot
phrases the details show. Loading, details, blame and plots run in workers;
filtering and sorting are plain Python over the loaded rows
(``benchmarks/bench_inspect.py``: a 100,000-candidate study).
"""

from __future__ import annotations

import html
import tempfile
from pathlib import Path

from PySide6.QtCore import Qt, QThreadPool, Signal
from PySide6.QtGui import QColor, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core.engine.changed_words import changed_tokens
from core.inspection.candidate_rows import CandidateRow, candidate_rows, filter_rows
from core.inspection.details import candidate_details, pivot_phrases
from core.inspection.plots import plot_rejection_rates, plot_score_histograms
from core.inspection.rule_blame import rule_blame, write_prune_list
from core.inspection.verdicts import ACCEPTED, REJECTED, VERDICTS
from core.store.database import Database
from desktop.changed_spans import highlighted_html
from desktop import file_dialogs
from desktop.row_views import ListRowsModel, rows_view
from desktop.rows_model import RowsTableModel
from desktop.workers import Worker

COLOURS = {ACCEPTED: "#d9f2d9", REJECTED: "#f7d4d4", "disagreed": "#fbe7c2"}
COLUMNS = ("verdict", "systems", "length", "rules", "model score", "true score", "search error", "candidate")
ANY = "(any)"


class CandidateRowsModel(ListRowsModel):
    """The filtered, sorted rows of a study.

    Every row is sorted once when the sort changes (keys computed once per row); a filter then keeps the
    sorted rows that pass, in order, so filtering never sorts again (``benchmarks/bench_inspect.py``:
    100,000 rows)."""

    COLUMNS = COLUMNS

    def __init__(self):
        super().__init__()
        self.all_rows: list[CandidateRow] = []
        self.rows: list[CandidateRow] = []
        self._sorted_rows: list[CandidateRow] = []
        self._filters: dict = {}
        self._sort = (0, Qt.AscendingOrder)
        self._by_sentence: dict[str, list[CandidateRow]] | None = None

    def load(self, rows: list[CandidateRow]) -> None:
        self.all_rows = rows
        self._by_sentence = None
        self._sorted_rows = self._in_order(rows)
        self.apply(**self._filters)

    def apply(self, **filters) -> None:
        self.beginResetModel()
        self._filters = filters
        self.rows = filter_rows(self._sorted_rows, **filters) if filters else list(self._sorted_rows)
        self.endResetModel()

    def same_sentence(self, sentence: str) -> list[CandidateRow]:
        """Every loaded row of one source sentence (an index built on first use)."""
        if self._by_sentence is None:
            self._by_sentence = {}
            for row in self.all_rows:
                self._by_sentence.setdefault(row.sentence, []).append(row)
        return self._by_sentence.get(sentence, [])

    @staticmethod
    def value(row: CandidateRow, column: int):
        return _COLUMN_VALUES[column](row)

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        if role == Qt.DisplayRole:
            value = self.value(row, index.column())
            return f"{value:.3f}" if isinstance(value, float) else ("" if value is None else str(value))
        if role == Qt.BackgroundRole:
            return QColor(COLOURS.get(row.verdict, "#ffffff"))
        if role == Qt.ToolTipRole and index.column() == len(COLUMNS) - 1:
            return row.source
        return None

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        self.beginResetModel()
        self._sort = (column, order)
        self._sorted_rows = self._in_order(self.all_rows)
        self.rows = filter_rows(self._sorted_rows, **self._filters) if self._filters else list(self._sorted_rows)
        self.endResetModel()

    def _in_order(self, rows: list[CandidateRow]) -> list[CandidateRow]:
        """``rows`` by the sort column, stable, rows without a value last in either direction."""
        column, order = self._sort
        of = _COLUMN_VALUES[column]
        present = [row for row in rows if of(row) is not None]
        missing = [row for row in rows if of(row) is None]
        present.sort(key=of, reverse=order == Qt.DescendingOrder)
        return present + missing


# One function per column of COLUMNS: what it shows and sorts by.
_COLUMN_VALUES = (
    lambda row: row.verdict or "-",
    lambda row: ", ".join(row.systems),
    lambda row: row.source_length,
    lambda row: row.rules,
    lambda row: row.model_score,
    lambda row: row.true_score,
    lambda row: "yes" if row.search_error else "",
    lambda row: row.text,
)


class InspectScreen(QWidget):
    open_in_scorer = Signal(str, str)  # source, candidate

    def __init__(self, db: Database, parent: QWidget | None = None):
        super().__init__(parent)
        self.db = db
        self.study_id: int | None = None
        self.study_name = ""
        self.table = self.lm = None  # the engine the details recompute scores with (set by set_engine)
        self.engine_paths: tuple[str, str] | None = None  # where Inspect loads its own engine from
        self.engine_state = "none"  # "none" (no engine files), "loading", "ready" or "failed: …"
        self.bilingual = None  # the Moses table a pivot table was built from: each rule's pivot phrases
        self._details_asked = 0  # the newest details request; an older one's answer is dropped
        self._plot_asked = 0  # the newest plot request: the screen shows the rows the filters keep, as exported
        self.plots_dir = Path(tempfile.mkdtemp(prefix="parastudio-inspect-"))
        self.loaded = False
        layout = QVBoxLayout(self)
        self.title = QLabel()
        self.title.setTextFormat(Qt.RichText)
        layout.addWidget(self.title)
        layout.addLayout(self._filters())
        self.splitter = splitter = QSplitter(Qt.Horizontal)
        self.model = CandidateRowsModel()
        self.view = rows_view(self.model, self.show_details)
        self._candidate_first()
        splitter.addWidget(self.view)
        self.side = QTabWidget()
        self.details = QTextBrowser()
        self.sentence_view = QTextBrowser()
        self.side.addTab(self.details, "Details")
        self.side.addTab(self.sentence_view, "Systems on this sentence")
        self.side.addTab(self._blame_tab(), "Rule blame  [Ctrl+B]")
        self.side.addTab(self._plots_tab(), "Plots")
        splitter.addWidget(self.side)
        self._split_once = False  # the table's share is set when the screen first has its width
        layout.addWidget(splitter, 1)
        status_row = QHBoxLayout()
        self.status = QLabel()
        self.busy = QProgressBar()  # shown, moving, while a worker of this screen runs
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(160)
        self.busy.hide()
        self._running = 0
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.busy)
        layout.addLayout(status_row)
        for keys, slot in (("Ctrl+S", self.send_to_scorer), ("Ctrl+B", self.show_blame),
                           ("Ctrl+L", self.export_prune_list), ("Ctrl+F", self.system_combo.setFocus),
                           ("Ctrl+P", self.choose_bilingual)):
            QShortcut(QKeySequence(keys), self, activated=slot, context=Qt.WidgetWithChildrenShortcut)

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._split_once and self.width() > 0:
            self._split_once = True
            self.splitter.setSizes([self.width() * 55 // 100, self.width() * 45 // 100])
            self.view.setColumnWidth(len(COLUMNS) - 1, max(240, self.width() * 55 // 100 * 6 // 10))

    def _candidate_first(self) -> None:
        """The candidate's text, the column a researcher reads, right after the verdict and wide (the numbers
        scroll after it): at 1024 px it was off screen, at 1280 about 20 px wide (issue 28)."""
        header = self.view.horizontalHeader()
        candidate = len(COLUMNS) - 1
        header.moveSection(candidate, 1)
        header.setStretchLastSection(False)
        header.setSectionResizeMode(candidate, QHeaderView.Interactive)
        self.view.setColumnWidth(candidate, 320)

    # layout -------------------------------------------------------------------------------
    def _filters(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.system_combo, self.criterion_combo, self.verdict_combo = QComboBox(), QComboBox(), QComboBox()
        self.verdict_combo.addItems([ANY, *VERDICTS])
        self.min_length, self.max_length = QSpinBox(maximum=10_000), QSpinBox(maximum=10_000, value=10_000)
        self.rules_spin = QSpinBox(minimum=-1, maximum=100, value=-1, specialValueText=ANY)
        for text, widget in (("&System:", self.system_combo), ("C&riterion:", self.criterion_combo),
                             ("&Verdict:", self.verdict_combo), ("Length f&rom:", self.min_length),
                             ("&to:", self.max_length), ("R&ules:", self.rules_spin)):
            label = QLabel(text)
            label.setBuddy(widget)
            row.addWidget(label)
            row.addWidget(widget)
        for combo in (self.system_combo, self.criterion_combo, self.verdict_combo):
            combo.currentIndexChanged.connect(lambda _: self.apply_filters())
        for spin in (self.min_length, self.max_length, self.rules_spin):
            spin.valueChanged.connect(lambda _: self.apply_filters())
        row.addStretch(1)
        pivots = QPushButton("Pivot phrases from…  [Ctrl+P]")
        pivots.setToolTip("Load the bilingual table the pivot table was built from: the details then show the "
                          "pivot phrases behind each rule")
        pivots.clicked.connect(lambda: self.choose_bilingual())
        row.addWidget(pivots)
        return row

    def _blame_tab(self) -> QWidget:
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addWidget(QLabel("Rules in rejected candidates more than in accepted ones (one-sided Fisher test):"))
        self.blame_model = RowsTableModel(("rejected", "accepted", "rejected share", "p", "rule",
                                           "pivot phrases (Ctrl+P)"))
        self.blame_view = QTableView()
        self.blame_view.setModel(self.blame_model)
        self.blame_view.verticalHeader().setVisible(False)
        header = self.blame_view.horizontalHeader()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(QHeaderView.ResizeToContents)  # no clipped count or p-value
        header.moveSection(4, 0)  # the rule first: what the row is about
        layout.addWidget(self.blame_view, 1)
        buttons = QHBoxLayout()
        self.blame_button = QPushButton("Find the rules to blame")
        self.blame_button.clicked.connect(self.compute_blame)
        self.prune_button = QPushButton("Export the prune list…  [Ctrl+L]")
        self.prune_button.clicked.connect(lambda: self.export_prune_list())
        buttons.addWidget(self.blame_button)
        buttons.addWidget(self.prune_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.blamed = []
        return tab

    def _plots_tab(self) -> QWidget:
        tab = QWidget()
        layout = QVBoxLayout(tab)
        self.plot_choice = QComboBox()
        self.plot_choice.addItems(["rejection rate per system", "true scores: accepted vs rejected"])
        self.plot_choice.currentIndexChanged.connect(lambda _: self.draw_plot())
        self.plot_label = QLabel()
        self.plot_label.setAlignment(Qt.AlignCenter)
        self.plot_label.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Ignored)  # never widens the panel
        export = QPushButton("Export the plot (PNG, SVG)…")
        export.clicked.connect(lambda: self.export_plot())
        layout.addWidget(self.plot_choice)
        layout.addWidget(self.plot_label, 1)
        layout.addWidget(export)
        return tab

    # loading -------------------------------------------------------------------------------
    def set_study(self, study_id: int, name: str) -> None:
        self.study_id, self.study_name = study_id, name
        self.loaded = False
        self.title.setText(f"<b>Inspect</b> · study <b>{html.escape(name)}</b> · judged candidates, failures "
                           "in red (researchers only)")

    def set_engine(self, table, lm) -> None:
        """The paraphrase table and LM the details recompute scores with (the Scorer's, or Inspect's own)."""
        self.table, self.lm = table, lm
        self.engine_state = "ready"

    def set_engine_paths(self, table_path: str, lm_path: str) -> None:
        """Where Inspect loads its own engine (in a worker, when first shown) for the LM, channel and exact true
        score of the details; none there: the details say why those scores are missing."""
        self.engine_paths = (table_path, lm_path)

    def load_engine(self) -> None:
        """The table and LM, loaded once in a worker; the status and the details say so meanwhile."""
        if self.engine_state in ("ready", "loading") or self.engine_paths is None:
            return
        table_path, lm_path = self.engine_paths
        if not (Path(table_path).is_file() and Path(lm_path).is_file()):
            self.engine_state = "none"
            return
        from desktop.scorer_window import load_engine

        self.engine_state = "loading"
        worker = Worker(load_engine, table_path, lm_path)
        worker.signals.finished.connect(self._engine_loaded)
        worker.signals.failed.connect(self._engine_failed)
        self._engine_worker = self._start(worker, f"loading the engine ({Path(table_path).name}, "
                                                  f"{Path(lm_path).name}) for the LM, channel and true scores…")

    def _engine_loaded(self, result) -> None:
        if self.engine_state == "ready":
            return  # the Scorer's engine came first
        self.set_engine(*result)
        self.status.setText("engine loaded: the details show the LM, channel and exact true score")
        self.show_details(self.view.currentIndex().row())

    def _engine_failed(self, message: str) -> None:
        self.engine_state = f"failed: {message}"
        self.status.setText(f"could not load the engine: {message}")
        self.show_details(self.view.currentIndex().row())

    def engine_note(self) -> str:
        """Why the details have no LM, channel or true score yet ('' once they do)."""
        if self.engine_state == "ready":
            return ""
        if self.engine_state == "loading":
            return "loading the engine: the LM, channel and exact true score appear when it is loaded"
        if self.engine_state.startswith("failed"):
            return f"no engine ({self.engine_state[len('failed: '):]}): no LM, channel or exact true score"
        where = " / ".join(self.engine_paths) if self.engine_paths else "(none given)"
        return (f"no table or LM at {where}: start with `parastudio app --table T --lm LM` for the LM, channel "
                "and exact true score")

    def refresh(self) -> None:
        if self.study_id is None:
            return
        self.load_engine()
        db, study_id = self.db, self.study_id
        worker = Worker(lambda report: (study_id, candidate_rows(db, study_id)))
        worker.signals.finished.connect(self._loaded)
        worker.signals.failed.connect(lambda message: self.status.setText(f"could not load: {message}"))
        self._worker = self._start(worker, "loading the judged candidates…")

    def _start(self, worker: Worker, message: str) -> Worker:
        """Run ``worker`` in the pool with the busy bar moving until it ends; return it (keep a reference)."""
        self._running += 1
        self.busy.show()

        def ended(*_):
            self._running -= 1
            self.busy.setVisible(self._running > 0)

        for signal in (worker.signals.finished, worker.signals.failed, worker.signals.cancelled):
            signal.connect(ended)
        self.status.setText(message)
        QThreadPool.globalInstance().start(worker)
        return worker

    def _loaded(self, result) -> None:
        study_id, rows = result
        if study_id != self.study_id:
            return
        self.loaded = True
        systems = sorted({system for row in rows for system in row.systems})
        criteria = sorted({criterion for row in rows for criterion in row.criteria})
        for combo, values in ((self.system_combo, systems), (self.criterion_combo, criteria)):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems([ANY, *values])
            combo.blockSignals(False)
        self.model.load(rows)
        self.apply_filters()

    def apply_filters(self) -> None:
        def chosen(combo):
            return None if combo.currentText() in (ANY, "") else combo.currentText()

        self.model.apply(system=chosen(self.system_combo), criterion=chosen(self.criterion_combo),
                         verdict=chosen(self.verdict_combo), min_length=self.min_length.value(),
                         max_length=self.max_length.value(),
                         rules=None if self.rules_spin.value() < 0 else self.rules_spin.value())
        shown, total = self.model.rowCount(), len(self.model.all_rows)
        rejected = sum(1 for row in self.model.rows if row.verdict == REJECTED)
        self.status.setText(f"{shown} of {total} judged candidates shown · {rejected} rejected")
        if shown:
            self.view.selectRow(0)
        self.draw_plot()  # the plot on screen is always the rows shown (the one exported)

    # the selected candidate -------------------------------------------------------------------
    def current(self) -> CandidateRow | None:
        row = self.view.currentIndex().row()
        return self.model.rows[row] if 0 <= row < len(self.model.rows) else None

    def show_details(self, index: int) -> None:
        """The selected candidate's details, worked out in a worker (the exact true score of a long sentence
        and the pivot phrases take a moment); a newer selection's answer replaces an older one's."""
        if not 0 <= index < len(self.model.rows):
            return
        row = self.model.rows[index]
        self.sentence_view.setHtml(self._sentence_html(row))
        self._details_asked += 1
        asked, db, table, lm, bilingual = self._details_asked, self.db, self.table, self.lm, self.bilingual
        worker = Worker(lambda report: (asked, candidate_details(db, row.candidate_id, table=table, lm=lm,
                                                                  bilingual=bilingual)))
        worker.signals.finished.connect(self._details_ready)
        worker.signals.failed.connect(lambda message: self.status.setText(f"could not show the details: {message}"))
        self._details_worker = worker
        QThreadPool.globalInstance().start(worker)

    def _details_ready(self, result) -> None:
        asked, details = result
        if asked == self._details_asked:
            self.details.setHtml(details_html(details, self.engine_note()))

    def choose_bilingual(self, path: str | None = None) -> None:
        """Load the bilingual Moses table the pivot table came from (in a worker), so each rule of a derivation
        shows the pivot phrases behind its probability."""
        if path is None:
            start = Path("evaldata/build/tables/web-rv.phrase-table.gz")
            path, _ = file_dialogs.get_open_file_name(self, "The bilingual table the pivot table was built from",
                                                      str(start if start.is_file() else Path.cwd()),
                                                      "Moses phrase tables (*.gz *.txt *.pstable);;All files (*)")
        if not path:
            return
        from core.engine.paraphrase_table import ParaphraseTable

        worker = Worker(lambda report: ParaphraseTable.load(path))
        worker.signals.finished.connect(lambda table: self._bilingual_loaded(table, path))
        worker.signals.failed.connect(lambda message: self.status.setText(f"could not load {path}: {message}"))
        self._bilingual_worker = self._start(worker, f"loading {path} for the pivot phrases…")

    def _bilingual_loaded(self, table, path: str) -> None:
        self.bilingual = table
        self.status.setText(f"pivot phrases from {path}")
        self.show_details(self.view.currentIndex().row())
        if self.blamed:
            self._show_blame_rows()

    def _sentence_html(self, selected: CandidateRow) -> str:
        """Every system's candidates of the selected row's sentence, side by side: one column per system."""
        by_system: dict[str, list[CandidateRow]] = {}
        for row in self.model.same_sentence(selected.sentence):
            for system in row.systems:
                by_system.setdefault(system, []).append(row)
        systems = sorted(by_system)
        parts = [f"<p><b>Source</b>: {html.escape(selected.source)}</p>",
                 "<table border=1 cellspacing=0 cellpadding=4 width='100%'><tr>"]
        for system in systems:
            rejected = sum(row.verdict == REJECTED for row in by_system[system])
            parts.append(f"<th>{html.escape(system)}<br><small>{len(by_system[system])} judged, "
                         f"{rejected} rejected</small></th>")
        parts.append("</tr><tr>")
        for system in systems:
            cells = []
            for row in sorted(by_system[system], key=lambda r: r.scores.get(system, {}).get("rank") or 0):
                _, marked = changed_tokens(row.source, row.text)
                mark = " ◀" if row is selected else ""
                cells.append(f"<p style='background:{COLOURS.get(row.verdict, '#fff')}'>"
                             f"<b>{html.escape(row.verdict or '-')}</b>{mark}: "
                             f"{highlighted_html(row.text.split(), marked)}</p>")
            parts.append(f"<td valign='top'>{''.join(cells)}</td>")
        parts.append("</tr></table>")
        return "".join(parts)

    def send_to_scorer(self) -> None:
        row = self.current()
        if row is not None:
            self.open_in_scorer.emit(row.source, row.text)

    # blame and plots ---------------------------------------------------------------------------
    def show_blame(self) -> None:
        """The rule blame tab, worked out the first time it is shown."""
        self.side.setCurrentIndex(2)
        if not self.blamed:
            self.compute_blame()

    def compute_blame(self) -> None:
        if self.study_id is None:
            return
        db, study_id = self.db, self.study_id
        worker = Worker(lambda report: rule_blame(db, study_id))
        worker.signals.finished.connect(self._blamed)
        worker.signals.failed.connect(lambda message: self.status.setText(f"could not find the rules: {message}"))
        self._blame_worker = self._start(worker, "finding the rules to blame…")

    def _blamed(self, blamed) -> None:
        self.blamed = blamed
        self._show_blame_rows()

        self.status.setText(f"{len(blamed)} rules occur in rejected candidates")

    def _show_blame_rows(self) -> None:
        """The 200 rules most to blame, with the pivot phrases behind each once a bilingual table is loaded."""
        def behind(rule):
            if self.bilingual is None:
                return ""
            return ", ".join(f"{f} ({term:.3g})" for f, term in pivot_phrases(rule.source, rule.target,
                                                                              self.bilingual, limit=3))

        self.blame_model.set_rows([[b.rejected, b.accepted, f"{b.rejected_share:.0%}", f"{b.p_value:.3g}",
                                    f"{b.source} → {b.target}", behind(b)] for b in self.blamed[:200]])

    def export_prune_list(self, path: str | None = None, top: int = 20) -> str | None:
        if not self.blamed:
            self.status.setText("find the rules to blame first")
            return None
        if path is None:
            path, _ = file_dialogs.get_save_file_name(self, "Export the prune list", "prune-list.txt", "Text (*.txt)")
        if not path:
            return None
        count = write_prune_list(self.blamed[:top], path)
        self.status.setText(f"wrote {count} rules to {path}: `parastudio table prune TABLE --list {path} -o OUT`")
        return path

    def draw_plot(self) -> None:
        """The chosen plot of the rows shown, drawn in a worker (matplotlib takes a second to load)."""
        if not self.model.all_rows:
            return
        choice = self.plot_choice.currentIndex()
        self._plot_asked += 1
        asked = self._plot_asked
        path = self.plots_dir / f"plot-{asked}.png"
        rows = list(self.model.rows)
        plot = plot_rejection_rates if choice == 0 else plot_score_histograms
        worker = Worker(lambda report: (asked, plot(rows, path)))
        worker.signals.finished.connect(self._show_plot)
        # A plot that cannot be drawn says so; the screen goes on.
        worker.signals.failed.connect(lambda message: self.plot_label.setText(f"could not draw the plot: {message}"))
        self._plot_worker = worker
        QThreadPool.globalInstance().start(worker)

    def _show_plot(self, result) -> None:
        """The plot scaled to the space the tab has (a full-size image would push the table aside); an older
        request's plot (the filters changed since) is dropped."""
        asked, drawn = result
        if asked != self._plot_asked:
            Path(drawn).unlink(missing_ok=True)
            return
        pixmap = QPixmap(str(drawn))
        Path(drawn).unlink(missing_ok=True)
        width = max(200, self.side.width() - 24)
        self.plot_label.setPixmap(pixmap if pixmap.width() <= width else
                                  pixmap.scaledToWidth(width, Qt.SmoothTransformation))

    def export_plot(self, path: str | None = None) -> str | None:
        if path is None:
            path, _ = file_dialogs.get_save_file_name(self, "Export the plot", "plot.png", "PNG (*.png);;SVG (*.svg)")
        if not path:
            return None
        (plot_rejection_rates if self.plot_choice.currentIndex() == 0 else plot_score_histograms)(
            self.model.rows, path)
        return path


def details_html(details, engine_note: str = "") -> str:
    """The details pane: changed words, the derivation rule by rule, the scores side by side, the judges;
    ``engine_note`` says why the LM, channel and true score are missing."""
    source_html = highlighted_html(details.source.split(), details.changed_source)
    candidate_html = highlighted_html(details.text.split(), details.changed_candidate)
    parts = [f"<p><b>Source</b>: {source_html}</p><p><b>Candidate</b> ({html.escape(', '.join(details.systems))}): "
             f"{candidate_html}</p>", "<h4>Derivation</h4>"]
    if details.steps:
        parts.append("<table border=1 cellspacing=0 cellpadding=3><tr><th>rule</th><th>p</th><th>share of the rules' "
                     "log10</th><th>pivot phrases</th></tr>")
        for step in details.steps:
            pivots = ", ".join(f"{html.escape(f)} ({term:.3g})" for f, term in step.pivots) or "–"
            parts.append(f"<tr><td>{html.escape(step.source)} → {html.escape(step.target)}</td>"
                         f"<td>{step.probability:.4g}</td><td>{step.log10_share:.0%}</td><td>{pivots}</td></tr>")
        parts.append("</table>")
    else:
        parts.append("<p><i>No derivation stored (an imported candidate): changes found by a word diff.</i></p>")

    def shown(value):
        return "–" if value is None else f"{value:.4f}"

    parts.append("<h4>Scores (log10)</h4><table border=1 cellspacing=0 cellpadding=3><tr><th>system</th>"
                 "<th>model score</th><th>true score (reported)</th></tr>")
    for system, score in details.scores.items():
        parts.append(f"<tr><td>{html.escape(system)}</td><td>{shown(score.get('model_score'))}</td>"
                     f"<td>{shown(score.get('true_score'))}</td></tr>")
    parts.append(f"</table><p>LM: {shown(details.lm_log10)} · channel of this derivation: "
                 f"{shown(details.channel_log10)} · exact true score: {shown(details.true_log10)}</p>")
    if engine_note:
        parts.append(f"<p style='color:#666'><i>{html.escape(engine_note)}</i></p>")
    if details.search_error:
        parts.append("<p style='color:#b00000'><b>Search error</b> (seed 000): the system's score is below the exact "
                     "true score of this candidate: it kept a worse derivation than the best one.</p>")
    parts.append("<h4>Judges</h4><ul>")
    for judge in details.judges:
        comment = f" — <i>{html.escape(judge.comment)}</i>" if judge.comment else ""
        took = f", {judge.duration_ms / 1000:.1f} s" if judge.duration_ms is not None else ""
        parts.append(f"<li>{html.escape(judge.annotator)}, {html.escape(judge.criterion)}: "
                     f"<b>{html.escape(judge.value or '')}</b> ({html.escape(judge.answered_at or '')}{took})"
                     f"{' ⚑' if judge.flag else ''}{comment}</li>")
    parts.append("</ul>")
    return "".join(parts)
