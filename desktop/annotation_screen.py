"""The annotation screen: one assignment at a time, keyboard only.

Keys (each button shows its key):

* yes/no criteria: Y or 1 = yes, N or 0 = no; scales: the level's digit;
* replacement task (seed 004 §3.6): one unit replacement highlighted in the source and the candidate,
  Y = correct, N = incorrect (the same keys as yes/no);
* choice task (seed 001 §4.2): 1-5 pick an option, 0 or O the original (the sentence shows the pick in
  place), Enter or A accepts it (:mod:`desktop.choice_accept`), T types a custom paraphrase (Enter submits,
  Esc goes back); a task the auto-skip rule closed is not shown (the status line says so);
* Right / Left move through the order without answering, Ctrl+Z undoes the
  last answer, F flags, C comments (Enter saves, Esc cancels).

The keys are one table (:data:`KEYS`, as Anki's reviewer declares its
shortcuts) from which the buttons' labels and the help line are written.

An answer goes on the writer's queue (:mod:`desktop.judgment_writer`) and the
next open item is shown at once; which item comes next is the Qt-free
:class:`core.store.annotation_session.AnnotationSession`'s answer (it knows
what was answered here and not yet committed). Judging is
blind: :class:`core.store.operations.ItemView` carries no system name, and
the order is the annotator's seeded order from the store. Seed 003 §4.3's
two-step protocol comes from the criteria: fluency (``shows_source`` false)
shows the candidate alone and without highlights, meaning shows both.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from datetime import datetime, timezone

from PySide6.QtCore import QKeyCombination, Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from core.store import operations as ops
from core.demo import demo_files
from core.engine.display_text import sentence_display
from core.store import session_lock
from core.store.annotation_session import AnnotationSession
from core.store.criteria import YES_NO_SCALES
from core.store.database import Database
from core.engine.changed_words import changed_tokens
from desktop.choice_accept import ChoiceAccept
from desktop.changed_spans import highlighted_display_html, highlighted_html
from desktop.judging_clock import JudgingClock
from desktop.judgment_writer import JudgmentWriter
from desktop.progress_bars import ProgressBars
from core.vocabulary import YES

MAX_OPTIONS = 5


@dataclass(frozen=True)
class KeyBinding:
    """Keys (as QKeySequence text), the screen's method they call, the button label; ``scope`` limits them to
    choice tasks ("choice") or to every item ("any")."""

    keys: tuple[str, ...]
    action: str
    label: str
    scope: str = "any"

    @property
    def shown(self) -> str:
        return " / ".join(_KEY_NAMES.get(key, key) for key in self.keys)

    def button_text(self) -> str:
        return f"{self.label}  [{self.shown}]"


_KEY_NAMES = {"Right": "→", "Left": "←", "Down": "↓", "Up": "↑"}
# Every key of the screen besides the answer levels (those come from each criterion's scale).
KEYS = (
    KeyBinding(("Left", "Up"), "previous", "◀ Previous"),
    KeyBinding(("Right", "Down"), "next", "Next ▶"),
    KeyBinding(("Ctrl+Z",), "undo", "Undo"),
    KeyBinding(("F",), "toggle_flag", "Flag"),
    KeyBinding(("C",), "start_comment", "Comment"),
    KeyBinding(("0", "O"), "keep_original", "Keep the original", "choice"),
    KeyBinding(("Return", "Enter", "A"), "accept_choice", "Accept selection", "choice"),
    KeyBinding(("T",), "start_custom", "Custom paraphrase", "choice"),
)
KEY_BY_ACTION = {binding.action: binding for binding in KEYS}


def help_line(scope: str) -> str:
    """The keys that work on this kind of item, as one line."""
    return " · ".join(f"<b>{html.escape(b.shown)}</b> {html.escape(b.label.strip('◀▶ ').lower())}"
                      for b in KEYS if b.scope in ("any", scope))


def key_for_level(scale: str, index: int, level: dict) -> tuple[str, ...]:
    """The keys that give a level: Y/1 and N/0 for yes/no, else the level's digit."""
    value = str(level["value"])
    if scale in YES_NO_SCALES:
        return ("Y", "1") if value == YES else ("N", "0")
    if value.isdigit() and len(value) == 1:
        return (value,)
    return (str(index + 1),) if index < 9 else ()


