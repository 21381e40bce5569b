"""What one annotator sees next: the store's order of assignments, plus the answers given here not yet committed.

The annotation screen shows the next item before the previous answer is
written (a single writer thread commits it a few milliseconds later), so it
cannot ask the store for "the first open item": that would still be the one
just answered. The session walks the annotator's order from the current
position instead, skipping what it answered locally, and overlays its local
answers on what the store returns. It is plain Python over the store's
queries, with no Qt, so its rules are tested directly (the screen only asks
it what to show, as Anki's reviewer asks its scheduler for the next card):

* an item answered here is never shown as open, committed or not;
* going back shows an answered item with its answer (a new answer replaces it);
* undo reopens exactly the item undone, and the next answer goes to it;
* after the last open item, items skipped earlier with the arrows come back;
* a new session (the app restarted) starts at the first item the store has open;
* blind phases (seed 003: form alone, then meaning with the source): an item that shows a source is never shown
  while a source-free item of the same sentence is open here; that item is shown instead, whatever led there
  (an answer, an arrow past the end of the fluency phase, a later assignment batch, an undo). So no fluency
  item is first judged after a display of its own source.
* choice tasks (seed 001 §4.2.1): a task whose case this annotator already answered for another approach,
  with a paraphrase that is among this task's options, is closed as an auto-skip
  (:mod:`core.store.auto_skip`) instead of being shown; ``skipped`` lists them for the screen to say so.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.protocol import CHOICE_TASK
from parastudio.core.store.annotation import ItemView, item_at, neighbour_position, next_item
from parastudio.core.store.annotation_queries import (
    assignment_position,
    first_open_after,
    last_position,
    open_source_free_positions,
    source_free_criteria,
)
from parastudio.core.store.auto_skip import skip_if_due
from parastudio.core.store.database import Database


@dataclass
class LocalAnswer:
    """This session's latest state of one assignment (an answer given here, or an undo)."""

    value: str | None
    text: str | None = None
    flag: bool = False
    comment: str | None = None
    stamp: int = 0  # when it was given, in this session's count of answers


@dataclass(frozen=True)
class Remark:
    """A flag or comment given to the item shown: the item as now shown, and whether the writer stores it now (an
    answered item) or it waits for the item's answer (an open item: it goes with the answer)."""

    item: ItemView
    write_now: bool
    flag: bool
    comment: str | None


