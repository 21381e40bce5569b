"""Small read queries the annotation screens need besides :mod:`core.store.operations`.

The annotation screen shows the next item before the previous answer is
written (the write is queued), so it cannot ask the store for "the first open
item": that would still be the one just answered. It walks the annotator's
order from the current position instead, skipping what it answered locally.
Each query here is one index seek.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from sqlalchemy import bindparam, func, select

from parastudio.core.store.assignment import blind_phases
from parastudio.core.store.database import Database
from parastudio.core.store.models import Annotator, Assignment, Candidate, ChoiceTask, Criterion, Judgment, Study
from parastudio.core.store.studies import study_settings
from parastudio.core.store.training import not_training


@functools.cache
def _open_after():
    return (select(Assignment.position).where(Assignment.annotator_id == bindparam("annotator"),
                                              Assignment.live_judgment_id.is_(None),
                                              Assignment.position > bindparam("position"))
            .order_by(Assignment.position).limit(1))


def first_open_after(db: Database, annotator_id: int, position: int) -> int | None:
    """The first position after ``position`` with no live judgment in the database."""
    with db.read_connection() as connection:
        return connection.scalar(_open_after(), {"annotator": annotator_id, "position": position})


@functools.cache
def _open_source_free():
    # Driven from the candidates of the sentence (ix_candidate_source_id, then ix_assignment_candidate): the "+ 0"
    # keeps SQLite off the index of the annotator's open assignments, which it would otherwise walk whole
    # (milliseconds per key press on a large study, against some hundredths).
    candidates = select(Candidate.id).where(Candidate.source_id == bindparam("source")).scalar_subquery()
    return (select(Assignment.position)
            .where(Assignment.candidate_id.in_(candidates), Assignment.annotator_id + 0 == bindparam("annotator"),
                   Assignment.live_judgment_id.is_(None),
                   Assignment.criterion_id.in_(bindparam("criteria", expanding=True)))
            .order_by(Assignment.position))


def open_source_free_positions(db: Database, annotator_id: int, source_id: int, criteria: frozenset[int]) -> list[int]:
    """Positions of the annotator's open assignments on ``criteria`` (the source-free ones) for candidates of one
    source sentence, in order. Found from the sentence's few candidates (two index seeks), not by walking the
    annotator's order."""
    if not criteria:
        return []
    with db.read_connection() as connection:
        return list(connection.scalars(_open_source_free(), {"annotator": annotator_id, "source": source_id,
                                                             "criteria": sorted(criteria)}))


def source_free_criteria(db: Database, annotator_id: int) -> dict[str, int]:
    """Name -> id of the criteria the annotator's study judges blind, before any source is shown ({} when the
    study runs no blind phases)."""
    with db.reading() as session:
        study_id = session.scalar(select(Annotator.study_id).where(Annotator.id == annotator_id))
        if study_id is None:
            return {}
        criteria = session.scalars(select(Criterion).where(Criterion.study_id == study_id)).all()
    phases = blind_phases(study_settings(db, study_id), criteria)
    if len(phases) < 2:
        return {}
    return {c.name: c.id for c in criteria if c.id in phases[0]}


def assignment_position(db: Database, assignment_id: int) -> int | None:
    with db.read_connection() as connection:
        return connection.scalar(select(Assignment.position).where(Assignment.id == assignment_id))


def live_judgment_of(db: Database, assignment_id: int) -> int | None:
    """The id of the assignment's live answer (None when open)."""
    with db.read_connection() as connection:
        return connection.scalar(select(Assignment.live_judgment_id).where(Assignment.id == assignment_id))


def last_position(db: Database, annotator_id: int) -> int | None:
    with db.read_connection() as connection:
        return connection.scalar(select(func.max(Assignment.position)).where(Assignment.annotator_id == annotator_id))


