"""Adjudication (Ctrl+Shift+A): the items the judges disagree on, one at a time, decided by a third annotator.

The adjudicator sees both judges' labels (the judges never see each other's); the decision is a new judgment
row (:func:`core.store.adjudication.record_adjudication`, one transaction), never a judge's label in any
statistic. Keys (one table, :data:`KEYS`, plus each item's decisions, :func:`decision_keys`): the level keys of
the item's scale (Y / N for yes/no and for the replacement task, the digit of a level otherwise), A / E / B or
1 / 2 / 3 for a preference pair (left, no difference, right), 0 / O and the option's digit for a choice task; Left / Right to move, Esc to
close. Every item shown takes a key for each decision; the criteria never adjudicated (direct assessment, error
spans) are named with the reason in one line each, never offered. The list of disagreements is read in a worker.
"""

from __future__ import annotations

import dataclasses
import html

from PySide6.QtCore import Qt, QThreadPool, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QAbstractItemView, QDialog, QHBoxLayout, QLabel, QPushButton, QTableView, QVBoxLayout

from parastudio.core.demo import demo_files
from parastudio.core.engine.text.changed_words import changed_tokens
from parastudio.core.judging.keys import KEY_BY_ACTION, KeyBinding
from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.preference import PREFERENCE_KEYS
from parastudio.core.judging.protocols.protocol import CHOICE_TASK, PAIR, REPLACEMENT_UNIT
from parastudio.core.judging.view import key_for_level, replacement_marks, study_display
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.desktop.changed_spans import highlighted_display_html, highlighted_html
from parastudio.desktop.rows_model import RowsTableModel
from parastudio.desktop.workers import Worker

KEYS = (
    KeyBinding(("Left",), "previous", "◀ Previous"),
    KeyBinding(("Right",), "next", "Next ▶"),
    KeyBinding(("Esc",), "reject", "Close"),
)
_MOVING = {key for binding in KEYS for key in binding.keys} | {"Up", "Down"}


def decision_keys(item: ops.Disagreement) -> list[tuple[tuple[str, ...], str, str]]:
    """(keys, value stored, button label) of every decision ``item`` takes, in the order its buttons stand: the
    judging screen's keys for the same answers, less the arrows (here they move between items)."""
    protocol = protocol_of(item.scale)
    if protocol.item == PAIR:
        return [(tuple(k for k in keys if k not in _MOVING), value, label) for keys, value, label in PREFERENCE_KEYS]
    if protocol.item == CHOICE_TASK:
        return [(("0",) + KEY_BY_ACTION["keep_original"].keys, "original", "Keep the original")] + [
            ((str(number),), f"option:{number}", option) for number, option in enumerate(item.options, 1)]
    return [(key_for_level(item.scale, position, level), str(level["value"]), level.get("label") or str(level["value"]))
            for position, level in enumerate(item.levels)]


def label_text(item: ops.Disagreement, value: str) -> str:
    """A stored label as the adjudicator reads it: the value, and what its button says when that differs."""
    shown = next((label for _, decided, label in decision_keys(item) if decided == value), value)
    return value if shown == value else f"{value} · {shown}"


