"""A study's meta-evaluation in one call (a bridge: the store's judgments and candidates, the metrics, the
statistics): what ``parastudio metaeval STUDY`` computes without ``--metrics``, for the Dashboard's panel and the
``metrics-vs-judges`` experiment, which have a study open and no scores file.

The metrics are those ``parastudio metrics STUDY`` computes (:mod:`core.metric_inputs`), BLEU, chrF and TER only
for a translation study (:func:`core.metric_inputs.is_translation_study`); ``exclude_systems`` are left out of the
systems scored and ranked (the ``ref`` system of an MQM study is the reference: it would score itself perfectly).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from parastudio.core.progress import Progress, no_progress
from parastudio.core.stats.metric_meta_evaluation import MetaEvaluation
from parastudio.core.stats.metric_scores_file import MetricScores
from parastudio.core.stats.metric_segments import SegmentTable
from parastudio.core.stats.report_model import Column, ReportTable
from parastudio.core.store.database import Database


@dataclass(frozen=True)
class StudyMetaevalOptions:
    """One run's options: the criterion, the systems left out, the metrics' settings and the statistics'."""

    criterion: str
    exclude_systems: tuple[str, ...] = ()
    translation: bool = False  # force BLEU, chrF and TER only; a translation study is one without it
    alpha: float = 0.9
    tokenize: str = "13a"
    aggregate: str = "mean"
    evaluation: MetaEvaluation = field(default_factory=MetaEvaluation)


@dataclass(frozen=True)
class StudyTable:
    """The judged segments joined to the metrics, with what the report says about them."""

    table: SegmentTable
    judges: int
    notes: list[str]


def study_meta_evaluation(db: Database, study_id: int, options: StudyMetaevalOptions, *,
                          progress: Progress = no_progress) -> dict:
    """:meth:`MetaEvaluation.run`'s report on the study's judgments of ``options.criterion`` (its ``notes`` say
    which systems were left out and whether the source-side metrics were); ValueError with a one-line reason when
    nothing can be compared (no such criterion, no numeric label, an excluded system the study does not have)."""
    joined = study_segment_table(db, study_id, options)
    report = options.evaluation.run(joined.table, criterion=options.criterion, aggregate=options.aggregate,
                                    judges=joined.judges, progress=progress)
    return {**report, "notes": joined.notes + report["notes"]}


def study_segment_table(db: Database, study_id: int, options: StudyMetaevalOptions,
                        scores: StudyScores | None = None) -> StudyTable:
    """The study's judged segments of ``options.criterion`` joined to its metrics (:func:`study_meta_evaluation`);
    ``scores``: the study's metrics when the caller computed them already (:func:`study_scores`)."""
    from parastudio.core.stats.metric_segments import join_scores, judged_segments
    from parastudio.core.store import operations as ops
    from parastudio.core.study_judgments import study_judgment_records

    records = study_judgment_records(db, study_id)
    if options.criterion not in records.criterion_names():
        raise ValueError(f"no judgments of criterion {options.criterion!r}")
    scores = scores if scores is not None else study_scores(db, study_id, options)
    texts = {row["item"]: row["text"] for row in ops.list_items(db, study_id) if row["kind"] == "candidate"}
    judged = [segment for segment in judged_segments(records, options.criterion, texts, aggregate=options.aggregate)
              if segment.system not in options.exclude_systems]
    if not judged:
        raise ValueError(f"no candidate judged on {options.criterion!r} has a label that is a number")
    table = join_scores(judged, scores.scores)
    judges = len(records.select(criterion=options.criterion).annotator_names())
    left_out = ([f"Left out: {', '.join(options.exclude_systems)}; not among the systems scored or ranked."]
                if options.exclude_systems else [])
    return StudyTable(table, judges, scores.notes + left_out)


@dataclass(frozen=True)
class StudyScores:
    scores: MetricScores
    notes: list[str]


