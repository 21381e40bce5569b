"""Judging: the item an annotator sees next, recording an answer (one transaction each), undo.

A judgment is committed by :func:`record_judgment` the moment it is given;
:func:`next_item` resumes exactly where an annotator stopped;
:func:`undo_last` withdraws an answer by appending a row (judgments are never
rewritten; the replaced row only gets ``superseded_by``, and the undo is
logged).
"""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, bindparam, func, insert, literal, select, update

from parastudio.core.store import clock
from parastudio.core.store.clock import aware, now
from parastudio.core.store.criteria import normalize_value
from parastudio.core.store.database import Database
from parastudio.core.store.events import log_event
from parastudio.core.store.items import item_key
from parastudio.core.store.models import (
    Assignment,
    Candidate,
    ChoiceTask,
    Criterion,
    EventLog,
    Judgment,
    PreferencePair,
    SourceSentence,
)


@dataclass(frozen=True)
class ItemView:
    """What the annotation screen shows for one assignment. System names are
    left out on purpose (blind judging), and so is the assignment kind."""

    assignment_id: int
    position: int
    item: str
    criterion: str
    question: str
    scale: str
    levels: list
    shows_source: bool
    source: str
    source_display: str | None  # the source as published, when the study has it
    references: list
    candidate: str | None
    derivation: Any
    span: tuple[int, int] | None
    unit: int | None  # replacement criteria: the unit replacement judged (index among the changed segments)
    options: list
    value: str | None
    text: str | None
    flag: bool
    comment: str | None
    source_id: int | None = None  # the source sentence's row (blind phases: which fluency items it must wait for)
    # Preference criteria: the two candidates in the pair's recorded order (their systems are not shown).
    left: str | None = None
    right: str | None = None


@functools.cache
def _item_query(member: bool = False):
    """One round trip for everything the screen shows: assignment, criterion,
    candidate or choice task, source sentence, live judgment.

    A member's own PostgreSQL login (``member``) may not read a candidate's kind or derivation: the server's
    ``ps_shown_derivation`` gives the derivation to highlight, none for a planted control (revision 0007)."""
    a, c, k, t, s, j, p = (Assignment.__table__, Criterion.__table__, Candidate.__table__, ChoiceTask.__table__,
                           SourceSentence.__table__, Judgment.__table__, PreferencePair.__table__)
    left, right = Candidate.__table__.alias("left_candidate"), Candidate.__table__.alias("right_candidate")
    source_id = func.coalesce(k.c.source_id, t.c.source_id, p.c.source_id)
    return (select(a.c.id, a.c.position, source_id.label("source_id"), a.c.candidate_id, a.c.choice_task_id,
                   a.c.pair_id, left.c.text.label("left"), right.c.text.label("right"),
                   a.c.unit, c.c.name, c.c.question, c.c.scale,
                   c.c.levels, c.c.shows_source, s.c.text.label("source"), s.c.display.label("source_display"),
                   s.c.references, k.c.text.label("candidate"),
                   *((literal("candidate").label("candidate_kind"),
                      func.ps_shown_derivation(k.c.id, type_=JSON).label("derivation")) if member
                     else (k.c.kind.label("candidate_kind"), k.c.derivation)),
                   t.c.span_start, t.c.span_end, t.c.options,
                   j.c.value, j.c.text.label("answer_text"), j.c.flag, j.c.comment)
            .select_from(a.join(c, c.c.id == a.c.criterion_id)
                         .outerjoin(k, k.c.id == a.c.candidate_id)
                         .outerjoin(t, t.c.id == a.c.choice_task_id)
                         .outerjoin(p, p.c.id == a.c.pair_id)
                         .outerjoin(left, left.c.id == p.c.left_candidate_id)
                         .outerjoin(right, right.c.id == p.c.right_candidate_id)
                         .join(s, s.c.id == source_id)
                         .outerjoin(j, j.c.id == a.c.live_judgment_id)))


# Statements on the per-keystroke path are built once: building one costs more than running it.
@functools.cache
def _item_at_position(member: bool = False):
    return _item_query(member).where(Assignment.annotator_id == bindparam("annotator"),
                               Assignment.position == bindparam("position"))


@functools.cache
def _first_open_position():
    return (select(Assignment.position).where(Assignment.annotator_id == bindparam("annotator"),
                                              Assignment.live_judgment_id.is_(None))
            .order_by(Assignment.position).limit(1))


