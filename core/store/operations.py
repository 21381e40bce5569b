"""Narrow operations on a study database, each one transaction.

The CLI, notebooks and the desktop app call these and nothing else: a
judgment is committed by :func:`record_judgment` the moment it is given,
:func:`next_item` resumes exactly where an annotator stopped, and
:func:`undo_last` withdraws an answer by appending a row (judgments are never
rewritten; the replaced row only gets ``superseded_by``, and the undo is
logged).

Sources for the defaults:

- seed 003 §4.3: two judges per paraphrase and a two-step protocol, form
  first ("Is the following sentence good English?", asked of the candidate
  alone; the paper asks for French), then meaning with the source ("Do the
  following two sentences express the same thing?"); both yes/no;
- seed 004 §4.2: adequacy, fluency and usability on a 3-point scale (1..3);
  the level descriptions are lost in the PDF text and are reconstructed here
  from the published paper's table;
- seed 001 §4.2: the choice task, a highlighted span with up to five options,
  where the annotator picks an option, keeps the original or types a custom
  paraphrase;
- quality control as Appraise does it for WMT: repeated items measure
  consistency, planted controls (a phrase swapped in from another sentence)
  must be judged bad.
"""

from __future__ import annotations

import csv
import functools
import json
import os
import random
import sqlite3
import uuid
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from sqlalchemy import bindparam, func, insert, select, update

from core.progress import Progress, no_progress
from core.textio import atomic_output, open_text_maybe_gzip
from core.errors import InputFormatError
from core.store.database import Database, open_database
from core.store.models import (
    Annotator,
    Assignment,
    Base,
    Candidate,
    CandidateSystem,
    ChoiceTask,
    Criterion,
    EventLog,
    Judgment,
    SourceSentence,
    Study,
    System,
)

# --------------------------------------------------------------------------
# Criteria
# --------------------------------------------------------------------------

APPLICATIONS = ("compression", "simplification", "similarity")

_THREE_POINT_ADEQUACY = [
    {"value": "1", "label": "Changed", "description": "The meaning is evidently changed."},
    {"value": "2", "label": "Generally preserved", "description": "The meaning is generally preserved."},
    {"value": "3", "label": "Completely preserved", "description": "The meaning is completely preserved."},
]
_THREE_POINT_FLUENCY = [
    {"value": "1", "label": "Incomprehensible", "description": "The paraphrase is incomprehensible."},
    {"value": "2", "label": "Comprehensible", "description": "The paraphrase is comprehensible."},
    {"value": "3", "label": "Flawless", "description": "The paraphrase is a flawless sentence."},
]
_THREE_POINT_USABILITY = [
    {"value": "1", "label": "Opposite", "description": "The paraphrase is opposite to the application purpose."},
    {"value": "2", "label": "Not achieved", "description": "The paraphrase does not achieve the application."},
    {"value": "3", "label": "Achieved", "description": "The paraphrase achieves the application."},
]
_BINARY = [
    {"value": "no", "label": "No", "description": "No."},
    {"value": "yes", "label": "Yes", "description": "Yes."},
]
_FIVE_POINT = [{"value": str(v), "label": str(v), "description": d} for v, d in
               zip(range(1, 6), ("Very bad.", "Bad.", "Acceptable.", "Good.", "Very good."))]

_USABILITY_QUESTIONS = {
    "compression": "Does the paraphrase achieve sentence compression (shorter, same meaning)?",
    "simplification": "Does the paraphrase achieve sentence simplification (easier words and structure)?",
    "similarity": "Does the paraphrase make the sentence more similar to the reference?",
}


@dataclass(frozen=True)
class CriterionSpec:
    name: str
    question: str
    scale: str
    levels: tuple[dict, ...]
    shows_source: bool
    application: str | None = None


def preset_criterion(name: str, application: str | None = None) -> CriterionSpec:
    """A named default criterion: fluency, meaning (seed 003, yes/no), adequacy,
    fluency3, usability (seed 004, 3-point), quality5 (5-point), choice (seed 001)."""
    if name == "fluency":
        return CriterionSpec("fluency", "Is the following sentence good English?", "binary", tuple(_BINARY), False)
    if name == "meaning":
        return CriterionSpec("meaning", "Do the following two sentences express the same thing?", "binary",
                             tuple(_BINARY), True)
    if name == "adequacy":
        return CriterionSpec("adequacy", "How much of the source's meaning does the paraphrase keep?", "3-point",
                             tuple(_THREE_POINT_ADEQUACY), True)
    if name == "fluency3":
        return CriterionSpec("fluency3", "How fluent is the paraphrase?", "3-point", tuple(_THREE_POINT_FLUENCY), False)
    if name == "usability":
        application = application or "simplification"
        if application not in APPLICATIONS:
            raise ValueError(f"unknown application {application!r}; expected one of {', '.join(APPLICATIONS)}")
        return CriterionSpec("usability", _USABILITY_QUESTIONS[application], "3-point",
                             tuple(_THREE_POINT_USABILITY), True, application)
    if name == "quality5":
        return CriterionSpec("quality5", "How good is the paraphrase?", "5-point", tuple(_FIVE_POINT), True)
    if name == "choice":
        return CriterionSpec("choice", "Pick the best paraphrase of the highlighted words, keep the original, "
                             "or type your own.", "choice", (), True)
    raise ValueError(f"unknown criterion {name!r}; expected one of {', '.join(PRESET_CRITERIA)}")


PRESET_CRITERIA = ("fluency", "meaning", "adequacy", "fluency3", "usability", "quality5", "choice")
DEFAULT_CRITERIA = ("fluency", "meaning", "usability")


def normalize_value(criterion: Criterion, value: Any, text_value: str | None = None,
                    options: Sequence[str] = ()) -> tuple[str, str | None]:
    """The stored label for an answer, or ValueError naming what the scale accepts."""
    raw = str(value).strip()
    low = raw.lower()
    if criterion.scale == "binary":
        if low in ("yes", "y", "1", "true"):
            return "yes", None
        if low in ("no", "n", "0", "false"):
            return "no", None
        raise ValueError(f"criterion {criterion.name!r} takes yes or no, not {raw!r}")
    if criterion.scale == "choice":
        if low == "original":
            return "original", None
        if low == "custom":
            if not text_value:
                raise ValueError("a custom choice needs the typed paraphrase")
            return "custom", text_value
        if low.startswith("option:") and low[7:].isdigit() and 1 <= int(low[7:]) <= max(len(options), 5):
            number = int(low[7:])
            chosen = options[number - 1] if number <= len(options) else text_value
            return f"option:{number}", chosen
        raise ValueError(f"criterion {criterion.name!r} takes original, option:N or custom, not {raw!r}")
    allowed = [str(level["value"]) for level in criterion.levels]
    if raw in allowed:
        return raw, None
    raise ValueError(f"criterion {criterion.name!r} takes one of {', '.join(allowed)}, not {raw!r}")


