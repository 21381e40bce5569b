"""Judgments out of a study: one row per judgment with everything needed to read it alone."""

from __future__ import annotations

import csv
import json
import os
import statistics
from collections import defaultdict
from typing import Iterator

from sqlalchemy import select
from sqlalchemy.orm import aliased

from parastudio.core.csv_cells import line_feed_rows, safe_row
from parastudio.core.store.auto_skip import ACTION as AUTO_SKIP
from parastudio.core.store.clock import iso_time
from parastudio.core.store.criteria import scale_labels, score_scales
from parastudio.core.store.database import Database
from parastudio.core.store.items import item_key, systems_by_candidate
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
from parastudio.core.store.sentence_ids import sentence_id
from parastudio.core.store.training import TRAINING
from parastudio.core.textio import atomic_output

# "system" (the first that produced the item) is the report group; "systems" lists all. The candidate's and the
# source sentence's text travel with each row, and "levels" the criterion's scale (its labels in order, ";"
# between), so an exported CSV reads alone: a statistic needing q, the number of labels, gets the study's.
# "sentence_id" is generate's sentence number (null when the study's id is not one), "source_key" the study's id
# of the source (:mod:`core.store.sentence_ids`). "scale" names the criterion's scale (binary, 3-point, da, esa,
# ...), so a report on the CSV reads a 0-100 score as the study does (a direct assessment, not 101 labels).
EXPORT_COLUMNS = ("item", "annotator", "criterion", "value", "text", "sentence_id", "source_key", "system", "systems",
                  "application",
                  "levels", "scale", "kind", "candidate", "source",
                  "started_at", "answered_at", "duration_ms", "comment", "flag", "status", "origin",
                  "judgment_id", "assignment_id", "z")


def iter_judgments(db: Database, study_id: int, *, history: bool = False,
                   include_qc: bool = False, adjudications: bool = False) -> Iterator[dict]:
    """One dict per judgment. By default the live answers on normal items;
    ``history`` adds superseded answers and undo rows, ``include_qc`` adds
    repeats and controls, ``adjudications`` (only) an adjudicator's decisions instead of the judges'
    labels (kind ``adjudication``: never a judge's label in any statistic). A planted control is never a normal item, whatever
    path its judgment came in by. A choice task's ``systems`` is the approach
    (or system) that offered its options; a candidate judged as one system's output (an assignment's ``system``,
    an MQM import) that system alone. A preference pair's ``systems`` are its left and right systems in
    that order (what ``left`` and ``right`` answers point at), its ``candidate`` the two texts, left then right,
    with `` ||| `` between."""
    with db.reading() as session:
        study = session.get(Study, study_id)
        systems = systems_by_candidate(session, study_id)
        criteria = {c.id: c for c in session.scalars(select(Criterion).where(Criterion.study_id == study_id))}
        annotators = dict(session.execute(select(Annotator.id, Annotator.name)
                                          .where(Annotator.study_id == study_id)).all())
        candidate_rows = {cid: (sentence, text, source, kind) for cid, sentence, text, source, kind in session.execute(
            select(Candidate.id, SourceSentence.external_id, Candidate.text, SourceSentence.text, Candidate.kind)
            .join(SourceSentence).where(Candidate.study_id == study_id))}
        task_rows = {}
        for task, sentence, source in session.execute(
                select(ChoiceTask, SourceSentence.external_id, SourceSentence.text).join(SourceSentence)
                .where(ChoiceTask.study_id == study_id)):
            span = " ".join(source.split()[task.span_start:task.span_end])
            task_rows[task.id] = (sentence, span, source, [task.system] if task.system else [])
        pair_rows = preference_pair_rows(session, study_id)
        query = (select(Judgment, Assignment.kind, Assignment.system)
                 .join(Assignment, Judgment.assignment_id == Assignment.id)
                 .where(Judgment.study_id == study_id).order_by(Judgment.id))
        if not history:
            # An auto-skip (seed 001 §4.2.1, core.store.auto_skip) is live too: Fig. 4.5 counts it a success.
            query = query.where(Judgment.action.in_(("answer", AUTO_SKIP)), Judgment.superseded_by.is_(None))
        if adjudications:
            query = query.where(Assignment.kind == "adjudication")
        elif not include_qc:
            query = query.where(Assignment.kind == "normal")
        else:  # never a training answer (core.store.training): no statistic counts one
            query = query.where(Assignment.kind.not_in(("adjudication", TRAINING)))
        for judgment, kind, judged_system in session.execute(query).yield_per(2000):
            criterion = criteria[judgment.criterion_id]
            status = ("undo" if judgment.action == "undo" else AUTO_SKIP if judgment.action == AUTO_SKIP else
                      "superseded" if judgment.superseded_by is not None else "live")
            if judgment.candidate_id is not None:
                sentence, item_text, source, candidate_kind = candidate_rows[judgment.candidate_id]
                # Judged as one system's output (an MQM import): that system's alone.
                producers = [judged_system] if judged_system else systems.get(judgment.candidate_id, [])
                if candidate_kind == "control":
                    kind = "control"
                    if not include_qc:
                        continue
            elif judgment.pair_id is not None:
                sentence, item_text, source, producers = pair_rows[judgment.pair_id]
            else:
                sentence, item_text, source, producers = task_rows[judgment.choice_task_id]
            yield {
                "item": item_key(judgment.candidate_id, judgment.choice_task_id, judgment.unit, judgment.pair_id),
                "candidate_id": judgment.candidate_id, "unit": judgment.unit,
                "annotator": annotators[judgment.annotator_id], "criterion": criterion.name,
                "value": judgment.value, "text": judgment.text, "sentence_id": sentence_id(sentence),
                "source_key": sentence,
                "systems": producers,
                "application": criterion.application or study.application, "kind": kind,
                "candidate": item_text, "source": source,
                "started_at": iso_time(judgment.started_at), "answered_at": iso_time(judgment.answered_at),
                "duration_ms": judgment.duration_ms, "comment": judgment.comment, "flag": bool(judgment.flag),
                "status": status, "origin": judgment.origin, "judgment_id": judgment.id,
                "assignment_id": judgment.assignment_id, "scale": criterion.scale,
                "levels": list(scale_labels(criterion))}


