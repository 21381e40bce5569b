"""A test case of the span suggestions sent to human judges: seed 001 §4.2's manual evaluation, one case at a time.

Rustamli's judges saw the machine translation with the selection highlighted
and the top 5 suggestions of an approach, and picked the one that fits (or kept
the original, or wrote their own). Such a task goes into a choice-task study of
the open database (``suggestion-cases`` unless named), made on first use with
every judge the database already knows (or the names given), through the same
operations as any choice-task study (:func:`core.study_builder.make_choice_study`,
:func:`core.store.candidates.add_choice_tasks`); later tasks are added to it and
assigned to its judges. The same case and approach sent twice is one task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from sqlalchemy import func, select

from parastudio.core.inspection.suggestion_cases import CaseRow, choice_task
from parastudio.core.store import operations as ops
from parastudio.core.store.annotation_queries import annotator_names
from parastudio.core.store.database import Database
from parastudio.core.store.models import Annotator, Assignment, ChoiceTask, SourceSentence, Study
from parastudio.core.study_builder import StudyPlan, make_choice_study
from parastudio.core.vocabulary import CHOICE_STUDY_JUDGES

DEFAULT_STUDY = "suggestion-cases"


@dataclass(frozen=True)
class SentTask:
    study_id: int
    study: str
    created: bool  # the study was made for this task
    added: bool  # False: the same task was already there
    judges: tuple[str, ...]
    tasks: int  # the study's choice tasks now

    def message(self, case_id: str, approach: str) -> str:
        made = "new study " if self.created else "study "
        if not self.added:
            return f"case {case_id} ({approach}) is already a choice task of {made}“{self.study}”"
        return (f"case {case_id} ({approach}) sent as a choice task to {made}“{self.study}” "
                f"(task {self.tasks}, judged by {', '.join(self.judges)}): Choice task screen, Ctrl+2")


def judge_names(db: Database) -> list[str]:
    """Every judge's name in the database, in the order first seen (an adjudicator who only adjudicated is no
    judge: issue 28)."""
    with db.reading() as session:
        names = session.scalars(select(Annotator.name).where(
            select(Assignment.id).where(Assignment.annotator_id == Annotator.id,
                                        Assignment.kind != "adjudication").exists()).order_by(Annotator.id)).all()
    return list(dict.fromkeys(names))


def study_exists(db: Database, study: str = DEFAULT_STUDY) -> bool:
    with db.reading() as session:
        return session.scalar(select(Study.id).where(Study.name == study)) is not None


def send_case(db: Database, row: CaseRow, case_set: str, *, study: str = DEFAULT_STUDY,
              judges: Sequence[str] | None = None, judges_per_task: int = CHOICE_STUDY_JUDGES) -> SentTask:
    """Add the case's choice task to ``study`` (made on first use, with ``judges`` or every judge known, each
    task for ``judges_per_task`` of them: seed 001's four by default); raises LookupError when the study must
    be made and nobody is known to judge it."""
    task = choice_task(row, case_set)
    with db.reading() as session:
        study_id = session.scalar(select(Study.id).where(Study.name == study))
    if study_id is None:
        names = list(judges or judge_names(db))
        if not names:
            raise LookupError(f"no judges in this database for a new study “{study}”: name them")
        plan = StudyPlan(study, names, criteria=["choice"], judges_per_item=min(judges_per_task, len(names)), seed=2013,
                         repeat_fraction=0.0, control_fraction=0.0,
                         settings={"made_by": "Suggestions screen (seed 001 §4.2)"})
        study_id = make_choice_study(db, plan, [task], f"suggestion cases: {case_set}")
        return SentTask(study_id, study, True, True, tuple(names), _task_count(db, study_id))
    if _has_task(db, study_id, task):
        return SentTask(study_id, study, False, False, tuple(annotator_names(db, study_id)),
                        _task_count(db, study_id))
    ops.add_choice_tasks(db, study_id, [task], path=f"suggestion cases: {case_set}")
    names = annotator_names(db, study_id) or list(judges or judge_names(db))
    if not names:
        raise LookupError(f"study “{study}” has no judges: name them")
    ops.assign(db, study_id, names, repeat_fraction=0.0, control_fraction=0.0)
    return SentTask(study_id, study, False, True, tuple(names), _task_count(db, study_id))


def _has_task(db: Database, study_id: int, task: dict) -> bool:
    with db.reading() as session:
        found = session.execute(
            select(ChoiceTask.options).join(SourceSentence, SourceSentence.id == ChoiceTask.source_id)
            .where(ChoiceTask.study_id == study_id, SourceSentence.external_id == task["id"],
                   ChoiceTask.span_start == task["span"][0], ChoiceTask.span_end == task["span"][1],
                   ChoiceTask.system == task["system"])).scalars().all()
    return any(list(options) == task["options"] for options in found)


def _task_count(db: Database, study_id: int) -> int:
    with db.reading() as session:
        return session.scalar(select(func.count()).select_from(ChoiceTask).where(ChoiceTask.study_id == study_id))


def choice_tasks_of(db: Database, study: str = DEFAULT_STUDY) -> list[dict]:
    """The study's choice tasks as they were stored: id, sentence, span, options, system."""
    with db.reading() as session:
        rows = session.execute(
            select(SourceSentence.external_id, SourceSentence.text, ChoiceTask.span_start, ChoiceTask.span_end,
                   ChoiceTask.options, ChoiceTask.system)
            .join(SourceSentence, SourceSentence.id == ChoiceTask.source_id).join(Study, Study.id == ChoiceTask.study_id)
            .where(Study.name == study).order_by(ChoiceTask.id)).all()
    return [{"id": r[0], "sentence": r[1], "span": [r[2], r[3]], "options": list(r[4]), "system": r[5]} for r in rows]