def _bad_values(criterion: Criterion) -> set[str]:
    """Answers that count as 'judged bad' for a planted control: the lower half of the scale."""
    if criterion.scale == "binary":
        return {"no"}
    values = [str(level["value"]) for level in criterion.levels]
    return set(values[: max(1, len(values) // 2)])


# --------------------------------------------------------------------------
# Small shared pieces
# --------------------------------------------------------------------------


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite hands datetimes back naive; they are UTC."""
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment


def iso_time(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC; SQLite hands datetimes back naive, they are UTC."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _log(session, study_id: int | None, kind: str, payload: dict, actor: str | None = None) -> None:
    session.add(EventLog(study_id=study_id, at=_now(), actor=actor, kind=kind, payload=payload))


def item_key(candidate_id: int | None, choice_task_id: int | None = None) -> str:
    """The public id of an item: the candidate id, or ``choice-N`` for a choice task."""
    return str(candidate_id) if candidate_id is not None else f"choice-{choice_task_id}"


def _parse_item_key(key: str) -> tuple[int | None, int | None]:
    key = key.strip()
    if key.startswith("choice-") and key[7:].isdigit():
        return None, int(key[7:])
    if key.isdigit():
        return int(key), None
    raise ValueError(key)


def find_study(db: Database, name: str | None = None) -> int:
    """The id of study ``name``, or of the only study when no name is given."""
    with db.reading() as session:
        if name is not None:
            found = session.scalar(select(Study.id).where(Study.name == name))
            if found is None:
                raise LookupError(f"no study named {name!r} in {db.engine.url.database or db.engine.url}")
            return found
        ids = session.scalars(select(Study.id)).all()
    if len(ids) != 1:
        raise LookupError(f"the database holds {len(ids)} studies; name one with --study")
    return ids[0]


def find_annotator(db: Database, study_id: int, name: str, *, create: bool = False) -> int:
    with (db.transaction() if create else db.reading()) as session:
        found = session.scalar(select(Annotator.id).where(Annotator.study_id == study_id, Annotator.name == name))
        if found is None:
            if not create:
                raise LookupError(f"no annotator named {name!r} in this study")
            annotator = Annotator(study_id=study_id, name=name)
            session.add(annotator)
            session.flush()
            found = annotator.id
        return found


# --------------------------------------------------------------------------
# Creating a study and importing candidates
# --------------------------------------------------------------------------


def create_study(db: Database, name: str, *, criteria: Sequence[str | CriterionSpec] = DEFAULT_CRITERIA,
                 judges_per_item: int = 2, application: str | None = "simplification", seed: int = 0,
                 settings: dict | None = None) -> int:
    """A new study with its criteria (seed defaults unless named); returns its id."""
    if judges_per_item < 1:
        raise ValueError("judges per item must be at least 1")
    specs = [c if isinstance(c, CriterionSpec) else preset_criterion(c, application) for c in criteria]
    with db.transaction() as session:
        if session.scalar(select(Study.id).where(Study.name == name)) is not None:
            raise ValueError(f"a study named {name!r} already exists")
        study = Study(uid=str(uuid.uuid4()), name=name, created_at=_now(), judges_per_item=judges_per_item,
                      seed=seed, application=application, settings=dict(settings or {}))
        session.add(study)
        session.flush()
        for position, spec in enumerate(specs):
            session.add(Criterion(study_id=study.id, name=spec.name, question=spec.question, scale=spec.scale,
                                  levels=list(spec.levels), shows_source=spec.shows_source,
                                  application=spec.application, position=position))
        _log(session, study.id, "study_created", {"name": name, "criteria": [s.name for s in specs],
                                                   "judges_per_item": judges_per_item, "seed": seed})
        return study.id


@dataclass
class CandidateRow:
    """One candidate as read from an import file."""

    sentence_id: str
    text: str
    system: str
    source: str | None = None
    rank: int | None = None
    model_score: float | None = None
    true_score: float | None = None
    derivation: Any = None
    params: dict | None = None
    references: list | None = None
    line: int = 0


@dataclass
class ImportReport:
    rows: int = 0
    sources_added: int = 0
    candidates_added: int = 0
    credited_to_existing: int = 0
    already_present: int = 0
    systems: list[str] = field(default_factory=list)


def read_candidates_jsonl(path: str | os.PathLike) -> Iterator[CandidateRow]:
    """Lines of ``parastudio generate --json``: {"sentence_id", "system", "rank",
    "text", "model_score", "true_score", "derivation", "params"}; an optional
    "source" (and "references") carries the source sentence itself."""
    with open_text_maybe_gzip(path) as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                raise InputFormatError(path, number, "a JSON object", line.strip()) from None
            if not isinstance(record, dict):
                raise InputFormatError(path, number, "a JSON object", line.strip())
            missing = [k for k in ("sentence_id", "system", "text") if k not in record]
            if missing:
                raise InputFormatError(path, number, f"fields {', '.join(missing)}", line.strip())
            try:
                yield CandidateRow(
                    sentence_id=str(record["sentence_id"]), text=str(record["text"]), system=str(record["system"]),
                    source=record.get("source"), rank=_optional(int, record.get("rank")),
                    model_score=_optional(float, record.get("model_score")),
                    true_score=_optional(float, record.get("true_score")), derivation=record.get("derivation"),
                    params=record.get("params"), references=record.get("references"), line=number)
            except (TypeError, ValueError):
                raise InputFormatError(path, number, "numeric rank, model_score and true_score",
                                       line.strip()) from None


def _optional(kind: Callable, value: Any) -> Any:
    return None if value is None else kind(value)


def read_candidates_table(path: str | os.PathLike, delimiter: str) -> Iterator[CandidateRow]:
    """A CSV/TSV with header columns item, source, candidate, system (item is the sentence id)."""
    with open_text_maybe_gzip(path) as handle:
        reader = csv.reader(handle, delimiter=delimiter)
        header = next(reader, None)
        needed = ("item", "source", "candidate", "system")
        if header is None or any(column not in [h.strip() for h in header] for column in needed):
            raise InputFormatError(path, 1, "a header with columns item, source, candidate, system",
                                   delimiter.join(header or []))
        columns = {name.strip(): index for index, name in enumerate(header)}
        for row in reader:
            number = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) < len(header):
                raise InputFormatError(path, number, f"{len(header)} columns", delimiter.join(row))
            references = None
            if "references" in columns and row[columns["references"]].strip():
                references = [r for r in row[columns["references"]].split(" ||| ")]
            yield CandidateRow(sentence_id=row[columns["item"]].strip(), source=row[columns["source"]],
                               text=row[columns["candidate"]], system=row[columns["system"]].strip(),
                               references=references, line=number)


def read_candidates(path: str | os.PathLike, file_format: str | None = None) -> Iterator[CandidateRow]:
    name = str(path).lower().removesuffix(".gz")
    file_format = file_format or ("csv" if name.endswith(".csv") else "tsv" if name.endswith((".tsv", ".txt"))
                                  else "jsonl")
    if file_format == "jsonl":
        return read_candidates_jsonl(path)
    if file_format in ("csv", "tsv"):
        return read_candidates_table(path, "," if file_format == "csv" else "\t")
    raise ValueError(f"unknown candidate format {file_format!r}; expected jsonl, csv or tsv")


def read_sources(path: str | os.PathLike, id_base: int = 0) -> dict[str, str]:
    """Source sentences one per line; the sentence id is the line index counted from ``id_base``."""
    with open_text_maybe_gzip(path) as handle:
        return {str(index): line.rstrip("\n") for index, line in enumerate(handle, id_base)}


def import_candidates(db: Database, study_id: int, rows: Iterable[CandidateRow], *, path: str = "<input>",
                      sources: dict[str, str] | None = None, references: dict[str, list[str]] | None = None,
                      test_set: str | None = None, progress: Progress = no_progress) -> ImportReport:
    """Add candidates (one transaction). A string already present for the same
    source sentence is credited to the new system instead of added again."""
    report = ImportReport()
    sources = sources or {}
    references = references or {}
    with db.transaction() as session:
        source_ids = dict(session.execute(select(SourceSentence.external_id, SourceSentence.id)
                                          .where(SourceSentence.study_id == study_id)).all())
        system_ids = dict(session.execute(select(System.name, System.id).where(System.study_id == study_id)).all())
        candidate_ids = {(s, t): i for i, s, t in session.execute(
            select(Candidate.id, Candidate.source_id, Candidate.text)
            .where(Candidate.study_id == study_id, Candidate.kind == "candidate"))}
        credited = set(session.execute(select(CandidateSystem.candidate_id, CandidateSystem.system_id)
                                       .join(Candidate).where(Candidate.study_id == study_id)).all())
        new_candidates: list[dict] = []
        links: list[tuple[tuple[int, str] | int, int, CandidateRow]] = []
        pending: dict[tuple[int, str], int] = {}
        def counted(rows: Iterable[CandidateRow]) -> Iterator[CandidateRow]:
            for number, row in enumerate(rows, 1):
                if number % 1000 == 0:
                    progress(number, None, "reading candidates")
                yield row

        rows = list(counted(rows))
        new_sources: dict[str, dict] = {}
        for row in rows:
            if row.sentence_id in source_ids or row.sentence_id in new_sources:
                continue
            source_text = row.source if row.source is not None else sources.get(row.sentence_id)
            if source_text is None:
                raise InputFormatError(path, row.line, f"a source text for sentence_id {row.sentence_id} "
                                       "(a 'source' field or a --sources file covering it)")
            new_sources[row.sentence_id] = {
                "study_id": study_id, "external_id": row.sentence_id, "text": source_text, "test_set": test_set,
                "references": row.references or references.get(row.sentence_id) or []}
        if new_sources:
            new_ids = session.scalars(insert(SourceSentence).returning(SourceSentence.id, sort_by_parameter_order=True),
                                      list(new_sources.values())).all()
            source_ids.update(zip(new_sources, new_ids))
        report.sources_added = len(new_sources)
        for row in rows:
            report.rows += 1
            source_id = source_ids[row.sentence_id]
            if row.system not in system_ids:
                system = System(study_id=study_id, name=row.system)
                session.add(system)
                session.flush()
                system_ids[row.system] = system.id
            system_id = system_ids[row.system]
            key = (source_id, row.text)
            params = row.params if isinstance(row.params, dict) else None
            if key in candidate_ids:
                target: tuple[int, str] | int = candidate_ids[key]
                if (target, system_id) in credited:
                    report.already_present += 1
                    continue
                credited.add((target, system_id))
                report.credited_to_existing += 1
            elif key in pending:
                target = key
                if (key, system_id) in credited:
                    report.already_present += 1
                    continue
                credited.add((key, system_id))
                report.credited_to_existing += 1
            else:
                pending[key] = len(new_candidates)
                tables = None
                if params:
                    tables = params.get("tables") or ([params["table"]] if params.get("table") else None)
                new_candidates.append({
                    "study_id": study_id, "source_id": source_id, "text": row.text, "kind": "candidate",
                    "scores": {}, "derivation": row.derivation, "tables": tables,
                    "lm": params.get("lm") if params else None, "params": params})
                credited.add((key, system_id))
                target = key
            links.append((target, system_id, row))
            if isinstance(target, tuple):  # new here: its scores go in with the insert
                new_candidates[pending[target]]["scores"][row.system] = {
                    "rank": row.rank, "model_score": row.model_score, "true_score": row.true_score}
        if new_candidates:
            # insertmanyvalues with RETURNING: one round trip per batch, ids in input order.
            new_ids = session.scalars(insert(Candidate).returning(Candidate.id, sort_by_parameter_order=True),
                                      new_candidates).all()
            for key, index in pending.items():
                candidate_ids[key] = new_ids[index]
        report.candidates_added = len(new_candidates)
        system_names = {v: k for k, v in system_ids.items()}
        link_rows = []
        score_updates: dict[int, dict] = defaultdict(dict)
        for target, system_id, row in links:
            candidate_id = candidate_ids[target] if isinstance(target, tuple) else target
            link_rows.append({"candidate_id": candidate_id, "system_id": system_id, "rank": row.rank,
                              "model_score": row.model_score, "true_score": row.true_score,
                              "derivation": row.derivation, "params": row.params})
            if not isinstance(target, tuple):
                score_updates[candidate_id][system_names[system_id]] = {
                    "rank": row.rank, "model_score": row.model_score, "true_score": row.true_score}
        if link_rows:
            session.execute(insert(CandidateSystem.__table__), link_rows)
        # Candidates from an earlier import keep the scores of their other systems.
        earlier = sorted(score_updates)
        existing_scores: dict[int, dict] = {}
        for start in range(0, len(earlier), 500):
            existing_scores.update(session.execute(select(Candidate.id, Candidate.scores)
                                                   .where(Candidate.id.in_(earlier[start:start + 500]))).all())
        if score_updates:
            session.execute(update(Candidate), [
                {"id": cid, "scores": {**(existing_scores.get(cid) or {}), **scores}}
                for cid, scores in score_updates.items()])
        report.systems = sorted({row.system for _t, _s, row in links})
        _log(session, study_id, "candidates_imported", {"path": str(path), **asdict(report)})
    return report


def add_choice_tasks(db: Database, study_id: int, tasks: Iterable[dict], *, path: str = "<input>") -> int:
    """Choice tasks (seed 001 §4.2) from dicts {"id", "sentence", "span": [i, j], "options": [...]}."""
    added = 0
    with db.transaction() as session:
        for number, task in enumerate(tasks, 1):
            try:
                start, end = (int(x) for x in task["span"])
                options = [str(o) for o in task["options"]][:5]
                external_id = str(task["id"])
                sentence_text = str(task["sentence"])
            except (KeyError, TypeError, ValueError):
                raise InputFormatError(path, number, 'an object {"id", "sentence", "span": [i, j], "options"}',
                                       json.dumps(task)) from None
            if not 0 <= start < end <= len(sentence_text.split()):
                raise InputFormatError(path, number, "a span [i, j) inside the sentence's tokens", json.dumps(task))
            source_id = session.scalar(select(SourceSentence.id).where(
                SourceSentence.study_id == study_id, SourceSentence.external_id == external_id))
            if source_id is None:
                sentence = SourceSentence(study_id=study_id, external_id=external_id, text=sentence_text,
                                          references=[], test_set=task.get("test_set"))
                session.add(sentence)
                session.flush()
                source_id = sentence.id
            session.add(ChoiceTask(study_id=study_id, source_id=source_id, span_start=start, span_end=end,
                                   options=options, system=task.get("system")))
            added += 1
        _log(session, study_id, "choice_tasks_added", {"path": str(path), "count": added})
    return added


# --------------------------------------------------------------------------
# Assignment
# --------------------------------------------------------------------------


@dataclass
class AssignReport:
    items: int
    assignments: dict[str, int]
    repeats: dict[str, int]
    controls: dict[str, int]


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


def assign(db: Database, study_id: int, annotators: Sequence[str], *, judges_per_item: int | None = None,
           overlap: float = 1.0, repeat_fraction: float = 0.0, control_fraction: float = 0.0,
           seed: int | None = None, repeat_gap: int = 10) -> AssignReport:
    """Assign every not yet assigned item (one transaction).

    Each item goes to ``judges_per_item`` annotators (the study's, 2 by
    default) chosen by lightest load; with ``overlap`` < 1 only that fraction
    of the items gets that many judges and the rest one. Each annotator's
    order is shuffled with a seed derived from the study seed and their name;
    within one item the criteria keep their order, so fluency (candidate
    alone) comes before meaning (with the source), seed 003's two steps.
    ``repeat_fraction`` of an annotator's items come back at least
    ``repeat_gap`` items later; ``control_fraction`` adds planted controls.
    """
    if not annotators:
        raise ValueError("name at least one annotator")
    if not 0.0 <= overlap <= 1.0 or repeat_fraction < 0 or control_fraction < 0:
        raise ValueError("overlap must lie in [0, 1] and the fractions must not be negative")
    with db.transaction() as session:
        study = session.get(Study, study_id)
        judges = judges_per_item or study.judges_per_item
        seed = study.seed if seed is None else seed
        criteria = session.scalars(select(Criterion).where(Criterion.study_id == study_id)
                                   .order_by(Criterion.position)).all()
        candidate_criteria = [c.id for c in criteria if c.scale != "choice"]
        choice_criteria = [c.id for c in criteria if c.scale == "choice"]
        annotator_ids = []
        for name in annotators:
            found = session.scalar(select(Annotator.id).where(Annotator.study_id == study_id,
                                                             Annotator.name == name))
            if found is None:
                annotator = Annotator(study_id=study_id, name=name)
                session.add(annotator)
                session.flush()
                found = annotator.id
            annotator_ids.append(found)
        assigned_candidates = set(session.scalars(select(Assignment.candidate_id).distinct().where(
            Assignment.study_id == study_id, Assignment.candidate_id.is_not(None))))
        assigned_tasks = set(session.scalars(select(Assignment.choice_task_id).distinct().where(
            Assignment.study_id == study_id, Assignment.choice_task_id.is_not(None))))
        items: list[tuple[str, int]] = []
        if candidate_criteria:
            items += [("c", i) for i in session.scalars(select(Candidate.id).where(
                Candidate.study_id == study_id, Candidate.kind == "candidate").order_by(Candidate.id))
                if i not in assigned_candidates]
        if choice_criteria:
            items += [("t", i) for i in session.scalars(select(ChoiceTask.id).where(
                ChoiceTask.study_id == study_id).order_by(ChoiceTask.id)) if i not in assigned_tasks]

        distribution_rng = random.Random(f"{seed}:distribution")
        shuffled = list(items)
        distribution_rng.shuffle(shuffled)
        multi = round(overlap * len(shuffled))
        load = {a: 0 for a in annotator_ids}
        per_annotator: dict[int, list[tuple[str, int]]] = {a: [] for a in annotator_ids}
        for index, item in enumerate(shuffled):
            count = min(judges if index < multi else 1, len(annotator_ids))
            chosen = sorted(annotator_ids, key=lambda a: (load[a], distribution_rng.random()))[:count]
            for a in chosen:
                load[a] += 1
                per_annotator[a].append(item)

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
        next_position = dict(session.execute(select(Assignment.annotator_id, func.max(Assignment.position))
                                             .where(Assignment.study_id == study_id)
                                             .group_by(Assignment.annotator_id)).all())
        report = AssignReport(items=len(items), assignments={}, repeats={}, controls={})
        names = dict(zip(annotator_ids, annotators))
        for annotator_id in annotator_ids:
            rng = random.Random(f"{seed}:{names[annotator_id]}")
            own = sorted(per_annotator[annotator_id])
            rng.shuffle(own)
            # Blocks sorted by a float key: originals at i, repeats later, controls anywhere.
            blocks: list[tuple[float, str, tuple[str, int], int | None]] = [
                (float(i), "normal", item, None) for i, item in enumerate(own)]
            for index in sorted(rng.sample(range(len(own)), min(len(own), round(repeat_fraction * len(own))))):
                low = min(index + repeat_gap, len(own))
                blocks.append((rng.uniform(low, len(own)) + 0.5, "repeat", own[index], index))
            candidate_items = [item for item in own if item[0] == "c"]
            wanted_controls = round(control_fraction * len(own)) if len(source_texts) > 1 else 0
            made = 0
            for item in rng.sample(candidate_items, min(len(candidate_items), wanted_controls)):
                source_id, candidate_text = candidate_info[item[1]]
                donor = rng.choice([s for s in source_texts if s != source_id])
                control_text = make_control_text(candidate_text, source_texts[donor], rng)
                if control_text is None:
                    continue
                key = (source_id, control_text)
                if key not in control_ids:
                    control = Candidate(study_id=study_id, source_id=source_id, text=control_text, kind="control",
                                        control_of=item[1], scores={},
                                        derivation=[{"control": {"donor_source": donor}}])
                    session.add(control)
                    session.flush()
                    control_ids[key] = control.id
                blocks.append((rng.uniform(0, len(own)), "control", ("c", control_ids[key]), None))
                made += 1
            blocks.sort(key=lambda block: block[0])
            position = (next_position.get(annotator_id) or -1) + 1
            first_rows, repeat_rows = [], []
            for _key, kind, (item_kind, item_id), original_index in blocks:
                for criterion_id in (candidate_criteria if item_kind == "c" else choice_criteria):
                    row = {"study_id": study_id, "annotator_id": annotator_id, "criterion_id": criterion_id,
                           "candidate_id": item_id if item_kind == "c" else None,
                           "choice_task_id": item_id if item_kind == "t" else None,
                           "position": position, "kind": kind, "repeat_of": None}
                    position += 1
                    (repeat_rows if kind == "repeat" else first_rows).append(row)
            if first_rows:
                session.execute(insert(Assignment.__table__), first_rows)
            if repeat_rows:
                originals = {(c, t, k): i for i, c, t, k in session.execute(
                    select(Assignment.id, Assignment.candidate_id, Assignment.choice_task_id, Assignment.criterion_id)
                    .where(Assignment.annotator_id == annotator_id, Assignment.kind == "normal"))}
                for row in repeat_rows:
                    row["repeat_of"] = originals[(row["candidate_id"], row["choice_task_id"], row["criterion_id"])]
                session.execute(insert(Assignment.__table__), repeat_rows)
            report.assignments[names[annotator_id]] = len(first_rows) + len(repeat_rows)
            report.repeats[names[annotator_id]] = sum(1 for block in blocks if block[1] == "repeat")
            report.controls[names[annotator_id]] = made
        _log(session, study_id, "assigned", {**asdict(report), "judges_per_item": judges, "overlap": overlap,
                                             "repeat_fraction": repeat_fraction,
                                             "control_fraction": control_fraction, "seed": seed})
    return report


# --------------------------------------------------------------------------
# Annotating
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemView:
    """What the annotation screen shows for one assignment. System names are
    left out on purpose (blind judging), and so is the assignment kind."""

    assignment_id: int
    position: int
    item: str
    criterion: str
    question: str
    scale: str
    levels: list
    shows_source: bool
    source: str
    references: list
    candidate: str | None
    derivation: Any
    span: tuple[int, int] | None
    options: list
    value: str | None
    text: str | None
    flag: bool
    comment: str | None


@functools.cache
def _item_query():
    """One round trip for everything the screen shows: assignment, criterion,
    candidate or choice task, source sentence, live judgment."""
    a, c, k, t, s, j = (Assignment.__table__, Criterion.__table__, Candidate.__table__, ChoiceTask.__table__,
                        SourceSentence.__table__, Judgment.__table__)
    source_id = func.coalesce(k.c.source_id, t.c.source_id)
    return (select(a.c.id, a.c.position, a.c.candidate_id, a.c.choice_task_id, c.c.name, c.c.question, c.c.scale,
                   c.c.levels, c.c.shows_source, s.c.text.label("source"), s.c.references, k.c.text.label("candidate"),
                   k.c.kind.label("candidate_kind"), k.c.derivation, t.c.span_start, t.c.span_end, t.c.options,
                   j.c.value, j.c.text.label("answer_text"), j.c.flag, j.c.comment)
            .select_from(a.join(c, c.c.id == a.c.criterion_id)
                         .outerjoin(k, k.c.id == a.c.candidate_id)
                         .outerjoin(t, t.c.id == a.c.choice_task_id)
                         .join(s, s.c.id == source_id)
                         .outerjoin(j, j.c.id == a.c.live_judgment_id)))


# Statements on the per-keystroke path are built once: building one costs more than running it.
@functools.cache
def _item_at_position():
    return _item_query().where(Assignment.annotator_id == bindparam("annotator"),
                               Assignment.position == bindparam("position"))


@functools.cache
def _first_open_position():
    return (select(Assignment.position).where(Assignment.annotator_id == bindparam("annotator"),
                                              Assignment.live_judgment_id.is_(None))
            .order_by(Assignment.position).limit(1))


@functools.cache
def _assignment_for_answer():
    a, c, t = Assignment.__table__, Criterion.__table__, ChoiceTask.__table__
    return (select(a.c.study_id, a.c.annotator_id, a.c.candidate_id, a.c.choice_task_id, a.c.criterion_id,
                   a.c.live_judgment_id, c.c.name, c.c.scale, c.c.levels, t.c.options)
            .select_from(a.join(c, c.c.id == a.c.criterion_id).outerjoin(t, t.c.id == a.c.choice_task_id))
            .where(a.c.id == bindparam("assignment")))


def _item_view(row) -> ItemView:
    is_task = row.choice_task_id is not None
    return ItemView(
        assignment_id=row.id, position=row.position, item=item_key(row.candidate_id, row.choice_task_id),
        criterion=row.name, question=row.question, scale=row.scale, levels=list(row.levels or []),
        shows_source=bool(row.shows_source), source=row.source, references=list(row.references or []),
        candidate=None if is_task else row.candidate,
        # A planted control shows no derivation: the screen highlights it by diff like any import.
        derivation=row.derivation if row.candidate_kind == "candidate" else None,
        span=(row.span_start, row.span_end) if is_task else None, options=list(row.options or []),
        value=row.value, text=row.answer_text, flag=bool(row.flag), comment=row.comment)


def next_item(db: Database, annotator_id: int) -> ItemView | None:
    """The first assignment in the annotator's order with no live judgment."""
    with db.read_connection() as connection:
        # Finding the position first lets SQLite use the partial index alone.
        position = connection.scalar(_first_open_position(), {"annotator": annotator_id})
        if position is None:
            return None
        row = connection.execute(_item_at_position(), {"annotator": annotator_id, "position": position}).one()
        return _item_view(row)


def item_at(db: Database, annotator_id: int, position: int) -> ItemView | None:
    """The annotator's assignment at ``position`` (for moving with the arrows)."""
    with db.read_connection() as connection:
        row = connection.execute(_item_at_position(), {"annotator": annotator_id, "position": position}).first()
        return _item_view(row) if row is not None else None


def neighbour_position(db: Database, annotator_id: int, position: int, step: int) -> int | None:
    """The position before (step < 0) or after (step > 0) ``position``, if any."""
    with db.read_connection() as connection:
        column = Assignment.position
        query = select(column).where(Assignment.annotator_id == annotator_id)
        query = (query.where(column > position).order_by(column) if step > 0
                 else query.where(column < position).order_by(column.desc()))
        return connection.scalar(query.limit(1))


@functools.cache
def _insert_judgment():
    return insert(Judgment.__table__).returning(Judgment.__table__.c.id)


@functools.cache
def _set_live_judgment():
    table = Assignment.__table__
    return (update(table).where(table.c.id == bindparam("assignment"))
            .values(live_judgment_id=bindparam("judgment")))


def record_judgment(db: Database, assignment_id: int, value: Any, *, text: str | None = None,
                    started_at: datetime | None = None, answered_at: datetime | None = None,
                    comment: str | None = None, flag: bool = False, origin: str = "app",
                    duration_ms: int | None = None) -> int:
    """Store one answer in its own committed transaction; returns the judgment id.

    Answering an assignment that already has a live answer (the annotator
    went back) appends the new answer and marks the old one superseded.
    ``duration_ms`` is measured from ``started_at`` when that is given.
    """
    answered_at = _aware(answered_at) or _now()
    started_at = _aware(started_at)
    with db.write_connection() as connection:
        row = connection.execute(_assignment_for_answer(), {"assignment": assignment_id}).first()
        if row is None:
            raise LookupError(f"no assignment {assignment_id}")
        label, stored_text = normalize_value(row, value, text, row.options or ())
        duration = duration_ms
        if started_at is not None:
            duration = max(0, round((answered_at - started_at).total_seconds() * 1000))
        judgment_id = connection.scalar(_insert_judgment(), dict(
            uid=str(uuid.uuid4()), study_id=row.study_id, assignment_id=assignment_id,
            annotator_id=row.annotator_id, candidate_id=row.candidate_id, choice_task_id=row.choice_task_id,
            criterion_id=row.criterion_id, action="answer", value=label, text=stored_text, started_at=started_at,
            answered_at=answered_at, duration_ms=duration, comment=comment, flag=flag, origin=origin,
            supersedes=row.live_judgment_id))
        if row.live_judgment_id is not None:
            connection.execute(update(Judgment).where(Judgment.id == row.live_judgment_id)
                               .values(superseded_by=judgment_id))
            connection.execute(insert(EventLog).values(
                study_id=row.study_id, at=_now(), actor=str(row.annotator_id), kind="judgment_superseded",
                payload={"old": row.live_judgment_id, "new": judgment_id}))
        connection.execute(_set_live_judgment(), {"assignment": assignment_id, "judgment": judgment_id})
        return judgment_id


def annotate_judgment(db: Database, judgment_id: int, *, comment: str | None = None,
                      flag: bool | None = None) -> int:
    """Add a comment or flag to an answer given earlier: a new row carrying the
    same value supersedes it (the old row stays as it was)."""
    with db.reading() as session:
        old = session.get(Judgment, judgment_id)
        if old is None or old.superseded_by is not None or old.action != "answer":
            raise LookupError(f"judgment {judgment_id} is not a live answer")
    # The new row keeps the original answer's time taken; its answered_at is now.
    return record_judgment(db, old.assignment_id, old.value, text=old.text, duration_ms=old.duration_ms,
                           comment=old.comment if comment is None else comment,
                           flag=old.flag if flag is None else flag, origin=old.origin)


def undo_last(db: Database, annotator_id: int) -> int | None:
    """Withdraw the annotator's latest live answer by appending an undo row.

    Returns the assignment id that is open again (the screen goes back to
    it), or None when there is nothing to undo. Repeated calls walk back.
    """
    with db.transaction() as session:
        last = session.scalar(select(Judgment).where(
            Judgment.annotator_id == annotator_id, Judgment.action == "answer",
            Judgment.superseded_by.is_(None)).order_by(Judgment.id.desc()).limit(1))
        if last is None:
            return None
        undo = Judgment(uid=str(uuid.uuid4()), study_id=last.study_id, assignment_id=last.assignment_id,
                        annotator_id=annotator_id, candidate_id=last.candidate_id,
                        choice_task_id=last.choice_task_id, criterion_id=last.criterion_id, action="undo",
                        value=None, answered_at=_now(), flag=False, supersedes=last.id, origin="app")
        session.add(undo)
        session.flush()
        last.superseded_by = undo.id
        assignment = session.get(Assignment, last.assignment_id)
        # An older answer to the same assignment was superseded by `last`, not
        # by the undo: the assignment is open again.
        assignment.live_judgment_id = None
        _log(session, last.study_id, "judgment_undone", {"judgment": last.id, "undo": undo.id,
                                                         "assignment": assignment.id}, actor=str(annotator_id))
        return assignment.id


# --------------------------------------------------------------------------
# Progress and quality control
# --------------------------------------------------------------------------


@dataclass
class StudyProgress:
    done: int
    total: int
    per_annotator: dict[str, tuple[int, int]]

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


def study_progress(db: Database, study_id: int, annotator_id: int | None = None) -> StudyProgress:
    """Judged / assigned counts for the study (or one annotator) and per annotator."""
    with db.reading() as session:
        query = (select(Annotator.name, func.count(Assignment.id), func.count(Assignment.live_judgment_id))
                 .join(Assignment, Assignment.annotator_id == Annotator.id)
                 .where(Assignment.study_id == study_id).group_by(Annotator.name))
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
        names = dict(session.execute(select(Annotator.id, Annotator.name).where(Annotator.study_id == study_id)).all())
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
            if criterion.shows_source and criterion.scale != "choice":
                controls[row.annotator_id].append(live_value[row.live_judgment_id] in _bad_values(criterion))
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


# --------------------------------------------------------------------------
# Reading judgments out
# --------------------------------------------------------------------------

# "system" (the first that produced the item) is the report group; "systems" lists all.
EXPORT_COLUMNS = ("item", "annotator", "criterion", "value", "text", "sentence", "system", "systems", "application",
                  "kind",
                  "started_at", "answered_at", "duration_ms", "comment", "flag", "status", "origin",
                  "judgment_id", "assignment_id")


def _systems_by_candidate(session, study_id: int) -> dict[int, list[str]]:
    systems: dict[int, list[str]] = defaultdict(list)
    for candidate_id, name in session.execute(
            select(CandidateSystem.candidate_id, System.name).join(System)
            .where(System.study_id == study_id).order_by(System.name)):
        systems[candidate_id].append(name)
    return systems


def iter_judgments(db: Database, study_id: int, *, history: bool = False,
                   include_qc: bool = False) -> Iterator[dict]:
    """One dict per judgment. By default the live answers on normal items;
    ``history`` adds superseded answers and undo rows, ``include_qc`` adds
    repeats and controls."""
    with db.reading() as session:
        study = session.get(Study, study_id)
        systems = _systems_by_candidate(session, study_id)
        criteria = {c.id: c for c in session.scalars(select(Criterion).where(Criterion.study_id == study_id))}
        annotators = dict(session.execute(select(Annotator.id, Annotator.name)
                                          .where(Annotator.study_id == study_id)).all())
        sentence_of_candidate = dict(session.execute(
            select(Candidate.id, SourceSentence.external_id).join(SourceSentence)
            .where(Candidate.study_id == study_id)).all())
        sentence_of_task = dict(session.execute(
            select(ChoiceTask.id, SourceSentence.external_id).join(SourceSentence)
            .where(ChoiceTask.study_id == study_id)).all())
        query = (select(Judgment, Assignment.kind).join(Assignment, Judgment.assignment_id == Assignment.id)
                 .where(Judgment.study_id == study_id).order_by(Judgment.id))
        if not history:
            query = query.where(Judgment.action == "answer", Judgment.superseded_by.is_(None))
        if not include_qc:
            query = query.where(Assignment.kind == "normal")
        for judgment, kind in session.execute(query).yield_per(2000):
            criterion = criteria[judgment.criterion_id]
            status = ("undo" if judgment.action == "undo" else
                      "superseded" if judgment.superseded_by is not None else "live")
            sentence = (sentence_of_candidate.get(judgment.candidate_id) if judgment.candidate_id is not None
                        else sentence_of_task.get(judgment.choice_task_id))
            yield {
                "item": item_key(judgment.candidate_id, judgment.choice_task_id),
                "annotator": annotators[judgment.annotator_id], "criterion": criterion.name,
                "value": judgment.value, "text": judgment.text, "sentence": sentence,
                "systems": systems.get(judgment.candidate_id, []) if judgment.candidate_id else [],
                "application": criterion.application or study.application, "kind": kind,
                "started_at": iso_time(judgment.started_at), "answered_at": iso_time(judgment.answered_at),
                "duration_ms": judgment.duration_ms, "comment": judgment.comment, "flag": bool(judgment.flag),
                "status": status, "origin": judgment.origin, "judgment_id": judgment.id,
                "assignment_id": judgment.assignment_id, "scale": criterion.scale}


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
                     history: bool = False, include_qc: bool = False) -> int:
    """Write judgments as CSV (``item,annotator,criterion,value`` first, so the
    agreement command reads it as is) or JSONL, atomically; returns the row count."""
    if file_format not in ("csv", "jsonl"):
        raise ValueError(f"unknown format {file_format!r}; expected csv or jsonl")
    count = 0
    with atomic_output(output) as handle:
        if file_format == "csv":
            writer = csv.DictWriter(handle, fieldnames=EXPORT_COLUMNS, extrasaction="ignore", lineterminator="\n")
            writer.writeheader()
        for row in iter_judgments(db, study_id, history=history, include_qc=include_qc):
            if file_format == "csv":
                writer.writerow({**row, "system": row["systems"][0] if row["systems"] else "-",
                                 "systems": ";".join(row["systems"]), "flag": int(row["flag"])})
            else:
                row.pop("scale")
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count


# --------------------------------------------------------------------------
# Bringing judgments in: CSV from elsewhere, returned packages
# --------------------------------------------------------------------------


@dataclass
class MergeReport:
    applied: int = 0
    already_present: int = 0
    duplicates: int = 0
    conflicts: list[dict] = field(default_factory=list)


def import_judgments_csv(db: Database, study_id: int, path: str | os.PathLike) -> MergeReport:
    """Judgments gathered elsewhere, long format with header ``item,annotator,
    criterion,value`` (optional ``text, comment, flag, started_at,
    answered_at``). One transaction: a bad line imports nothing. An item
    already judged by that annotator on that criterion with another value is
    reported as a conflict and left as it was."""
    report = MergeReport()
    with open_text_maybe_gzip(path) as handle, db.transaction() as session:
        reader = csv.DictReader(handle)
        header = [h.strip() for h in (reader.fieldnames or [])]
        if not {"item", "annotator", "criterion", "value"} <= set(header):
            raise InputFormatError(path, 1, "a header with columns item, annotator, criterion, value",
                                   ",".join(header))
        reader.fieldnames = header
        criteria = {c.name: c for c in session.scalars(select(Criterion).where(Criterion.study_id == study_id))}
        annotators = dict(session.execute(select(Annotator.name, Annotator.id)
                                          .where(Annotator.study_id == study_id)).all())
        positions = dict(session.execute(select(Assignment.annotator_id, func.max(Assignment.position))
                                         .where(Assignment.study_id == study_id)
                                         .group_by(Assignment.annotator_id)).all())
        for row in reader:
            number = reader.line_num
            try:
                candidate_id, task_id = _parse_item_key(row["item"] or "")
            except ValueError:
                raise InputFormatError(path, number, "an item id (a candidate id, or choice-N)", row["item"]) from None
            criterion = criteria.get((row["criterion"] or "").strip())
            if criterion is None:
                raise InputFormatError(path, number, f"a criterion among {', '.join(criteria)}", row["criterion"])
            exists = (session.get(Candidate, candidate_id) if candidate_id is not None
                      else session.get(ChoiceTask, task_id))
            if exists is None or exists.study_id != study_id:
                raise InputFormatError(path, number, "an item of this study", row["item"])
            options = exists.options if task_id is not None else ()
            try:
                label, stored_text = normalize_value(criterion, row["value"] or "", row.get("text") or None, options)
                answered_at = _parse_time(row.get("answered_at")) or _now()
                started_at = _parse_time(row.get("started_at"))
            except ValueError as error:
                raise InputFormatError(path, number, str(error), row["value"]) from None
            name = (row["annotator"] or "").strip()
            if not name:
                raise InputFormatError(path, number, "an annotator name", row["annotator"])
            if name not in annotators:
                annotator = Annotator(study_id=study_id, name=name)
                session.add(annotator)
                session.flush()
                annotators[name] = annotator.id
            annotator_id = annotators[name]
            assignment = session.scalar(select(Assignment).where(
                Assignment.annotator_id == annotator_id, Assignment.criterion_id == criterion.id,
                Assignment.kind == "normal",
                (Assignment.candidate_id == candidate_id) if candidate_id is not None
                else (Assignment.choice_task_id == task_id)))
            if assignment is None:
                position = (positions.get(annotator_id) if positions.get(annotator_id) is not None else -1) + 1
                positions[annotator_id] = position
                assignment = Assignment(study_id=study_id, annotator_id=annotator_id, candidate_id=candidate_id,
                                        choice_task_id=task_id, criterion_id=criterion.id, position=position,
                                        kind="normal")
                session.add(assignment)
                session.flush()
            if assignment.live_judgment_id is not None:
                live = session.get(Judgment, assignment.live_judgment_id)
                if live.value == label and live.text == stored_text:
                    report.duplicates += 1
                else:
                    conflict = {"line": number, "item": row["item"], "annotator": name, "criterion": criterion.name,
                                "present": live.value, "imported": label}
                    report.conflicts.append(conflict)
                    _log(session, study_id, "import_conflict", {"path": str(path), **conflict, "row": row})
                continue
            flag = str(row.get("flag") or "").strip().lower() in ("1", "true", "yes")
            duration = (max(0, round((answered_at - started_at).total_seconds() * 1000))
                        if started_at and answered_at else None)
            judgment = Judgment(uid=str(uuid.uuid4()), study_id=study_id, assignment_id=assignment.id,
                                annotator_id=annotator_id, candidate_id=candidate_id, choice_task_id=task_id,
                                criterion_id=criterion.id, action="answer", value=label, text=stored_text,
                                started_at=started_at, answered_at=answered_at, duration_ms=duration,
                                comment=row.get("comment") or None, flag=flag, origin="import")
            session.add(judgment)
            session.flush()
            assignment.live_judgment_id = judgment.id
            report.applied += 1
        _log(session, study_id, "judgments_imported", {"path": str(path), "applied": report.applied,
                                                        "duplicates": report.duplicates,
                                                        "conflicts": len(report.conflicts)})
    return report


def _rows(session, table, where) -> list[dict]:
    return [dict(row._mapping) for row in session.execute(select(table).where(where).order_by(*table.primary_key))]


def export_package(db: Database, study_id: int, annotator_name: str, output: str | os.PathLike) -> int:
    """A standalone SQLite study file holding one annotator's assignments, the
    items and criteria they need, and their judgments so far (system names are
    left out: judging stays blind). Returns the number of assignments."""
    tables = Base.metadata.tables
    output = Path(output)
    with db.reading() as session:
        annotator_id = session.scalar(select(Annotator.id).where(Annotator.study_id == study_id,
                                                                 Annotator.name == annotator_name))
        if annotator_id is None:
            raise LookupError(f"no annotator named {annotator_name!r} in this study")
        study_rows = _rows(session, tables["study"], tables["study"].c.id == study_id)
        criterion_rows = _rows(session, tables["criterion"], tables["criterion"].c.study_id == study_id)
        annotator_rows = _rows(session, tables["annotator"], tables["annotator"].c.id == annotator_id)
        assignment_rows = _rows(session, tables["assignment"], tables["assignment"].c.annotator_id == annotator_id)
        judgment_rows = _rows(session, tables["judgment"], tables["judgment"].c.annotator_id == annotator_id)
        candidate_ids = {r["candidate_id"] for r in assignment_rows if r["candidate_id"] is not None}
        candidate_rows = _rows(session, tables["candidate"], tables["candidate"].c.id.in_(candidate_ids))
        originals = {r["control_of"] for r in candidate_rows if r["control_of"] is not None} - candidate_ids
        if originals:
            candidate_rows = sorted(candidate_rows + _rows(session, tables["candidate"],
                                                           tables["candidate"].c.id.in_(originals)),
                                    key=lambda r: r["id"])
        for row in candidate_rows:  # blind: the package does not say which system made what
            row.update(scores={}, tables=None, lm=None, params=None)
        task_ids = {r["choice_task_id"] for r in assignment_rows if r["choice_task_id"] is not None}
        task_rows = _rows(session, tables["choice_task"], tables["choice_task"].c.id.in_(task_ids))
        source_ids = {r["source_id"] for r in candidate_rows} | {r["source_id"] for r in task_rows}
        source_rows = _rows(session, tables["source_sentence"], tables["source_sentence"].c.id.in_(source_ids))
    study_rows[0]["settings"] = {**(study_rows[0]["settings"] or {}),
                                 "package": {"annotator": annotator_name, "exported_at": iso_time(_now())}}
    output.parent.mkdir(parents=True, exist_ok=True)
    temporary = output.with_name(f".{output.name}.{uuid.uuid4().hex}.part")
    try:
        package = open_database(temporary)
        try:
            with package.engine.begin() as connection:
                connection.exec_driver_sql("PRAGMA defer_foreign_keys=ON")
                for name, rows in (("study", study_rows), ("criterion", criterion_rows),
                                   ("annotator", annotator_rows), ("source_sentence", source_rows),
                                   ("candidate", candidate_rows), ("choice_task", task_rows),
                                   ("assignment", assignment_rows), ("judgment", judgment_rows)):
                    if rows:
                        connection.execute(insert(tables[name]), rows)
                connection.execute(insert(tables["event_log"]), [{
                    "study_id": study_id, "at": _now(), "actor": annotator_name, "kind": "package_created",
                    "payload": {"assignments": len(assignment_rows)}}])
        finally:
            package.close()
        # One self-contained file to send: leave WAL mode (checkpointing the WAL into it).
        raw = sqlite3.connect(temporary)
        try:
            raw.execute("PRAGMA journal_mode=DELETE")
        finally:
            raw.close()
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, output)
    finally:
        for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm")):
            leftover.unlink(missing_ok=True)
    with db.transaction() as session:
        _log(session, study_id, "package_exported", {"annotator": annotator_name, "path": str(output),
                                                      "assignments": len(assignment_rows)})
    return len(assignment_rows)


def merge_package(db: Database, package_path: str | os.PathLike) -> MergeReport:
    """Bring a returned package's judgments into this (master) study, in one transaction.

    Rows already here (same uid) are skipped. An assignment the master has
    meanwhile answered differently, from another package or another source,
    is a conflict: reported, logged with the package's rows, and left as the
    master has it. Judgments otherwise come in with their full history."""
    report = MergeReport()
    package = open_database(package_path)
    try:
        with package.reading() as source:
            package_study = source.scalars(select(Study)).one()
            package_rows = source.scalars(select(Judgment).order_by(Judgment.id)).all()
            package_annotators = dict(source.execute(select(Annotator.id, Annotator.name)).all())
    finally:
        package.close()
    by_assignment: dict[int, list[Judgment]] = defaultdict(list)
    for row in package_rows:
        by_assignment[row.assignment_id].append(row)
    with db.transaction() as session:
        study = session.scalar(select(Study).where(Study.uid == package_study.uid))
        if study is None:
            raise ValueError(f"{package_path} belongs to study {package_study.name!r} ({package_study.uid}), "
                             "which is not in this database")
        master_annotators = dict(session.execute(select(Annotator.name, Annotator.id)
                                                 .where(Annotator.study_id == study.id)).all())
        known = dict(session.execute(select(Judgment.uid, Judgment.id).where(
            Judgment.uid.in_([r.uid for r in package_rows]))).all()) if package_rows else {}
        for assignment_id, rows in by_assignment.items():
            assignment = session.get(Assignment, assignment_id)
            annotator_name = package_annotators.get(rows[0].annotator_id)
            if (assignment is None or assignment.study_id != study.id
                    or master_annotators.get(annotator_name) != assignment.annotator_id
                    or assignment.criterion_id != rows[0].criterion_id):
                report.conflicts.append({"assignment": assignment_id, "annotator": annotator_name,
                                         "reason": "assignment not in the master study"})
                continue
            new_rows = [r for r in rows if r.uid not in known]
            if not new_rows:
                report.already_present += len(rows)
                continue
            report.already_present += len(rows) - len(new_rows)
            package_live = next((r for r in reversed(rows) if r.action == "answer" and r.superseded_by is None),
                                None)
            package_uids = {r.uid for r in rows}
            master_live = session.get(Judgment, assignment.live_judgment_id) if assignment.live_judgment_id else None
            if master_live is not None and master_live.uid not in package_uids:
                if package_live is not None and (package_live.value, package_live.text) == (master_live.value,
                                                                                             master_live.text):
                    report.duplicates += 1
                    continue
                conflict = {"assignment": assignment_id, "annotator": annotator_name,
                            "item": item_key(assignment.candidate_id, assignment.choice_task_id),
                            "criterion": session.get(Criterion, assignment.criterion_id).name,
                            "master": master_live.value, "package": package_live.value if package_live else None,
                            "reason": "judged differently"}
                report.conflicts.append(conflict)
                _log(session, study.id, "merge_conflict", {
                    **conflict, "path": str(package_path),
                    "rows": [{"uid": r.uid, "action": r.action, "value": r.value, "text": r.text,
                              "answered_at": iso_time(r.answered_at), "comment": r.comment, "flag": r.flag}
                             for r in rows]})
                continue
            id_map = {r.id: known[r.uid] for r in rows if r.uid in known}
            for r in new_rows:
                judgment = Judgment(uid=r.uid, study_id=study.id, assignment_id=assignment_id,
                                    annotator_id=assignment.annotator_id, candidate_id=assignment.candidate_id,
                                    choice_task_id=assignment.choice_task_id, criterion_id=assignment.criterion_id,
                                    action=r.action, value=r.value, text=r.text, started_at=r.started_at,
                                    answered_at=r.answered_at, duration_ms=r.duration_ms, comment=r.comment,
                                    flag=r.flag, supersedes=id_map.get(r.supersedes), origin="merge")
                session.add(judgment)
                session.flush()
                id_map[r.id] = judgment.id
                known[r.uid] = judgment.id
            for r in rows:
                if r.superseded_by is not None and id_map.get(r.superseded_by) is not None:
                    session.execute(update(Judgment).where(Judgment.id == id_map[r.id])
                                    .values(superseded_by=id_map[r.superseded_by]))
            assignment.live_judgment_id = id_map[package_live.id] if package_live is not None else None
            report.applied += sum(1 for r in new_rows if r.action == "answer")
        _log(session, study.id, "package_merged", {"path": str(package_path), "applied": report.applied,
                                                   "already_present": report.already_present,
                                                   "duplicates": report.duplicates,
                                                   "conflicts": len(report.conflicts)})
    return report
