"""One judge at one study, key by key, without Qt: the screen hands each key press here as text ("Y", "2",
"Ctrl+Left", "Return") and paints what this says; what a key means is its key table's word, what it does is
decided here and nowhere else.

Issue 28 (Deliver 3): the value of an answer used to pass back and forth between the annotation screen, the
session, the display and the word diff. Now a key goes one way down: :meth:`JudgingDesk.press` reads it against
the item shown: the binding of that key in the item's key table (:func:`core.judging.keys.table_for`: its
protocol's answering keys, declared in its module in :mod:`core.judging.protocols`, and the keys of every item),
whose action is a method here, one meaning per key on every protocol (issue 44); it tells the session (:class:`core.store.annotation_session.
AnnotationSession`) what was answered, and returns an :class:`Outcome`: the :class:`Record` the writer must store
(an answer, a flag or comment, an undo), whether another item is shown now, and a status line. What to paint is
the desk's state: ``item``, ``view`` (texts as judges see them, highlighted spans, levels and their keys),
``preview`` (a choice task's pick not yet accepted) and ``score`` / ``marking`` / ``scoring`` (a DA or ESA item's
score and marks before Enter records them).

Opening a study (:func:`open_desk`) reads the store: the screen runs it off the UI thread.
"""

from __future__ import annotations

import html
import threading
from dataclasses import dataclass

from parastudio.core.judging import keys as judging_keys
from parastudio.core.judging.protocols import mqm, protocol_of
from parastudio.core.judging.protocols.direct_assessment import known_range
from parastudio.core.judging.protocols.preference import preference_of_key
from parastudio.core.judging.protocols.protocol import PAIR, SCORE
from parastudio.core.judging.view import JudgingView, judging_view, study_display
from parastudio.core.store import operations as ops
from parastudio.core.store import session_lock
from parastudio.core.store.annotation import ItemView
from parastudio.core.store.annotation_session import AnnotationSession
from parastudio.core.store.database import Database
from parastudio.core.vocabulary import PREFER_LEFT, PREFER_RIGHT

MODIFIERS = ("Ctrl+", "Alt+", "Meta+")


