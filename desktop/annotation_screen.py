"""The annotation screen: one assignment at a time, keyboard only.

Keys (each button shows its key):

* yes/no criteria: Y or 1 = yes, N or 0 = no; scales: the level's digit;
* replacement task (seed 004 §3.6): one unit replacement highlighted in the source and the candidate,
  Y = correct, N = incorrect (the same keys as yes/no);
* choice task (seed 001 §4.2): 1-5 pick an option, 0 or O the original (the sentence shows the pick in
  place), Enter accepts it (:mod:`desktop.choice_accept`), T types a custom paraphrase (Enter submits,
  Esc goes back); a task the auto-skip rule closed is not shown (the status line says so);
* preference: A left, B right, E no difference (or 1 / 2 / 3); direct assessment: 0-9 tens, + / - by one,
  PgUp / PgDown by ten, Home / End, Enter records; error spans: Ctrl+arrows move over the words (with Shift they
  extend), M / J mark, Backspace unmarks, then the score keys and Enter;
* on every item → / ↓ move to the next item and ← / ↑ to the previous one without answering (issue 44: a key
  means one thing on every protocol), Ctrl+Z undoes the last answer, F flags, C comments (Enter saves, Esc cancels).

The keys are one table per item (:func:`core.judging.keys.table_for`: the
protocol's answering keys and :data:`core.judging.keys.KEYS`, as Anki's reviewer
declares its shortcuts) from which the buttons' labels, the help line and F1's
key table are written. A key goes one way down: the screen hands it, as text, to the Qt-free
:class:`core.judging.desk.JudgingDesk`, which says what to record and what is
shown (texts as judges see them, highlighted spans, levels and their keys, a
choice pick, a score); the screen stores that through the writer and paints it,
and decides nothing itself. The widgets are built by
:class:`desktop.annotation_layout.AnnotationLayout`.

An answer goes on the writer's queue (:mod:`desktop.judgment_writer`) and the
next open item is shown at once; which item comes next is the Qt-free
:class:`core.store.annotation_session.AnnotationSession`'s answer (it knows
what was answered here and not yet committed). A study is opened in a worker
(the screen says "Loading…" and takes no key until it is open). Judging is
blind: :class:`core.store.operations.ItemView` carries no system name, and
the order is the annotator's seeded order from the store. Seed 003 §4.3's
two-step protocol comes from the criteria: fluency (``shows_source`` false)
shows the candidate alone and without highlights, meaning shows both.
"""

from __future__ import annotations

import html
from datetime import datetime, timezone

from PySide6.QtCore import Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from parastudio.core.demo import demo_files
from parastudio.core.judging.desk import JudgingDesk, OpenedDesk, Outcome, open_desk
from parastudio.core.judging.keys import KEY_BY_ACTION, help_line
from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.view import JudgingView, choice_text
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.desktop.annotation_layout import AnnotationLayout
from parastudio.desktop.changed_spans import sentence_html
from parastudio.desktop.choice_accept import ChoiceAccept
from parastudio.desktop.judging_clock import JudgingClock
from parastudio.desktop.judging_sitting import JudgingSitting
from parastudio.desktop.judgment_writer import JudgmentWriter
from parastudio.desktop.palette import OPTION_STYLE, tone
from parastudio.desktop.widget_parts import pressed_key
from parastudio.desktop.workers import Worker


