"""A study's instructions: what judges read before their first item (and with F1), and where researchers write them.
F1 ends with the key table of the study's protocols (:func:`core.judging.keys.help_table`).

Stored with the study (``settings["instructions"]``): a free text and, per
criterion, examples, each a candidate (with its source when the criterion
shows one), whether it is a good or a bad one, and why. The questions and
the levels of each scale come from the criteria themselves. The researcher
edits them on the Studies screen; judges see them rendered, never editable.
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
)

from parastudio.core.judging.keys import help_table
from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.protocol import CHOICE_TASK
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.desktop.palette import tone

EXAMPLE_COLUMNS = ("criterion", "good or bad", "source", "candidate", "why")


def instructions_html(db: Database, study_id: int) -> str:
    """The instructions as judges read them: the researcher's text, then each question with its scale and examples."""
    instructions = ops.study_settings(db, study_id).get("instructions") or {}
    text = instructions.get("text") or ("Judge each item on its own, by the question shown. Your answers are saved "
                                        "the moment you give them; Ctrl+Z undoes the last one.")
    parts = ["<p>" + html.escape(text).replace("\n", "<br>") + "</p>"]
    examples = instructions.get("examples") or {}
    criteria = ops.study_criteria(db, study_id)
    for criterion in criteria:
        parts.append(f"<h3>{html.escape(criterion.name)}: {html.escape(criterion.question)}</h3>")
        protocol = protocol_of(criterion.scale)
        if not criterion.shows_source and protocol.item != CHOICE_TASK:  # a choice task's item is the source
            parts.append("<p><i>Asked of the paraphrase alone: the source is not shown.</i></p>")
        if criterion.levels and not protocol.yes_no:  # a yes/no question needs no list of its two answers
            parts.append("<ul>" + "".join(f"<li><b>{html.escape(str(level['value']))}</b> "
                                          f"{html.escape(level.get('label', ''))}: "
                                          f"{html.escape(level.get('description', ''))}</li>"
                                          for level in criterion.levels) + "</ul>")
        for example in examples.get(criterion.name, []):
            verdict = "good" if example.get("good") else "bad"
            colour = tone("good") if example.get("good") else tone("warning")
            source = (f"<br><span style='color:{tone('muted')}'>source: {html.escape(example['source'])}</span>"
                      if example.get("source") and criterion.shows_source else "")
            parts.append(f"<p><b style='color:{colour}'>A {verdict} one:</b> {html.escape(example.get('text', ''))}"
                         f"{source}<br><i>Why: {html.escape(example.get('reason', ''))}</i></p>")
    # The keys, written from the key tables the judging desk reads (issue 44): one meaning per key.
    parts.append("<h3>Keys</h3>" + help_table([protocol_of(criterion.scale) for criterion in criteria]))
    return "\n".join(parts)


class InstructionsDialog(QDialog):
    """Judges read the instructions here (Esc or Enter closes)."""

    def __init__(self, db: Database, study_id: int, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Instructions")
        layout = QVBoxLayout(self)
        self.browser = QTextBrowser()
        self.browser.setHtml(instructions_html(db, study_id))
        layout.addWidget(self.browser, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok)
        buttons.accepted.connect(self.accept)
        layout.addWidget(buttons)
        layout.addWidget(QLabel(f"<span style='color:{tone('muted')}'>F1 shows these instructions again at any time.</span>"))
        self.resize(720, 520)


class InstructionsEditor(QDialog):
    """Researchers write the study's instructions and per-criterion examples here."""

    def __init__(self, db: Database, study_id: int, parent=None):
        super().__init__(parent)
        self.db, self.study_id = db, study_id
        self.setWindowTitle("Instructions of this study")
        self.criteria = [c.name for c in ops.study_criteria(db, study_id)]
        current = ops.study_settings(db, study_id).get("instructions") or {}
        self.kept = {key: value for key, value in current.items() if key not in ("text", "examples")}
        layout = QVBoxLayout(self)
        text_label = QLabel("&What judges read first:")
        self.text_edit = QPlainTextEdit(current.get("text", ""))
        text_label.setBuddy(self.text_edit)
        layout.addWidget(text_label)
        layout.addWidget(self.text_edit, 1)
        layout.addWidget(QLabel("Examples (one row each; good or bad, with the reason):"))
        self.table = QTableWidget(0, len(EXAMPLE_COLUMNS))
        self.table.setHorizontalHeaderLabels(EXAMPLE_COLUMNS)
        self.table.horizontalHeader().setStretchLastSection(True)
        for criterion, examples in (current.get("examples") or {}).items():
            for example in examples:
                self._add_row(criterion, bool(example.get("good")), example.get("source", ""),
                              example.get("text", ""), example.get("reason", ""))
        layout.addWidget(self.table, 2)
        row = QHBoxLayout()
        add = QPushButton("&Add an example")
        add.clicked.connect(lambda: self._add_row(self.criteria[0] if self.criteria else "", True, "", "", ""))
        remove = QPushButton("&Remove the selected example")
        remove.clicked.connect(lambda: self.table.removeRow(self.table.currentRow()))
        row.addWidget(add)
        row.addWidget(remove)
        row.addStretch(1)
        layout.addLayout(row)
        buttons = QDialogButtonBox(QDialogButtonBox.Save | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(860, 560)

    def _add_row(self, criterion: str, good: bool, source: str, text: str, reason: str) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        choose = QComboBox()
        choose.addItems(self.criteria)
        choose.setCurrentText(criterion)
        self.table.setCellWidget(row, 0, choose)
        verdict = QComboBox()
        verdict.addItems(["good", "bad"])
        verdict.setCurrentText("good" if good else "bad")
        self.table.setCellWidget(row, 1, verdict)
        for column, value in ((2, source), (3, text), (4, reason)):
            self.table.setItem(row, column, QTableWidgetItem(value))

    def instructions(self) -> dict:
        examples: dict[str, list[dict]] = {}
        for row in range(self.table.rowCount()):
            cells = [self.table.item(row, column) for column in (2, 3, 4)]
            source, text, reason = ((cell.text().strip() if cell else "") for cell in cells)
            if not text:
                continue
            criterion = self.table.cellWidget(row, 0).currentText()
            examples.setdefault(criterion, []).append({
                "good": self.table.cellWidget(row, 1).currentText() == "good", "source": source, "text": text,
                "reason": reason})
        # What this editor does not show (the training items of `study guidelines`) is kept as it was.
        return {**self.kept, "text": self.text_edit.toPlainText().strip(), "examples": examples}

    def save(self) -> None:
        ops.update_study_settings(self.db, self.study_id, instructions=self.instructions())
        self.accept()

