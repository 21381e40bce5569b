"""Adjudication: the items the judges disagree on, and a third annotator's decision as a new judgment row.

An item is in disagreement when its live judgments on normal assignments (repeats, controls and earlier
adjudications never count) carry more than one label. The adjudicator sees both labels (the judges never see
each other's); the decision is one transaction that adds an assignment of kind ``adjudication`` for the
adjudicator and a judgment row on it. A changed decision is a new row superseding the old, as any answer.
Adjudications are never a judge's label: statistics read normal assignments only
(:func:`core.store.judgments_out.iter_judgments`), and the dev-set export reads them apart.

What is adjudicated (docs/ANNOTATION.md, "Adjudication"): a label on a yes/no, 3- or 5-point, replacement,
choice or preference criterion. Direct assessment and error span annotation scores are not
(each protocol's ``not_adjudicated``, :mod:`core.judging.protocols`): they are measurements averaged over judges, not labels a third judge settles, so
:func:`disagreements` never offers them and :func:`record_adjudication` refuses them, naming why.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass
from typing import NamedTuple

from sqlalchemy import JSON, func, insert, select
from sqlalchemy import text as sql_text

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.store.assignment import next_free_positions
from parastudio.core.store.clock import now
from parastudio.core.store.criteria import normalize_value
from parastudio.core.store.database import Database
from parastudio.core.store.events import log_event
from parastudio.core.store.items import item_key
from parastudio.core.store.models import (
    Annotator,
    Assignment,
    Candidate,
    ChoiceTask,
    Criterion,
    Judgment,
    PreferencePair,
    SourceSentence,
)
from parastudio.core.store.studies import annotator_in


class ItemKey(NamedTuple):
    """One item on one criterion: a candidate (``unit``: its unit replacement), a choice task or a preference
    pair."""

    candidate_id: int | None
    choice_task_id: int | None
    unit: int | None
    pair_id: int | None
    criterion_id: int


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
    candidate: str | None  # a preference pair: its left candidate
    derivation: list | None
    labels: dict[str, str]  # judge -> label
    decision: str | None  # the adjudicator's live decision so far
    adjudicator: str | None
    right: str | None = None  # a preference pair: its right candidate (left and right as the judges saw them)
    options: tuple[str, ...] = ()  # a choice task: its options, in the order the judges saw them
    span: tuple[int, int] | None = None  # a choice task: the source tokens it asks about


def not_adjudicated(db: Database, study_id: int) -> dict[str, str]:
    """The study's criteria whose disagreements are never offered, each with the one-line reason."""
    with db.reading() as session:
        rows = session.execute(select(Criterion.name, Criterion.scale).where(Criterion.study_id == study_id)
                               .order_by(Criterion.position)).all()
    return {name: protocol_of(scale).not_adjudicated for name, scale in rows
            if protocol_of(scale).not_adjudicated is not None}


def refusal(criterion: Criterion) -> str | None:
    """Why a decision on ``criterion`` is refused (one line); None when it may be adjudicated."""
    reason = protocol_of(criterion.scale).not_adjudicated
    if reason is not None:
        return f"criterion {criterion.name} is not adjudicated: {reason}"
    return None


def _live_labels(session, study_id: int, kind: str) -> dict[ItemKey, dict[str, tuple[str, int]]]:
    rows = session.execute(
        select(Assignment.candidate_id, Assignment.choice_task_id, Assignment.unit, Assignment.pair_id,
               Assignment.criterion_id, Annotator.name, Judgment.value, Judgment.id)
        .join(Judgment, Judgment.id == Assignment.live_judgment_id).join(Annotator, Annotator.id == Assignment.annotator_id)
        .where(Assignment.study_id == study_id, Assignment.kind == kind))
    found: dict[ItemKey, dict[str, tuple[str, int]]] = defaultdict(dict)
    for candidate, task, unit, pair, criterion, name, value, judgment_id in rows:
        found[ItemKey(candidate, task, unit, pair, criterion)][name] = (value, judgment_id)
    return found


def _disagreeing_labels(session, study_id: int) -> dict[ItemKey, dict[str, tuple[str, int]]]:
    """On an adjudicator's own PostgreSQL login: the judges' live labels on the items they disagree on, as the
    server gives them (``ps_disagreement_labels``, revisions 0007 and 0008, which names the preference pair); the
    login reads no other judge's row."""
    found: dict[ItemKey, dict[str, tuple[str, int]]] = defaultdict(dict)
    for row in session.execute(select(sql_text("* FROM ps_disagreement_labels(:study)")), {"study": study_id}):
        key = ItemKey(row.candidate_id, row.choice_task_id, row.unit, row.pair_id, row.criterion_id)
        found[key][row.judge] = (row.value, row.judgment_id)
    return found