class AnnotationScreen(JudgingSitting, ChoiceAccept, AnnotationLayout, QWidget):
    """Judging one study as one annotator. ``item_shown`` fires after each new item is laid out; ``open_done``
    after an :meth:`open` finished (opened, or refused: the screen then says why), ``open_refused`` with the
    refusal (LookupError, :class:`core.store.operations.SessionTaken`)."""

    item_shown = Signal(object)
    finished = Signal()
    open_done = Signal()
    open_refused = Signal(object)

    def __init__(self, db: Database, writer: JudgmentWriter, parent: QWidget | None = None):
        super().__init__(parent)
        self.db = db
        self.writer = writer
        self.study_id: int | None = None
        self.study_name = ""
        self.annotator_id: int | None = None
        self.annotator_name = ""
        self.item: ops.ItemView | None = None
        self.desk: JudgingDesk | None = None  # what each key does and what is shown (core.judging.desk); set by open
        self.loading = False  # a study is being opened off the UI thread ("Loading…" shown, keys ignored)
        self._opening = 0  # the ticket of the latest open(): an older one's result is dropped
        self._when_open: list = []
        self.desk_thread: int | None = None  # the thread that read the store to open the study (never the UI's)
        self.shown_at = datetime.now(timezone.utc)
        self.clock = JudgingClock()  # time spent judging the item shown (paused when hidden or idle)
        self.lock: ops.SessionLock | None = None  # this window's judging session
        self._heartbeat = QTimer(self, interval=ops.HEARTBEAT_SECONDS * 1000)
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

    @property
    def session(self):
        """The Qt-free session (what to show next), None while no study is open."""
        return self.desk.session if self.desk is not None else None

    @property
    def view(self) -> JudgingView | None:
        return self.desk.view if self.desk is not None else None

    @property
    def display(self):
        return self.desk.display if self.desk is not None else None

    def _note_activity(self) -> None:
        if not self.clock.running and self.item is not None:
            self.status.setText("The clock paused while you were away (over a minute without a key); judging "
                                "time counts only while you judge.")
        self.clock.activity()

    # study and annotator --------------------------------------------------------------
    def open(self, study_id: int, annotator_name: str, study_name: str = "", *, take_over: bool = False) -> None:
        """Start (or resume) ``annotator_name`` on the study: the first item they have not judged.

        The store is read off the UI thread (:func:`core.judging.desk.open_desk` in a worker) while the screen
        says "Loading…" and takes no answer; then ``open_done`` fires. When another live session judges as this
        annotator on this study (``take_over`` replaces it), or the annotator has no assignment in the study,
        ``open_refused`` carries the refusal and the screen says what to do instead."""
        self.writer.drain()
        self.close_session()
        self.study_id, self.study_name, self.annotator_name = study_id, study_name, annotator_name
        self.show_message(f"<h2>Loading…</h2><p>Opening “{html.escape(study_name)}” for "
                          f"{html.escape(annotator_name)}.</p>")
        self.loading = True
        self._opening += 1
        ticket, db, model = self._opening, self.db, str(demo_files().truecase_model)

        def load(_report):
            try:
                return ticket, open_desk(db, study_id, annotator_name, take_over=take_over,
                                         default_truecase_model=model)
            except (LookupError, ops.SessionTaken) as refusal:
                return ticket, refusal

        worker = Worker(load)
        # Bound methods, not closures: Qt drops the connection if this widget is gone first.
        worker.signals.finished.connect(self._opened)
        worker.signals.failed.connect(self._open_failed)
        QThreadPool.globalInstance().start(worker)

    def _opened(self, result) -> None:
        ticket, opened = result
        if ticket != self._opening:  # another open (or a close) came since: this one's lock is not ours
            if isinstance(opened, OpenedDesk):
                QThreadPool.globalInstance().start(Worker(lambda _report: ops.release_session(self.db, opened.lock)))
            return
        self.loading = False
        if isinstance(opened, LookupError):
            self.show_message(f"<h2>{html.escape(self.annotator_name)} has nothing to judge in "
                              f"“{html.escape(self.study_name)}”.</h2><p>Assign them in the Studies screen "
                              "(Ctrl+3) or with <code>parastudio study assign --annotators NAME</code>, or judge "
                              "as someone else (File ▸ Judge as…).</p>")
        if not isinstance(opened, OpenedDesk):
            self.open_refused.emit(opened)
            self._finish_open()
            return
        self.lock, self.annotator_id, self.desk = opened.lock, opened.annotator_id, opened.desk
        self.desk_thread = opened.thread
        self._heartbeat.start()
        self._show()
        self.progress.follow(self.db, self.study_id, self.annotator_id)
        self._finish_open()

    def _open_failed(self, message: str) -> None:
        self.loading = False
        self.show_message(f"<h2>Could not open “{html.escape(self.study_name)}”.</h2><p>{html.escape(message)}</p>")
        self._finish_open()

    def _finish_open(self) -> None:
        waiting, self._when_open = self._when_open, []
        for then in waiting:
            then()
        self.open_done.emit()

    def when_open(self, then) -> None:
        """Call ``then`` once the study being opened is open (now when none is loading)."""
        if self.loading:
            self._when_open.append(then)
        else:
            then()

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
        if self.loading:  # an open in flight: its result is dropped (and its lock released) when it lands
            self._opening += 1
            self.loading = False
            self._finish_open()
        if self.lock is not None:
            self.writer.drain()
            ops.release_session(self.db, self.lock, sitting=self.sitting_summary())
            self.lock = None
        self.desk = None
        self.annotator_id = None

    def _on_session_lost(self, study_id: int, annotator_id: int) -> None:
        if self.lock is None or (study_id, annotator_id) != (self.lock.study_id, self.lock.annotator_id):
            return
        self._heartbeat.stop()
        self.lock = None
        self.desk = None
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
    def _show(self) -> None:
        """Paint the desk's item whole (a new item, or none left)."""
        item = self.desk.item
        if item is None or self.item is None or item.assignment_id != self.item.assignment_id:
            self.status.clear()  # a status line belongs to the item it was said on (issue 28: it stayed for hundreds)
        self.item = item
        self.note_auto_skips()
        self.comment_edit.hide()
        self.shown_at = datetime.now(timezone.utc)
        self.clock.start()
        if not self.isVisible():
            self.clock.pause()
        if self.item is None:
            self.question_label.setText("")
            if self.session.has_no_items():
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
            self.keys_help.setText(help_line())
            self._update_header()
            self.finished.emit()
            self.item_shown.emit(None)
            return
        self.question_label.setText(item.question)
        painted = protocol_of(item.scale).view
        if painted == "choice":
            self._show_choice(self.view)
        elif painted in self.protocol_views:
            self.protocol_views[painted].show_item(self.view)
            self._paint_protocol()
            self.pages.setCurrentWidget(self.protocol_views[painted])
        else:
            self._show_candidate(self.view)
        self._show_answer()
        self.keys_help.setText(help_line(protocol_of(item.scale)))  # written from the item's key table
        if self.session.held_back is not None:
            # Blind phases: the item due shows a source whose sentence still has this question open.
            self.status.setText(f"This {html.escape(item.criterion)} question of the sentence comes first: the "
                                f"{html.escape(self.session.held_back.criterion)} question shows its source.")
        self._update_header()
        self.item_shown.emit(item)

    def _paint_protocol(self) -> None:
        """A DA or ESA item's score and marks as the desk holds them."""
        painted = protocol_of(self.item.scale).view
        if painted == "score":
            self.da_view.paint(self.desk.score)
        elif painted == "spans":
            self.esa_view.paint(self.desk.marking, self.desk.score, self.desk.scoring)
        elif painted == "mqm":
            errors = self.desk.errors
            self.esa_view.paint(errors, None, False, f"MQM {errors.tenths / 10:g} · next mark: {errors.category}")

    def _update_header(self) -> None:
        where = "" if self.item is None or self.desk is None else f" · {self.desk.item_name()}"
        self.header_label.setText(f"<b>{html.escape(self.study_name)}</b> · annotator "
                                  f"<b>{html.escape(self.annotator_name)}</b>{where} · system names hidden")

    def _show_candidate(self, view: JudgingView) -> None:
        self.pages.setCurrentIndex(0)
        # The source box stays in place (no show/hide: that re-lays out the window on every key).
        self.source_box.setTitle(view.source_title)
        self.source_label.setText(sentence_html(view.source) if view.source is not None else
                                  f"<i style='color:{tone('muted')}'>Judge the sentence below on its own.</i>")
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
                if item.scale not in ops.yes_no_scales():
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
            button.setStyleSheet(OPTION_STYLE)
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
            if protocol_of(item.scale).view == "choice" and item.text:  # an option reads in place; a typed paraphrase as typed
                picked = item.text if item.value == "custom" else choice_text(item, item.text, self.display)
                shown = f"{item.value}: {picked}"
            parts.append(f"Your answer: <b>{html.escape(shown)}</b> (a new key replaces it)")
        else:
            parts.append(f"<span style='color:{tone('muted')}'>not judged yet</span>")
        # The button of the answer given earlier stays pressed when the judge comes back to the item.
        for button, value in zip(self.level_buttons, self._button_values):
            button.setChecked(item.value is not None and value == item.value)
        for number, button in enumerate(self.option_buttons, 1):
            button.setChecked(item.value == f"option:{number}")
        self.original_button.setChecked(item.value == "original")
        flagged, comment = self.desk.remarks()
        if flagged:
            parts.append(f"<b style='color:{tone('warning')}'>⚑ flagged</b>")
        if comment:
            parts.append(f"comment: <i>{html.escape(comment)}</i>")
        self.answer_label.setText(" · ".join(parts))

    # what the desk says ------------------------------------------------------------------
    def _apply(self, outcome: Outcome) -> bool:
        """Store what the desk says must be stored, then paint what it shows; False: the key meant nothing."""
        record = outcome.record
        if record is not None and record.kind == "answer":
            self._record_answer(record)  # with the judging clock's time, counted in the sitting
        elif record is not None and record.kind == "annotate":
            self.writer.annotate(record.assignment_id, flag=record.flag, comment=record.comment)
        elif record is not None and record.kind == "undo":
            self.writer.undo(self.annotator_id)
        if outcome.moved:
            self._show()
        elif self.desk is not None and self.item is not None:
            self.item = self.desk.item
            if protocol_of(self.item.scale).view in ("score", "spans", "mqm"):
                self._paint_protocol()
            self._show_answer()
            self.paint_preview()
        if outcome.status is not None:
            self.status.setText(outcome.status)
        if outcome.command is not None:
            getattr(self, outcome.command)()
        return outcome.handled

    def _act(self, action: str, *args) -> None:
        """A button or a text field: the desk's action of that name (as its key would)."""
        if self.desk is not None and not self.loading:
            self._apply(getattr(self.desk, action)(*args))

    def answer(self, value: str, text: str | None = None) -> None:
        """A clicked level, preference or score: recorded as its key would be."""
        self._act("answer", value, text)

    def preview_choice(self, value: str) -> None:
        self._act("pick", value)

    def accept_choice(self) -> None:
        self._act("accept_choice")

    def confirm(self) -> None:
        """The Enter button (a choice task's "Accept selection"): as the key would."""
        self._act("confirm")

    def _submit_custom(self) -> None:
        text = self.custom_edit.text().strip()
        if not text:
            return
        self.setFocus()
        self._act("answer", "custom", text)

    def keep_original(self) -> None:
        self._act("keep_original")

    def start_custom(self) -> None:
        if self.item is not None and protocol_of(self.item.scale).view == "choice":
            self.custom_edit.setFocus()

    def previous(self) -> None:
        self._act("previous")

    def next(self) -> None:
        self._act("next")

    def move(self, step: int) -> None:
        self._act("move", step)

    # undo, flag, comment ----------------------------------------------------------------
    def undo(self) -> None:
        if self.annotator_id is not None:
            self._act("undo")

    def _on_undone(self, annotator_id: int, assignment_id: int) -> None:
        if annotator_id != self.annotator_id or self.desk is None:
            return  # the writer is shared: another screen's undo
        if assignment_id >= 0:
            self.progress.answer_committed()
        self._apply(self.desk.undone(assignment_id if assignment_id >= 0 else None))

    def _on_committed(self, _assignment_id: int, _judgment_id: int) -> None:
        self.progress.answer_committed()

    def toggle_flag(self) -> None:
        self._act("toggle_flag")

    def start_comment(self) -> None:
        if self.item is None:
            return
        self.comment_edit.setText(self.desk.remarks()[1] or "")
        self.comment_edit.show()
        self.comment_edit.setFocus()

    def _save_comment(self) -> None:
        self.comment_edit.hide()
        self.setFocus()
        self._act("set_comment", self.comment_edit.text().strip() or None)

    # keys ------------------------------------------------------------------------------
    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        """The key goes to the desk as text; the screen stores and paints what it says (nothing while loading)."""
        self._note_activity()
        if self.comment_edit.hasFocus() or self.custom_edit.hasFocus():
            if event.key() == Qt.Key_Escape:
                self.comment_edit.hide()
                self.setFocus()
                return
            return super().keyPressEvent(event)
        if self.desk is None or self.loading or not self._apply(self.desk.press(pressed_key(event))):
            super().keyPressEvent(event)