@dataclass(frozen=True)
class Record:
    """What the writer must store: ``kind`` "answer" (``value``, ``text``, with the item's flag and comment),
    "annotate" (a flag or comment on an answered item: the field given is the one changed) or "undo"."""

    kind: str
    assignment_id: int | None = None
    value: str | None = None
    text: str | None = None
    flag: bool | None = None
    comment: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What one key did. ``moved``: another item (or none) is shown now, paint it whole; ``command``: what only
    the screen can do ("start_comment", "start_custom": open a text field); ``handled`` False: the key means
    nothing here (the screen passes it on)."""

    record: Record | None = None
    moved: bool = False
    status: str | None = None
    command: str | None = None
    handled: bool = True


NOTHING = Outcome(handled=False)


class JudgingDesk:
    """The item shown to one annotator and what each key does to it (see the module docstring)."""

    def __init__(self, session: AnnotationSession, display=None, settings: dict | None = None):
        self.session = session
        self.display = display  # the study's display rule (core.judging.view.study_display); None: tokenized
        self.settings = settings or {}  # the study's settings: its training items' known answers (issue 44)
        self.item: ItemView | None = None
        self.view: JudgingView | None = None
        self.preview: ops.ChoicePreview | None = None
        self.score: int | None = None
        self.marking: ops.SpanMarking | None = None
        self.errors: mqm.MqmMarking | None = None  # an MQM item's errors marked so far
        self.scoring = False  # an ESA item: True once its marks are done and its score is set

    # what is shown --------------------------------------------------------------------------
    def start(self) -> Outcome:
        return self._show(self.session.first())

    def _show(self, item: ItemView | None) -> Outcome:
        self.item = item
        self.session.showing(item)
        self.view = judging_view(item, self.display) if item is not None else None
        self.preview = None
        self.scoring = False
        view = self._protocol_view()
        self.score = int(item.value) if view in ("score", "spans") and item.value else None
        self.marking = None
        self.errors = (mqm.MqmMarking(len(self.view.words), mqm.parse_errors(item.text) if item.value is not None
                                      else []) if view == "mqm" else None)
        if view == "spans":
            # Over the words the judge reads (the view's: readable words, each over its stored tokens;
            # core.judging.span_rewrites maps them onto the derivation's rewrites), as desktop/esa_view.py
            # paints them from the same view.
            self.marking = ops.SpanMarking(len(self.view.words),
                                           ops.parse_spans(item.text) if item.value is not None else [])
        return Outcome(moved=True)

    def item_name(self) -> str:
        """How the header names the item shown: its number, or a training item's kind (numbered before 1 when it
        was given after the judge's first items: ``study assign --training N``)."""
        if self.item is not None and training_of(self.settings, self.item) is not None:
            return "training item (a known answer, not counted)"
        return f"item {self.item.position + 1}" if self.item is not None else ""

    def remarks(self) -> tuple[bool, str | None]:
        """The flag and comment shown with the item: its answer's, or those waiting for its answer."""
        return self.session.remarks(self.item) if self.item is not None else (False, None)

    # keys -----------------------------------------------------------------------------------
    def press(self, key: str) -> Outcome:
        """What ``key`` (as QKeySequence writes it; the keypad's keys as the main ones) does on the item shown: the
        action its binding names in the item's key table (:func:`core.judging.keys.table_for`), one meaning per key
        on every protocol."""
        if key.startswith("Shift+") and len(key) == len("Shift+") + 1:
            key = key.removeprefix("Shift+")  # a character typed with Shift ("+", "N"): the character
        if self.item is None:
            binding = next((b for b in judging_keys.KEYS if key in b.keys and b.scope == "any"), None)
        else:
            binding = judging_keys.binding_for(protocol_of(self.item.scale), key)
        if binding is not None:
            # The screen's keys (KEYS: move, undo, flag, comment, a choice's buttons) call their action as a button
            # does; a protocol's own (its key_table) read the key.
            action = getattr(self, binding.action)
            return action() if binding in judging_keys.KEYS else action(key)
        if self.item is None or key.startswith(MODIFIERS):
            return NOTHING
        if len(key) == 1 and key.isalnum() and self._protocol_view() == "levels":
            # A key of another scale (Y on a 1-3 question): say which keys answer this one.
            return Outcome(status=f"{html.escape(key.upper())} is not an answer to this question: press "
                                  f"{html.escape(' / '.join(self.view.answer_keys))}")
        return NOTHING

    def _protocol_view(self) -> str | None:
        """What the item's protocol asks the screen to paint ("levels", "score", "spans", "pair", "choice")."""
        return protocol_of(self.item.scale).view if self.item is not None else None

    # the protocols' key actions (each takes the key; core.judging.keys names what each means) ----------------
    def answer_level(self, key: str) -> Outcome:
        """The level whose keys hold ``key`` (core.judging.view.Level.keys), recorded; a key no level of this
        scale takes says which keys do."""
        value = self.view.value_of_key(key) if self.view is not None else None
        if value is not None:
            return self.answer(value)
        return Outcome(status=f"{html.escape(key.upper())} is not an answer to this question: press "
                              f"{html.escape(' / '.join(self.view.answer_keys))}")

    answer_yes = answer_no = answer_level

    def answer_number(self, key: str) -> Outcome:
        """A digit: the answer of that number on the item's protocol (a level, an option, a button, a score)."""
        view = self._protocol_view()
        if view == "choice":
            return self.pick("original" if key == "0" else f"option:{key}")
        if view == "mqm":
            self.errors.choose(mqm.CATEGORY_KEYS[key])
            return Outcome(status=f"category: {html.escape(self.errors.category)}")
        if view == "pair":
            return self.answer(preference_of_key(key))
        if view in ("score", "spans"):
            return self.adjust_score(key)
        return self.answer_level(key)

    def prefer_left(self, key: str) -> Outcome:
        return self.answer(preference_of_key(key))

    prefer_right = prefer_neither = prefer_left

    def adjust_score(self, key: str) -> Outcome:
        """A DA or ESA score key (:data:`core.judging.protocols.direct_assessment.DA_STEPS`, ``DA_JUMPS``); on an ESA
        item it ends the marking (the marks are kept; Esc goes back to them)."""
        score = ops.da_score_after_key(self.score, key)
        if score is None:
            return NOTHING
        self.score = score
        self.scoring = self._protocol_view() == "spans" or self.scoring
        return Outcome()

    def confirm(self, key: str | None = None) -> Outcome:
        """Enter: a choice task's pick accepted, a DA score recorded, an ESA item's marks done then its score
        recorded with them."""
        view = self._protocol_view()
        if view == "choice":
            return self.accept_choice()
        if view == "spans" and not self.scoring:
            self.scoring = True
            return Outcome()
        if view == "mqm":
            return self.answer(mqm.value_of_tenths(self.errors.tenths), self.errors.as_text())
        if view in ("score", "spans") and self.score is not None:
            return self.answer(str(self.score), self.marking.as_text() if view == "spans" else None)
        return Outcome()

    def back(self, key: str | None = None) -> Outcome:
        """Esc on an ESA item being scored: back to its marks."""
        self.scoring = False
        return Outcome()

    def _marking(self, step: int, extend: bool = False) -> Outcome:
        if self.errors is not None:  # MQM's selection moves as ESA's does
            self.errors.move(step, extend=extend)
            return Outcome()
        if self.marking is None:
            return NOTHING
        self.scoring = False
        self.marking.move(step, extend=extend)
        return Outcome()

    def word_previous(self, key: str) -> Outcome:
        return self._marking(-1)

    def word_next(self, key: str) -> Outcome:
        return self._marking(1)

    def extend_previous(self, key: str) -> Outcome:
        return self._marking(-1, extend=True)

    def extend_next(self, key: str) -> Outcome:
        return self._marking(1, extend=True)

    def mark_minor(self, key: str) -> Outcome:
        return self._mark(mqm.MINOR, "minor")

    def mark_major(self, key: str) -> Outcome:
        return self._mark(mqm.MAJOR, "major")

    def mark_neutral(self, key: str) -> Outcome:
        return self._mark(mqm.NEUTRAL, None)

    def _mark(self, mqm_severity: str, esa_severity: str | None) -> Outcome:
        """The selection marked: an MQM error of the chosen category, or an ESA span."""
        if self.errors is not None:
            self.errors.mark(mqm_severity)
        elif self.marking is not None and esa_severity is not None:
            self.scoring = False
            self.marking.mark(esa_severity)
        return Outcome()

    def mark_non_translation(self, key: str) -> Outcome:
        if self.errors is not None:
            self.errors.non_translation()
        return Outcome()

    def unmark(self, key: str) -> Outcome:
        if self.errors is not None:
            self.errors.unmark()
        elif self.marking is not None:
            self.scoring = False
            self.marking.unmark()
        return Outcome()

    def set_score(self, score: int) -> Outcome:
        """A DA or ESA score set by the mouse (the slider): held as a key's would be, until Enter records it."""
        if self._protocol_view() in ("score", "spans"):
            self.score = score
        return Outcome()

    # actions (KEYS' names) --------------------------------------------------------------------
    def answer(self, value: str, text: str | None = None) -> Outcome:
        """``value`` given to the item shown (a key, a click, a custom paraphrase): recorded, the next item shown."""
        item = self.item
        if item is None:
            return NOTHING
        flag, comment = self.session.remarks(item)
        record = Record("answer", item.assignment_id, value, text, flag, comment)
        shown = self._show(self.session.answered(item, value, text, flag=flag, comment=comment))
        return Outcome(record, shown.moved, status=training_feedback(self.settings, item, value))

    def pick(self, value: str) -> Outcome:
        """Preview a choice task's option (``option:N``) or the original: shown in place, not recorded."""
        item = self.item
        if item is None or self._protocol_view() != "choice":
            return NOTHING
        shown = ops.preview_choice(item.source, item.span or (0, 0), item.options, value)
        if shown is not None:
            self.preview = shown
        return Outcome()

    def keep_original(self) -> Outcome:
        return self.pick("original")

    def accept_choice(self) -> Outcome:
        """Record the previewed pick (nothing when nothing is previewed)."""
        shown, self.preview = self.preview, None
        if shown is None or self._protocol_view() != "choice":
            return Outcome()
        return self.answer(shown.value, shown.text)

    def start_custom(self) -> Outcome:
        return Outcome(command="start_custom") if self._protocol_view() == "choice" else Outcome()

    def start_comment(self) -> Outcome:
        return Outcome(command="start_comment") if self.item is not None else Outcome()

    def previous(self) -> Outcome:
        return self.move(-1)

    def next(self) -> Outcome:
        return self.move(+1)

    def move(self, step: int) -> Outcome:
        item = self.session.neighbour(self.item, step)
        return self._show(item) if item is not None else Outcome()

    def go_to(self, position: int) -> Outcome:
        """Show the item at ``position`` of the judge's order ("go to item N", their own list)."""
        item = self.session.at(position)
        return self._show(item) if item is not None else Outcome(status=f"there is no item {position + 1}")

    def open_own_list(self) -> Outcome:
        return Outcome(command="open_own_list")

    def go_to_item(self) -> Outcome:
        return Outcome(command="go_to_item")

    def undo(self) -> Outcome:
        self.session.undo_queued()
        return Outcome(Record("undo"), status="undoing the last answer…")

    def undone(self, assignment_id: int | None) -> Outcome:
        """The writer withdrew the answer of ``assignment_id`` (None: there was nothing to undo)."""
        reopened = self.session.undone(assignment_id)
        if assignment_id is None:
            return Outcome(status="nothing to undo")
        shown = self._show(reopened) if reopened is not None else Outcome()
        return Outcome(moved=shown.moved, status="last answer undone")

    def toggle_flag(self) -> Outcome:
        if self.item is None:
            return Outcome()
        return self._remarked(self.session.toggle_flag(self.item), "flag")

    def set_comment(self, comment: str | None) -> Outcome:
        if self.item is None:
            return Outcome()
        return self._remarked(self.session.set_comment(self.item, comment), "comment")

    def _remarked(self, remark, what: str) -> Outcome:
        """A flag or comment the session took: written now (an answered item) or kept for the answer."""
        self.item = remark.item
        if remark.write_now and what == "flag":
            return Outcome(Record("annotate", remark.item.assignment_id, flag=remark.flag),
                           status="flagged" if remark.flag else "flag removed")
        if remark.write_now:
            return Outcome(Record("annotate", remark.item.assignment_id, comment=remark.comment or ""),
                           status="comment saved")
        if what == "flag":
            return Outcome(status="the flag is saved with your answer" if remark.flag else "flag removed")
        return Outcome(status="the comment is saved with your answer")