@functools.cache
def _assignment_for_answer():
    a, c, t = Assignment.__table__, Criterion.__table__, ChoiceTask.__table__
    return (select(a.c.study_id, a.c.annotator_id, a.c.candidate_id, a.c.choice_task_id, a.c.criterion_id,
                   a.c.unit, a.c.pair_id, a.c.live_judgment_id, c.c.name, c.c.scale, c.c.levels, t.c.options)
            .select_from(a.join(c, c.c.id == a.c.criterion_id).outerjoin(t, t.c.id == a.c.choice_task_id))
            .where(a.c.id == bindparam("assignment")))


def _item_view(row) -> ItemView:
    is_task = row.choice_task_id is not None
    return ItemView(
        assignment_id=row.id, position=row.position,
        item=item_key(row.candidate_id, row.choice_task_id, row.unit, row.pair_id),
        criterion=row.name, question=row.question, scale=row.scale, levels=list(row.levels or []),
        shows_source=bool(row.shows_source), source=row.source, source_display=row.source_display,
        references=list(row.references or []),
        candidate=None if is_task else row.candidate,
        # A planted control shows no derivation: the screen highlights it by diff like any import.
        derivation=row.derivation if row.candidate_kind == "candidate" else None,
        span=(row.span_start, row.span_end) if is_task else None, unit=row.unit, options=list(row.options or []),
        value=row.value, text=row.answer_text, flag=bool(row.flag), comment=row.comment, source_id=row.source_id,
        left=row.left, right=row.right)


def next_item(db: Database, annotator_id: int) -> ItemView | None:
    """The first assignment in the annotator's order with no live judgment."""
    with db.read_connection() as connection:
        # Finding the position first lets SQLite use the partial index alone.
        position = connection.scalar(_first_open_position(), {"annotator": annotator_id})
        if position is None:
            return None
        row = connection.execute(_item_at_position(db.is_member_login),
                                 {"annotator": annotator_id, "position": position}).one()
        return _item_view(row)


def item_at(db: Database, annotator_id: int, position: int) -> ItemView | None:
    """The annotator's assignment at ``position`` (for moving with the arrows)."""
    with db.read_connection() as connection:
        row = connection.execute(_item_at_position(db.is_member_login),
                                 {"annotator": annotator_id, "position": position}).first()
        return _item_view(row) if row is not None else None


def neighbour_position(db: Database, annotator_id: int, position: int, step: int) -> int | None:
    """The position before (step < 0) or after (step > 0) ``position``, if any."""
    with db.read_connection() as connection:
        column = Assignment.position
        query = select(column).where(Assignment.annotator_id == annotator_id)
        query = (query.where(column > position).order_by(column) if step > 0
                 else query.where(column < position).order_by(column.desc()))
        return connection.scalar(query.limit(1))


@functools.cache
def _insert_judgment():
    return insert(Judgment.__table__).returning(Judgment.__table__.c.id)


@functools.cache
def _set_live_judgment():
    table = Assignment.__table__
    return (update(table).where(table.c.id == bindparam("assignment"))
            .values(live_judgment_id=bindparam("judgment")))


def record_judgment(db: Database, assignment_id: int, value: Any, *, text: str | None = None,
                    started_at: datetime | None = None, answered_at: datetime | None = None,
                    comment: str | None = None, flag: bool = False, origin: str = "app",
                    duration_ms: int | None = None, uid: str | None = None) -> int:
    """Store one answer in its own committed transaction; returns the judgment id.

    Answering an assignment that already has a live answer (the annotator
    went back) appends the new answer and marks the old one superseded.
    The time taken is ``duration_ms`` when given (the screen's own clock,
    paused while it was hidden or idle), else measured from ``started_at``.
    ``uid`` names the answer (a new one when not given): a writer that must
    write it again finds first whether it is stored (:func:`judgment_with_uid`).
    """
    answered_at = aware(answered_at) or now()
    started_at = aware(started_at)
    with db.write_connection() as connection:
        row = connection.execute(_assignment_for_answer(), {"assignment": assignment_id}).first()
        if row is None:
            raise LookupError(f"no assignment {assignment_id}")
        label, stored_text = normalize_value(row, value, text, row.options or ())
        duration = clock.duration_ms(started_at, answered_at, recorded=duration_ms)
        judgment_id = connection.scalar(_insert_judgment(), dict(
            uid=uid or str(uuid.uuid4()), study_id=row.study_id, assignment_id=assignment_id,
            annotator_id=row.annotator_id, candidate_id=row.candidate_id, choice_task_id=row.choice_task_id,
            criterion_id=row.criterion_id, unit=row.unit, pair_id=row.pair_id, action="answer", value=label, text=stored_text, started_at=started_at,
            answered_at=answered_at, duration_ms=duration, comment=comment, flag=flag, origin=origin,
            supersedes=row.live_judgment_id))
        # On a member's own login the server's trigger marks the superseded row and the live answer (revision
        # 0007): the login may insert judgments and nothing more.
        member = db.is_member_login
        if row.live_judgment_id is not None:
            if not member:
                connection.execute(update(Judgment).where(Judgment.id == row.live_judgment_id)
                                   .values(superseded_by=judgment_id))
            connection.execute(insert(EventLog).values(
                study_id=row.study_id, at=now(), actor=str(row.annotator_id), kind="judgment_superseded",
                payload={"old": row.live_judgment_id, "new": judgment_id}))
        if not member:
            connection.execute(_set_live_judgment(), {"assignment": assignment_id, "judgment": judgment_id})
        return judgment_id


