"""Adjudication (Ctrl+Shift+A): the items the judges disagree on, one at a time, decided by a third annotator.

The adjudicator sees both judges' labels (the judges never see each other's); the decision is a new judgment
row (:func:`core.store.adjudication.record_adjudication`, one transaction), never a judge's label in any
statistic. Keys (one table, :data:`KEYS`): the level keys of the item's scale (Y / N for yes/no and for the
replacement task, the digit of a level otherwise), Left / Right to move, Esc to close. The list of
disagreements is read in a worker.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QThreadPool, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (QDialog, QHBoxLayout, QLabel, QPushButton, QTableView, QAbstractItemView, QVBoxLayout)

from core.engine.changed_words import changed_tokens
from core.store import operations as ops
from core.store.database import Database
from core.demo import demo_files
from core.judging_view import key_for_level, replacement_marks, study_display
from core.judging_keys import KeyBinding
from desktop.changed_spans import highlighted_display_html, highlighted_html
from desktop.rows_model import RowsTableModel
from desktop.workers import Worker

KEYS = (
    KeyBinding(("Left",), "previous", "◀ Previous"),
    KeyBinding(("Right",), "next", "Next ▶"),
    KeyBinding(("Esc",), "reject", "Close"),
)


class AdjudicationDialog(QDialog):
    """Disagreements of one study, decided by ``adjudicator``. ``decided`` fires after each decision."""

    decided = Signal(int)

    def __init__(self, db: Database, study_id: int, study_name: str, adjudicator: str, parent=None):
        super().__init__(parent)
        self.db, self.study_id, self.adjudicator = db, study_id, adjudicator
        self.display = study_display(ops.study_settings(db, study_id), str(demo_files().truecase_model))
        self.items: list[ops.Disagreement] = []
        self.index = 0
        self.setWindowTitle(f"Adjudicate “{study_name}” as {adjudicator}")
        layout = QVBoxLayout(self)
        self.header = QLabel("reading the disagreements…")
        self.header.setTextFormat(Qt.RichText)
        layout.addWidget(self.header)
        self.model = RowsTableModel(("item", "criterion", "labels", "decision"))
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.view.setFocusPolicy(Qt.NoFocus)
        self.view.clicked.connect(lambda index: self.show_item(index.row()))
        self.view.setMaximumHeight(150)
        layout.addWidget(self.view)
        self.question = QLabel()
        self.question.setWordWrap(True)
        self.sentences = QLabel()
        self.sentences.setTextFormat(Qt.RichText)
        self.sentences.setWordWrap(True)
        self.labels = QLabel()
        self.labels.setTextFormat(Qt.RichText)
        for widget in (self.question, self.sentences, self.labels):
            layout.addWidget(widget)
        self.buttons_row = QHBoxLayout()
        layout.addLayout(self.buttons_row)
        self.keys_help = QLabel(" · ".join(f"<b>{html.escape(b.shown)}</b> {html.escape(b.label.strip('◀▶ '))}"
                                           for b in KEYS) + " · the level keys decide")
        self.keys_help.setTextFormat(Qt.RichText)
        layout.addWidget(self.keys_help)
        self.status = QLabel()
        layout.addWidget(self.status)
        self._level_keys: dict[str, str] = {}
        for binding in KEYS:
            for key in binding.keys:
                QShortcut(QKeySequence(key), self, activated=getattr(self, binding.action))
        self.resize(820, 560)
        self.reload()

    # loading ------------------------------------------------------------------------------
    def reload(self) -> Worker:
        # Through the role's door: a name the researcher did not make adjudicator reads no label.
        worker = Worker(lambda report: ops.disagreements_for(self.db, self.study_id, self.adjudicator))
        worker.signals.finished.connect(self._loaded)
        worker.signals.failed.connect(lambda message: self.header.setText(f"<b>could not read</b>: {html.escape(message)}"))
        self.worker = worker
        QThreadPool.globalInstance().start(worker)
        return worker

    def _loaded(self, items: list[ops.Disagreement]) -> None:
        self.items = items
        self._refresh_rows()
        if not items:
            self.header.setText("<h3>No disagreement to adjudicate: the judges agree on every item they both "
                                "judged.</h3>")
            return
        open_ones = [i for i, item in enumerate(items) if item.decision is None]
        self.show_item(open_ones[0] if open_ones else 0)

    def _refresh_rows(self) -> None:
        self.model.set_rows([[d.item, d.criterion, ", ".join(f"{n}: {v}" for n, v in d.labels.items()),
                              d.decision or ""] for d in self.items])

    # showing ------------------------------------------------------------------------------
    def show_item(self, index: int) -> None:
        if not self.items:
            return
        self.index = max(0, min(index, len(self.items) - 1))
        item = self.items[self.index]
        decided = sum(d.decision is not None for d in self.items)
        self.header.setText(f"<b>{self.index + 1}</b> of {len(self.items)} disagreements · {decided} decided · "
                            f"adjudicator <b>{html.escape(self.adjudicator)}</b>")
        self.view.selectRow(self.index)
        self.question.setText(item.question)
        candidate = item.candidate or ""
        if item.scale == "replacement":
            source_marks, candidate_marks, title = replacement_marks(item.derivation, item.key[2])
        else:
            source_marks, candidate_marks = changed_tokens(item.source, candidate, item.derivation)
            title = "Source sentence"
        # The study's one display rule: the strings the judges read (core.judging_view.study_display).
        source_html, candidate_html = (self._shown(item.source, source_marks), self._shown(candidate, candidate_marks))
        self.sentences.setText(f"<p><b>{html.escape(title)}</b><br>{source_html}</p><p><b>Paraphrase</b><br>"
                               f"{candidate_html}</p>")
        self.labels.setText("Judges: " + " · ".join(f"<b>{html.escape(n)}</b> said <b>{html.escape(v)}</b>"
                                                    for n, v in item.labels.items())
                            + (f" · your decision: <b>{html.escape(item.decision)}</b>" if item.decision else ""))
        self._set_buttons(item)

    def _shown(self, tokens: str, marks) -> str:
        if self.display is None:
            return highlighted_html(tokens.split(), marks)
        shown = self.display.show(tokens)
        return highlighted_display_html(shown.text, shown.spans, marks)

    def _set_buttons(self, item: ops.Disagreement) -> None:
        while self.buttons_row.count():
            widget = self.buttons_row.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        self._level_keys = {}
        for position, level in enumerate(item.levels):
            keys = key_for_level(item.scale, position, level)
            value = str(level["value"])
            for key in keys:
                self._level_keys[key] = value
            button = QPushButton(f"{level.get('label') or value}  [{' / '.join(keys)}]".replace("&", "&&"))
            button.setFocusPolicy(Qt.NoFocus)
            button.setCheckable(True)
            button.setChecked(item.decision == value)
            button.clicked.connect(lambda _=False, v=value: self.decide(v))
            self.buttons_row.addWidget(button)

    # acting -------------------------------------------------------------------------------
    def decide(self, value: str) -> None:
        if not self.items:
            return
        item = self.items[self.index]
        try:
            judgment = ops.record_adjudication(self.db, self.study_id, self.adjudicator, item.key, value)
        except (ValueError, LookupError) as error:
            self.status.setText(f"<b>not recorded</b>: {html.escape(str(error))}")
            return
        self.items[self.index] = ops.Disagreement(**{**item.__dict__, "decision": value, "adjudicator": self.adjudicator})
        self._refresh_rows()
        self.status.setText(f"recorded: {item.item} {item.criterion} = {value}")
        self.decided.emit(judgment)
        following = [i for i in range(self.index + 1, len(self.items)) if self.items[i].decision is None]
        self.show_item(following[0] if following else self.index)

    def previous(self) -> None:
        self.show_item(self.index - 1)

    def next(self) -> None:
        self.show_item(self.index + 1)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        value = self._level_keys.get(event.text().upper()) if event.text() else None
        if value is not None:
            self.decide(value)
            return
        super().keyPressEvent(event)
