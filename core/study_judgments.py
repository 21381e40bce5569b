"""A study's live judgments as :class:`JudgmentRecords`, the form every statistic reads.

The CLI's ``report``, ``signtest`` and ``study export-scores`` and the desktop
dashboard all go through here, so a figure on screen and one pasted from the
command line come from one place. The records carry what the study knows and a
CSV may not: every system that produced each candidate, the source sentence
(the unit systems are paired on) and each criterion's scale.
"""

from __future__ import annotations

import os
import stat

from sqlalchemy import select

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.protocol import PAIR
from parastudio.core.stats.direct_assessment import DAScore, JudgeReliability, judge_reliability, scores_of_records
from parastudio.core.stats.judge_competence import (
    COMPETENCE_MODELS,
    CompetenceModel,
    CriterionCompetence,
    competence_by_criterion,
    judges_below,
)
from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.preference import PreferenceJudgment
from parastudio.core.stats.report_anytime import EarlyStopping
from parastudio.core.store import operations as ops
from parastudio.core.store.criteria import scale_labels, score_scales
from parastudio.core.store.database import Database
from parastudio.core.store.models import Criterion, EventLog
from parastudio.core.store.preference_pairs import ties_by_construction
from parastudio.core.store.quality import da_control_pairs
from parastudio.core.vocabulary import PREFER_TIE


def criterion_scales(db: Database, study_id: int) -> dict[str, tuple[str, ...]]:
    """Criterion name -> the labels of its scale in order (empty scales, e.g. choice, left out)."""
    with db.reading() as session:
        criteria = session.scalars(select(Criterion).where(Criterion.study_id == study_id)).all()
        return {c.name: scale_labels(c) for c in criteria if scale_labels(c)}


def criterion_statistics(db: Database, study_id: int) -> dict[str, tuple[str, ...]]:
    """Criterion name -> the statistics its judging protocol declares (what the report and Dashboard give)."""
    with db.reading() as session:
        criteria = session.scalars(select(Criterion).where(Criterion.study_id == study_id)).all()
        return {c.name: protocol_of(c.scale).statistics for c in criteria}


def scored_criteria(db: Database, study_id: int) -> list[str]:
    """The names of the criteria answered with a 0-100 score (direct assessment, ESA)."""
    with db.reading() as session:
        return list(session.scalars(select(Criterion.name).where(Criterion.study_id == study_id,
                                                                 Criterion.scale.in_(score_scales()))))


def study_judgment_records(db: Database, study_id: int) -> JudgmentRecords:
    """Live judgments on normal items. A candidate made by several systems is one
    item whose judgments count for each of them (:meth:`JudgmentRecords.per_system`);
    "-" stands for no system or application."""
    records = ops.judgment_records(db, study_id)
    return JudgmentRecords.from_columns(
        [r["item"] for r in records], [r["annotator"] for r in records], [r["criterion"] for r in records],
        [r["value"] for r in records],
        systems=[r["system"] or "-" for r in records],
        applications=[r["application"] or "-" for r in records],
        producers=[tuple(r["systems"]) or (r["system"] or "-",) for r in records],
        sentences=[r["source_key"] or r["item"] for r in records],
        scales=criterion_scales(db, study_id),
        scored=scored_criteria(db, study_id),
    )


def study_preferences(db: Database, study_id: int) -> list[PreferenceJudgment]:
    """The live answers of the study's preference criterion on normal items, each with the systems shown left
    and right, and one tie per pair that was never shown because both systems produced the same string."""
    judgments = [PreferenceJudgment(row["source_key"], row["systems"][0], row["systems"][1], row["value"],
                                    row["annotator"])
                 for row in ops.iter_judgments(db, study_id) if protocol_of(row["scale"]).item == PAIR]
    ties = [PreferenceJudgment(sentence, left, right, PREFER_TIE)
            for sentence, left, right in ties_by_construction(db, study_id)]
    return judgments + ties


def study_da_scores(db: Database, study_id: int) -> list[DAScore]:
    """The live direct assessment scores on normal items, each with every system that produced the candidate,
    read as from the study's exported CSV (:func:`core.stats.direct_assessment.scores_of_records`)."""
    return scores_of_records(study_judgment_records(db, study_id))


def da_reliability(db: Database, study_id: int) -> list[JudgeReliability]:
    """Each judge's reliability on the degraded candidates they scored (:func:`judge_reliability`)."""
    return [judge_reliability(name, [p[0] for p in pairs], [p[1] for p in pairs])
            for name, pairs in sorted(da_control_pairs(db, study_id).items())]


def pattern_pairs_extracted(db: Database, study_id: int) -> dict[str, int] | None:
    """A pattern-pair study's #PP: model -> the pairs it extracted from the table (seed 002 Table 2's first
    column), as :func:`core.study_builder.study_from_pattern_table` recorded it; None for other studies."""
    models = ops.study_settings(db, study_id).get("pattern_models")
    if not isinstance(models, dict):
        return None
    return {name: int(entry["pairs_extracted"]) for name, entry in models.items()
            if isinstance(entry, dict) and entry.get("pairs_extracted") is not None}


