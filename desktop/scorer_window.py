"""The scorer window: type a sentence, see its applicable rules, LM score and
the exact true score of any candidate, with the changed spans highlighted.

The table and LM load in a worker, with their progress in the status bar rather than in a dialog window: hiding
such a dialog could leave no window active, and Ctrl+R then reached nothing (issue 39). What the judge types while
they load stands: the loaded models fill in the rules and the scores, never the candidate.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QSortFilterProxyModel, Qt, QThreadPool, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.derivation import apply_matches, changed_segments
from parastudio.core.engine.model.scoring import mcpg_reward
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Match
from parastudio.desktop.table_models import DerivationTableModel, MatchTableModel
from parastudio.desktop.workers import Worker


def prepare_tokens(text: str) -> list[str]:
    """Tokenize and case typed text the way the bundled data was prepared."""
    from parastudio.core.engine.text.tokenization import tokenize

    return tokenize(text, "en").split()


def load_engine(report, table_path: str, lm_path: str):
    report(5, 100, f"loading paraphrase table {Path(table_path).name}")
    table = ParaphraseTable.load(table_path)
    report(70, 100, f"loading language model {Path(lm_path).name}")
    lm = LanguageModel(lm_path)
    report(100, 100, "ready")
    return table, lm


class ScorerWindow(QMainWindow):
    def __init__(self, table_path: str, lm_path: str):
        super().__init__()
        self.setWindowTitle("Paraphrase Studio: scorer")
        self.resize(1100, 720)
        self.table_path, self.lm_path = table_path, lm_path
        self.table: ParaphraseTable | None = None
        self.lm: LanguageModel | None = None
        self.scorer: TrueScorer | None = None
        self.source_tokens: list[str] = []
        self.applied: list[Match] = []
        self._loading = 0  # the ticket of the latest start_loading(): an older load's result is dropped
        self._on_ready = None
        self._loader: Worker | None = None
        self._build()
        self._debounce = QTimer(self, singleShot=True, interval=150)
        self._debounce.timeout.connect(self.rescore)

    # layout -----------------------------------------------------------------
    def _build(self) -> None:
        central = QWidget()
        outer = QVBoxLayout(central)

        self.models_label = QLabel("loading…")
        self.models_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        outer.addWidget(self.models_label)

        form = QFormLayout()
        self.source_edit = QLineEdit(placeholderText="Type a sentence to paraphrase (Alt+S)")
        self.candidate_edit = QLineEdit(placeholderText="Type or build a candidate paraphrase (Alt+C)")
        source_label, candidate_label = QLabel("&Source:"), QLabel("&Candidate:")
        source_label.setBuddy(self.source_edit)
        candidate_label.setBuddy(self.candidate_edit)
        form.addRow(source_label, self.source_edit)
        form.addRow(candidate_label, self.candidate_edit)
        outer.addLayout(form)

        buttons = QHBoxLayout()
        self.reset_button = QPushButton("Reset candidate to source  [Ctrl+R]")
        self.reset_button.clicked.connect(self.reset_candidate)
        buttons.addWidget(self.reset_button)
        buttons.addStretch(1)
        outer.addLayout(buttons)

        results = QGroupBox("Scores")
        results_layout = QVBoxLayout(results)
        self.highlight_label = QLabel()
        self.highlight_label.setTextFormat(Qt.RichText)
        self.highlight_label.setWordWrap(True)
        self.scores_label = QLabel()
        self.scores_label.setTextFormat(Qt.RichText)
        self.scores_label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        results_layout.addWidget(self.highlight_label)
        results_layout.addWidget(self.scores_label)
        outer.addWidget(results)

        splitter = QSplitter(Qt.Horizontal)
        rules_box = QGroupBox("Applicable rules: Enter or double-click applies one to the candidate")
        rules_layout = QVBoxLayout(rules_box)
        self.rule_filter = QLineEdit(placeholderText="filter rules (Ctrl+F)")
        rules_layout.addWidget(self.rule_filter)
        self.match_model = MatchTableModel()
        self.match_proxy = QSortFilterProxyModel(self)
        self.match_proxy.setSourceModel(self.match_model)
        self.match_proxy.setSortRole(Qt.UserRole)
        self.match_proxy.setFilterKeyColumn(-1)
        self.match_proxy.setFilterCaseSensitivity(Qt.CaseInsensitive)
        self.rule_filter.textChanged.connect(self.match_proxy.setFilterFixedString)
        self.rules_view = self._table_view(self.match_proxy)
        self.rules_view.setSortingEnabled(True)
        # The phrases give way (elided) so the probability stays whole on a narrow screen (issue 28: "0.038" at 1024).
        header = self.rules_view.horizontalHeader()
        header.setStretchLastSection(False)
        for column in (1, 2):  # source phrase, paraphrase
            header.setSectionResizeMode(column, QHeaderView.Stretch)
        self.rules_view.activated.connect(self.apply_rule)
        rules_layout.addWidget(self.rules_view)
        splitter.addWidget(rules_box)

        derivation_box = QGroupBox("Best derivation of the candidate (true score, seed 000)")
        derivation_layout = QVBoxLayout(derivation_box)
        self.derivation_model = DerivationTableModel()
        derivation_layout.addWidget(self._table_view(self.derivation_model))
        splitter.addWidget(derivation_box)
        outer.addWidget(splitter, 1)
        self.setCentralWidget(central)

        self.source_edit.textChanged.connect(self._source_changed)
        self.candidate_edit.textChanged.connect(lambda _: self._debounce.start())
        QShortcut(QKeySequence("Ctrl+R"), self, activated=self.reset_candidate)
        QShortcut(QKeySequence("Ctrl+F"), self, activated=self.rule_filter.setFocus)
        QShortcut(QKeySequence("Ctrl+L"), self, activated=self.rules_view.setFocus)
        self.load_bar = QProgressBar(maximumWidth=220)
        self.cancel_button = QPushButton("Cancel loading  [Esc]")
        self.cancel_button.setFocusPolicy(Qt.NoFocus)
        self.cancel_button.clicked.connect(self.cancel_loading)
        self._cancel_key = QShortcut(QKeySequence("Esc"), self, activated=self.cancel_loading)
        for widget in (self.load_bar, self.cancel_button):
            self.statusBar().addPermanentWidget(widget)
        self._show_loading(False)
        self.statusBar().showMessage("loading the table and language model…")

    @staticmethod
    def _table_view(model) -> QTableView:
        view = QTableView()
        view.setModel(model)
        view.setSelectionBehavior(QAbstractItemView.SelectRows)
        view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        view.horizontalHeader().setStretchLastSection(True)
        view.verticalHeader().setVisible(False)
        return view

    # loading ----------------------------------------------------------------
    def start_loading(self, on_ready=None, *, load=load_engine) -> None:
        """Load the table and LM with ``load(report, table_path, lm_path)`` in a worker, then call ``on_ready``.
        Each call is a new ticket: the result of an earlier one, landing late, is dropped."""
        self.cancel_loading()  # an earlier load still running is of no use now
        self._loading += 1
        ticket, table_path, lm_path = self._loading, self.table_path, self.lm_path
        self._on_ready = on_ready
        worker = Worker(lambda report: (ticket, load(report, table_path, lm_path)))
        # Bound methods, not closures: Qt drops the connections if this window is gone first.
        worker.signals.progress.connect(self._load_progress)
        worker.signals.finished.connect(self._loaded)
        worker.signals.failed.connect(self._load_failed)
        worker.signals.cancelled.connect(self._load_cancelled)
        self._loader = worker  # keep the signals object alive
        self._show_loading(True)
        QThreadPool.globalInstance().start(worker)

    def cancel_loading(self) -> None:
        """Esc while loading: the worker stops at its next progress report."""
        if self._loader is not None:
            self._loader.cancel()

    def _show_loading(self, loading: bool) -> None:
        self.load_bar.setValue(0)
        self.load_bar.setVisible(loading)
        self.cancel_button.setVisible(loading)
        self._cancel_key.setEnabled(loading)

    def _load_progress(self, percent: int, message: str) -> None:
        self.load_bar.setValue(percent)
        self.statusBar().showMessage(message)

    def _loaded(self, result) -> None:
        ticket, (table, lm) = result
        if ticket != self._loading:
            return
        self._loader = None
        self._show_loading(False)
        self.table, self.lm = table, lm
        self.scorer = TrueScorer(self.table, self.lm)
        stats = self.table.stats()
        self.models_label.setText(
            f"Table: {self.table_path} ({stats.rules:,} rules, {stats.distinct_sources:,} sources)   "
            f"LM: {self.lm_path} (order {self.lm.order})"
        )
        self.statusBar().showMessage("ready: type a sentence", 5000)
        # The rules of the sentence typed meanwhile; the candidate stays as the judge left it.
        self.match_model.set_matches(self.table.matches(self.source_tokens) if self.source_tokens else [])
        self._debounce.start()
        if self._on_ready:
            self._on_ready()

    def _from_current_load(self) -> bool:
        """A failure or cancellation comes with no ticket: it counts only from the latest load's worker."""
        return self._loader is not None and self.sender() is self._loader.signals

    def _load_failed(self, message: str) -> None:
        if not self._from_current_load():
            return
        self._loader = None
        self._show_loading(False)
        self.models_label.setText(f"Could not load: {message}")
        QMessageBox.critical(self, "Paraphrase Studio", f"Could not load the models:\n{message}")

    def _load_cancelled(self) -> None:
        if not self._from_current_load():
            return
        self._loader = None
        self._show_loading(False)
        self.models_label.setText("Loading cancelled: no table or LM, so no rules and no scores.")

    # interaction ------------------------------------------------------------
    def _source_changed(self, text: str) -> None:
        self.source_tokens = prepare_tokens(text) if text.strip() else []
        self.applied = []
        matches = self.table.matches(self.source_tokens) if (self.table and self.source_tokens) else []
        self.match_model.set_matches(matches)
        self.candidate_edit.setText(" ".join(self.source_tokens))
        self._debounce.start()

    def reset_candidate(self) -> None:
        self.applied = []
        self.candidate_edit.setText(" ".join(self.source_tokens))

    def apply_rule(self, proxy_index) -> None:
        match = self.match_model.match_at(self.match_proxy.mapToSource(proxy_index).row())
        # A new rule replaces the applied rules it overlaps (disjoint supports).
        self.applied = [m for m in self.applied if m.end <= match.start or m.start >= match.end] + [match]
        target, _ = apply_matches(self.source_tokens, self.applied)
        self.candidate_edit.setText(" ".join(target))

    def rescore(self) -> None:
        if not self.scorer or not self.source_tokens:
            self.highlight_label.setText("")
            self.scores_label.setText("")
            self.derivation_model.set_segments([])
            return
        candidate = prepare_tokens(self.candidate_edit.text())
        result = self.scorer.score(self.source_tokens, candidate)
        source_lm = self.lm.score(self.source_tokens)
        candidate_lm = self.lm.score(candidate) if candidate else float("nan")
        lines = [
            f"log10 P<sub>LM</sub>(source) = {source_lm:.3f}; "
            f"log10 P<sub>LM</sub>(candidate) = {candidate_lm:.3f}",
        ]
        if result.reachable:
            reward = mcpg_reward(self.source_tokens, candidate, result.derivation, self.table, self.lm)
            lines.append(
                f"<b>true score</b> log10 Z* = {result.log10_score:.4f} "
                f"(rules {result.rules_log10:.4f} + LM {result.lm_log10:.4f}); MCPG reward R = {reward:.4g}"
            )
            self.highlight_label.setText(self._highlight(candidate, result.derivation))
        else:
            lines.append("<b>unreachable</b>: no set of disjoint rules turns the source into this candidate")
            self.highlight_label.setText(html.escape(" ".join(candidate)))
        self.scores_label.setText("<br>".join(lines))
        self.derivation_model.set_segments(result.derivation)

    @staticmethod
    def _highlight(candidate: list[str], segments) -> str:
        changed = {(s.tgt_start, s.tgt_end) for s in changed_segments(segments)}
        parts = []
        for segment in segments:
            text = html.escape(" ".join(candidate[segment.tgt_start : segment.tgt_end]))
            if (segment.tgt_start, segment.tgt_end) in changed:
                text = f'<span style="background:#ffe08a"><b>{text}</b></span>'
            parts.append(text)
        return "Candidate: " + " ".join(parts)