def preference_pair_rows(session, study_id: int) -> dict[int, tuple[str, str, str, list[str]]]:
    """Pair id -> (sentence id, "left ||| right", source text, [left system, right system])."""
    left, right = aliased(Candidate), aliased(Candidate)
    return {pair.id: (sentence, f"{left_text} ||| {right_text}", source, [pair.left_system, pair.right_system])
            for pair, sentence, source, left_text, right_text in session.execute(
                select(PreferencePair, SourceSentence.external_id, SourceSentence.text, left.text, right.text)
                .join(SourceSentence, SourceSentence.id == PreferencePair.source_id)
                .join(left, left.id == PreferencePair.left_candidate_id)
                .join(right, right.id == PreferencePair.right_candidate_id)
                .where(PreferencePair.study_id == study_id))}


def judgment_records(db: Database, study_id: int) -> list[dict]:
    """The live judgments on normal items, as the agreement/report module reads
    them: item, annotator, criterion, value (the scale label as text, so
    "yes"/"no" or "1".."5"), scale, system (first), systems (all that produced
    the candidate), application, sentence_id, source_key (:mod:`core.store.sentence_ids`)."""
    records = []
    for row in iter_judgments(db, study_id):
        records.append({"item": row["item"], "annotator": row["annotator"], "criterion": row["criterion"],
                        "value": row["value"], "scale": row["scale"],
                        "system": row["systems"][0] if row["systems"] else None, "systems": row["systems"],
                        "application": row["application"], "sentence_id": row["sentence_id"],
                        "source_key": row["source_key"],
                        "judgment_id": row["judgment_id"]})
    return records


def da_standardizer(rows: list[dict]):
    """For direct assessment rows (issue 30): the score standardized by its judge's mean and sample standard
    deviation over the judge's live scores of normal items among ``rows`` (as :mod:`core.stats.direct_assessment`
    defines it, and as the report reads them), so a control's or repeat's z is on the same scale; None for
    another criterion, a superseded row, or a judge whose scores do not vary."""
    scores: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in rows:
        if row["scale"] in score_scales() and row["status"] == "live" and row["kind"] == "normal":
            scores[(row["annotator"], row["criterion"])].append(float(row["value"]))
    moments = {key: (statistics.mean(v), statistics.stdev(v)) for key, v in scores.items() if len(v) > 1}

    def z(row: dict) -> float | None:
        mean, sd = moments.get((row["annotator"], row["criterion"]), (0.0, 0.0))
        if row["scale"] not in score_scales() or row["status"] != "live" or sd == 0:
            return None
        return (float(row["value"]) - mean) / sd
    return z


def export_judgments(db: Database, study_id: int, output: str | os.PathLike, file_format: str = "csv", *,
                     history: bool = False, include_qc: bool = False, inputs=(), raw: bool = False) -> int:
    """Write judgments as CSV (``item,annotator,criterion,value`` first, so the
    agreement command reads it as is) or JSONL, atomically; returns the row count. ``output`` may be ``-``
    (standard output), never one of ``inputs`` (the study's file). CSV text cells a spreadsheet would run
    are quoted (:mod:`core.csv_cells`, read back as they were by :func:`core.textio.read_csv`) unless ``raw``."""
    if file_format not in ("csv", "jsonl"):
        raise ValueError(f"unknown format {file_format!r}; expected csv or jsonl")
    count = 0
    rows = iter_judgments(db, study_id, history=history, include_qc=include_qc)
    standardized = None
    if any(c in score_scales() for c in _scales(db, study_id)):  # z needs every score of a judge first
        rows = list(rows)
        standardized = da_standardizer(rows)
    with atomic_output(output, inputs=inputs) as handle:
        if file_format == "csv":
            writer = csv.DictWriter(line_feed_rows(handle), fieldnames=EXPORT_COLUMNS, extrasaction="ignore",
                                    lineterminator="\r\n")
            writer.writeheader()
        for row in rows:
            row["z"] = standardized(row) if standardized is not None else None
            if file_format == "csv":
                writer.writerow(safe_row({**row, "system": row["systems"][0] if row["systems"] else "-",
                                          "systems": ";".join(row["systems"]), "levels": ";".join(row["levels"]),
                                          "flag": int(row["flag"])}, raw))
            else:
                row.pop("candidate_id")
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count


def _scales(db: Database, study_id: int) -> list[str]:
    with db.reading() as session:
        return list(session.scalars(select(Criterion.scale).where(Criterion.study_id == study_id)))
