"""Adjudication: the items the judges disagree on, and a third annotator's decision as a new judgment row.

An item is in disagreement when its live judgments on normal assignments (repeats, controls and earlier
adjudications never count) carry more than one label. The adjudicator sees both labels (the judges never see
each other's); the decision is one transaction that adds an assignment of kind ``adjudication`` for the
adjudicator and a judgment row on it. A changed decision is a new row superseding the old, as any answer.
Adjudications are never a judge's label: statistics read normal assignments only
(:func:`core.store.judgments_out.iter_judgments`), and the dev-set export reads them apart.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import JSON, func, select
from sqlalchemy import text as sql_text

from core.store.assignment import next_free_positions
from core.store.clock import now
from core.store.criteria import normalize_value
from core.store.database import Database
from core.store.events import log_event
from core.store.items import item_key
from core.store.models import Annotator, Assignment, Candidate, ChoiceTask, Criterion, Judgment, SourceSentence
from core.store.studies import annotator_in

ItemKey = tuple[int | None, int | None, int | None, int]  # candidate, choice task, unit, criterion


@dataclass(frozen=True)
class Disagreement:
    """One item on one criterion whose judges gave different labels, with everything the screen shows."""

    key: ItemKey
    item: str
    criterion: str
    question: str
    scale: str
    levels: list
    source: str
    candidate: str | None
    derivation: list | None
    labels: dict[str, str]  # judge -> label
    decision: str | None  # the adjudicator's live decision so far
    adjudicator: str | None


def _live_labels(session, study_id: int, kind: str) -> dict[ItemKey, dict[str, tuple[str, int]]]:
    rows = session.execute(
        select(Assignment.candidate_id, Assignment.choice_task_id, Assignment.unit, Assignment.criterion_id,
               Annotator.name, Judgment.value, Judgment.id)
        .join(Judgment, Judgment.id == Assignment.live_judgment_id).join(Annotator, Annotator.id == Assignment.annotator_id)
        .where(Assignment.study_id == study_id, Assignment.kind == kind))
    found: dict[ItemKey, dict[str, tuple[str, int]]] = defaultdict(dict)
    for candidate, task, unit, criterion, name, value, judgment_id in rows:
        found[(candidate, task, unit, criterion)][name] = (value, judgment_id)
    return found


def _disagreeing_labels(session, study_id: int) -> dict[ItemKey, dict[str, tuple[str, int]]]:
    """On an adjudicator's own PostgreSQL login: the judges' live labels on the items they disagree on, as the
    server gives them (``ps_disagreement_labels``, revision 0007); the login reads no other judge's row."""
    found: dict[ItemKey, dict[str, tuple[str, int]]] = defaultdict(dict)
    for row in session.execute(select(sql_text("* FROM ps_disagreement_labels(:study)")), {"study": study_id}):
        found[(row.candidate_id, row.choice_task_id, row.unit, row.criterion_id)][row.judge] = (row.value,
                                                                                             row.judgment_id)
    return found


def disagreements(db: Database, study_id: int, *, criteria: list[str] | None = None,
                  include_decided: bool = True) -> list[Disagreement]:
    """Items whose judges disagree, in item order (``include_decided``: also those already adjudicated)."""
    member = db.is_member_login
    with db.reading() as session:
        criterion_rows = {c.id: c for c in session.scalars(select(Criterion).where(Criterion.study_id == study_id))}
        judged = _disagreeing_labels(session, study_id) if member else _live_labels(session, study_id, "normal")
        decided = _live_labels(session, study_id, "adjudication")
        controls = set() if member else set(session.scalars(select(Candidate.id).where(
            Candidate.study_id == study_id, Candidate.kind == "control")))
        wanted = [key for key, labels in judged.items()
                  if len({value for value, _ in labels.values()}) > 1 and key[0] not in controls
                  and (criteria is None or criterion_rows[key[3]].name in criteria)
                  and (include_decided or key not in decided)]
        derivation = (func.ps_shown_derivation(Candidate.id, type_=JSON) if member else Candidate.derivation)
        candidates = {row.id: (row.text, row.derivation, row.source_id) for row in session.execute(
            select(Candidate.id, Candidate.text, derivation.label("derivation"), Candidate.source_id)
            .where(Candidate.id.in_({k[0] for k in wanted if k[0] is not None})))}
        tasks = {t.id: t for t in session.execute(
            select(ChoiceTask.id, ChoiceTask.source_id)
            .where(ChoiceTask.id.in_({k[1] for k in wanted if k[1] is not None})))}
        sources = dict(session.execute(select(SourceSentence.id, SourceSentence.text)
                                       .where(SourceSentence.study_id == study_id)).all())
    out = []
    for key in sorted(wanted, key=lambda k: (k[0] or 0, k[1] or 0, -1 if k[2] is None else k[2],
                                             criterion_rows[k[3]].position)):
        candidate_id, task_id, unit, criterion_id = key
        criterion = criterion_rows[criterion_id]
        if candidate_id is not None:
            text, derivation, source_id = candidates[candidate_id]
        else:
            text, derivation, source_id = None, None, tasks[task_id].source_id
        decision = decided.get(key, {})
        who, (value, _) = next(iter(decision.items()), (None, (None, None)))
        out.append(Disagreement(key, item_key(candidate_id, task_id, unit), criterion.name, criterion.question,
                                criterion.scale, list(criterion.levels or []), sources[source_id], text, derivation,
                                {name: label for name, (label, _) in sorted(judged[key].items())}, value, who))
    return out


