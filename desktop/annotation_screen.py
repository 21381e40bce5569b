"""The annotation screen: one assignment at a time, keyboard only.

Keys (each button shows its key):

* yes/no criteria: Y or 1 = yes, N or 0 = no; scales: the level's digit;
* choice task (seed 001 §4.2): 1-5 pick an option, 0 or O keep the original,
  T types a custom paraphrase (Enter submits, Esc goes back);
* Right / Left move through the order without answering, Ctrl+Z undoes the
  last answer, F flags, C comments (Enter saves, Esc cancels).

An answer goes on the writer's queue (:mod:`desktop.judgment_writer`) and the
next open item is shown at once; what was answered but not yet committed is
kept in ``self.local`` so the screen never shows it as open. Judging is
blind: :class:`core.store.operations.ItemView` carries no system name, and
the order is the annotator's seeded order from the store. Seed 003 §4.3's
two-step protocol comes from the criteria: fluency (``shows_source`` false)
shows the candidate alone and without highlights, meaning shows both.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, replace
from datetime import datetime, timezone

from PySide6.QtCore import Qt, QThreadPool, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core.store import operations as ops
from core.store.annotation_queries import assignment_position, first_open_after, last_position, progress_counts
from core.store.database import Database
from desktop.changed_spans import changed_tokens, highlighted_html
from desktop.judgment_writer import JudgmentWriter
from desktop.pyside_refcount_guard import guard_true_refcount
from desktop.workers import Worker

MAX_OPTIONS = 5


@dataclass
class LocalAnswer:
    """What this screen answered, committed or still queued."""

    value: str | None
    text: str | None = None
    flag: bool = False
    comment: str | None = None


def key_for_level(scale: str, index: int, level: dict) -> tuple[str, ...]:
    """The keys that give a level: Y/1 and N/0 for yes/no, else the level's digit."""
    value = str(level["value"])
    if scale == "binary":
        return ("Y", "1") if value == "yes" else ("N", "0")
    if value.isdigit() and len(value) == 1:
        return (value,)
    return (str(index + 1),) if index < 9 else ()