def names_a_study(path: str) -> bool:
    """Whether ``path`` names a study rather than a judgments CSV: a SQLite study file, a database server's URL, or
    a member's connection file (issue 38)."""
    from parastudio.core.store.connection_file import is_connection_file

    return "://" in str(path) or is_connection_file(path) or is_sqlite_file(path)


def is_sqlite_file(path: str) -> bool:
    """Whether ``path`` is a SQLite file, by its header; a pipe never is (its header is not read: its bytes
    are read once, by the CSV reader)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def sampling_note(db: Database, study_id: int) -> str | None:
    """How the items were sampled when not all at once (:mod:`core.adaptive_assignment`), for the per-system
    tables' notes; None for a study assigned the ordinary way."""
    sampling = ops.study_settings(db, study_id).get("sampling")
    if not isinstance(sampling, dict) or sampling.get("mode") != "adaptive":
        return None
    return (f"Items sampled adaptively: each batch went to sentences whose system pairs the anytime-valid sign test "
            f"had not decided (criterion {sampling.get('criterion')}, stopping rule {sampling.get('rule')}, "
            f"α {sampling.get('alpha')}), never to a sentence both systems said the same way; shares describe the "
            "sentences so sampled, not a random sample of the test set.")


def early_stopping(db: Database, study_id: int) -> EarlyStopping | None:
    """Whether any batch of ``study assign-next`` ran under a rule that stops judging a pair once decided
    (``decided``, ``decided+K``; ``never`` is a fixed design in batches), and on which criterion; None when none did.

    Every batch saves its rule in the study's settings, which keep only the last one; the event log keeps each
    change, so a study that stopped early and then went on with ``never`` still says so. A member's own login
    reads no events: its settings alone answer."""
    settings = []
    if not db.is_member_login:
        with db.reading() as session:
            changes = session.scalars(select(EventLog.payload).where(
                EventLog.study_id == study_id, EventLog.kind == "settings_changed").order_by(EventLog.id))
            settings = [payload["changes"].get("sampling") for payload in changes
                        if isinstance(payload, dict) and isinstance(payload.get("changes"), dict)]
    settings.append(ops.study_settings(db, study_id).get("sampling"))
    stopping = [entry for entry in settings if isinstance(entry, dict) and entry.get("mode") == "adaptive"
                and str(entry.get("rule", "")).startswith("decided")]
    if not stopping:
        return None
    return EarlyStopping(str(stopping[-1].get("criterion")),
                         tuple(dict.fromkeys(str(entry["rule"]) for entry in stopping)))


# The study setting naming judges on the Dashboard: {"model": "mace" | "dawid-skene", "minimum": P}.
COMPETENCE_WATCH = "competence_watch"


def study_competence(db: Database, study_id: int, model: CompetenceModel) -> list[CriterionCompetence]:
    """Each judge's competence per criterion from the live labels on normal items (controls and repeats never
    count), by :mod:`core.stats.judge_competence`."""
    rows = ((r["criterion"], r["scale"], r["item"], r["annotator"], r["value"])
            for r in ops.iter_judgments(db, study_id))
    return competence_by_criterion(rows, model)


def competence_watch(db: Database, study_id: int) -> tuple[str, float] | None:
    """The study's (model, minimum) under which a judge is named on the Dashboard; None when not set."""
    watch = ops.study_settings(db, study_id).get(COMPETENCE_WATCH)
    if not isinstance(watch, dict) or watch.get("model") not in COMPETENCE_MODELS:
        return None
    return str(watch["model"]), float(watch["minimum"])


def set_competence_watch(db: Database, study_id: int, model: str | None, minimum: float | None = None) -> None:
    """Name judges whose ``model`` competence falls under ``minimum`` on the Dashboard (``model`` None: stop)."""
    if model is not None and (model not in COMPETENCE_MODELS or minimum is None or not 0 <= minimum <= 1):
        raise ValueError(f"a competence watch needs a model among {', '.join(COMPETENCE_MODELS)} and a minimum "
                         f"from 0 to 1, not {model!r} and {minimum!r}")
    ops.update_study_settings(db, study_id, **{COMPETENCE_WATCH: None if model is None else
                                               {"model": model, "minimum": minimum}})


def competence_alert(db: Database, study_id: int) -> str | None:
    """One line naming every judge under the study's competence minimum (per criterion), or saying none is;
    None when the study sets no minimum."""
    watch = competence_watch(db, study_id)
    if watch is None:
        return None
    model, minimum = watch
    below = judges_below(study_competence(db, study_id, CompetenceModel(model)), minimum)
    label = "MACE" if model == "mace" else "Dawid-Skene"
    if not below:
        return f"No judge under {label} competence {minimum:g}."
    return f"Under {label} competence {minimum:g}: " + "; ".join(
        f"{judge} ({criterion} {competence:.2f})" for judge, criterion, competence in below)