def replacement_marks(derivation, unit: int | None) -> tuple[range, range, str]:
    """The one unit replacement a replacement-task item asks about: its source and candidate tokens, and a title
    saying which of the candidate's replacements it is."""
    units = ops.replacement_units(derivation)
    if unit is None or not 0 <= unit < len(units):
        return range(0), range(0), "Source sentence"
    found = units[unit]
    return (range(*found["src"]), range(*found["tgt"]),
            f"Source sentence · replacement {unit + 1} of {len(units)}: “{found['source']}” → “{found['target']}”")


class AnnotationScreen(ChoiceAccept, QWidget):
    """Judging one study as one annotator. ``item_shown`` fires after each new item is laid out."""

    item_shown = Signal(object)
    finished = Signal()

    def __init__(self, db: Database, writer: JudgmentWriter, parent: QWidget | None = None):
        super().__init__(parent)
        self.db = db
        self.writer = writer
        self.study_id: int | None = None
        self.study_name = ""
        self.annotator_id: int | None = None
        self.annotator_name = ""
        self.item: ops.ItemView | None = None
        self.session: AnnotationSession | None = None  # what to show next; set by open()
        self.readable = True  # sentences detokenized and truecased (the study's "display" setting)
        self.display = None
        self._key_values: dict[str, str] = {}
        self.pending_flag = False
        self.pending_comment: str | None = None
        self.shown_at = datetime.now(timezone.utc)
        self.clock = JudgingClock()  # time spent judging the item shown (paused when hidden or idle)
        self.lock: session_lock.SessionLock | None = None  # this window's judging session
        self._heartbeat = QTimer(self, interval=session_lock.HEARTBEAT_SECONDS * 1000)
        self._heartbeat.timeout.connect(self._beat)
        self.level_buttons: list[QPushButton] = []  # the buttons of the current scale
        self._button_values: list[str] = []  # the value each of them gives
        self.option_buttons: list[QPushButton] = []
        self.setFocusPolicy(Qt.StrongFocus)
        self._build()
        writer.committed.connect(self._on_committed)
        writer.undone.connect(self._on_undone)
        writer.session_lost.connect(self._on_session_lost)
        writer.closed.connect(self._heartbeat.stop)
        writer.failed.connect(lambda message: self.status.setText(f"<b>could not save</b>: {html.escape(message)}"))

    # layout ---------------------------------------------------------------------------
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        header = QHBoxLayout()
        self.header_label = QLabel()
        self.header_label.setTextFormat(Qt.RichText)
        header.addWidget(self.header_label, 1)
        self.progress = ProgressBars()
        header.addWidget(self.progress)
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
        # On a small screen (1024 x 600) a long item scrolls instead of pushing the window past the screen.
        scroller = QScrollArea()
        scroller.setWidget(self.pages)
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.NoFrame)
        scroller.setFocusPolicy(Qt.NoFocus)
        outer.addWidget(scroller, 1)

        self.answer_label = QLabel()
        self.answer_label.setTextFormat(Qt.RichText)
        outer.addWidget(self.answer_label)

        self.comment_edit = QLineEdit(placeholderText="Comment on this item: Enter saves, Esc cancels")
        self.comment_edit.hide()
        self.comment_edit.returnPressed.connect(self._save_comment)
        outer.addWidget(self.comment_edit)

        actions = QHBoxLayout()
        self.prev_button, self.next_button, self.undo_button, self.flag_button, self.comment_button = (
            self._key_button(action) for action in ("previous", "next", "undo", "toggle_flag", "start_comment"))
        for button in (self.prev_button, self.next_button, self.undo_button, self.flag_button, self.comment_button):
            actions.addWidget(button)
        actions.addStretch(1)
        outer.addLayout(actions)
        self.keys_help = QLabel()
        self.keys_help.setTextFormat(Qt.RichText)
        self.keys_help.setStyleSheet("color:#555")
        outer.addWidget(self.keys_help)
        self.status = QLabel()
        self.status.setTextFormat(Qt.RichText)
        outer.addWidget(self.status)

    def _key_button(self, action: str) -> QPushButton:
        """The button of a key in :data:`KEYS`, labelled from the table."""
        return self._button(KEY_BY_ACTION[action].button_text(), getattr(self, action))

    def _button(self, text: str, slot) -> QPushButton:
        # A button's "&" marks its Alt shortcut: text from a study ("rock &amp; roll") would record an answer
        # with Alt+A and show "amp;". Doubled, it shows as written and makes no shortcut.
        button = QPushButton(text.replace("&", "&&"))
        button.setFocusPolicy(Qt.NoFocus)  # keys always reach the screen
        button.pressed.connect(self._note_activity)
        button.clicked.connect(slot)
        return button

    def _note_activity(self) -> None:
        if not self.clock.running and self.item is not None:
            self.status.setText("The clock paused while you were away (over a minute without a key); judging "
                                "time counts only while you judge.")
        self.clock.activity()

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
        self.original_button = self._key_button("keep_original")
        self.original_button.setCheckable(True)
        layout.addWidget(self.original_button)
        layout.addWidget(self._key_button("accept_choice"))
        custom_row = QHBoxLayout()
        custom_row.addWidget(QLabel(KEY_BY_ACTION["start_custom"].button_text() + ":"))
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
    def open(self, study_id: int, annotator_name: str, study_name: str = "", *, take_over: bool = False) -> None:
        """Start (or resume) ``annotator_name`` on the study: the first item they have not judged.

        Raises :class:`core.store.session_lock.SessionTaken` when another live session judges as this
        annotator on this study (``take_over`` replaces it), and LookupError when the annotator has no
        assignment in the study; the screen then shows what to do instead."""
        self.writer.drain()
        self.close_session()
        self.study_id, self.study_name, self.annotator_name = study_id, study_name, annotator_name
        try:
            annotator_id = ops.find_annotator(self.db, study_id, annotator_name)
        except LookupError:
            self.show_message(f"<h2>{html.escape(annotator_name)} has nothing to judge in "
                              f"“{html.escape(study_name)}”.</h2><p>Assign them in the Studies screen "
                              "(Ctrl+3) or with <code>parastudio study assign --annotators NAME</code>, or judge "
                              "as someone else (File ▸ Judge as…).</p>")
            raise
        self.lock = session_lock.acquire(self.db, study_id, annotator_id, take_over=take_over)
        self.annotator_id = annotator_id
        self._heartbeat.start()
        self.session = AnnotationSession(self.db, self.annotator_id)
        settings = ops.study_settings(self.db, study_id)
        self.readable = settings.get("display", "readable") == "readable"
        model = settings.get("truecase_model") or str(demo_files().truecase_model)
        self.display = sentence_display(model if model and Path(model).is_file() else None)
        self._show(self.session.first())
        self.progress.follow(self.db, study_id, self.annotator_id)

    def _beat(self) -> None:
        """Keep this window's session lock fresh; never on a closed writer (the window is going away)."""
        if self.lock is None or self.writer.is_closed:
            self._heartbeat.stop()
            return
        self.writer.heartbeat(self.lock)

    def refresh_progress(self) -> None:
        self.progress.recount()

    def close_session(self) -> None:
        """Release this window's judging session (its lock row), once the answers queued before are written."""
        self._heartbeat.stop()
        if self.lock is not None:
            self.writer.drain()
            session_lock.release(self.db, self.lock)
            self.lock = None
        self.session = None
        self.annotator_id = None

    def _on_session_lost(self, study_id: int, annotator_id: int) -> None:
        if self.lock is None or (study_id, annotator_id) != (self.lock.study_id, self.lock.annotator_id):
            return
        self._heartbeat.stop()
        self.lock = None
        self.session = None
        self.annotator_id = None
        self.show_message(f"<h2>Another window took over judging as {html.escape(self.annotator_name)}.</h2>"
                          "<p>Every answer given here is saved. Judge in the other window, or reopen the study "
                          "here (Ctrl+3, Enter) to take it back.</p>")

    def show_message(self, message_html: str) -> None:
        """An empty state: say what is going on and what to do next, instead of an item."""
        self.item = None
        self.question_label.setText("")
        self.answer_label.setText("")
        self.keys_help.setText("")
        self.done_label.setText(message_html)
        self.pages.setCurrentIndex(2)
        self._update_header()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self.clock.resume()
        super().showEvent(event)

    def hideEvent(self, event) -> None:  # noqa: N802
        self.clock.pause()
        super().hideEvent(event)

    # showing an item ---------------------------------------------------------------
    def _show(self, item: ops.ItemView | None) -> None:
        self.item = item
        self.note_auto_skips()
        self.pending_flag, self.pending_comment = False, None
        self.comment_edit.hide()
        self.shown_at = datetime.now(timezone.utc)
        self.clock.start()
        if not self.isVisible():
            self.clock.pause()
        if self.item is None:
            self.question_label.setText("")
            if self.session is not None and self.session.has_no_items():
                self.done_label.setText(f"<h2>“{html.escape(self.study_name)}” has no items for "
                                        f"{html.escape(self.annotator_name)} yet.</h2><p>Import candidates and "
                                        "assign them in the Studies screen (Ctrl+3), or with <code>parastudio study "
                                        "import-candidates</code> and <code>parastudio study assign</code>.</p>")
            else:
                self.done_label.setText(f"<h2>All done.</h2><p>{html.escape(self.annotator_name)} has judged every "
                                        f"item assigned in this study. {html.escape(KEY_BY_ACTION['undo'].shown)} undoes the "
                                        f"last answer, {html.escape(KEY_BY_ACTION['previous'].shown)} goes back.</p>")
            self.pages.setCurrentIndex(2)
            self.answer_label.setText("")
            self.keys_help.setText(help_line("any"))
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
        self.keys_help.setText(help_line(item.scale))
        if self.session is not None and self.session.held_back is not None:
            # Blind phases: the item due shows a source whose sentence still has this question open.
            self.status.setText(f"This {html.escape(item.criterion)} question of the sentence comes first: the "
                                f"{html.escape(self.session.held_back.criterion)} question shows its source.")
        self._update_header()
        self.item_shown.emit(item)

    def _update_header(self) -> None:
        where = "" if self.item is None else f" · item {self.item.position + 1}"
        self.header_label.setText(f"<b>{html.escape(self.study_name)}</b> · annotator "
                                  f"<b>{html.escape(self.annotator_name)}</b>{where} · system names hidden")

    def _show_candidate(self, item: ops.ItemView) -> None:
        self.pages.setCurrentIndex(0)
        candidate = item.candidate or ""
        # The source box stays in place (no show/hide: that re-lays out the window on every key).
        if item.scale == "replacement":
            source_changed, candidate_changed, title = replacement_marks(item.derivation, item.unit)
            self.source_box.setTitle(title)
            self.source_label.setText(self._sentence_html(item, item.source, source_changed))
            self.candidate_label.setText(self._sentence_html(item, candidate, candidate_changed))
        elif item.shows_source:
            source_changed, candidate_changed = changed_tokens(item.source, candidate, item.derivation)
            self.source_box.setTitle("Source sentence")
            self.source_label.setText(self._sentence_html(item, item.source, source_changed))
            self.candidate_label.setText(self._sentence_html(item, candidate, candidate_changed))
        else:
            # Form alone (seed 003's first step): no source, and no highlight that would hint at one.
            self.source_box.setTitle("Source sentence: not shown for this question")
            self.source_label.setText("<i style='color:#777'>Judge the sentence below on its own.</i>")
            self.candidate_label.setText(self._sentence_html(item, candidate, set()))
        self._set_level_buttons(item)

    def _sentence_html(self, item: ops.ItemView, tokens: str, marked) -> str:
        """A sentence as the study shows it: readable (the published source where the text is the source's,
        else detokenized and truecased) or tokenized, with the ``marked`` tokens highlighted."""
        if not self.readable or self.display is None:
            return highlighted_html(tokens.split(), marked)
        if item.source_display and tokens.split() == item.source.split():
            shown = self.display.show_original(item.source_display, tokens)
        else:
            shown = self.display.show(tokens)
        return highlighted_display_html(shown.text, shown.spans, marked)

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
                button.setCheckable(True)  # pressed while it is the answer of the item shown
                button.setMinimumHeight(36)
                layout.addWidget(button)
                buttons.append(button)
                if item.scale not in YES_NO_SCALES:
                    help_lines.append(f"<b>{html.escape(value)}</b> {html.escape(label)}: "
                                      f"{html.escape(level.get('description', ''))}")
            self._level_pages[signature] = (self.levels_stack.addWidget(row), key_values, buttons,
                                            "<br>".join(help_lines), [str(level["value"]) for level in item.levels])
        index, self._key_values, self.level_buttons, help_text, self._button_values = self._level_pages[signature]
        self.levels_stack.setCurrentIndex(index)
        self.levels_help.setText(help_text)

    def _show_choice(self, item: ops.ItemView) -> None:
        self.pages.setCurrentIndex(1)
        start, end = item.span or (0, 0)
        self.choice_sentence_label.setText(self._sentence_html(item, item.source, range(start, end)))
        for button in self.option_buttons:
            self.options_layout.removeWidget(button)
            button.hide()
            button.deleteLater()
        self.option_buttons = []
        for number, option in enumerate(item.options[:MAX_OPTIONS], 1):
            button = self._button(f"[{number}]  {option}", lambda _=False, n=number: self.preview_choice(f"option:{n}"))
            button.setCheckable(True)
            button.setStyleSheet("text-align:left; padding:6px")
            self.options_layout.addWidget(button)
            self.option_buttons.append(button)
        if not item.options:
            empty = QPushButton("(no options for this span)")
            empty.setEnabled(False)
            self.options_layout.addWidget(empty)
            self.option_buttons.append(empty)
        self.custom_edit.setText(item.text if item.value == "custom" and item.text else "")
        self.previewed = None

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
        # The button of the answer given earlier stays pressed when the judge comes back to the item.
        for button, value in zip(self.level_buttons, self._button_values):
            button.setChecked(item.value is not None and value == item.value)
        for number, button in enumerate(self.option_buttons, 1):
            button.setChecked(item.value == f"option:{number}")
        self.original_button.setChecked(item.value == "original")
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
                           comment=comment, flag=flag, duration_ms=self.clock.elapsed_ms())
        self._show(self.session.answered(item, value, text, flag=flag, comment=comment))

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

    def keep_original(self) -> None:
        self.preview_choice("original")

    def start_custom(self) -> None:
        if self.item is not None and self.item.scale == "choice":
            self.custom_edit.setFocus()

    def previous(self) -> None:
        self.move(-1)

    def next(self) -> None:
        self.move(+1)

    def move(self, step: int) -> None:
        if self.session is None:
            return
        item = self.session.neighbour(self.item, step)
        if item is not None:
            self._show(item)

    # undo, flag, comment ----------------------------------------------------------------
    def undo(self) -> None:
        if self.annotator_id is None:
            return
        self.session.undo_queued()
        self.writer.undo(self.annotator_id)
        self.status.setText("undoing the last answer…")

    def _on_undone(self, annotator_id: int, assignment_id: int) -> None:
        if annotator_id != self.annotator_id:
            return  # the writer is shared: another screen's undo
        if assignment_id < 0:
            self.session.undone(None)
            self.status.setText("nothing to undo")
            return
        self.progress.answer_committed()
        self.status.setText("last answer undone")
        reopened = self.session.undone(assignment_id)
        if reopened is not None:
            self._show(reopened)

    def _on_committed(self, _assignment_id: int, _judgment_id: int) -> None:
        self.progress.answer_committed()

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
            self.item = self.session.annotated(item, flag=flag)
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
            self.item = self.session.annotated(item, comment=comment or "")
            self.status.setText("comment saved")
        self._show_answer()

    # keys ------------------------------------------------------------------------------
    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self._note_activity()
        if self.comment_edit.hasFocus() or self.custom_edit.hasFocus():
            if event.key() == Qt.Key_Escape:
                self.comment_edit.hide()
                self.setFocus()
                return
            return super().keyPressEvent(event)
        binding = self._binding_for(event)
        if binding is not None:
            getattr(self, binding.action)()
            return
        if event.modifiers() & (Qt.ControlModifier | Qt.AltModifier | Qt.MetaModifier):
            return super().keyPressEvent(event)
        key = event.key()
        if self.item is not None and self.item.scale == "choice":
            self._choice_key(key)
        elif self.item is not None:
            value = self._key_values.get(event.text().upper()) if event.text() else None
            if value is not None:
                self.answer(value)
            else:
                super().keyPressEvent(event)

    def _binding_for(self, event) -> KeyBinding | None:
        """The entry of :data:`KEYS` this key press matches on the current item, if any."""
        # The keypad's digits and arrows (and every arrow on macOS) carry KeypadModifier: the same keys here.
        pressed = QKeySequence(QKeyCombination(event.modifiers() & ~Qt.KeypadModifier,
                                               Qt.Key(event.key()))).toString()
        scale = self.item.scale if self.item is not None else None
        for binding in KEYS:
            if pressed in binding.keys and binding.scope in ("any", scale):
                return binding
        return None

    def _choice_key(self, key: int) -> None:
        if Qt.Key_1 <= key <= Qt.Key_5:
            self.preview_choice(f"option:{key - Qt.Key_0}")