def annotator_names(db: Database, study_id: int) -> list[str]:
    """Annotators who have assignments in the study, by name."""
    with db.reading() as session:
        return list(session.scalars(select(Annotator.name).where(Annotator.study_id == study_id)
                                    .order_by(Annotator.name)))


def every_annotator_name(db: Database) -> list[str]:
    """Every annotator name in the database, study by study (by id), by name within a study, each once: one
    query (the app asked once per study)."""
    with db.reading() as session:
        names = session.scalars(select(Annotator.name).order_by(Annotator.study_id, Annotator.name))
        return list(dict.fromkeys(names))


@dataclass(frozen=True)
class StudySummary:
    id: int
    name: str
    created_at: str
    criteria: list[str]
    candidates: int
    choice_tasks: int
    annotators: int
    judges_per_item: int
    judged: int
    assigned: int


def study_summaries(db: Database) -> list[StudySummary]:
    """One line per study in the database, for the Studies screen."""
    with db.reading() as session:
        # Only the columns a member's own login may read (revision 0007): it sees its own studies, assignments
        # and progress, and counts every candidate (it may not tell a planted control from one).
        studies = session.execute(select(Study.id, Study.name, Study.created_at, Study.judges_per_item)
                                  .order_by(Study.id)).all()
        member = db.is_member_login
        criteria: dict[int, list[str]] = {}
        for study_id, name in session.execute(select(Criterion.study_id, Criterion.name)
                                              .order_by(Criterion.study_id, Criterion.position)):
            criteria.setdefault(study_id, []).append(name)

        def counts(query) -> dict[int, int]:
            return dict(session.execute(query).all())

        candidates = counts(select(Candidate.study_id, func.count())
                            .where(*(() if member else (Candidate.kind == "candidate",)))
                            .group_by(Candidate.study_id))
        tasks = counts(select(ChoiceTask.study_id, func.count()).group_by(ChoiceTask.study_id))
        annotators = counts(select(Annotator.study_id, func.count()).group_by(Annotator.study_id))
        assigned = counts(select(Assignment.study_id, func.count()).group_by(Assignment.study_id))
        judged = counts(select(Assignment.study_id, func.count(Assignment.live_judgment_id))
                        .group_by(Assignment.study_id))
        return [StudySummary(s.id, s.name, s.created_at.strftime("%Y-%m-%d %H:%M"), criteria.get(s.id, []),
                             candidates.get(s.id, 0), tasks.get(s.id, 0), annotators.get(s.id, 0),
                             s.judges_per_item, judged.get(s.id, 0), assigned.get(s.id, 0)) for s in studies]


def judgment_count(db: Database, study_id: int) -> int:
    """Judgment rows so far (any action): a cheap 'has anything changed' probe for the dashboard."""
    with db.read_connection() as connection:
        return connection.scalar(select(func.max(Judgment.id)).where(Judgment.study_id == study_id)) or 0


def progress_counts(db: Database, study_id: int, annotator_id: int | None = None) -> dict[int, tuple[int, int]]:
    """Per annotator (or just one): (judged, assigned).

    Counted one annotator at a time so each count is an index seek: assigned
    over the (annotator, position) index, open over the partial index of open
    assignments. On a 600,000-assignment study that is tens of milliseconds
    where one grouped count over the study takes half a second.
    """
    real = not_training(Assignment, study_settings(db, study_id))  # training items: not counted
    with db.read_connection() as connection:
        if annotator_id is None:
            annotators = list(connection.scalars(select(Annotator.id).where(Annotator.study_id == study_id)))
        else:
            annotators = [annotator_id]
        counts = {}
        for annotator in annotators:
            total = connection.scalar(select(func.count()).select_from(Assignment)
                                      .where(Assignment.annotator_id == annotator, *real))
            still_open = connection.scalar(select(func.count()).select_from(Assignment)
                                           .where(Assignment.annotator_id == annotator,
                                                  Assignment.live_judgment_id.is_(None), *real))
            counts[annotator] = (total - still_open, total)
        return counts
