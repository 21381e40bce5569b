"""The Inspect screen: the judged candidates of a study, failures first, and why a system produced them.

Researchers only (nothing here reaches an annotator's screen). A table of
every judged candidate (green accepted, red rejected, amber disagreed, blue adjudicated: an adjudicator's
decision settled it, named in its adjudication column), filtered by system, criterion, verdict, sentence
length and rules applied, and
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
from PySide6.QtGui import QKeySequence, QPixmap, QShortcut
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

from parastudio.core.demo import demo_files
from parastudio.core.inspection.candidate_rows import CandidateRow, candidate_rows
from parastudio.core.inspection.details import candidate_details, pivot_phrases
from parastudio.core.inspection.plots import plot_rejection_rates, plot_score_histograms
from parastudio.core.inspection.rule_blame import rule_blame, rule_blame_from_spans, write_prune_list
from parastudio.core.judging.view import study_display
from parastudio.core.stats.verdicts import REJECTED, VERDICTS
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.desktop import file_dialogs
from parastudio.desktop.inspect_html import details_html, sentence_systems_html
from parastudio.desktop.inspect_rows_model import ANY, COLUMNS, CandidateRowsModel
from parastudio.desktop.row_views import rows_view
from parastudio.desktop.rows_model import RowsTableModel
from parastudio.desktop.workers import Worker


class InspectScreen(QWidget):
    open_in_scorer = Signal(str, str)  # source, candidate

    def __init__(self, db: Database, parent: QWidget | None = None):
        super().__init__(parent)
        self.db = db
        self.study_id: int | None = None
        self.study_name = ""
        self.table = self.lm = None  # the engine the details recompute scores with (set by set_engine)
        self.display = None  # the study's display rule: the details show the strings as the judges read them
        self.engine_paths: tuple[str, str] | None = None  # where Inspect loads its own engine from
        self.engine_state = "none"  # "none" (no engine files), "loading", "ready" or "failed: …"
        self.bilingual = None  # the Moses table a pivot table was built from: each rule's pivot phrases
        self._details_asked = 0  # the newest details request; an older one's answer is dropped
        self._plot_asked = 0  # the newest plot request: the screen shows the rows the filters keep, as exported
        # Removed with the screen or when the app exits (a folder per screen was left in the temp dir before).
        self._plots = tempfile.TemporaryDirectory(prefix="parastudio-inspect-")
        self.plots_dir = Path(self._plots.name)
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
        # Where a rewrite's blame comes from: its candidates' verdicts, or the words judges marked (error spans).
        self.blame_from = QComboBox()
        # Short item texts: this row shares the details pane's width with the table's candidate column.
        self.blame_from.addItems(["verdicts", "marked words"])
        self.blame_from.setToolTip("verdicts: each rewrite takes its whole candidate's verdict; marked words: the "
                                   "words judges marked as wrong (error spans) blame the rewrites that made them")
        self.blame_from.currentIndexChanged.connect(lambda _: self.compute_blame())
        blame_from_label = QLabel("Bla&me from:")
        blame_from_label.setBuddy(self.blame_from)
        buttons.addWidget(blame_from_label)
        buttons.addWidget(self.blame_from)
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
        from parastudio.desktop.scorer_window import load_engine

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
        worker = Worker(lambda report: (study_id, candidate_rows(db, study_id),
                                        study_display(ops.study_settings(db, study_id), str(demo_files().truecase_model))))
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
        study_id, rows, self.display = result
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
        # Settled verdicts, as rule blame and the plots count them: an adjudicator's rejection is a rejection.
        rejected = sum(1 for row in self.model.rows if row.verdict == REJECTED)
        adjudicated = sum(1 for row in self.model.rows if row.adjudications)
        self.status.setText(f"{shown} of {total} judged candidates shown · {rejected} rejected"
                            + (f" · {adjudicated} adjudicated" if adjudicated else ""))
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
            self.details.setHtml(details_html(details, self.engine_note(), self.display))

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
        from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable

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
        return sentence_systems_html(selected, self.model.same_sentence(selected.sentence))

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
        blame = rule_blame_from_spans if self.blame_from.currentIndex() == 1 else rule_blame
        worker = Worker(lambda report: blame(db, study_id))
        worker.signals.finished.connect(self._blamed)
        worker.signals.failed.connect(lambda message: self.status.setText(f"could not find the rules: {message}"))
        self._blame_worker = self._start(worker, "finding the rules to blame…")

    def _blamed(self, blamed) -> None:
        self.blamed = blamed
        self._show_blame_rows()

        if self.blame_from.currentIndex() == 1:
            self.status.setText(f"{len(blamed)} rules have rewrites judges marked (rejected: marked by most judges, "
                                "accepted: by fewer than half)")
        else:
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
