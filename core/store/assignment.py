"""Who judges what, in which order: items spread over annotators, repeats and planted controls added.

Quality control as Appraise does it for WMT: repeated items measure an
annotator's consistency, planted controls (a phrase swapped in from another
sentence) must be judged bad.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from typing import Sequence

from sqlalchemy import func, insert, select

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.protocol import CHOICE_TASK, PAIR, REPLACEMENT_UNIT, SCORE
from parastudio.core.person_names import distinct_names
from parastudio.core.store.database import Database
from parastudio.core.store.events import log_event
from parastudio.core.store.items import replacement_units
from parastudio.core.store.models import (
    Assignment,
    Candidate,
    ChoiceTask,
    Criterion,
    Judgment,
    PreferencePair,
    SourceSentence,
    Study,
)
from parastudio.core.store.preference_pairs import PairsReport, make_preference_pairs
from parastudio.core.store.studies import annotator_in
from parastudio.core.store.training import assign_training, training_row_ids


def blind_phases(settings: dict, criteria: Sequence[Criterion]) -> list[set[int]]:
    """The criteria of each phase, in order: source-free ones first when the study (its ``settings``) runs blind
    phases."""
    hidden = {c.id for c in criteria if not c.shows_source and protocol_of(c.scale).item != CHOICE_TASK}
    shown = {c.id for c in criteria} - hidden
    default = bool(hidden) and bool(shown)
    if (settings or {}).get("blind_phases", default) and hidden and shown:
        return [hidden, shown]
    return [hidden | shown]


def sources_seen(session, study_id: int, phases: list[set[int]]) -> set[tuple[int, int]]:
    """(annotator, source sentence) pairs where the annotator has judged an item showing that source already."""
    shown = phases[-1]
    return set(session.execute(
        select(Judgment.annotator_id, Candidate.source_id).distinct()
        .join(Candidate, Candidate.id == Judgment.candidate_id)
        .where(Judgment.study_id == study_id, Judgment.criterion_id.in_(sorted(shown)))).all())


def next_free_positions(session, study_id: int) -> dict[int, int]:
    """Per annotator of the study, the first position after their last assignment (0 for one with none)."""
    last = session.execute(select(Assignment.annotator_id, func.max(Assignment.position))
                           .where(Assignment.study_id == study_id).group_by(Assignment.annotator_id)).all()
    return {annotator_id: position + 1 for annotator_id, position in last if position is not None}


@dataclass
class AssignReport:
    items: int
    assignments: dict[str, int]
    repeats: dict[str, int]
    controls: dict[str, int]
    # Blind phases across batches: source-free assignments of a sentence whose source this annotator has already
    # judged with (an earlier batch), so they cannot be blind. Items go to annotators who have not seen the
    # source first; this counts what could not be placed so.
    not_blind: dict[str, int] = field(default_factory=dict)
    # Preference criteria: the pairs of systems' candidates made by this batch (issue 30).
    pairs: PairsReport = field(default_factory=PairsReport)
    # Training items given to each annotator before their other items (issue 44, item 7).
    training: dict[str, int] = field(default_factory=dict)


# An item to judge: ("c", candidate id), ("t", choice task id) or ("p", preference pair id).
Item = tuple[str, int]
# A block of an annotator's order, sorted by its float key: originals at i, repeats later, controls anywhere;
# then its kind, its item and (a repeat) the index of the original.
Block = tuple[float, str, Item, int | None]


def make_control_text(candidate: str, other_sentence: str, rng: random.Random) -> str | None:
    """The candidate with a 2-3 word phrase replaced by one taken from another
    sentence: a planted item whose meaning (and usually form) is broken."""
    tokens, donor = candidate.split(), other_sentence.split()
    if not tokens or not donor:
        return None
    for _attempt in range(8):
        length = min(rng.choice((2, 3)), len(tokens), len(donor))
        start = rng.randrange(len(tokens) - length + 1)
        donor_start = rng.randrange(len(donor) - length + 1)
        changed = tokens[:start] + donor[donor_start:donor_start + length] + tokens[start + length:]
        if changed != tokens:
            return " ".join(changed)
    return None


def degrade_text(candidate: str, rng: random.Random) -> tuple[str, str] | None:
    """WMT's direct-assessment quality control (Graham et al. 2017 §3): a degraded copy of a candidate that a
    careful judge scores lower. A run of about a quarter of the words (at least one) is dropped or repeated in
    place; returns (text, "dropped" or "repeated"), None for a candidate of fewer than two words."""
    tokens = candidate.split()
    if len(tokens) < 2:
        return None
    length = max(1, round(len(tokens) / 4))
    start = rng.randrange(len(tokens) - length + 1)
    if rng.random() < 0.5:
        return " ".join(tokens[:start] + tokens[start + length:]), "dropped"
    return " ".join(tokens[:start + length] + tokens[start:start + length] + tokens[start + length:]), "repeated"


def assign(db: Database, study_id: int, annotators: Sequence[str], *, judges_per_item: int | None = None,
           overlap: float = 1.0, repeat_fraction: float = 0.0, control_fraction: float = 0.0,
           seed: int | None = None, repeat_gap: int = 10, only_candidates: set[int] | None = None,
           system_pairs: Sequence[tuple[str, str]] | None = None, training: int = 0) -> AssignReport:
    """Assign every not yet assigned item (one transaction).

    Each item goes to ``judges_per_item`` annotators (the study's, 2 by
    default) chosen by lightest load; with ``overlap`` < 1 only that fraction
    of the items gets that many judges and the rest one. Each annotator's
    order is shuffled with a seed derived from the study seed and their name;
    within one item the criteria keep their order, so fluency (candidate
    alone) comes before meaning (with the source), seed 003's two steps.
    ``repeat_fraction`` of an annotator's items come back at least
    ``repeat_gap`` items later; ``control_fraction`` adds planted controls (in a study with a direct
    assessment criterion, degraded copies of the judge's own candidates: :func:`degrade_text`).
    ``annotators`` are names as typed: each is taken as the study stores it (:func:`core.person_names.clean_name`),
    and two that are one name are refused (:class:`BadNameError`); the report names them as stored.
    ``only_candidates`` limits the batch to those candidates (and no choice tasks): the adaptive mode's
    next batch (:mod:`core.adaptive_assignment`).

    Preference criteria judge pairs of systems' candidates (:mod:`core.store.preference_pairs`): this makes
    them first, for every pair of systems or only ``system_pairs``, the same number of sentences each.

    ``training``: each annotator also gets the study's first ``training`` training items before all their other
    assignments (:func:`core.store.training.assign_training`; ``AssignReport.training`` counts them).

    Blind phases (the study setting ``blind_phases``, on by default when the
    study has a criterion that hides the source and one that shows it): seed
    003 asks about form alone, then meaning with the source. So each
    assignment batch runs in two phases: every source-free item of the
    annotator's batch (with its repeats and controls) comes before any item
    that shows a source, and no fluency item follows a display of its own
    source, even one shown for a sibling candidate of the same sentence. A later batch keeps this: the
    annotation session shows no item with a source while a source-free item of that sentence is open, and a new
    candidate of a sentence an annotator has already judged with its source goes to another annotator when there
    is one (``AssignReport.not_blind`` counts the rest).
    """
    # Cleaned before anything: two spellings of one name ("zoë" composed and decomposed) are refused here,
    # naming both, not found one annotator twice when the assignments are written.
    annotators = distinct_names(annotators, "annotator name")
    if not annotators:
        raise ValueError("name at least one annotator")
    if training < 0:
        raise ValueError("the number of training items must not be negative")
    if not 0.0 <= overlap <= 1.0 or repeat_fraction < 0 or control_fraction < 0:
        raise ValueError("overlap must lie in [0, 1] and the fractions must not be negative")
    with db.transaction() as session:
        study = session.get(Study, study_id)
        judges = judges_per_item or study.judges_per_item
        seed = study.seed if seed is None else seed
        shape = _study_shape(session, study_id, study)
        annotator_ids = [annotator_in(session, study_id, name) for name in annotators]
        items, pairs_report = _unassigned_items(session, study_id, shape, seed, only_candidates, system_pairs)
        seen = sources_seen(session, study_id, shape.phases) if len(shape.phases) > 1 else set()
        source_of = ({i: s for i, s in session.execute(select(Candidate.id, Candidate.source_id)
                                                         .where(Candidate.study_id == study_id))} if seen else {})
        per_annotator = _distribute(items, annotator_ids, judges, overlap, seed, seen, source_of)
        controls = _control_material(session, study_id, control_fraction)
        trained = assign_training(session, study_id, annotator_ids, training)  # before the positions after them
        next_position = next_free_positions(session, study_id)
        names = dict(zip(annotator_ids, annotators))
        report = AssignReport(items=len(items), assignments={}, repeats={}, controls={},
                              training={names[a]: given for a, given in trained.items()})
        for annotator_id in annotator_ids:
            name = names[annotator_id]
            rng = random.Random(f"{seed}:{name}")
            own = sorted(per_annotator[annotator_id])
            rng.shuffle(own)
            blocks = _repeat_blocks(own, rng, repeat_fraction, repeat_gap)
            planted = _plant_controls(session, study_id, own, rng, control_fraction, shape.degrades, controls)
            blocks += planted
            blocks.sort(key=lambda block: block[0])
            first_rows, repeat_rows = _assignment_rows(blocks, shape, study_id, annotator_id,
                                                       next_position.get(annotator_id, 0))
            _insert_assignments(session, annotator_id, first_rows, repeat_rows)
            report.assignments[name] = len(first_rows) + len(repeat_rows)
            report.repeats[name] = sum(1 for block in blocks if block[1] == "repeat")
            report.controls[name] = len(planted)
            report.not_blind[name] = sum(
                1 for row in first_rows + repeat_rows if row["criterion_id"] in shape.phases[0]
                and len(shape.phases) > 1 and (annotator_id, source_of.get(row["candidate_id"])) in seen)
        report.pairs = pairs_report
        log_event(session, study_id, "assigned", {**asdict(report), "judges_per_item": judges, "overlap": overlap,
                                             "repeat_fraction": repeat_fraction,
                                             "control_fraction": control_fraction, "seed": seed})
    return report


@dataclass
class _StudyShape:
    """What of a study's criteria decides the rows of an assignment batch."""

    criteria_of_kind: dict[str, list[int]]  # item kind -> the criteria judging it, in order
    per_unit: set[int]  # replacement criteria: one assignment per unit replacement
    units_of: dict[int, int]  # candidate -> its number of unit replacements (when some criterion is per unit)
    degrades: bool  # a score criterion: controls are degraded copies (WMT), not swapped phrases
    phases: list[set[int]]


def _study_shape(session, study_id: int, study: Study) -> _StudyShape:
    criteria = session.scalars(select(Criterion).where(Criterion.study_id == study_id)
                               .order_by(Criterion.position)).all()
    per_unit = {c.id for c in criteria if protocol_of(c.scale).item == REPLACEMENT_UNIT}
    units_of: dict[int, int] = {}
    if per_unit:
        units_of = {i: len(replacement_units(d)) for i, d in session.execute(
            select(Candidate.id, Candidate.derivation).where(Candidate.study_id == study_id))}
    return _StudyShape(
        criteria_of_kind={"c": [c.id for c in criteria if protocol_of(c.scale).item not in (CHOICE_TASK, PAIR)],
                          "t": [c.id for c in criteria if protocol_of(c.scale).item == CHOICE_TASK],
                          "p": [c.id for c in criteria if protocol_of(c.scale).item == PAIR]},
        per_unit=per_unit, units_of=units_of, degrades=any(protocol_of(c.scale).answer == SCORE for c in criteria),
        phases=blind_phases(study.settings, criteria))


def _assigned(session, study_id: int, column) -> set[int]:
    return set(session.scalars(select(column).distinct().where(Assignment.study_id == study_id,
                                                               column.is_not(None))))


def _unassigned_items(session, study_id: int, shape: _StudyShape, seed: int, only_candidates: set[int] | None,
                      system_pairs) -> tuple[list[Item], PairsReport]:
    """The items no assignment names yet, candidates then choice tasks then preference pairs (made first)."""
    assigned_candidates = _assigned(session, study_id, Assignment.candidate_id)
    # A training item's task or pair (core.store.training) is given only by --training, never as a real item.
    settings = session.get(Study, study_id).settings
    assigned_tasks = _assigned(session, study_id, Assignment.choice_task_id) | training_row_ids(settings,
                                                                                                "choice_task_id")
    items: list[Item] = []
    if shape.criteria_of_kind["c"]:
        items += [("c", i) for i in session.scalars(select(Candidate.id).where(
            Candidate.study_id == study_id, Candidate.kind == "candidate").order_by(Candidate.id))
            if i not in assigned_candidates and (only_candidates is None or i in only_candidates)]
    if shape.criteria_of_kind["t"] and only_candidates is None:
        items += [("t", i) for i in session.scalars(select(ChoiceTask.id).where(
            ChoiceTask.study_id == study_id).order_by(ChoiceTask.id)) if i not in assigned_tasks]
    pairs_report = PairsReport()
    if shape.criteria_of_kind["p"] and only_candidates is None:
        pairs_report = make_preference_pairs(session, study_id, seed, system_pairs)
        assigned_pairs = _assigned(session, study_id, Assignment.pair_id) | training_row_ids(settings, "pair_id")
        # A tie by construction (one string from both systems) is recorded, never shown.
        items += [("p", i) for i in session.scalars(select(PreferencePair.id).where(
            PreferencePair.study_id == study_id, PreferencePair.identical.is_(False))
            .order_by(PreferencePair.id)) if i not in assigned_pairs]
    return items, pairs_report


def _distribute(items: list[Item], annotator_ids: list[int], judges: int, overlap: float, seed: int,
                seen: set[tuple[int, int]], source_of: dict[int, int]) -> dict[int, list[Item]]:
    """Each item to its annotators, lightest load first (one who has not seen its source before one who has);
    the first ``overlap`` of the shuffled items get ``judges`` annotators, the rest one."""
    distribution_rng = random.Random(f"{seed}:distribution")
    shuffled = list(items)
    distribution_rng.shuffle(shuffled)
    multi = round(overlap * len(shuffled))
    load = {a: 0 for a in annotator_ids}
    per_annotator: dict[int, list[Item]] = {a: [] for a in annotator_ids}
    for index, item in enumerate(shuffled):
        count = min(judges if index < multi else 1, len(annotator_ids))
        source = source_of.get(item[1]) if item[0] == "c" else None
        chosen = sorted(annotator_ids, key=lambda a: ((a, source) in seen, load[a],
                                                      distribution_rng.random()))[:count]
        for a in chosen:
            load[a] += 1
            per_annotator[a].append(item)
    return per_annotator


def _repeat_blocks(own: list[Item], rng: random.Random, repeat_fraction: float, repeat_gap: int) -> list[Block]:
    """The annotator's items in order, and ``repeat_fraction`` of them again at least ``repeat_gap`` later."""
    blocks: list[Block] = [(float(i), "normal", item, None) for i, item in enumerate(own)]
    for index in sorted(rng.sample(range(len(own)), min(len(own), round(repeat_fraction * len(own))))):
        low = min(index + repeat_gap, len(own))
        blocks.append((rng.uniform(low, len(own)) + 0.5, "repeat", own[index], index))
    return blocks


@dataclass
class _ControlMaterial:
    """What planting controls reads: each source's text, each candidate's source and text (both only when
    controls are asked for), and the controls the study has, by (source, text)."""

    source_texts: dict[int, str]
    candidate_info: dict[int, tuple[int, str]]
    control_ids: dict[tuple[int, str], int]


def _control_material(session, study_id: int, control_fraction: float) -> _ControlMaterial:
    source_texts: dict[int, str] = {}
    candidate_info: dict[int, tuple[int, str]] = {}
    if control_fraction > 0:
        source_texts = dict(session.execute(select(SourceSentence.id, SourceSentence.text)
                                            .where(SourceSentence.study_id == study_id)).all())
        candidate_info = {i: (s, t) for i, s, t in session.execute(
            select(Candidate.id, Candidate.source_id, Candidate.text).where(Candidate.study_id == study_id))}
    control_ids = {(s, t): i for i, s, t in session.execute(
        select(Candidate.id, Candidate.source_id, Candidate.text).where(
            Candidate.study_id == study_id, Candidate.kind == "control"))}
    return _ControlMaterial(source_texts, candidate_info, control_ids)


def _plant_controls(session, study_id: int, own: list[Item], rng: random.Random, control_fraction: float,
                    degrades: bool, controls: _ControlMaterial) -> list[Block]:
    """``control_fraction`` of the annotator's items as planted controls of their own candidates, anywhere in
    the order; a control the study already has is reused."""
    candidate_items = [item for item in own if item[0] == "c"]
    wanted_controls = round(control_fraction * len(own)) if len(controls.source_texts) > 1 else 0
    blocks: list[Block] = []
    for item in rng.sample(candidate_items, min(len(candidate_items), wanted_controls)):
        source_id, candidate_text = controls.candidate_info[item[1]]
        donor = rng.choice([s for s in controls.source_texts if s != source_id])
        if degrades:  # direct assessment: WMT's degraded candidates
            degraded = degrade_text(candidate_text, rng)
            control_text, made_by = (None, None) if degraded is None else degraded
        else:
            control_text, made_by = make_control_text(candidate_text, controls.source_texts[donor], rng), None
        if control_text is None:
            continue
        key = (source_id, control_text)
        if key not in controls.control_ids:
            control = Candidate(study_id=study_id, source_id=source_id, text=control_text, kind="control",
                                control_of=item[1], scores={},
                                derivation=[{"control": {"degraded": made_by} if made_by else {"donor_source": donor}}])
            session.add(control)
            session.flush()
            controls.control_ids[key] = control.id
        blocks.append((rng.uniform(0, len(own)), "control", ("c", controls.control_ids[key]), None))
    return blocks


def _assignment_rows(blocks: list[Block], shape: _StudyShape, study_id: int, annotator_id: int,
                     position: int) -> tuple[list[dict], list[dict]]:
    """The assignment rows of an annotator's sorted blocks from ``position`` on: first judgments, then repeats
    (whose ``repeat_of`` is filled once their originals are written)."""
    first_rows, repeat_rows = [], []
    for phase in shape.phases:  # one pass over the blocks per phase, the same block order in each
        for _key, kind, (item_kind, item_id), _original_index in blocks:
            for criterion_id in shape.criteria_of_kind[item_kind]:
                if criterion_id not in phase:
                    continue
                units = range(shape.units_of.get(item_id, 0)) if criterion_id in shape.per_unit else (None,)
                for unit in units:
                    row = {"study_id": study_id, "annotator_id": annotator_id, "criterion_id": criterion_id,
                           "candidate_id": item_id if item_kind == "c" else None,
                           "choice_task_id": item_id if item_kind == "t" else None, "unit": unit,
                           "pair_id": item_id if item_kind == "p" else None,
                           "position": position, "kind": kind, "repeat_of": None}
                    position += 1
                    (repeat_rows if kind == "repeat" else first_rows).append(row)
    return first_rows, repeat_rows


def _insert_assignments(session, annotator_id: int, first_rows: list[dict], repeat_rows: list[dict]) -> None:
    """The first judgments' rows, then the repeats', each pointing at its annotator's normal assignment."""
    if first_rows:
        session.execute(insert(Assignment.__table__), first_rows)
    if repeat_rows:
        originals = {(c, t, p, k, u): i for i, c, t, p, k, u in session.execute(
            select(Assignment.id, Assignment.candidate_id, Assignment.choice_task_id, Assignment.pair_id,
                   Assignment.criterion_id, Assignment.unit)
            .where(Assignment.annotator_id == annotator_id, Assignment.kind == "normal"))}
        for row in repeat_rows:
            row["repeat_of"] = originals[(row["candidate_id"], row["choice_task_id"], row["pair_id"],
                                          row["criterion_id"], row["unit"])]
        session.execute(insert(Assignment.__table__), repeat_rows)
