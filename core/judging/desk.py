"""One judge at one study, key by key, without Qt: the screen hands each key press here as text ("Y", "2",
"Shift+Left", "Return") and paints what this says; a key's meaning is decided here and nowhere else.

Issue 28 (Deliver 3): the value of an answer used to pass back and forth between the annotation screen, the
session, the display and the word diff. Now a key goes one way down: :meth:`JudgingDesk.press` reads it against
the item shown (its protocol from :mod:`core.judging.protocols`, read by its ``view``: levels and their keys
from :mod:`core.judging.view`, a preference's, a direct assessment's and error span marking's keys from their
protocol modules, the other keys from :mod:`core.judging.keys`), tells the session (:class:`core.store.annotation_session.
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
from parastudio.core.judging.keys import KeyBinding
from parastudio.core.judging.protocols import mqm, protocol_of
from parastudio.core.judging.protocols.choice import MAX_CHOICE_KEY
from parastudio.core.judging.protocols.preference import PREFERENCE_KEYS
from parastudio.core.judging.view import JudgingView, judging_view, study_display
from parastudio.core.store import operations as ops
from parastudio.core.store import session_lock
from parastudio.core.store.annotation import ItemView
from parastudio.core.store.annotation_session import AnnotationSession
from parastudio.core.store.database import Database

MODIFIERS = ("Ctrl+", "Alt+", "Meta+")
_ARROWS = {"Left": -1, "Right": 1}


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

    def __init__(self, session: AnnotationSession, display=None):
        self.session = session
        self.display = display  # the study's display rule (core.judging.view.study_display); None: tokenized
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

    def remarks(self) -> tuple[bool, str | None]:
        """The flag and comment shown with the item: its answer's, or those waiting for its answer."""
        return self.session.remarks(self.item) if self.item is not None else (False, None)

    # keys -----------------------------------------------------------------------------------
    def press(self, key: str) -> Outcome:
        """What ``key`` (as QKeySequence writes it; the keypad's keys as the main ones) does on the item shown."""
        item, view = self.item, self._protocol_view()
        if view == "pair":
            value = next((value for keys, value, _label in PREFERENCE_KEYS if key in keys), None)
            if value is not None:
                return self.answer(value)
        if view == "score" and (done := self._da_key(key)) is not None:
            return done
        if view == "spans" and (done := self._esa_key(key)) is not None:
            return done
        if view == "mqm" and (done := self._mqm_key(key)) is not None:
            return done
        binding = self._binding(key)
        if binding is not None:
            return getattr(self, binding.action)()
        if key.startswith(MODIFIERS) or item is None:
            return NOTHING
        letter = key.removeprefix("Shift+")
        if view == "choice":
            if letter.isdigit() and 1 <= int(letter) <= MAX_CHOICE_KEY:
                return self.pick(f"option:{letter}")
            return NOTHING
        value = self.view.value_of_key(letter) if len(letter) == 1 else None
        if value is not None:
            return self.answer(value)
        if len(letter) == 1 and letter.isalnum():
            # A key of another scale (Y on a 1-3 question): say which keys answer this one.
            return Outcome(status=f"{html.escape(letter.upper())} is not an answer to this question: press "
                                  f"{html.escape(' / '.join(self.view.answer_keys))}")
        return NOTHING

    def _protocol_view(self) -> str | None:
        """What the item's protocol asks the screen to paint ("levels", "score", "spans", "pair", "choice")."""
        return protocol_of(self.item.scale).view if self.item is not None else None

    def _binding(self, key: str) -> KeyBinding | None:
        view = self._protocol_view()
        return next((b for b in judging_keys.KEYS if key in b.keys and b.scope in ("any", view)), None)

    def _da_key(self, key: str) -> Outcome | None:
        if key in ops.DA_RECORD_KEYS:
            return self.answer(str(self.score)) if self.score is not None else Outcome()
        score = ops.da_score_after_key(self.score, key)
        if score is None:
            return None
        self.score = score
        return Outcome()

    def _esa_key(self, key: str) -> Outcome | None:
        """Marking (arrows move and extend, M minor, J major, Backspace unmarks, Enter to the score), then
        scoring (the DA keys, Enter records the score with the marks, Esc back to marking)."""
        if self.scoring:
            if key in ops.DA_RECORD_KEYS:
                return self.answer(str(self.score), self.marking.as_text()) if self.score is not None else Outcome()
            if key == "Esc":
                self.scoring = False
                return Outcome()
            score = ops.da_score_after_key(self.score, key)
            if score is None:
                return None
            self.score = score
        elif key in ops.DA_RECORD_KEYS:
            self.scoring = True
        elif key.removeprefix("Shift+") in _ARROWS:
            self.marking.move(_ARROWS[key.removeprefix("Shift+")], extend=key.startswith("Shift+"))
        elif key in ("M", "J"):
            self.marking.mark("minor" if key == "M" else "major")
        elif key in ("Backspace", "Del"):
            self.marking.unmark()
        else:
            return None
        return Outcome()

    def _mqm_key(self, key: str) -> Outcome | None:
        """MQM (:mod:`core.judging.protocols.mqm`): arrows move and extend, a category key picks the category,
        M / J / N mark Minor / Major / Neutral, X the whole segment Non-translation, Backspace unmarks, Enter
        records the errors with their score."""
        errors, letter = self.errors, key.removeprefix("Shift+")
        if key in mqm.RECORD_KEYS:
            return self.answer(mqm.value_of_tenths(errors.tenths), errors.as_text())
        if letter in _ARROWS:
            errors.move(_ARROWS[letter], extend=key.startswith("Shift+"))
        elif key in mqm.CATEGORY_KEYS:
            errors.choose(mqm.CATEGORY_KEYS[key])
            return Outcome(status=f"category: {html.escape(errors.category)}")
        elif key in mqm.SEVERITY_KEYS:
            errors.mark(mqm.SEVERITY_KEYS[key])
        elif key == mqm.NON_TRANSLATION_KEY:
            errors.non_translation()
        elif key in mqm.UNMARK_KEYS:
            errors.unmark()
        else:
            return None
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
        return Outcome(record, shown.moved)

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
        display = study_display(ops.study_settings(db, study_id), default_truecase_model)
        desk = JudgingDesk(AnnotationSession(db, annotator_id), display)
        desk.start()
    except BaseException:
        session_lock.release(db, lock)
        raise
    return OpenedDesk(desk, annotator_id, lock, threading.get_ident())
