"""Judgments out of a study: one row per judgment with everything needed to read it alone."""

from __future__ import annotations

import csv
import json
import os
from typing import Iterator

from sqlalchemy import select

from core.csv_cells import safe_row
from core.store.auto_skip import ACTION as AUTO_SKIP
from core.store.clock import iso_time
from core.store.criteria import scale_labels
from core.store.database import Database
from core.store.items import item_key, systems_by_candidate
from core.store.models import Annotator, Assignment, Candidate, ChoiceTask, Criterion, Judgment, SourceSentence, Study
from core.textio import atomic_output


# "system" (the first that produced the item) is the report group; "systems" lists all. The candidate's and the
# source sentence's text travel with each row, and "levels" the criterion's scale (its labels in order, ";"
# between), so an exported CSV reads alone: a statistic needing q, the number of labels, gets the study's.
EXPORT_COLUMNS = ("item", "annotator", "criterion", "value", "text", "sentence", "system", "systems", "application",
                  "levels", "kind", "candidate", "source",
                  "started_at", "answered_at", "duration_ms", "comment", "flag", "status", "origin",
                  "judgment_id", "assignment_id")


def iter_judgments(db: Database, study_id: int, *, history: bool = False,
                   include_qc: bool = False, adjudications: bool = False) -> Iterator[dict]:
    """One dict per judgment. By default the live answers on normal items;
    ``history`` adds superseded answers and undo rows, ``include_qc`` adds
    repeats and controls, ``adjudications`` (only) an adjudicator's decisions instead of the judges'
    labels (kind ``adjudication``: never a judge's label in any statistic). A planted control is never a normal item, whatever
    path its judgment came in by. A choice task's ``systems`` is the approach
    (or system) that offered its options."""
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
        query = (select(Judgment, Assignment.kind).join(Assignment, Judgment.assignment_id == Assignment.id)
                 .where(Judgment.study_id == study_id).order_by(Judgment.id))
        if not history:
            # An auto-skip (seed 001 §4.2.1, core.store.auto_skip) is live too: Fig. 4.5 counts it a success.
            query = query.where(Judgment.action.in_(("answer", AUTO_SKIP)), Judgment.superseded_by.is_(None))
        if adjudications:
            query = query.where(Assignment.kind == "adjudication")
        elif not include_qc:
            query = query.where(Assignment.kind == "normal")
        else:
            query = query.where(Assignment.kind != "adjudication")
        for judgment, kind in session.execute(query).yield_per(2000):
            criterion = criteria[judgment.criterion_id]
            status = ("undo" if judgment.action == "undo" else AUTO_SKIP if judgment.action == AUTO_SKIP else
                      "superseded" if judgment.superseded_by is not None else "live")
            if judgment.candidate_id is not None:
                sentence, item_text, source, candidate_kind = candidate_rows[judgment.candidate_id]
                producers = systems.get(judgment.candidate_id, [])
                if candidate_kind == "control":
                    kind = "control"
                    if not include_qc:
                        continue
            else:
                sentence, item_text, source, producers = task_rows[judgment.choice_task_id]
            yield {
                "item": item_key(judgment.candidate_id, judgment.choice_task_id, judgment.unit),
                "candidate_id": judgment.candidate_id, "unit": judgment.unit,
                "annotator": annotators[judgment.annotator_id], "criterion": criterion.name,
                "value": judgment.value, "text": judgment.text, "sentence": sentence,
                "systems": producers,
                "application": criterion.application or study.application, "kind": kind,
                "candidate": item_text, "source": source,
                "started_at": iso_time(judgment.started_at), "answered_at": iso_time(judgment.answered_at),
                "duration_ms": judgment.duration_ms, "comment": judgment.comment, "flag": bool(judgment.flag),
                "status": status, "origin": judgment.origin, "judgment_id": judgment.id,
                "assignment_id": judgment.assignment_id, "scale": criterion.scale,
                "levels": list(scale_labels(criterion))}


def judgment_records(db: Database, study_id: int) -> list[dict]:
    """The live judgments on normal items, as the agreement/report module reads
    them: item, annotator, criterion, value (the scale label as text, so
    "yes"/"no" or "1".."5"), scale, system (first), systems (all that produced
    the candidate), application, sentence."""
    records = []
    for row in iter_judgments(db, study_id):
        records.append({"item": row["item"], "annotator": row["annotator"], "criterion": row["criterion"],
                        "value": row["value"], "scale": row["scale"],
                        "system": row["systems"][0] if row["systems"] else None, "systems": row["systems"],
                        "application": row["application"], "sentence": row["sentence"],
                        "judgment_id": row["judgment_id"]})
    return records


def export_judgments(db: Database, study_id: int, output: str | os.PathLike, file_format: str = "csv", *,
                     history: bool = False, include_qc: bool = False, inputs=(), raw: bool = False) -> int:
    """Write judgments as CSV (``item,annotator,criterion,value`` first, so the
    agreement command reads it as is) or JSONL, atomically; returns the row count. ``output`` may be ``-``
    (standard output), never one of ``inputs`` (the study's file). CSV text cells a spreadsheet would run
    are quoted (:mod:`core.csv_cells`, read back as they were by :func:`core.textio.read_csv`) unless ``raw``."""
    if file_format not in ("csv", "jsonl"):
        raise ValueError(f"unknown format {file_format!r}; expected csv or jsonl")
    count = 0
    with atomic_output(output, inputs=inputs) as handle:
        if file_format == "csv":
            writer = csv.DictWriter(handle, fieldnames=EXPORT_COLUMNS, extrasaction="ignore", lineterminator="\n")
            writer.writeheader()
        for row in iter_judgments(db, study_id, history=history, include_qc=include_qc):
            if file_format == "csv":
                writer.writerow(safe_row({**row, "system": row["systems"][0] if row["systems"] else "-",
                                          "systems": ";".join(row["systems"]), "levels": ";".join(row["levels"]),
                                          "flag": int(row["flag"])}, raw))
            else:
                row.pop("scale")
                row.pop("candidate_id")
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count
