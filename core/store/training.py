"""Training items (issue 44, item 7): items with known answers that every judge meets before the real ones.

The items are written with the guidelines (``[[training]]`` of ``study guidelines``) into the study's
``instructions`` setting, which a judge's own login reads. ``study assign --training N`` makes the first N of them
store rows of their own: candidates of kind ``training`` (each of its own source sentence, test set ``training``),
and for a pair or a choice task the pair or task over them; it gives every judge one assignment of kind
``training`` per item, placed before all their other assignments. The item's rows are written back beside it
(:data:`STORED_KEYS`), so the judging screen can tell a training item by its item key and tell the judge, after
the answer, whether they agreed and why (:func:`training_answer`).

A training answer is a judgment like any other (append-only, undoable), but it counts in no statistic: every
reader of judgments for a statistic takes the ``normal`` assignments (the report, agreement, export, the dev set,
adjudication) or leaves out ``training`` ones (:data:`TRAINING`: QC, progress, pace). The researcher sees who passed
with :func:`training_results` (``study progress``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, or_, select

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.protocol import CHOICE_TASK, PAIR
from parastudio.core.store.database import Database
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
    Study,
)
from parastudio.core.store.preference_pairs import order_is_swapped
from parastudio.core.vocabulary import PREFER_LEFT, PREFER_RIGHT, PREFER_TIE

TRAINING = "training"  # the kind of a training item's candidate, and of its assignments
# What assigning an item writes beside it: its store rows, and for a pair the side the judge must press.
STORED_KEYS = ("candidate_id", "pair_id", "choice_task_id", "expected")


def training_entries(settings: dict) -> list[dict]:
    """The study's training items as its settings hold them (criterion, source, candidate, answer, reason and,
    once assigned, candidate_id)."""
    return list(((settings or {}).get("instructions") or {}).get("training") or [])


def entry_item_key(entry: dict) -> str | None:
    """The item key (:func:`core.store.items.item_key`) of an assigned training entry, None before it is assigned."""
    if entry.get("pair_id") is not None:
        return item_key(None, pair_id=entry["pair_id"])
    if entry.get("choice_task_id") is not None:
        return item_key(None, entry["choice_task_id"])
    return None if entry.get("candidate_id") is None else item_key(entry["candidate_id"])


def training_answer(settings: dict, key: str | None, criterion: str) -> dict | None:
    """The training item judged as item ``key`` (``"12"``, ``"pair-3"``, ``"choice-4"``) on ``criterion``, or
    None when it is a real item."""
    if key is None:
        return None
    for entry in training_entries(settings):
        if entry_item_key(entry) == key and entry.get("criterion") == criterion:
            return entry
    return None


def expected_answer(entry: dict) -> str:
    """The stored answer a training entry expects: its known answer, or for a pair the side it was shown on."""
    return entry.get("expected", entry["answer"])


def agrees(entry: dict, scale: str, value: str) -> bool:
    """Whether the stored answer ``value`` agrees with the training entry's known one."""
    return protocol_of(scale).agrees_with_known(expected_answer(entry), value)


def not_training(table, settings: dict) -> tuple:
    """The condition (as a tuple for ``where(*...)``) that a row of ``table`` (Assignment or Judgment) is of no
    training item: what a judge's own login can filter on, as it may not read an assignment's kind."""
    conditions = []
    for column, key in ((table.candidate_id, "candidate_id"), (table.pair_id, "pair_id"),
                        (table.choice_task_id, "choice_task_id")):
        ids = sorted({entry[key] for entry in training_entries(settings) if entry.get(key) is not None})
        if ids:
            conditions.append(or_(column.is_(None), column.not_in(ids)))
    return tuple(conditions)


def training_row_ids(settings: dict, key: str) -> set[int]:
    """The ids of the training items' rows of one kind (``candidate_id``, ``pair_id``, ``choice_task_id``): rows
    that no assignment of real items and no record of a statistic may take."""
    return {entry[key] for entry in training_entries(settings) if entry.get(key) is not None}


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
    criteria = {name: (criterion_id, scale) for name, criterion_id, scale in session.execute(
        select(Criterion.name, Criterion.id, Criterion.scale).where(Criterion.study_id == study_id))}
    for number, entry in enumerate(entries[:count], 1):
        if entry["criterion"] not in criteria:
            raise ValueError(f"training item of criterion {entry['criterion']!r}: the study has no such criterion")
        if entry_item_key(entry) is None:
            entry.update(_training_rows(session, study, number, entry, protocol_of(criteria[entry["criterion"]][1])))
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
            session.add(Assignment(study_id=study_id, annotator_id=annotator_id, candidate_id=entry.get("candidate_id"),
                                   pair_id=entry.get("pair_id"), choice_task_id=entry.get("choice_task_id"),
                                   criterion_id=criteria[entry["criterion"]][0], position=start + offset,
                                   kind=TRAINING))
        given[annotator_id] = count
    session.flush()
    return given