def record_adjudication(db: Database, study_id: int, adjudicator: str, key: ItemKey, value: str) -> int:
    """The adjudicator's decision on item ``key``: a new judgment row (one transaction); returns its id.

    The adjudicator must not be one of the item's judges (an adjudicator is a third annotator)."""
    candidate_id, task_id, unit, criterion_id = key
    with db.transaction() as session:
        criterion = session.get(Criterion, criterion_id)
        if criterion is None or criterion.study_id != study_id:
            raise LookupError(f"no criterion {criterion_id} in this study")
        member = db.is_member_login
        judges = (_disagreeing_labels if member else
                  lambda *args: _live_labels(*args, "normal"))(session, study_id).get(key, {})
        if member and not judges:
            raise LookupError("the judges of this item do not disagree: an adjudicator decides disagreements only")
        if adjudicator in judges:
            raise ValueError(f"{adjudicator} judged this item: the adjudicator must be a third annotator")
        options = session.scalar(select(ChoiceTask.options).where(ChoiceTask.id == task_id)) \
            if task_id is not None else ()
        label, text = normalize_value(criterion, value, None, options or ())
        annotator_id = annotator_in(session, study_id, adjudicator)
        same = (Assignment.unit.is_(None) if unit is None else Assignment.unit == unit)
        item = (Assignment.candidate_id == candidate_id) if candidate_id is not None else (
            Assignment.choice_task_id == task_id)
        assignment = session.scalar(select(Assignment).where(
            Assignment.annotator_id == annotator_id, Assignment.kind == "adjudication",
            Assignment.criterion_id == criterion_id, item, same))
        if assignment is None:
            position = next_free_positions(session, study_id).get(annotator_id, 0)
            assignment = Assignment(study_id=study_id, annotator_id=annotator_id, candidate_id=candidate_id,
                                    choice_task_id=task_id, criterion_id=criterion_id, unit=unit, position=position,
                                    kind="adjudication")
            session.add(assignment)
            session.flush()
        judgment = Judgment(uid=str(uuid.uuid4()), study_id=study_id, assignment_id=assignment.id,
                            annotator_id=annotator_id, candidate_id=candidate_id, choice_task_id=task_id,
                            criterion_id=criterion_id, unit=unit, action="answer", value=label, text=text,
                            answered_at=now(), flag=False, supersedes=assignment.live_judgment_id, origin="app")
        session.add(judgment)
        session.flush()
        if not member:  # on a member's own login the server's trigger does both (revision 0007)
            if assignment.live_judgment_id is not None:
                session.get(Judgment, assignment.live_judgment_id).superseded_by = judgment.id
            assignment.live_judgment_id = judgment.id
        log_event(session, study_id, "adjudicated", {"item": item_key(candidate_id, task_id, unit),
                                                     "criterion": criterion.name, "value": label,
                                                     "judges": {n: v for n, (v, _) in judges.items()},
                                                     "judgment": judgment.id}, actor=adjudicator)
        return judgment.id