class AdjudicationDialog(QDialog):
    """Disagreements of one study, decided by ``adjudicator``. ``decided`` fires after each decision."""

    decided = Signal(int)

    def __init__(self, db: Database, study_id: int, study_name: str, adjudicator: str, parent=None):
        super().__init__(parent)
        self.db, self.study_id, self.adjudicator = db, study_id, adjudicator
        self.display = study_display(ops.study_settings(db, study_id), str(demo_files().truecase_model))
        self.items: list[ops.Disagreement] = []
        self.left_out: dict[str, str] = {}  # criterion -> why it is never adjudicated
        self.index = 0
        self.setWindowTitle(f"Adjudicate “{study_name}” as {adjudicator}")
        layout = QVBoxLayout(self)
        self.header = QLabel("reading the disagreements…")
        self.header.setTextFormat(Qt.RichText)
        layout.addWidget(self.header)
        self.note = QLabel()  # the criteria never adjudicated, one line each
        self.note.setTextFormat(Qt.RichText)
        self.note.setWordWrap(True)
        self.note.hide()
        layout.addWidget(self.note)
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
                                           for b in KEYS) + " · the keys on the buttons decide")
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
        def read(report):
            items = ops.disagreements_for(self.db, self.study_id, self.adjudicator)
            return items, ops.not_adjudicated(self.db, self.study_id)

        worker = Worker(read)
        worker.signals.finished.connect(self._loaded)
        worker.signals.failed.connect(lambda message: self.header.setText(f"<b>could not read</b>: {html.escape(message)}"))
        self.worker = worker
        QThreadPool.globalInstance().start(worker)
        return worker

    def _loaded(self, result) -> None:
        self.items, self.left_out = result
        self.note.setText("<br>".join(f"<b>{html.escape(name)}</b> is not adjudicated: {html.escape(reason)}"
                                      for name, reason in self.left_out.items()))
        self.note.setVisible(bool(self.left_out))
        self._refresh_rows()
        if not self.items:
            self.header.setText("<h3>No disagreement to adjudicate" + (
                " on the criteria adjudicated.</h3>" if self.left_out else
                ": the judges agree on every item they both judged.</h3>"))
            return
        open_ones = [i for i, item in enumerate(self.items) if item.decision is None]
        self.show_item(open_ones[0] if open_ones else 0)

    def _refresh_rows(self) -> None:
        self.model.set_rows([[d.item, d.criterion, ", ".join(f"{n}: {label_text(d, v)}" for n, v in d.labels.items()),
                              label_text(d, d.decision) if d.decision else ""] for d in self.items])

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
        self.sentences.setText(self._sentences_html(item))
        self.labels.setText("Judges: " + " · ".join(f"<b>{html.escape(n)}</b> said <b>{html.escape(label_text(item, v))}</b>"
                                                    for n, v in item.labels.items())
                            + (f" · your decision: <b>{html.escape(label_text(item, item.decision))}</b>"
                               if item.decision else ""))
        self._set_buttons(item)

    def _sentences_html(self, item: ops.Disagreement) -> str:
        """The texts the judges read: the source, and the paraphrase, the pair (left, right) or the span asked
        about (a choice task: its options are the buttons)."""
        candidate, kind = item.candidate or "", protocol_of(item.scale).item
        if kind == CHOICE_TASK:
            span = range(*item.span) if item.span else range(0)
            return f"<p><b>Source sentence</b> (the highlighted words)<br>{self._shown(item.source, span)}</p>"
        if kind == PAIR:
            parts = [f"<p><b>Source sentence</b><br>{self._shown(item.source, range(0))}</p>"]
            for title, text in (("Left", candidate), ("Right", item.right or "")):
                _, marks = changed_tokens(item.source, text)
                parts.append(f"<p><b>{title}</b><br>{self._shown(text, marks)}</p>")
            return "".join(parts)
        if kind == REPLACEMENT_UNIT:
            source_marks, candidate_marks, title = replacement_marks(item.derivation, item.key.unit)
        else:
            source_marks, candidate_marks = changed_tokens(item.source, candidate, item.derivation)
            title = "Source sentence"
        # The study's one display rule: the strings the judges read (core.judging.view.study_display).
        return (f"<p><b>{html.escape(title)}</b><br>{self._shown(item.source, source_marks)}</p><p><b>Paraphrase</b><br>"
                f"{self._shown(candidate, candidate_marks)}</p>")

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
        for keys, value, label in decision_keys(item):
            for key in keys:
                self._level_keys[key] = value
            button = QPushButton(f"{label}  [{' / '.join(keys)}]".replace("&", "&&"))
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
        self.items[self.index] = dataclasses.replace(item, decision=value, adjudicator=self.adjudicator)
        self._refresh_rows()
        self.status.setText(f"recorded: {item.item} {item.criterion} = {label_text(item, value)}")
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
