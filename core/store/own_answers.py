"""What judges' answers say about their work (issue 44): when each answer came and how long the judging clock ran
on it (a judge's pace), and a judge's own items with their answers, flags and comments (a judge's own list).

Both read only what a judge's own PostgreSQL login may read of its own rows (revision 0007 and
:mod:`core.store.access_grants`: its assignments' granted columns, its judgments, the criteria, the candidates'
text), so the same query serves the judge on their login, a SQLite session, and the researcher (who reads every
judge's times with :func:`answer_times`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from parastudio.core.store.clock import aware
from parastudio.core.store.database import Database
from parastudio.core.store.models import Annotator, Assignment, Candidate, Criterion, Judgment
from parastudio.core.store.studies import study_settings
from parastudio.core.store.training import not_training


def answer_times(db: Database, study_id: int, annotator_id: int | None = None
                 ) -> dict[int, list[tuple[datetime, int | None]]]:
    """Annotator id -> (answered at, judging clock in ms) of each answer they gave in the app, corrections and
    answers later undone included (each was judged), in the order given. Answers without a clock (imported from
    a CSV) are left out. ``annotator_id``: that annotator only (what a judge's own login reads)."""
    query = (select(Judgment.annotator_id, Judgment.answered_at, Judgment.duration_ms)
             .where(Judgment.study_id == study_id, Judgment.action == "answer", Judgment.duration_ms.is_not(None))
             .order_by(Judgment.annotator_id, Judgment.answered_at, Judgment.id))
    # A training answer (core.store.training) is no part of a judge's pace.
    query = query.where(*not_training(Judgment, study_settings(db, study_id)))
    if annotator_id is not None:
        query = query.where(Judgment.annotator_id == annotator_id)
    found: dict[int, list[tuple[datetime, int | None]]] = {}
    with db.read_connection() as connection:
        for annotator, at, duration in connection.execute(query):
            found.setdefault(annotator, []).append((aware(at), duration))
    return found


def annotators_of(db: Database, study_id: int) -> dict[int, str]:
    """Annotator id -> name, for the study's annotators (a judge's own login reads only its own)."""
    with db.read_connection() as connection:
        return dict(connection.execute(select(Annotator.id, Annotator.name).where(Annotator.study_id == study_id)
                                       .order_by(Annotator.name)).all())


@dataclass(frozen=True)
class OwnItem:
    """One of a judge's assignments as their own list shows it: where it is in their order (``position``; the
    screen says "item position + 1"), its criterion, the live answer (None: open), its flag, comment and the
    judging clock's seconds, and the candidate's text (None for a choice task or a preference pair)."""

    assignment_id: int
    position: int
    criterion: str
    value: str | None
    text: str | None
    flag: bool
    comment: str | None
    duration_ms: int | None
    candidate: str | None


def own_items(db: Database, annotator_id: int) -> list[OwnItem]:
    """Every assignment of ``annotator_id`` in their order, with its live answer: nobody else's row is read."""
    query = (select(Assignment.id, Assignment.position, Criterion.name, Judgment.value, Judgment.text, Judgment.flag,
                    Judgment.comment, Judgment.duration_ms, Candidate.text.label("candidate"))
             .select_from(Assignment)
             .join(Criterion, Criterion.id == Assignment.criterion_id)
             .outerjoin(Judgment, Judgment.id == Assignment.live_judgment_id)
             .outerjoin(Candidate, Candidate.id == Assignment.candidate_id)
             .where(Assignment.annotator_id == annotator_id)
             .order_by(Assignment.position))
    with db.read_connection() as connection:
        return [OwnItem(row.id, row.position, row.name, row.value, row.text, bool(row.flag), row.comment,
                        row.duration_ms, row.candidate) for row in connection.execute(query)]
