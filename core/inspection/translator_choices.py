"""A translator's picks as choice judgments in the open study database (seed 001 §4.2's task, answered in use).

Every suggestion the translator picks in the translator's view
(:class:`core.inspection.translator_session.Pick`) becomes, through the
store's own operations, one choice task (the translation as it was, the span
replaced, the suggestions shown as its options; the approach that made them as
its system) assigned to the translator, and one judgment ``option:N`` on it
(the picked one), timed from the moment the suggestions appeared. The tasks
live in a study of their own, ``translator-choices``, created on first use
with the single criterion ``choice`` and one judge per item, so the
judgments export, count and compare like any choice task's.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass

from sqlalchemy import select

from parastudio.core.inspection.translator_session import Pick
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.core.store.models import Assignment, ChoiceTask, SourceSentence, Study

TRANSLATOR_STUDY = "translator-choices"
ORIGIN = "translator"
# One pick at a time per process: a study created twice, or a task's assignment taken for another's.
_writing = threading.Lock()


@dataclass(frozen=True)
class RecordedPick:
    study_id: int
    task_id: int
    assignment_id: int
    judgment_id: int


def translator_study(db: Database, name: str = TRANSLATOR_STUDY, *, settings: dict | None = None) -> int:
    """The id of the study the picks go into, created (one criterion ``choice``, one judge) when missing."""
    with db.reading() as session:
        found = session.scalar(select(Study.id).where(Study.name == name))
    if found is not None:
        return found
    return ops.create_study(db, name, criteria=["choice"], judges_per_item=1, application=None, seed=2013,
                            settings={"origin": "the translator's view (parastudio app, Translator screen)",
                                      **(settings or {})})


def sentence_key(pick: Pick, corpus: str) -> str:
    """The choice task's sentence id: the corpus sentence, and a digest of the text when it was edited (a
    sentence id names one text in the store)."""
    digest = hashlib.sha1(pick.before.encode("utf-8")).hexdigest()[:10]
    return f"{corpus}:{pick.sentence}:{digest}"


def record_pick(db: Database, pick: Pick, annotator: str, *, corpus: str,
                study: str = TRANSLATOR_STUDY) -> RecordedPick:
    """Store ``pick`` as a choice task with ``annotator``'s answer (module docstring); returns the new rows' ids."""
    if not annotator:
        raise ValueError("a choice needs an annotator: choose who you are (File > Judge as…)")
    with _writing:
        study_id = translator_study(db, study, settings={"corpus": corpus})
        external_id = sentence_key(pick, corpus)
        task = {"id": external_id, "sentence": " ".join(pick.before.split()), "span": list(pick.span),
                "options": list(pick.options), "system": pick.system, "test_set": corpus}
        ops.add_choice_tasks(db, study_id, [task], path=ORIGIN)
        with db.reading() as session:
            task_id = session.scalar(
                select(ChoiceTask.id).join(SourceSentence, SourceSentence.id == ChoiceTask.source_id)
                .where(ChoiceTask.study_id == study_id, SourceSentence.external_id == external_id)
                .order_by(ChoiceTask.id.desc()).limit(1))
        ops.assign(db, study_id, [annotator], judges_per_item=1)
        annotator_id = ops.find_annotator(db, study_id, annotator)
        with db.reading() as session:
            assignment_id = session.scalar(select(Assignment.id).where(
                Assignment.choice_task_id == task_id, Assignment.annotator_id == annotator_id))
        if assignment_id is None:
            raise LookupError(f"choice task {task_id} was not assigned to {annotator!r}")
        judgment_id = ops.record_judgment(db, assignment_id, pick.answer, started_at=pick.shown_at,
                                          answered_at=pick.picked_at, origin=ORIGIN)
    return RecordedPick(study_id, task_id, assignment_id, judgment_id)