class AnnotationScreen(QWidget):
    """Judging one study as one annotator. ``item_shown`` fires after each new item is laid out."""

    item_shown = Signal(object)
    finished = Signal()

    def __init__(self, db: Database, writer: JudgmentWriter, parent: QWidget | None = None):
        super().__init__(parent)
        guard_true_refcount()  # hours of judging emit many signals (see the module)
        self.db = db
        self.writer = writer
        self.study_id: int | None = None
        self.study_name = ""
        self.annotator_id: int | None = None
        self.annotator_name = ""
        self.item: ops.ItemView | None = None
        self.local: dict[int, LocalAnswer] = {}  # assignment id -> this session's latest state
        self._positions: dict[int, int] = {}  # assignment id -> position, for what was answered here
        self._key_values: dict[str, str] = {}
        self.pending_flag = False
        self.pending_comment: str | None = None
        self.shown_at = datetime.now(timezone.utc)
        self.my_done = self.my_total = self.study_done = self.study_total = 0
        self.level_buttons: list[QPushButton] = []  # the buttons of the current scale
        self.option_buttons: list[QPushButton] = []
        self.setFocusPolicy(Qt.StrongFocus)
        self._build()
        writer.committed.connect(self._on_committed)
        writer.undone.connect(self._on_undone)
        writer.failed.connect(lambda message: self.status.setText(f"<b>could not save</b>: {html.escape(message)}"))
        self._progress_timer = QTimer(self, interval=5000)
        self._progress_timer.timeout.connect(self.refresh_progress)
        # The bars count committed answers (recounted off the UI thread shortly after writes).
        self._progress_soon = QTimer(self, singleShot=True, interval=600)
        self._progress_soon.timeout.connect(lambda: self.refresh_progress(whole_study=False))
        self._counting = False
        self._recount_after = False  # answers committed while a count was running

    # layout ---------------------------------------------------------------------------
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        header = QHBoxLayout()
        self.header_label = QLabel()
        self.header_label.setTextFormat(Qt.RichText)
        header.addWidget(self.header_label, 1)
        progress_grid = QGridLayout()
        self.my_progress = QProgressBar(format="mine: %v / %m")
        self.study_progress = QProgressBar(format="study: %v / %m")
        for bar in (self.my_progress, self.study_progress):
            bar.setMinimumWidth(220)
        progress_grid.addWidget(self.my_progress, 0, 0)
        progress_grid.addWidget(self.study_progress, 1, 0)
        header.addLayout(progress_grid)
        outer.addLayout(header)

        self.question_label = QLabel()
        self.question_label.setWordWrap(True)
        font = self.question_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.question_label.setFont(font)
        outer.addWidget(self.question_label)

        self.pages = QStackedWidget()
        self.pages.addWidget(self._build_candidate_page())
        self.pages.addWidget(self._build_choice_page())
        self.pages.addWidget(self._build_done_page())
        outer.addWidget(self.pages, 1)

        self.answer_label = QLabel()
        self.answer_label.setTextFormat(Qt.RichText)
        outer.addWidget(self.answer_label)

        self.comment_edit = QLineEdit(placeholderText="Comment on this item: Enter saves, Esc cancels")
        self.comment_edit.hide()
        self.comment_edit.returnPressed.connect(self._save_comment)
        outer.addWidget(self.comment_edit)

        actions = QHBoxLayout()
        self.prev_button = self._button("◀ Previous  [←]", lambda: self.move(-1))
        self.next_button = self._button("Next ▶  [→]", lambda: self.move(+1))
        self.undo_button = self._button("Undo  [Ctrl+Z]", self.undo)
        self.flag_button = self._button("Flag  [F]", self.toggle_flag)
        self.comment_button = self._button("Comment  [C]", self.start_comment)
        for button in (self.prev_button, self.next_button, self.undo_button, self.flag_button, self.comment_button):
            actions.addWidget(button)
        actions.addStretch(1)
        outer.addLayout(actions)
        self.status = QLabel()
        self.status.setTextFormat(Qt.RichText)
        outer.addWidget(self.status)

    def _button(self, text: str, slot) -> QPushButton:
        button = QPushButton(text)
        button.setFocusPolicy(Qt.NoFocus)  # keys always reach the screen
        button.clicked.connect(slot)
        return button

    @staticmethod
    def _text_box(title: str) -> tuple[QGroupBox, QLabel]:
        box = QGroupBox(title)
        layout = QVBoxLayout(box)
        label = QLabel()
        label.setTextFormat(Qt.RichText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        font = label.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        label.setFont(font)
        label.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Minimum)
        layout.addWidget(label)
        return box, label

    def _build_candidate_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.source_box, self.source_label = self._text_box("Source sentence")
        self.candidate_box, self.candidate_label = self._text_box("Paraphrase")
        layout.addWidget(self.source_box)
        layout.addWidget(self.candidate_box)
        # One row of buttons per scale, made once: switching pages is cheaper than rebuilding buttons.
        self.levels_stack = QStackedWidget()
        self.levels_stack.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        self._level_pages: dict[tuple, tuple[int, dict[str, str], list[QPushButton], str]] = {}
        layout.addWidget(self.levels_stack)
        self.levels_help = QLabel()
        self.levels_help.setTextFormat(Qt.RichText)
        self.levels_help.setWordWrap(True)
        self.levels_help.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        self.levels_help.setMinimumHeight(70)
        layout.addWidget(self.levels_help)
        layout.addStretch(1)
        return page

    def _build_choice_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.choice_box, self.choice_sentence_label = self._text_box("Sentence (the highlighted words are to be "
                                                                     "paraphrased)")
        layout.addWidget(self.choice_box)
        options_box = QGroupBox("Options")
        self.options_layout = QVBoxLayout(options_box)
        layout.addWidget(options_box)
        self.original_button = self._button("Keep the original  [0 / O]", lambda: self.answer_choice("original"))
        layout.addWidget(self.original_button)
        custom_row = QHBoxLayout()
        custom_row.addWidget(QLabel("Custom paraphrase [T]:"))
        self.custom_edit = QLineEdit(placeholderText="Press T, type your own paraphrase, Enter submits, Esc leaves")
        self.custom_edit.returnPressed.connect(self._submit_custom)
        custom_row.addWidget(self.custom_edit, 1)
        layout.addLayout(custom_row)
        layout.addStretch(1)
        return page

    def _build_done_page(self) -> QWidget:
        page = QFrame()
        layout = QVBoxLayout(page)
        self.done_label = QLabel()
        self.done_label.setAlignment(Qt.AlignCenter)
        self.done_label.setTextFormat(Qt.RichText)
        layout.addWidget(self.done_label)
        return page

    # study and annotator --------------------------------------------------------------
    def open(self, study_id: int, annotator_name: str, study_name: str = "") -> None:
        """Start (or resume) ``annotator_name`` on the study: the first item they have not judged."""
        self.writer.drain()
        self.study_id, self.study_name = study_id, study_name
        self.annotator_name = annotator_name
        self.annotator_id = ops.find_annotator(self.db, study_id, annotator_name)
        self.local.clear()
        self._positions.clear()
        first = ops.next_item(self.db, self.annotator_id)
        self._show(first)
        self.refresh_progress()
        self._progress_timer.start()

    def refresh_progress(self, whole_study: bool = True) -> None:
        """Recount judged/assigned off the UI thread: mine after writes, the study's every few seconds."""
        if self.study_id is None or (self._counting and not whole_study):
            return
        study_id, annotator_id, db = self.study_id, self.annotator_id, self.db
        worker = Worker(lambda _report: (study_id, annotator_id, whole_study,
                                         progress_counts(db, study_id, None if whole_study else annotator_id)))
        # A bound method, not a closure: Qt drops the connection if this screen is gone first.
        worker.signals.finished.connect(self._progress_counted)
        worker.signals.failed.connect(self._progress_failed)
        self._counting = True
        QThreadPool.globalInstance().start(worker)

    def _progress_failed(self, _message: str) -> None:
        self._counting = False

    def _progress_counted(self, result) -> None:
        study_id, annotator_id, whole_study, counts = result
        self._counting = False
        if self._recount_after:
            self._recount_after = False
            self._progress_soon.start()
        if study_id != self.study_id or annotator_id != self.annotator_id:
            return
        mine = counts.get(annotator_id, (0, 0))
        if not whole_study:  # the study moves by what I did; the others are recounted every few seconds
            self.study_done += mine[0] - self.my_done
        self.my_done, self.my_total = mine
        if whole_study:
            self.study_done = sum(judged for judged, _ in counts.values())
            self.study_total = sum(total for _, total in counts.values())
        self._paint_progress()

    def _paint_progress(self) -> None:
        self.my_progress.setMaximum(max(1, self.my_total))
        self.my_progress.setValue(min(self.my_done, self.my_total))
        self.study_progress.setMaximum(max(1, self.study_total))
        self.study_progress.setValue(min(self.study_done, self.study_total))

    # showing an item ---------------------------------------------------------------
    def _merged(self, item: ops.ItemView) -> ops.ItemView:
        state = self.local.get(item.assignment_id)
        if state is None:
            return item
        return replace(item, value=state.value, text=state.text, flag=state.flag, comment=state.comment)

    def _show(self, item: ops.ItemView | None) -> None:
        self.item = self._merged(item) if item is not None else None
        self.pending_flag, self.pending_comment = False, None
        self.comment_edit.hide()
        self.shown_at = datetime.now(timezone.utc)
        if self.item is None:
            self.question_label.setText("")
            self.done_label.setText(f"<h2>All done.</h2><p>{html.escape(self.annotator_name)} has judged every "
                                    "item assigned in this study. Ctrl+Z undoes the last answer, ← goes back.</p>")
            self.pages.setCurrentIndex(2)
            self.answer_label.setText("")
            self._update_header()
            self.finished.emit()
            self.item_shown.emit(None)
            return
        item = self.item
        self.question_label.setText(item.question)
        if item.scale == "choice":
            self._show_choice(item)
        else:
            self._show_candidate(item)
        self._show_answer()
        self._update_header()
        self.item_shown.emit(item)

    def _update_header(self) -> None:
        where = "" if self.item is None else f" · item {self.item.position + 1}"
        self.header_label.setText(f"<b>{html.escape(self.study_name)}</b> · annotator "
                                  f"<b>{html.escape(self.annotator_name)}</b>{where} · system names hidden")
        self._paint_progress()

    def _show_candidate(self, item: ops.ItemView) -> None:
        self.pages.setCurrentIndex(0)
        candidate = item.candidate or ""
        # The source box stays in place (no show/hide: that re-lays out the window on every key).
        if item.shows_source:
            source_changed, candidate_changed = changed_tokens(item.source, candidate, item.derivation)
            self.source_box.setTitle("Source sentence")
            self.source_label.setText(highlighted_html(item.source.split(), source_changed))
            self.candidate_label.setText(highlighted_html(candidate.split(), candidate_changed))
        else:
            # Form alone (seed 003's first step): no source, and no highlight that would hint at one.
            self.source_box.setTitle("Source sentence: not shown for this question")
            self.source_label.setText("<i style='color:#777'>Judge the sentence below on its own.</i>")
            self.candidate_label.setText(html.escape(candidate))
        self._set_level_buttons(item)

    def _set_level_buttons(self, item: ops.ItemView) -> None:
        signature = (item.scale, tuple((str(level["value"]), level.get("label")) for level in item.levels))
        if signature not in self._level_pages:
            row = QWidget()
            layout = QHBoxLayout(row)
            layout.setContentsMargins(0, 0, 0, 0)
            key_values: dict[str, str] = {}
            buttons, help_lines = [], []
            for index, level in enumerate(item.levels):
                keys = key_for_level(item.scale, index, level)
                value = str(level["value"])
                for key in keys:
                    key_values[key] = value
                label = level.get("label") or value
                button = self._button(f"{label}  [{' / '.join(keys)}]", lambda _=False, v=value: self.answer(v))
                button.setToolTip(level.get("description", ""))
                button.setMinimumHeight(44)
                layout.addWidget(button)
                buttons.append(button)
                if item.scale != "binary":
                    help_lines.append(f"<b>{html.escape(value)}</b> {html.escape(label)}: "
                                      f"{html.escape(level.get('description', ''))}")
            self._level_pages[signature] = (self.levels_stack.addWidget(row), key_values, buttons,
                                            "<br>".join(help_lines))
        index, self._key_values, self.level_buttons, help_text = self._level_pages[signature]
        self.levels_stack.setCurrentIndex(index)
        self.levels_help.setText(help_text)

    def _show_choice(self, item: ops.ItemView) -> None:
        self.pages.setCurrentIndex(1)
        tokens = item.source.split()
        start, end = item.span or (0, 0)
        self.choice_sentence_label.setText(highlighted_html(tokens, range(start, end)))
        for button in self.option_buttons:
            self.options_layout.removeWidget(button)
            button.hide()
            button.deleteLater()
        self.option_buttons = []
        for number, option in enumerate(item.options[:MAX_OPTIONS], 1):
            button = self._button(f"[{number}]  {option}", lambda _=False, n=number: self.answer_choice(f"option:{n}"))
            button.setStyleSheet("text-align:left; padding:6px")
            self.options_layout.addWidget(button)
            self.option_buttons.append(button)
        if not item.options:
            empty = QPushButton("(no options for this span)")
            empty.setEnabled(False)
            self.options_layout.addWidget(empty)
            self.option_buttons.append(empty)
        self.custom_edit.setText(item.text if item.value == "custom" and item.text else "")

    def _show_answer(self) -> None:
        item = self.item
        parts = []
        if item.value is not None:
            shown = item.value
            if item.scale == "choice" and item.text:
                shown = f"{item.value}: {item.text}"
            parts.append(f"Your answer: <b>{html.escape(shown)}</b> (a new key replaces it)")
        else:
            parts.append("<span style='color:#666'>not judged yet</span>")
        flagged = item.flag if item.value is not None else self.pending_flag
        comment = item.comment if item.value is not None else self.pending_comment
        if flagged:
            parts.append("<b style='color:#b00000'>⚑ flagged</b>")
        if comment:
            parts.append(f"comment: <i>{html.escape(comment)}</i>")
        self.answer_label.setText(" · ".join(parts))

    # answering -------------------------------------------------------------------------
    def answer(self, value: str, text: str | None = None) -> None:
        item = self.item
        if item is None or self.annotator_id is None:
            return
        was_open = item.value is None
        flag = item.flag if not was_open else self.pending_flag
        comment = item.comment if not was_open else self.pending_comment
        now = datetime.now(timezone.utc)
        self.writer.answer(item.assignment_id, value, text=text, started_at=self.shown_at, answered_at=now,
                           comment=comment, flag=flag)
        self.local[item.assignment_id] = LocalAnswer(value, text, flag, comment)
        self._positions[item.assignment_id] = item.position
        self._advance_from(item.position)

    def answer_choice(self, value: str) -> None:
        item = self.item
        if item is None or item.scale != "choice":
            return
        if value.startswith("option:"):
            number = int(value.split(":")[1])
            if number > len(item.options):
                return
            self.answer(value, item.options[number - 1])
        else:
            self.answer(value)

    def _submit_custom(self) -> None:
        text = self.custom_edit.text().strip()
        if not text:
            return
        self.setFocus()
        self.answer("custom", text)

    def _advance_from(self, position: int) -> None:
        """Show the next open item after ``position``, skipping answers still in the queue."""
        target = position
        while True:
            target = first_open_after(self.db, self.annotator_id, target)
            if target is None:
                break
            item = ops.item_at(self.db, self.annotator_id, target)
            if item is not None and item.assignment_id not in self.local:
                self._show(item)
                return
            if item is not None and self.local[item.assignment_id].value is None:
                self._show(item)
                return
        # Nothing open after here: anything open before (skipped with the arrows)?
        earlier = first_open_after(self.db, self.annotator_id, -1)
        while earlier is not None:
            item = ops.item_at(self.db, self.annotator_id, earlier)
            state = self.local.get(item.assignment_id)
            if state is None or state.value is None:
                self._show(item)
                return
            earlier = first_open_after(self.db, self.annotator_id, earlier)
        self._show(None)

    def move(self, step: int) -> None:
        if self.annotator_id is None:
            return
        if self.item is None:
            if step > 0:
                return
            position = last_position(self.db, self.annotator_id)
        else:
            position = ops.neighbour_position(self.db, self.annotator_id, self.item.position, step)
        if position is not None:
            self._show(ops.item_at(self.db, self.annotator_id, position))

    # undo, flag, comment ----------------------------------------------------------------
    def undo(self) -> None:
        if self.annotator_id is None:
            return
        self.writer.undo(self.annotator_id)
        self.status.setText("undoing the last answer…")

    def _on_undone(self, annotator_id: int, assignment_id: int) -> None:
        if annotator_id != self.annotator_id:
            return  # the writer is shared: another screen's undo
        if assignment_id < 0:
            self.status.setText("nothing to undo")
            return
        state = self.local.get(assignment_id)
        if state is not None:
            state.value, state.text, state.flag, state.comment = None, None, False, None
        self._progress_soon.start()
        position = self._positions.get(assignment_id)
        if position is None:
            position = assignment_position(self.db, assignment_id)
        self.status.setText("last answer undone")
        if position is not None and self.annotator_id is not None:
            self._show(ops.item_at(self.db, self.annotator_id, position))

    def _on_committed(self, _assignment_id: int, _judgment_id: int) -> None:
        if self._counting:
            self._recount_after = True
        # Throttled, not restarted: a fast annotator still sees the bars move.
        elif not self._progress_soon.isActive():
            self._progress_soon.start()

    def toggle_flag(self) -> None:
        item = self.item
        if item is None:
            return
        if item.value is None:
            self.pending_flag = not self.pending_flag
            self.status.setText("the flag is saved with your answer" if self.pending_flag else "flag removed")
        else:
            flag = not item.flag
            self.writer.annotate(item.assignment_id, flag=flag)
            self.item = replace(item, flag=flag)
            state = self.local.setdefault(item.assignment_id, LocalAnswer(item.value, item.text, item.flag,
                                                                           item.comment))
            state.flag = flag
            self.status.setText("flagged" if flag else "flag removed")
        self._show_answer()

    def start_comment(self) -> None:
        if self.item is None:
            return
        current = self.item.comment if self.item.value is not None else self.pending_comment
        self.comment_edit.setText(current or "")
        self.comment_edit.show()
        self.comment_edit.setFocus()

    def _save_comment(self) -> None:
        item = self.item
        comment = self.comment_edit.text().strip() or None
        self.comment_edit.hide()
        self.setFocus()
        if item is None:
            return
        if item.value is None:
            self.pending_comment = comment
            self.status.setText("the comment is saved with your answer")
        else:
            self.writer.annotate(item.assignment_id, comment=comment or "")
            self.item = replace(item, comment=comment)
            state = self.local.setdefault(item.assignment_id, LocalAnswer(item.value, item.text, item.flag,
                                                                           item.comment))
            state.comment = comment
            self.status.setText("comment saved")
        self._show_answer()

    # keys ------------------------------------------------------------------------------
    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if self.comment_edit.hasFocus() or self.custom_edit.hasFocus():
            if event.key() == Qt.Key_Escape:
                self.comment_edit.hide()
                self.setFocus()
                return
            return super().keyPressEvent(event)
        if event.matches(QKeySequence.Undo):
            self.undo()
            return
        if event.modifiers() & (Qt.ControlModifier | Qt.AltModifier | Qt.MetaModifier):
            return super().keyPressEvent(event)
        key = event.key()
        if key in (Qt.Key_Right, Qt.Key_Down):
            self.move(+1)
        elif key in (Qt.Key_Left, Qt.Key_Up):
            self.move(-1)
        elif key == Qt.Key_F:
            self.toggle_flag()
        elif key == Qt.Key_C:
            self.start_comment()
        elif self.item is not None and self.item.scale == "choice":
            self._choice_key(key)
        elif self.item is not None:
            value = self._key_values.get(event.text().upper()) if event.text() else None
            if value is not None:
                self.answer(value)
            else:
                super().keyPressEvent(event)

    def _choice_key(self, key: int) -> None:
        if key in (Qt.Key_0, Qt.Key_O):
            self.answer_choice("original")
        elif Qt.Key_1 <= key <= Qt.Key_5:
            self.answer_choice(f"option:{key - Qt.Key_0}")
        elif key == Qt.Key_T:
            self.custom_edit.setFocus()