def study_scores(db: Database, study_id: int, options: StudyMetaevalOptions,
                 cache: dict | None = None) -> StudyScores:
    """Every metric of the study's candidates, as ``parastudio metrics STUDY`` computes them, without the excluded
    systems' (ValueError naming one the study does not have). ``cache``: a dict kept by a caller that asks again
    as judgments arrive (the Dashboard); the scores depend on the candidates and the options alone, so they are
    computed again only when those change."""
    from parastudio.core.metric_inputs import (
        is_translation_study,
        metric_descriptions,
        metric_records,
        rows_of_study,
        translation_note,
    )
    from parastudio.core.stats.text_metrics import TextMetrics
    from parastudio.core.store import operations as ops

    rows = rows_of_study(db, study_id)
    translation = options.translation or is_translation_study(ops.study_settings(db, study_id))
    present = {row.system for row in rows}
    unknown = [name for name in options.exclude_systems if name not in present]
    if unknown:
        raise ValueError(f"no system {', '.join(map(repr, unknown))} to exclude")
    rows = [row for row in rows if row.system not in options.exclude_systems]
    metrics = TextMetrics(alpha=options.alpha, tokenize=options.tokenize, translation=translation)
    key = (study_id, metrics, tuple((row.item, row.system, row.text, row.references) for row in rows))
    if cache is not None and key in cache:
        return cache[key]
    segments, systems = metric_records(rows, metrics)
    scores = MetricScores("the study's candidates", {"metrics": metric_descriptions(metrics, rows)}, segments,
                          {record["system"]: record for record in systems})
    computed = StudyScores(scores, translation_note(translation))
    if cache is not None:
        cache.clear()  # one study's scores at a time
        cache[key] = computed
    return computed


# The Dashboard recomputes while judges work: no resampling there (intervals and clusters: `parastudio metaeval`).
DASHBOARD_EVALUATION = MetaEvaluation(bootstrap=0, permutations=0, disagreements=0)


def metaeval_system_tables(db: Database, study_id: int, cache: dict | None = None) -> list[ReportTable]:
    """The Dashboard's tables: per criterion whose labels are numbers, each metric's system-level Pearson r and
    pairwise accuracy against the judges (``parastudio metaeval``'s system-level table), the study's reference
    system left out (:func:`core.metric_inputs.reference_system`). No table for a criterion nothing can be compared
    on (a preference, a choice, no candidates with systems). ``cache``: as :func:`study_scores`'."""
    from parastudio.core.metric_inputs import reference_system
    from parastudio.core.store import operations as ops
    from parastudio.core.study_judgments import study_judgment_records

    criteria = study_judgment_records(db, study_id).criterion_names()
    if not criteria:
        return []
    reference = reference_system(ops.study_settings(db, study_id))
    excluded = (reference,) if reference else ()
    base = StudyMetaevalOptions(criteria[0], exclude_systems=excluded, evaluation=DASHBOARD_EVALUATION)
    try:
        scores = study_scores(db, study_id, base, cache)
    except ValueError:
        return []
    tables = []
    for criterion in criteria:
        options = dataclasses.replace(base, criterion=criterion)
        try:
            joined = study_segment_table(db, study_id, options, scores)
        except ValueError:
            continue
        report = options.evaluation.run(joined.table, criterion=criterion, aggregate=options.aggregate,
                                        judges=joined.judges)
        tables.append(_system_table(report, joined.notes + report["notes"]))
    return tables


def _system_table(report: dict, notes: list[str]) -> ReportTable:
    rows = [[name, entry["better"], entry["system_scores_from"], entry["system_pearson"]["value"],
             entry["system_accuracy"]["value"]] for name, entry in report["metrics"].items()]
    rows.sort(key=lambda row: -(row[3] if row[3] is not None else -2.0))
    return ReportTable(
        key=f"metaeval_systems:{report['criterion']}",
        title=f"Metrics against the judges, system level: {report['criterion']} ({len(report['systems'])} systems, "
              f"{report['segments']} segments)",
        columns=[Column("metric"), Column("better"), Column("system scores"), Column("Pearson r", "kappa"),
                 Column("pairwise accuracy", "percent")],
        rows=rows, signature=report["signature"],
        note=" ".join(["Intervals and clusters: parastudio metaeval.", *notes]))
