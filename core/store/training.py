"""Training items (issue 44, item 7): items with known answers that every judge meets before the real ones.

The items are written with the guidelines (``[[training]]`` of ``study guidelines``) into the study's
``instructions`` setting, which a judge's own login reads. ``study assign --training N`` makes the first N of them
candidates of kind ``training`` (each of its own source sentence, test set ``training``) and gives every judge one
assignment of kind ``training`` per item, placed before all their other assignments; each item's ``candidate_id``
is written back beside it, so the judging screen can tell a training item by its candidate and tell the judge,
after the answer, whether they agreed and why (:func:`training_answer`).

A training answer is a judgment like any other (append-only, undoable), but it counts in no statistic: every
reader of judgments for a statistic takes the ``normal`` assignments (the report, agreement, export, the dev set,
adjudication) or leaves out ``training`` ones (:data:`TRAINING`: QC, progress, pace). The researcher sees who passed
with :func:`training_results` (``study progress``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, or_, select

from parastudio.core.store.database import Database
from parastudio.core.store.models import Annotator, Assignment, Candidate, Criterion, Judgment, SourceSentence, Study

TRAINING = "training"  # the kind of a training item's candidate, and of its assignments


def training_entries(settings: dict) -> list[dict]:
    """The study's training items as its settings hold them (criterion, source, candidate, answer, reason and,
    once assigned, candidate_id)."""
    return list(((settings or {}).get("instructions") or {}).get("training") or [])


def training_answer(settings: dict, candidate_id: int | None, criterion: str) -> dict | None:
    """The training item judged as ``candidate_id`` on ``criterion``, or None when it is a real item."""
    if candidate_id is None:
        return None
    for entry in training_entries(settings):
        if entry.get("candidate_id") == candidate_id and entry.get("criterion") == criterion:
            return entry
    return None


def training_candidate_ids(settings: dict) -> set[int]:
    return {entry["candidate_id"] for entry in training_entries(settings) if entry.get("candidate_id") is not None}


def not_training(column, settings: dict) -> tuple:
    """The condition (as a tuple for ``where(*...)``) that ``column``, a candidate id, is no training item's: what
    a judge's own login can filter on, as it may not read an assignment's kind."""
    ids = sorted(training_candidate_ids(settings))
    return (or_(column.is_(None), column.not_in(ids)),) if ids else ()


def assign_training(session, study_id: int, annotator_ids: list[int], count: int) -> dict[int, int]:
    """Give each annotator the study's first ``count`` training items before all their assignments (in the
    caller's transaction); an annotator who has training assignments already gets none. Returns how many each got."""
    study = session.get(Study, study_id)
    settings = dict(study.settings or {})
    # Copies: an entry changed in place would compare equal to the stored one, and the new setting not be written.
    entries = [dict(entry) for entry in training_entries(settings)]
    if count > len(entries):
        raise ValueError(f"--training {count}: the study has {len(entries)} training items; write them as "
                         "[[training]] in the guidelines file (parastudio study guidelines)")
    criteria = dict(session.execute(select(Criterion.name, Criterion.id).where(Criterion.study_id == study_id)).all())
    for entry in entries[:count]:
        if entry["criterion"] not in criteria:
            raise ValueError(f"training item of criterion {entry['criterion']!r}: the study has no such criterion")
        entry["candidate_id"] = _training_candidate(session, study_id, entry)
    if count:
        study.settings = {**settings, "instructions": {**settings["instructions"], "training": entries}}
    given = {}
    for annotator_id in annotator_ids:
        mine = select(Assignment.id).where(Assignment.annotator_id == annotator_id)
        if count == 0 or session.scalar(mine.where(Assignment.kind == TRAINING).limit(1)) is not None:
            given[annotator_id] = 0
            continue
        first = session.scalar(select(func.min(Assignment.position)).where(Assignment.annotator_id == annotator_id))
        start = 0 if first is None else first - count
        for offset, entry in enumerate(entries[:count]):
            session.add(Assignment(study_id=study_id, annotator_id=annotator_id, candidate_id=entry["candidate_id"],
                                   criterion_id=criteria[entry["criterion"]], position=start + offset, kind=TRAINING))
        given[annotator_id] = count
    session.flush()
    return given


def _training_candidate(session, study_id: int, entry: dict) -> int:
    """The candidate of a training item: its own source sentence (test set ``training``) and candidate, made once."""
    source_id = session.scalar(select(SourceSentence.id).where(
        SourceSentence.study_id == study_id, SourceSentence.test_set == TRAINING,
        SourceSentence.text == entry.get("source", "")))
    if source_id is None:
        number = session.scalar(select(func.count()).select_from(SourceSentence).where(
            SourceSentence.study_id == study_id, SourceSentence.test_set == TRAINING)) + 1
        source = SourceSentence(study_id=study_id, external_id=f"training:{number}", text=entry.get("source", ""),
                                references=[], test_set=TRAINING)
        session.add(source)
        session.flush()
        source_id = source.id
    candidate_id = session.scalar(select(Candidate.id).where(
        Candidate.source_id == source_id, Candidate.text == entry["candidate"], Candidate.kind == TRAINING))
    if candidate_id is None:
        candidate = Candidate(study_id=study_id, source_id=source_id, text=entry["candidate"], kind=TRAINING,
                              scores={})
        session.add(candidate)
        session.flush()
        candidate_id = candidate.id
    return candidate_id


@dataclass(frozen=True)
class TrainingResult:
    """A judge's training so far: items answered, of them agreeing with the known answer, and items given."""

    annotator: str
    agreed: int
    answered: int
    given: int

    @property
    def passed(self) -> bool | None:
        """Every training item answered as known; None while some are unanswered."""
        return None if self.answered < self.given else self.agreed == self.given


def training_results(db: Database, study_id: int) -> list[TrainingResult]:
    """Per judge with training assignments, their live answers against the known ones: the researcher's view, so
    none on a judge's own login (which may not read an assignment's kind)."""
    if db.is_member_login:
        return []
    with db.reading() as session:
        settings = session.get(Study, study_id).settings or {}
        names = dict(session.execute(select(Criterion.id, Criterion.name).where(Criterion.study_id == study_id)).all())
        rows = session.execute(
            select(Annotator.name, Assignment.candidate_id, Assignment.criterion_id, Judgment.value)
            .join(Annotator, Annotator.id == Assignment.annotator_id)
            .outerjoin(Judgment, Judgment.id == Assignment.live_judgment_id)
            .where(Assignment.study_id == study_id, Assignment.kind == TRAINING)
            .order_by(Annotator.name, Assignment.position)).all()
    counts: dict[str, list[int]] = {}
    for name, candidate_id, criterion_id, value in rows:
        tally = counts.setdefault(name, [0, 0, 0])
        tally[2] += 1
        if value is not None:
            tally[1] += 1
            entry = training_answer(settings, candidate_id, names[criterion_id])
            tally[0] += int(entry is not None and entry["answer"] == value)
    return [TrainingResult(name, *tally) for name, tally in counts.items()]