def _training_rows(session, study: Study, number: int, entry: dict, protocol) -> dict:
    """The store rows of a training item, made once (:data:`STORED_KEYS`): its candidate; or a pair of two
    candidates shown in an order drawn from the study's seed, with the side the known answer is then on; or a
    choice task."""
    source_id = _training_source(session, study.id, entry.get("source", ""))
    if protocol.item == CHOICE_TASK:
        task = ChoiceTask(study_id=study.id, source_id=source_id, span_start=entry["span"][0],
                          span_end=entry["span"][1], options=list(entry["options"]), system=None)
        session.add(task)
        session.flush()
        return {"choice_task_id": task.id}
    first = _training_candidate(session, study.id, source_id, entry["candidate"])
    if protocol.item != PAIR:
        return {"candidate_id": first}
    second = _training_candidate(session, study.id, source_id, entry["second"])
    order_seed = f"{study.seed}:training:{number}"
    swapped = order_is_swapped(order_seed)
    left, right = (second, first) if swapped else (first, second)
    pair = PreferencePair(study_id=study.id, source_id=source_id, left_system=TRAINING, right_system=TRAINING,
                          left_candidate_id=left, right_candidate_id=right, order_seed=order_seed, identical=False)
    session.add(pair)
    session.flush()
    sides = {"first": PREFER_RIGHT if swapped else PREFER_LEFT, "second": PREFER_LEFT if swapped else PREFER_RIGHT}
    return {"pair_id": pair.id, "expected": sides.get(entry["answer"], PREFER_TIE)}


def _training_source(session, study_id: int, text: str) -> int:
    """A training item's source sentence (test set ``training``), made once per text."""
    source_id = session.scalar(select(SourceSentence.id).where(
        SourceSentence.study_id == study_id, SourceSentence.test_set == TRAINING, SourceSentence.text == text))
    if source_id is None:
        number = session.scalar(select(func.count()).select_from(SourceSentence).where(
            SourceSentence.study_id == study_id, SourceSentence.test_set == TRAINING)) + 1
        source = SourceSentence(study_id=study_id, external_id=f"training:{number}", text=text, references=[],
                                test_set=TRAINING)
        session.add(source)
        session.flush()
        source_id = source.id
    return source_id


def _training_candidate(session, study_id: int, source_id: int, text: str) -> int:
    """A training candidate of kind ``training`` for ``source_id``, made once per text."""
    candidate_id = session.scalar(select(Candidate.id).where(
        Candidate.source_id == source_id, Candidate.text == text, Candidate.kind == TRAINING))
    if candidate_id is None:
        candidate = Candidate(study_id=study_id, source_id=source_id, text=text, kind=TRAINING, scores={})
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
        scales = dict(session.execute(select(Criterion.id, Criterion.scale).where(Criterion.study_id == study_id)).all())
        rows = session.execute(
            select(Annotator.name, Assignment.candidate_id, Assignment.choice_task_id, Assignment.pair_id,
                   Assignment.criterion_id, Judgment.value)
            .join(Annotator, Annotator.id == Assignment.annotator_id)
            .outerjoin(Judgment, Judgment.id == Assignment.live_judgment_id)
            .where(Assignment.study_id == study_id, Assignment.kind == TRAINING)
            .order_by(Annotator.name, Assignment.position)).all()
    counts: dict[str, list[int]] = {}
    for name, candidate_id, task_id, pair_id, criterion_id, value in rows:
        tally = counts.setdefault(name, [0, 0, 0])
        tally[2] += 1
        if value is not None:
            tally[1] += 1
            entry = training_answer(settings, item_key(candidate_id, task_id, pair_id=pair_id), names[criterion_id])
            tally[0] += int(entry is not None and agrees(entry, scales[criterion_id], value))
    return [TrainingResult(name, *tally) for name, tally in counts.items()]