def judgment_with_uid(db: Database, uid: str) -> int | None:
    """The id of the judgment named ``uid``, None when the study holds none."""
    with db.read_connection() as connection:
        return connection.scalar(select(Judgment.id).where(Judgment.uid == uid))


def annotate_judgment(db: Database, judgment_id: int, *, comment: str | None = None,
                      flag: bool | None = None, uid: str | None = None) -> int:
    """Add a comment or flag to an answer given earlier: a new row carrying the
    same value supersedes it (the old row stays as it was); ``uid`` names the new row."""
    with db.reading() as session:
        old = session.get(Judgment, judgment_id)
        if old is None or old.superseded_by is not None or old.action != "answer":
            raise LookupError(f"judgment {judgment_id} is not a live answer")
    # The new row keeps the original answer's time taken; its answered_at is now.
    return record_judgment(db, old.assignment_id, old.value, text=old.text, duration_ms=old.duration_ms,
                           comment=old.comment if comment is None else comment,
                           flag=old.flag if flag is None else flag, origin=old.origin, uid=uid)


def undo_last(db: Database, annotator_id: int, *, uid: str | None = None) -> int | None:
    """Withdraw the annotator's latest live answer by appending an undo row (named ``uid`` when given).

    Returns the assignment id that is open again (the screen goes back to
    it), or None when there is nothing to undo. Repeated calls walk back.
    """
    uid = uid or str(uuid.uuid4())
    if db.is_member_login:
        return _undo_last_as_member(db, annotator_id, uid)
    with db.transaction() as session:
        last = session.scalar(select(Judgment).where(
            Judgment.annotator_id == annotator_id, Judgment.action == "answer",
            Judgment.superseded_by.is_(None)).order_by(Judgment.id.desc()).limit(1))
        if last is None:
            return None
        undo = Judgment(uid=uid, study_id=last.study_id, assignment_id=last.assignment_id,
                        annotator_id=annotator_id, candidate_id=last.candidate_id,
                        choice_task_id=last.choice_task_id, criterion_id=last.criterion_id, unit=last.unit,
                        pair_id=last.pair_id,
                        action="undo",
                        value=None, answered_at=now(), flag=False, supersedes=last.id, origin="app")
        session.add(undo)
        session.flush()
        last.superseded_by = undo.id
        assignment = session.get(Assignment, last.assignment_id)
        # An older answer to the same assignment was superseded by `last`, not
        # by the undo: the assignment is open again.
        assignment.live_judgment_id = None
        log_event(session, last.study_id, "judgment_undone", {"judgment": last.id, "undo": undo.id,
                                                         "assignment": assignment.id}, actor=str(annotator_id))
        return assignment.id


def _undo_last_as_member(db: Database, annotator_id: int, uid: str) -> int | None:
    """:func:`undo_last` on a member's own login, which may insert judgments and nothing more: the undo row is
    inserted, and the server's trigger marks the withdrawn answer and opens its assignment (revision 0007)."""
    table = Judgment.__table__
    with db.write_connection() as connection:
        last = connection.execute(select(table).where(
            table.c.annotator_id == annotator_id, table.c.action == "answer",
            table.c.superseded_by.is_(None)).order_by(table.c.id.desc()).limit(1)).first()
        if last is None:
            return None
        undo_id = connection.scalar(_insert_judgment(), dict(
            uid=uid, study_id=last.study_id, assignment_id=last.assignment_id,
            annotator_id=annotator_id, candidate_id=last.candidate_id, choice_task_id=last.choice_task_id,
            criterion_id=last.criterion_id, unit=last.unit, pair_id=last.pair_id, action="undo", value=None,
            answered_at=now(), flag=False, supersedes=last.id, origin="app"))
        connection.execute(insert(EventLog).values(
            study_id=last.study_id, at=now(), actor=str(annotator_id), kind="judgment_undone",
            payload={"judgment": last.id, "undo": undo_id, "assignment": last.assignment_id}))
        return last.assignment_id