def _judges_labels(session, study_id: int, member: bool) -> dict[ItemKey, dict[str, tuple[str, int]]]:
    return _disagreeing_labels(session, study_id) if member else _live_labels(session, study_id, "normal")


def disagreements(db: Database, study_id: int, *, criteria: list[str] | None = None,
                  include_decided: bool = True) -> list[Disagreement]:
    """Items whose judges disagree, in item order (``include_decided``: also those already adjudicated); never
    an item of a criterion :func:`not_adjudicated` names."""
    member = db.is_member_login
    with db.reading() as session:
        criterion_rows = {c.id: c for c in session.scalars(select(Criterion).where(Criterion.study_id == study_id))}
        judged = _judges_labels(session, study_id, member)
        decided = _live_labels(session, study_id, "adjudication")
        controls = set() if member else set(session.scalars(select(Candidate.id).where(
            Candidate.study_id == study_id, Candidate.kind == "control")))
        wanted = [key for key, labels in judged.items()
                  if len({value for value, _ in labels.values()}) > 1 and key.candidate_id not in controls
                  and _offered(criterion_rows[key.criterion_id], criteria) and (include_decided or key not in decided)]
        shown = _ShownItems.read(session, study_id, wanted, member)
    return [shown.disagreement(key, criterion_rows[key.criterion_id], judged[key], decided.get(key, {}))
            for key in sorted(wanted, key=lambda k: (k.candidate_id or 0, k.choice_task_id or 0, k.pair_id or 0,
                                                     -1 if k.unit is None else k.unit,
                                                     criterion_rows[k.criterion_id].position))]


def _offered(criterion: Criterion, criteria: list[str] | None) -> bool:
    """Whether a criterion's disagreements are offered: adjudicated, and among ``criteria`` when named."""
    return refusal(criterion) is None and (criteria is None or criterion.name in criteria)


@dataclass(frozen=True)
class _ShownItems:
    """What the screen shows of the items in disagreement: candidates (text, derivation, source), preference
    pairs, choice tasks, and the study's source texts."""

    candidates: dict
    pairs: dict
    tasks: dict
    sources: dict[int, str]

    @classmethod
    def read(cls, session, study_id: int, wanted: list[ItemKey], member: bool) -> _ShownItems:
        """On an adjudicator's own PostgreSQL login a derivation is read as the server shows it."""
        pairs = {p.id: p for p in session.execute(
            select(PreferencePair.id, PreferencePair.source_id, PreferencePair.left_candidate_id,
                   PreferencePair.right_candidate_id)
            .where(PreferencePair.id.in_({k.pair_id for k in wanted if k.pair_id is not None})))}
        shown = {k.candidate_id for k in wanted} | {c for p in pairs.values()
                                                    for c in (p.left_candidate_id, p.right_candidate_id)}
        derivation = (func.ps_shown_derivation(Candidate.id, type_=JSON) if member else Candidate.derivation)
        candidates = {row.id: (row.text, row.derivation, row.source_id) for row in session.execute(
            select(Candidate.id, Candidate.text, derivation.label("derivation"), Candidate.source_id)
            .where(Candidate.id.in_(shown - {None})))}
        tasks = {t.id: t for t in session.execute(
            select(ChoiceTask.id, ChoiceTask.source_id, ChoiceTask.options, ChoiceTask.span_start, ChoiceTask.span_end)
            .where(ChoiceTask.id.in_({k.choice_task_id for k in wanted if k.choice_task_id is not None})))}
        sources = dict(session.execute(select(SourceSentence.id, SourceSentence.text)
                                       .where(SourceSentence.study_id == study_id)).all())
        return cls(candidates, pairs, tasks, sources)

    def disagreement(self, key: ItemKey, criterion: Criterion, judged: dict[str, tuple[str, int]],
                     decided: dict[str, tuple[str, int]]) -> Disagreement:
        right, options, span = None, (), None
        if key.candidate_id is not None:
            text, derivation, source_id = self.candidates[key.candidate_id]
        elif key.pair_id is not None:
            pair = self.pairs[key.pair_id]
            text, derivation, source_id = self.candidates[pair.left_candidate_id][0], None, pair.source_id
            right = self.candidates[pair.right_candidate_id][0]
        else:
            task = self.tasks[key.choice_task_id]
            text, derivation, source_id = None, None, task.source_id
            options, span = tuple(task.options or ()), (task.span_start, task.span_end)
        # Of two adjudicators' decisions the older stands, as in the dev set and Inspect.
        who, (value, _) = min(decided.items(), key=lambda entry: entry[1][1], default=(None, (None, None)))
        return Disagreement(key, item_key(key.candidate_id, key.choice_task_id, key.unit, key.pair_id),
                            criterion.name, criterion.question, criterion.scale, list(criterion.levels or []),
                            self.sources[source_id], text, derivation,
                            {name: label for name, (label, _) in sorted(judged.items())}, value, who,
                            right, options, span)


