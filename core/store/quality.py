"""How far a study has come and how careful its annotators are: progress counts and quality control."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import func, select

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.protocol import PICK, SCORE
from parastudio.core.store.criteria import bad_values, score_scales
from parastudio.core.store.database import Database
from parastudio.core.store.models import Annotator, Assignment, Candidate, Criterion, Judgment, Study
from parastudio.core.store.studies import study_settings
from parastudio.core.store.training import TRAINING, not_training


@dataclass
class StudyProgress:
    done: int
    total: int
    per_annotator: dict[str, tuple[int, int]]

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


def study_progress(db: Database, study_id: int, annotator_id: int | None = None) -> StudyProgress:
    """Judged / assigned counts for the study (or one annotator) and per annotator; on a judge's own PostgreSQL
    login, their own (the server lets it read no other's assignments, nor their kinds)."""
    # An adjudicator's decisions are not assignments of the study's judges (issue 28); a judge has none.
    # Training items (core.store.training) are no part of the study's progress either.
    judges_only = (not_training(Assignment, study_settings(db, study_id)) if db.is_member_login
                   else (Assignment.kind.not_in(("adjudication", TRAINING)),))
    with db.reading() as session:
        query = (select(Annotator.name, func.count(Assignment.id), func.count(Assignment.live_judgment_id))
                 .join(Assignment, Assignment.annotator_id == Annotator.id)
                 .where(Assignment.study_id == study_id, *judges_only)
                 .group_by(Annotator.name))
        if annotator_id is not None:
            query = query.where(Assignment.annotator_id == annotator_id)
        per = {name: (done, total) for name, total, done in session.execute(query)}
    return StudyProgress(done=sum(d for d, _t in per.values()), total=sum(t for _d, t in per.values()),
                    per_annotator=per)


DEFAULT_QC_THRESHOLDS = {"min_consistency": 0.75, "min_control_pass": 0.8}


@dataclass
class QualityReport:
    annotator: str
    repeat_pairs: int
    consistency: float | None
    controls_judged: int
    control_pass_rate: float | None
    passed: bool | None
    reasons: list[str]


def quality_control(db: Database, study_id: int, thresholds: dict | None = None) -> list[QualityReport]:
    """Per annotator: agreement with themselves on repeated items, and the share
    of planted controls judged bad (on criteria that show the source: a phrase
    from another sentence always breaks meaning, not always form). Passes when
    each measured rate reaches its threshold; None when nothing is measured yet."""
    with db.reading() as session:
        study = session.get(Study, study_id)
        limits = {**DEFAULT_QC_THRESHOLDS, **(study.settings or {}).get("qc", {}), **(thresholds or {})}
        criteria = {c.id: c for c in session.scalars(select(Criterion).where(Criterion.study_id == study_id))}
        # Judges only: an annotator whose only assignments are adjudications is not one (issue 28).
        names = dict(session.execute(
            select(Annotator.id, Annotator.name).where(Annotator.study_id == study_id).where(
                select(Assignment.id).where(Assignment.annotator_id == Annotator.id,
                                            Assignment.kind.not_in(("adjudication", TRAINING))).exists())).all())
        live_value = dict(session.execute(select(Judgment.id, Judgment.value).join(
            Assignment, Assignment.live_judgment_id == Judgment.id).where(Assignment.study_id == study_id)).all())
        rows = session.execute(select(Assignment.id, Assignment.annotator_id, Assignment.kind,
                                      Assignment.repeat_of, Assignment.criterion_id, Assignment.live_judgment_id)
                               .where(Assignment.study_id == study_id)).all()
    by_id = {row.id: row for row in rows}
    pairs: dict[int, list[bool]] = defaultdict(list)
    controls: dict[int, list[bool]] = defaultdict(list)
    for row in rows:
        if row.live_judgment_id is None:
            continue
        if row.kind == "repeat":
            original = by_id.get(row.repeat_of)
            if original is not None and original.live_judgment_id is not None:
                pairs[row.annotator_id].append(live_value[row.live_judgment_id]
                                               == live_value[original.live_judgment_id])
        elif row.kind == "control":
            criterion = criteria[row.criterion_id]
            # A degraded candidate's direct assessment is a score, not a verdict: its test is da_control_pairs'.
            if criterion.shows_source and protocol_of(criterion.scale).answer not in (PICK, SCORE):
                controls[row.annotator_id].append(live_value[row.live_judgment_id] in bad_values(criterion))
    reports = []
    for annotator_id, name in sorted(names.items(), key=lambda kv: kv[1]):
        agree, caught = pairs.get(annotator_id, []), controls.get(annotator_id, [])
        consistency = sum(agree) / len(agree) if agree else None
        control_rate = sum(caught) / len(caught) if caught else None
        reasons = []
        if consistency is not None and consistency < limits["min_consistency"]:
            reasons.append(f"consistency {consistency:.2f} < {limits['min_consistency']}")
        if control_rate is not None and control_rate < limits["min_control_pass"]:
            reasons.append(f"control pass rate {control_rate:.2f} < {limits['min_control_pass']}")
        measured = consistency is not None or control_rate is not None
        reports.append(QualityReport(name, len(agree), consistency, len(caught), control_rate,
                                     (not reasons) if measured else None, reasons))
    return reports


def da_control_pairs(db: Database, study_id: int) -> dict[str, list[tuple[float, float]]]:
    """Per judge, (score of the original, score of its degraded copy) on each direct assessment criterion,
    for every planted control the judge scored along with its original (issue 30; WMT's DA quality control)."""
    with db.reading() as session:
        rows = session.execute(
            select(Annotator.name, Assignment.criterion_id, Assignment.kind, Assignment.candidate_id,
                   Candidate.control_of, Judgment.value)
            .join(Annotator, Annotator.id == Assignment.annotator_id)
            .join(Criterion, Criterion.id == Assignment.criterion_id)
            .join(Candidate, Candidate.id == Assignment.candidate_id)
            .join(Judgment, Judgment.id == Assignment.live_judgment_id)
            .where(Assignment.study_id == study_id, Criterion.scale.in_(score_scales()),
                   Assignment.kind.in_(("normal", "control")))).all()
    originals = {(name, criterion, candidate): float(value) for name, criterion, kind, candidate, _of, value in rows
                 if kind == "normal"}
    pairs: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for name, criterion, kind, _candidate, control_of, value in rows:
        if kind == "control" and (name, criterion, control_of) in originals:
            pairs[name].append((originals[(name, criterion, control_of)], float(value)))
    return dict(pairs)