def training_of(settings: dict, item: ItemView) -> dict | None:
    """The training item (criterion, answer, reason...) that ``item`` is, or None for a real item."""
    return ops.training_answer(settings, item.item, item.criterion)


def training_feedback(settings: dict, item: ItemView, value: str) -> str | None:
    """After an answer to a training item (``study assign --training N``): whether the judge agreed with the known
    answer, and why it is that one; None after a real item."""
    known = training_of(settings, item)
    if known is None:
        return None
    protocol = protocol_of(item.scale)
    try:
        given = protocol.check(item.criterion, item.levels or (), value, None, item.options or ())[0]
    except ValueError:
        given = str(value)
    labels = {str(level["value"]): level.get("label") or str(level["value"]) for level in item.levels or ()}
    expected = ops.expected_answer(known)

    def shown(answer: str) -> str:
        label = labels.get(answer, answer)
        return html.escape(label if label.lower() == answer.lower() else f"{answer} ({label})")

    if protocol.answer == SCORE:
        low, high = known_range(expected)
        wanted = f"a score of {low}" if low == high else f"a score from {low} to {high}"
    elif protocol.item == PAIR:
        wanted = {PREFER_LEFT: "left is better", PREFER_RIGHT: "right is better"}.get(expected, "no difference")
    else:
        wanted = shown(expected)
    why = f" Why: {html.escape(known.get('reason', ''))}" if known.get("reason") else ""
    if protocol.agrees_with_known(expected, given):
        said = f"{shown(given)}; expected {wanted}" if protocol.answer == SCORE else shown(given)
        return f"<b>Training item: you agreed</b> ({said}).{why}"
    return f"<b>Training item: the expected answer was {wanted}</b>; you answered {shown(given)}.{why}"


@dataclass
class OpenedDesk:
    """A study opened for one annotator: the desk on its first item, the judging lock, and the thread that read
    the store (the screen opens off the UI thread; a test checks which thread it was)."""

    desk: JudgingDesk
    annotator_id: int
    lock: session_lock.SessionLock
    thread: int


def open_desk(db: Database, study_id: int, annotator_name: str, *, take_over: bool = False,
              default_truecase_model: str | None = None) -> OpenedDesk:
    """Open ``study_id`` for ``annotator_name`` on their first open item. Raises LookupError (no assignment
    here) or :class:`core.store.session_lock.SessionTaken` (another live session judges as them)."""
    annotator_id = ops.find_annotator(db, study_id, annotator_name)
    lock = session_lock.acquire(db, study_id, annotator_id, take_over=take_over)
    try:
        settings = ops.study_settings(db, study_id)
        desk = JudgingDesk(AnnotationSession(db, annotator_id), study_display(settings, default_truecase_model),
                           settings)
        desk.start()
    except BaseException:
        session_lock.release(db, lock)
        raise
    return OpenedDesk(desk, annotator_id, lock, threading.get_ident())