class AnnotationSession:
    """One annotator judging one study in this process (see the module docstring)."""

    def __init__(self, db: Database, annotator_id: int):
        self.db = db
        self.annotator_id = annotator_id
        self.local: dict[int, LocalAnswer] = {}  # assignment id -> this session's latest state
        self._positions: dict[int, int] = {}  # assignment id -> position, for what was answered here
        self._answers_given = 0
        self._undos_queued: deque[int] = deque()  # per undo not yet done: the answers given before it
        self._source_free = source_free_criteria(db, annotator_id)  # {} when the study runs no blind phases
        self._source_free_ids = frozenset(self._source_free.values())
        # The item that was due when a source-free item of its sentence was shown first instead (else None).
        self.held_back: ItemView | None = None
        # A flag and comment given to the open item shown, before its answer (they go with the answer).
        self._pending: tuple[int | None, bool, str | None] = (None, False, None)
        self.skipped: list[ItemView] = []  # choice tasks closed by the auto-skip rule in this session
        self._chosen: dict[int, tuple[int, str]] = {}  # assignment -> (choice task, paraphrase) answered here

    # what to show ------------------------------------------------------------------------
    def first(self) -> ItemView | None:
        """Where a session starts: the first assignment the store has open."""
        return self._skipping(self._blind_first(self._merged(next_item(self.db, self.annotator_id))))

    def at(self, position: int) -> ItemView | None:
        """The item at ``position``, or the source-free item its display must wait for (see ``held_back``)."""
        return self._blind_first(self._merged(item_at(self.db, self.annotator_id, position)))

    def has_no_items(self) -> bool:
        """The annotator has no assignment at all (not even a judged one) in the study."""
        return last_position(self.db, self.annotator_id) is None

    def is_open(self, item: ItemView) -> bool:
        state = self.local.get(item.assignment_id)
        return item.value is None if state is None else state.value is None

    def next_open_after(self, position: int) -> ItemView | None:
        """The first open item after ``position``; then any open one before it (skipped with the arrows)."""
        return self._skipping(self._next_open_after(position))

    def _skipping(self, item: ItemView | None) -> ItemView | None:
        """``item``, or past it while the auto-skip rule closes the open choice task shown."""
        while item is not None and protocol_of(item.scale).item == CHOICE_TASK and self.is_open(item):
            answer = skip_if_due(self.db, item.assignment_id, dict(self._chosen.values()))
            if answer is None:
                break
            self.local[item.assignment_id] = LocalAnswer(*answer, stamp=self._answers_given)
            self._positions[item.assignment_id] = item.position
            self.skipped.append(self._merged(item))
            item = self._next_open_after(item.position)
        return item

    def _next_open_after(self, position: int) -> ItemView | None:
        for start in (position, -1):
            target = start
            while (target := first_open_after(self.db, self.annotator_id, target)) is not None:
                item = item_at(self.db, self.annotator_id, target)
                if item is not None and self.is_open(item):
                    return self._blind_first(self._merged(item))
        self.held_back = None
        return None

    def neighbour(self, current: ItemView | None, step: int) -> ItemView | None:
        """The item before (step < 0) or after (step > 0) the current one, answered or not; None at an end."""
        self.held_back = None
        if current is None:
            if step > 0:
                return None
            position = last_position(self.db, self.annotator_id)
        else:
            position = neighbour_position(self.db, self.annotator_id, current.position, step)
        return self.at(position) if position is not None else None

    # what happened ------------------------------------------------------------------------
    def answered(self, item: ItemView, value: str, text: str | None = None, *, flag: bool = False,
                 comment: str | None = None) -> ItemView | None:
        """Record an answer given to ``item`` (queued for the writer); returns the item to show next."""
        self._answers_given += 1
        self.local[item.assignment_id] = LocalAnswer(value, text, flag, comment, self._answers_given)
        self._chosen.pop(item.assignment_id, None)
        if protocol_of(item.scale).item == CHOICE_TASK and item.item.startswith("choice-") and value != "original" and text:
            self._chosen[item.assignment_id] = (int(item.item.removeprefix("choice-")), text)
        self._positions[item.assignment_id] = item.position
        return self.next_open_after(item.position)

    def annotated(self, item: ItemView, *, flag: bool | None = None, comment: str | None = None) -> ItemView:
        """A flag or comment added to an answered item; returns it as now shown."""
        state = self.local.setdefault(item.assignment_id, LocalAnswer(item.value, item.text, item.flag, item.comment))
        if flag is not None:
            state.flag = flag
        if comment is not None:
            state.comment = comment or None
        return self._merged(item)

    # flags and comments ------------------------------------------------------------------
    def showing(self, item: ItemView | None) -> None:
        """``item`` is shown now: a flag or comment pending for another showing is dropped."""
        self._pending = (None, False, None)

    def remarks(self, item: ItemView) -> tuple[bool, str | None]:
        """The flag and comment shown with ``item``: its answer's, or those pending for its answer."""
        if item.value is not None:
            return item.flag, item.comment
        pending_id, flag, comment = self._pending
        return (flag, comment) if pending_id == item.assignment_id else (False, None)

    def toggle_flag(self, item: ItemView) -> Remark:
        flag, comment = self.remarks(item)
        return self._remark(item, not flag, comment)

    def set_comment(self, item: ItemView, comment: str | None) -> Remark:
        flag, _ = self.remarks(item)
        return self._remark(item, flag, comment or None)

    def _remark(self, item: ItemView, flag: bool, comment: str | None) -> Remark:
        if item.value is None:
            self._pending = (item.assignment_id, flag, comment)
            return Remark(item, False, flag, comment)
        return Remark(self.annotated(item, flag=flag, comment=comment or ""), True, flag, comment)

    def undo_queued(self) -> None:
        """An undo went on the writer's queue: answers given from now on come after it and survive it."""
        self._undos_queued.append(self._answers_given)

    def undone(self, assignment_id: int | None) -> ItemView | None:
        """The writer withdrew the answer of ``assignment_id`` (None: nothing to undo); it is shown, open
        again unless an answer given here after the undo was queued is on its way (that one stands)."""
        before = self._undos_queued.popleft() if self._undos_queued else self._answers_given
        if assignment_id is None:
            return None
        state = self.local.get(assignment_id)
        if state is not None and state.stamp <= before:
            state.value, state.text, state.flag, state.comment = None, None, False, None
            self._chosen.pop(assignment_id, None)  # an undone pick no longer makes other tasks skip
        position = self._positions.get(assignment_id)
        if position is None:
            position = assignment_position(self.db, assignment_id)
        return self.at(position) if position is not None else None

    def _blind_first(self, item: ItemView | None) -> ItemView | None:
        """``item``, unless it shows a source whose sentence still has a source-free item open here: then the
        first such item (in the annotator's order), with ``held_back`` set to ``item``."""
        self.held_back = None
        if item is None or not self._source_free_ids or item.criterion in self._source_free or item.source_id is None:
            return item
        for position in open_source_free_positions(self.db, self.annotator_id, item.source_id,
                                                   self._source_free_ids):
            waiting = item_at(self.db, self.annotator_id, position)
            if waiting is not None and self.is_open(waiting):
                self.held_back = item
                return self._merged(waiting)
        return item

    def _merged(self, item: ItemView | None) -> ItemView | None:
        if item is None:
            return None
        state = self.local.get(item.assignment_id)
        if state is None:
            return item
        return replace(item, value=state.value, text=state.text, flag=state.flag, comment=state.comment)
