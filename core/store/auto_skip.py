"""Seed 001 §4.2.1's auto-skip rule for choice tasks, recorded as an auto-skip, never as a judgment.

"We also considered the case when a user comes across a test case that he
already assessed for a previous approach and his desired paraphrase selection
already is in top 5 for current approaches. We automatically skipped this test
cases, considering them successful."

So a choice task is skipped for an annotator when the same annotator has
already answered a task of the same sentence and span from another approach
(its ``system``) by picking an option or typing a paraphrase, and that
paraphrase (lowercase, whitespace-normalised) is one of this task's options.
The skip is a ``judgment`` row with ``action="auto-skip"`` and ``origin=
"auto-skip"``: it closes the assignment and carries the matching option as its
value (``option:N``, a success in Fig. 4.5), but it is not an answer: undo
never withdraws it, and its time taken is empty.
"""

from __future__ import annotations

import uuid

from sqlalchemy import select, update

from parastudio.core.store.clock import now
from parastudio.core.store.database import Database
from parastudio.core.store.models import Assignment, ChoiceTask, Judgment

ACTION = "auto-skip"


def _key(text: str | None) -> str:
    return " ".join((text or "").lower().split())


def auto_skip_answer(db: Database, assignment_id: int, earlier: dict[int, str] | None = None) -> tuple[str, str] | None:
    """``(option:N, text)`` when the rule skips this assignment (module docstring), else None.

    ``earlier`` adds answers given but perhaps not yet committed: choice task id -> chosen paraphrase."""
    with db.reading() as session:
        assignment = session.get(Assignment, assignment_id)
        if assignment is None or assignment.choice_task_id is None:
            return None
        task = session.get(ChoiceTask, assignment.choice_task_id)
        siblings = {t.id for t in session.scalars(select(ChoiceTask).where(
            ChoiceTask.study_id == task.study_id, ChoiceTask.source_id == task.source_id,
            ChoiceTask.span_start == task.span_start, ChoiceTask.span_end == task.span_end,
            ChoiceTask.id != task.id)) if t.system != task.system}
        if not siblings:
            return None
        chosen = [text for text in session.scalars(select(Judgment.text).where(
            Judgment.annotator_id == assignment.annotator_id, Judgment.choice_task_id.in_(siblings),
            Judgment.action == "answer", Judgment.superseded_by.is_(None),
            Judgment.value.is_not(None), Judgment.value != "original"))]
        chosen += [text for task_id, text in (earlier or {}).items() if task_id in siblings]
        wanted = {_key(text) for text in chosen if text}
        for number, option in enumerate(task.options or (), 1):
            if _key(option) in wanted:
                return f"option:{number}", option
    return None


def record_auto_skip(db: Database, assignment_id: int, value: str, text: str) -> int:
    """Close the assignment with an auto-skip row (one transaction); returns its id."""
    with db.transaction() as session:
        assignment = session.get(Assignment, assignment_id)
        row = Judgment(uid=str(uuid.uuid4()), study_id=assignment.study_id, assignment_id=assignment_id,
                       annotator_id=assignment.annotator_id, candidate_id=None,
                       choice_task_id=assignment.choice_task_id, criterion_id=assignment.criterion_id,
                       unit=None, action=ACTION, value=value, text=text, answered_at=now(), flag=False,
                       origin=ACTION, supersedes=assignment.live_judgment_id)
        session.add(row)
        session.flush()
        session.execute(update(Assignment).where(Assignment.id == assignment_id)
                        .values(live_judgment_id=row.id))
        return row.id


def skip_if_due(db: Database, assignment_id: int, earlier: dict[int, str] | None = None) -> tuple[str, str] | None:
    """Apply the rule to one open assignment: record the auto-skip and return its answer, or None."""
    answer = auto_skip_answer(db, assignment_id, earlier)
    if answer is not None:
        record_auto_skip(db, assignment_id, *answer)
    return answer