def record_adjudication(db: Database, study_id: int, adjudicator: str, key: ItemKey, value: str) -> int:
    """The adjudicator's decision on item ``key`` (as :func:`disagreements` gives it): a new judgment row (one
    transaction); returns its id.

    The judges of the item must disagree, and the adjudicator must not be one of them (an adjudicator is a
    third annotator); a criterion :func:`not_adjudicated` names is refused with its reason (ValueError)."""
    candidate_id, task_id, unit, pair_id, criterion_id = key
    with db.transaction() as session:
        criterion = session.get(Criterion, criterion_id)
        if criterion is None or criterion.study_id != study_id:
            raise LookupError(f"no criterion {criterion_id} in this study")
        member = db.is_member_login
        refused = refusal(criterion)
        if refused is not None:
            raise ValueError(refused)
        judges = _judges_labels(session, study_id, member).get(key, {})
        if len({label for label, _ in judges.values()}) < 2:
            raise LookupError("the judges of this item do not disagree: an adjudicator decides disagreements only")
        if adjudicator in judges:
            raise ValueError(f"{adjudicator} judged this item: the adjudicator must be a third annotator")
        options = session.scalar(select(ChoiceTask.options).where(ChoiceTask.id == task_id)) \
            if task_id is not None else ()
        label, text = normalize_value(criterion, value, None, options or ())
        annotator_id = annotator_in(session, study_id, adjudicator)
        same = (Assignment.unit.is_(None) if unit is None else Assignment.unit == unit)
        if candidate_id is not None:
            item = Assignment.candidate_id == candidate_id
        elif pair_id is not None:
            item = Assignment.pair_id == pair_id
        else:
            item = Assignment.choice_task_id == task_id
        assignment = session.scalar(select(Assignment).where(
            Assignment.annotator_id == annotator_id, Assignment.kind == "adjudication",
            Assignment.criterion_id == criterion_id, item, same))
        if assignment is None:
            position = next_free_positions(session, study_id).get(annotator_id, 0)
            # The columns an adjudicator's own login may insert (core.store.access_grants), named: the ORM would
            # name every column, the system an assignment judges among them (revision 0010), granted to none.
            assignment = session.get(Assignment, session.scalar(insert(Assignment).values(
                study_id=study_id, annotator_id=annotator_id, candidate_id=candidate_id, choice_task_id=task_id,
                criterion_id=criterion_id, unit=unit, pair_id=pair_id, position=position, kind="adjudication",
                repeat_of=None, live_judgment_id=None).returning(Assignment.id)))
        judgment = Judgment(uid=str(uuid.uuid4()), study_id=study_id, assignment_id=assignment.id,
                            annotator_id=annotator_id, candidate_id=candidate_id, choice_task_id=task_id,
                            criterion_id=criterion_id, unit=unit, pair_id=pair_id, action="answer", value=label,
                            text=text, answered_at=now(), flag=False, supersedes=assignment.live_judgment_id,
                            origin="app")
        session.add(judgment)
        session.flush()
        if not member:  # on a member's own login the server's trigger does both (revision 0007)
            if assignment.live_judgment_id is not None:
                session.get(Judgment, assignment.live_judgment_id).superseded_by = judgment.id
            assignment.live_judgment_id = judgment.id
        log_event(session, study_id, "adjudicated", {"item": item_key(candidate_id, task_id, unit, pair_id),
                                                     "criterion": criterion.name, "value": label,
                                                     "judges": {n: v for n, (v, _) in judges.items()},
                                                     "judgment": judgment.id}, actor=adjudicator)
        return judgment.id
