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

The keys are one table (:data:`desktop.judging_keys.KEYS`, as Anki's reviewer
declares its shortcuts) from which the buttons' labels and the help line are
written. What an item looks like (texts as judges see them, highlighted spans,
levels and their keys) is :func:`core.judging_view.judging_view`'s; the screen
paints it. The widgets are built by :class:`desktop.annotation_layout.AnnotationLayout`.

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
from datetime import datetime, timezone

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from core.store import operations as ops
from core.demo import demo_files
from core.store import session_lock
from core.store.annotation_session import AnnotationSession
from core.store.criteria import YES_NO_SCALES
from core.store.database import Database
from core.judging_view import JudgingView, judging_view, study_display
from desktop.judging_keys import KEY_BY_ACTION, KEYS, KeyBinding, help_line
from desktop.judging_clock import JudgingClock
from desktop.judgment_writer import JudgmentWriter
from desktop.widget_parts import pressed_key
from desktop.annotation_layout import AnnotationLayout
from desktop.changed_spans import sentence_html
from desktop.choice_accept import ChoiceAccept
from desktop.da_view import da_help
from desktop.esa_view import esa_help
from desktop.preference_view import preference_for_key, preference_help


class AnnotationScreen(ChoiceAccept, AnnotationLayout, QWidget):
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
        self.display = None  # the study's display rule (core.judging_view.study_display); None: tokenized
        self.view: JudgingView | None = None  # what the item shown looks like (core.judging_view)
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

    def _note_activity(self) -> None:
        if not self.clock.running and self.item is not None:
            self.status.setText("The clock paused while you were away (over a minute without a key); judging "
                                "time counts only while you judge.")
        self.clock.activity()

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
        self.display = study_display(settings, str(demo_files().truecase_model))  # None: tokenized
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
        if item is None or self.item is None or item.assignment_id != self.item.assignment_id:
            self.status.clear()  # a status line belongs to the item it was said on (issue 28: it stayed for hundreds)
        self.item = item
        self.note_auto_skips()
        if self.session is not None:
            self.session.showing(item)
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
        self.view = judging_view(item, self.display)
        if item.scale == "choice":
            self._show_choice(self.view)
        elif item.scale in self.protocol_views:
            self.protocol_views[item.scale].show_item(item)
            self.pages.setCurrentWidget(self.protocol_views[item.scale])
        else:
            self._show_candidate(self.view)
        self._show_answer()
        self.keys_help.setText({"preference": preference_help, "da": da_help, "esa": lambda: esa_help(False)}.get(
            item.scale, lambda: help_line(item.scale))())
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

    def _show_candidate(self, view: JudgingView) -> None:
        self.pages.setCurrentIndex(0)
        # The source box stays in place (no show/hide: that re-lays out the window on every key).
        self.source_box.setTitle(view.source_title)
        self.source_label.setText(sentence_html(view.source) if view.source is not None else
                                  "<i style='color:#777'>Judge the sentence below on its own.</i>")
        self.candidate_label.setText(sentence_html(view.candidate))
        self._set_level_buttons(view)

    def _set_level_buttons(self, view: JudgingView) -> None:
        item = view.item
        signature = (item.scale, tuple((level.value, level.label) for level in view.levels))
        if signature not in self._level_pages:
            row = QWidget()
            layout = QHBoxLayout(row)
            layout.setContentsMargins(0, 0, 0, 0)
            buttons, help_lines = [], []
            for level in view.levels:
                button = self._button(f"{level.label}  [{' / '.join(level.keys)}]",
                                      lambda _=False, v=level.value: self.answer(v))
                button.setToolTip(level.description)
                button.setCheckable(True)  # pressed while it is the answer of the item shown
                button.setMinimumHeight(36)
                layout.addWidget(button)
                buttons.append(button)
                if item.scale not in YES_NO_SCALES:
                    help_lines.append(f"<b>{html.escape(level.value)}</b> {html.escape(level.label)}: "
                                      f"{html.escape(level.description)}")
            self._level_pages[signature] = (self.levels_stack.addWidget(row), buttons, "<br>".join(help_lines))
        index, self.level_buttons, help_text = self._level_pages[signature]
        self._button_values = [level.value for level in view.levels]
        self.levels_stack.setCurrentIndex(index)
        self.levels_help.setText(help_text)

    def _show_choice(self, view: JudgingView) -> None:
        item = view.item
        self.pages.setCurrentIndex(1)
        self.choice_sentence_label.setText(sentence_html(view.candidate))
        for button in self.option_buttons:
            self.options_layout.removeWidget(button)
            button.hide()
            button.deleteLater()
        self.option_buttons = []
        for number, option in enumerate(view.options, 1):  # as each would read in the sentence above
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
        flagged, comment = self.session.remarks(item)
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
        flag, comment = self.session.remarks(item)
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
        reopened = self.session.undone(assignment_id)
        if reopened is not None:
            self._show(reopened)
        self.status.setText("last answer undone")

    def _on_committed(self, _assignment_id: int, _judgment_id: int) -> None:
        self.progress.answer_committed()

    def toggle_flag(self) -> None:
        if self.item is not None:
            self._remarked(self.session.toggle_flag(self.item), "flag")

    def start_comment(self) -> None:
        if self.item is None:
            return
        self.comment_edit.setText(self.session.remarks(self.item)[1] or "")
        self.comment_edit.show()
        self.comment_edit.setFocus()

    def _save_comment(self) -> None:
        self.comment_edit.hide()
        self.setFocus()
        if self.item is not None:
            self._remarked(self.session.set_comment(self.item, self.comment_edit.text().strip() or None), "comment")

    def _remarked(self, remark, what: str) -> None:
        """A flag or comment the session took: written now (an answered item) or kept for the answer."""
        if remark.write_now and what == "flag":
            self.writer.annotate(remark.item.assignment_id, flag=remark.flag)
            self.status.setText("flagged" if remark.flag else "flag removed")
        elif remark.write_now:
            self.writer.annotate(remark.item.assignment_id, comment=remark.comment or "")
            self.status.setText("comment saved")
        elif what == "flag":
            self.status.setText("the flag is saved with your answer" if remark.flag else "flag removed")
        else:
            self.status.setText("the comment is saved with your answer")
        self.item = remark.item
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
        # On a preference item A/B/T and the arrows answer (desktop/preference_view.py), before they navigate.
        if self.item is not None and self.item.scale == "preference" and (value := preference_for_key(event)):
            self.answer(value)
            return
        if self.item is not None and self.item.scale in ("da", "esa") and \
                self.protocol_views[self.item.scale].handle_key(event):
            return
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
            value = self.view.value_of_key(event.text()) if event.text() and self.view is not None else None
            if value is not None:
                self.answer(value)
            elif event.text().strip() and event.text().isalnum():
                # A key of another scale (Y on a 1-3 question): say which keys answer this one.
                self.status.setText(f"{html.escape(event.text().upper())} is not an answer to this question: press "
                                    f"{html.escape(' / '.join(self.view.answer_keys))}")
            else:
                super().keyPressEvent(event)

    def _binding_for(self, event) -> KeyBinding | None:
        """The entry of :data:`KEYS` this key press matches on the current item, if any."""
        # The keypad's digits and arrows (and every arrow on macOS) carry KeypadModifier: the same keys here.
        pressed = pressed_key(event)
        scale = self.item.scale if self.item is not None else None
        for binding in KEYS:
            if pressed in binding.keys and binding.scope in ("any", scale):
                return binding
        return None

    def _choice_key(self, key: int) -> None:
        if Qt.Key_1 <= key <= Qt.Key_5:
            self.preview_choice(f"option:{key - Qt.Key_0}")
