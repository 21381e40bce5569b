"""The study database: typed SQLAlchemy 2 models, one class per table.

A *study* is one judgment campaign. Its *items* are candidates (a paraphrase
of a source sentence, judged on each criterion) and choice tasks (seed 001
§4.2: a highlighted span with up to five options). An *assignment* says which
annotator judges which item on which criterion, and at which position of that
annotator's seeded order. *Judgments* are append-only: a correction or an
undo is a new row, and the replaced row only gets ``superseded_by`` pointed at
it (the one explicit update, recorded in the event log).

Schema changes go through Alembic (``core/store/migrations``); every change
here needs a new revision there, and ``tests/test_store_migrations.py``
checks that the two agree.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# The scales a criterion can use are the registry's (core.judging.protocols.PROTOCOLS), each read through its
# protocol, never by name here. Among them: "choice" is the seed 001 §4.2 task; "replacement" is seed 004 §3.6's:
# one unit replacement of a candidate highlighted at a time, judged correct or not (yes/no); "preference" is
# a pairwise comparison of two systems' candidates for one source sentence (a PreferencePair, issue 30); "da"
# is WMT's direct assessment, a whole number from 0 to 100; "esa" is error span annotation, the same score
# after marking the wrong words (core.store.error_spans; issue 30); "mqm" is MQM (Freitag et al. 2021): errors
# with a category and a severity, the value their weighted sum negated (core.judging.protocols.mqm; issue 43).
# Assignment kinds: a normal item, a repeat of one already assigned (checks
# consistency), a planted control expected to be judged bad, or an adjudication
# (a third annotator's decision on an item two judges disagree on; never a judge's label), or a training item
# with a known answer, met before the real ones and counted in no statistic (core.store.training; issue 44).
ASSIGNMENT_KINDS = ("normal", "repeat", "control", "adjudication", "training")
# Judgment actions: an answer, or an undo that withdraws the previous answer.
JUDGMENT_ACTIONS = ("answer", "undo")


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class Study(Base):
    __tablename__ = "study"

    id: Mapped[int] = mapped_column(primary_key=True)
    # Stable across copies: a returned package is merged only into the study it came from.
    uid: Mapped[str] = mapped_column(String(36), unique=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    judges_per_item: Mapped[int] = mapped_column(Integer, default=2)
    seed: Mapped[int] = mapped_column(Integer, default=0)
    application: Mapped[str | None] = mapped_column(String(50))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)

    criteria: Mapped[list[Criterion]] = relationship(back_populates="study", order_by="Criterion.position")


class SourceSentence(Base):
    __tablename__ = "source_sentence"
    __table_args__ = (UniqueConstraint("study_id", "external_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("study.id"), index=True)
    # The sentence id of the input (``sentence_id`` of ``parastudio generate``), as text.
    external_id: Mapped[str] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(Text)
    references: Mapped[list[Any]] = mapped_column(JSON, default=list)
    test_set: Mapped[str | None] = mapped_column(String(200))
    # The sentence as published (cased, untokenized), shown to judges instead of ``text`` when known.
    display: Mapped[str | None] = mapped_column(Text)


class System(Base):
    __tablename__ = "system"
    __table_args__ = (UniqueConstraint("study_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("study.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))


class Candidate(Base):
    """One distinct string per source sentence; the systems that produced it
    are in ``CandidateSystem`` so it is judged once and credited to each."""

    __tablename__ = "candidate"
    __table_args__ = (UniqueConstraint("source_id", "text", "kind"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("study.id"), index=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("source_sentence.id"), index=True)
    text: Mapped[str] = mapped_column(Text)
    # "candidate", "control" (a planted item built from another candidate) or "training" (an item with a known
    # answer, core.store.training).
    kind: Mapped[str] = mapped_column(String(20), default="candidate")
    control_of: Mapped[int | None] = mapped_column(ForeignKey("candidate.id"))
    # Per system: {"rank", "model_score", "true_score"}.
    scores: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    derivation: Mapped[list[Any] | None] = mapped_column(JSON)
    # Provenance of the first system that produced it (each system's own is in CandidateSystem).
    tables: Mapped[list[Any] | None] = mapped_column(JSON)
    lm: Mapped[str | None] = mapped_column(Text)
    params: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    source: Mapped[SourceSentence] = relationship()
    systems: Mapped[list[CandidateSystem]] = relationship(back_populates="candidate")


class CandidateSystem(Base):
    __tablename__ = "candidate_system"

    candidate_id: Mapped[int] = mapped_column(ForeignKey("candidate.id"), primary_key=True)
    system_id: Mapped[int] = mapped_column(ForeignKey("system.id"), primary_key=True, index=True)
    rank: Mapped[int | None] = mapped_column(Integer)
    model_score: Mapped[float | None]
    true_score: Mapped[float | None]
    derivation: Mapped[list[Any] | None] = mapped_column(JSON)
    params: Mapped[dict[str, Any] | None] = mapped_column(JSON)

    candidate: Mapped[Candidate] = relationship(back_populates="systems")
    system: Mapped[System] = relationship()


class ChoiceTask(Base):
    """Seed 001 §4.2: a sentence with span ``[span_start, span_end)`` (token
    indices) highlighted and up to five paraphrase options for it."""

    __tablename__ = "choice_task"

    id: Mapped[int] = mapped_column(primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("study.id"), index=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("source_sentence.id"), index=True)
    span_start: Mapped[int] = mapped_column(Integer)
    span_end: Mapped[int] = mapped_column(Integer)
    options: Mapped[list[Any]] = mapped_column(JSON)
    system: Mapped[str | None] = mapped_column(String(200), deferred=True)

    source: Mapped[SourceSentence] = relationship()


class PreferencePair(Base):
    """Pairwise preference (issue 30): one source sentence and two systems' candidates for it, shown left and
    right in an order drawn for this pair from ``order_seed`` (recorded, so the draw can be checked).

    The systems are never shown. Two systems that produced the same string make a tie by construction:
    the pair is kept (``identical``) so the tie counts, and it is never assigned.
    """

    __tablename__ = "preference_pair"
    __table_args__ = (UniqueConstraint("source_id", "left_system", "right_system"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("study.id"), index=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("source_sentence.id"), index=True)
    left_system: Mapped[str] = mapped_column(String(200))
    right_system: Mapped[str] = mapped_column(String(200))
    left_candidate_id: Mapped[int] = mapped_column(ForeignKey("candidate.id"))
    right_candidate_id: Mapped[int] = mapped_column(ForeignKey("candidate.id"))
    order_seed: Mapped[str] = mapped_column(String(200))
    identical: Mapped[bool] = mapped_column(Boolean, default=False)

    source: Mapped[SourceSentence] = relationship()


class Criterion(Base):
    __tablename__ = "criterion"
    __table_args__ = (UniqueConstraint("study_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("study.id"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    question: Mapped[str] = mapped_column(Text)
    scale: Mapped[str] = mapped_column(String(20))
    # [{"value": "3", "label": ..., "description": ...}, ...] from worst to best.
    levels: Mapped[list[Any]] = mapped_column(JSON, default=list)
    # Seed 003 §4.3 two-step protocol: fluency is judged on the candidate alone.
    shows_source: Mapped[bool] = mapped_column(Boolean, default=True)
    application: Mapped[str | None] = mapped_column(String(50))
    position: Mapped[int] = mapped_column(Integer, default=0)

    study: Mapped[Study] = relationship(back_populates="criteria")


class Annotator(Base):
    __tablename__ = "annotator"
    __table_args__ = (UniqueConstraint("study_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("study.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))


class Assignment(Base):
    __tablename__ = "assignment"
    __table_args__ = (
        # Also the (annotator, position) index that ordered reads walk.
        UniqueConstraint("annotator_id", "position", name="uq_assignment_annotator_position"),
        # The resume query reads only open assignments: a partial index makes it
        # one index seek however much of a 100k study is already judged.
        Index(
            "ix_assignment_open",
            "annotator_id",
            "position",
            sqlite_where=text("live_judgment_id IS NULL"),
            postgresql_where=text("live_judgment_id IS NULL"),
        ),
        Index("ix_assignment_candidate", "candidate_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("study.id"), index=True)
    annotator_id: Mapped[int] = mapped_column(ForeignKey("annotator.id"))
    candidate_id: Mapped[int | None] = mapped_column(ForeignKey("candidate.id"))
    choice_task_id: Mapped[int | None] = mapped_column(ForeignKey("choice_task.id"))
    criterion_id: Mapped[int] = mapped_column(ForeignKey("criterion.id"))
    position: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(20), default="normal")
    repeat_of: Mapped[int | None] = mapped_column(ForeignKey("assignment.id"))
    # Replacement criteria: which unit replacement of the candidate (its index among the derivation's
    # changed segments, left to right); None for every other criterion (revision 0005).
    unit: Mapped[int | None] = mapped_column(Integer)
    # Preference criteria: the PreferencePair judged (revision 0006); None for every other criterion. Not a
    # foreign key: SQLite cannot add one to an existing table in place (the migration says why).
    pair_id: Mapped[int | None] = mapped_column(Integer)
    # The system whose output is judged, where a study rates each system's output apart (an MQM import: each
    # system's output read in its own document, revision 0010); None: the candidate is judged once and counts for
    # every system that produced it. Never shown to a judge: not granted to a member's login, so deferred (read
    # only when asked for, as iter_judgments does).
    system: Mapped[str | None] = mapped_column(String(200), deferred=True)
    # Cache of the live judgment, kept in the same transaction as every write
    # to judgment (revision 0002); not a foreign key, it is derived data.
    live_judgment_id: Mapped[int | None] = mapped_column(Integer)

    annotator: Mapped[Annotator] = relationship()
    candidate: Mapped[Candidate | None] = relationship()
    choice_task: Mapped[ChoiceTask | None] = relationship()
    criterion: Mapped[Criterion] = relationship()


class Judgment(Base):
    __tablename__ = "judgment"
    __table_args__ = (
        Index("ix_judgment_assignment", "assignment_id"),
        Index("ix_judgment_annotator", "annotator_id", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # Identifies the row across databases (export package, merge).
    uid: Mapped[str] = mapped_column(String(36), unique=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("study.id"), index=True)
    assignment_id: Mapped[int] = mapped_column(ForeignKey("assignment.id"))
    annotator_id: Mapped[int] = mapped_column(ForeignKey("annotator.id"))
    candidate_id: Mapped[int | None] = mapped_column(ForeignKey("candidate.id"))
    choice_task_id: Mapped[int | None] = mapped_column(ForeignKey("choice_task.id"))
    criterion_id: Mapped[int] = mapped_column(ForeignKey("criterion.id"))
    unit: Mapped[int | None] = mapped_column(Integer)  # as Assignment.unit
    pair_id: Mapped[int | None] = mapped_column(Integer)  # as Assignment.pair_id
    action: Mapped[str] = mapped_column(String(10), default="answer")
    # The scale label as text: "yes"/"no", "1".."5", a custom level, or for a
    # choice task "original", "option:N" or "custom".
    value: Mapped[str | None] = mapped_column(String(100))
    # The chosen option's or the typed custom paraphrase (choice task).
    text: Mapped[str | None] = mapped_column(Text)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    answered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    duration_ms: Mapped[int | None] = mapped_column(Integer)
    comment: Mapped[str | None] = mapped_column(Text)
    flag: Mapped[bool] = mapped_column(Boolean, default=False)
    supersedes: Mapped[int | None] = mapped_column(ForeignKey("judgment.id"))
    superseded_by: Mapped[int | None] = mapped_column(ForeignKey("judgment.id"))
    # "app", "import" (a judgments CSV) or "merge" (a returned package).
    origin: Mapped[str] = mapped_column(String(20), default="app")


class EventLog(Base):
    __tablename__ = "event_log"
    # No RETURNING on insert: a member's own login may add an event but read none (revision 0007).
    __table_args__ = {"implicit_returning": False}

    id: Mapped[int] = mapped_column(primary_key=True)
    study_id: Mapped[int | None] = mapped_column(ForeignKey("study.id"), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    actor: Mapped[str | None] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(50))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class AnnotatorSession(Base):
    """The one live judging session of an annotator on a study: a lock row kept fresh by a heartbeat.

    A second window (or machine) for the same annotator and study finds the
    row and a recent heartbeat, and is refused or warned instead of judging
    the same items twice. A row whose heartbeat is old is a session that
    died without closing (a killed process) and may be taken over.
    """

    __tablename__ = "annotator_session"
    __table_args__ = (UniqueConstraint("study_id", "annotator_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("study.id"))
    annotator_id: Mapped[int] = mapped_column(ForeignKey("annotator.id"))
    token: Mapped[str] = mapped_column(String(36))
    holder: Mapped[str] = mapped_column(String(200))  # host and process, for the message the other window shows
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    heartbeat_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# A member's role in a study (issue 38): what each may read and write is the table in docs/ANNOTATION.md.
MEMBER_ROLES = ("researcher", "adjudicator", "judge")


class StudyMember(Base):
    """One person let into a study: a PostgreSQL login role (``login``), or on SQLite a name, with its role.

    A judge and an adjudicator judge as ``annotator_id``. On PostgreSQL the server reads this table (through
    the functions of revision 0007) to decide which rows a member's own connection may read and write.
    """

    __tablename__ = "study_member"
    __table_args__ = (UniqueConstraint("study_id", "login"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    study_id: Mapped[int] = mapped_column(ForeignKey("study.id"))
    login: Mapped[str] = mapped_column(String(200), index=True)
    role: Mapped[str] = mapped_column(String(20))
    annotator_id: Mapped[int | None] = mapped_column(ForeignKey("annotator.id"))
    invited_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
