"""Candidates and choice tasks into a study (read by :mod:`core.store.candidate_files`), crediting a string to every
system that made it."""

from __future__ import annotations

import json
import unicodedata
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Iterable, Iterator

from sqlalchemy import insert, select, update

from core.errors import BadNameError, InputFormatError
from core.person_names import clean_name, look_alike
from core.progress import Progress, no_progress
from core.store.candidate_files import CandidateRow, derivation_problem
from core.store.database import Database
from core.store.events import log_event
from core.store.models import Candidate, CandidateSystem, ChoiceTask, SourceSentence, System


@dataclass
class ImportReport:
    rows: int = 0
    sources_added: int = 0
    candidates_added: int = 0
    credited_to_existing: int = 0
    already_present: int = 0
    systems: list[str] = field(default_factory=list)


def import_candidates(db: Database, study_id: int, rows: Iterable[CandidateRow], *, path: str = "<input>",
                      sources: dict[str, str] | None = None, references: dict[str, list[str]] | None = None,
                      displays: dict[str, str] | None = None,
                      test_set: str | None = None, progress: Progress = no_progress) -> ImportReport:
    """Add candidates (one transaction). A string already present for the same
    source sentence is credited to the new system instead of added again."""
    report = ImportReport()
    sources = sources or {}
    references = references or {}
    displays = displays or {}
    with db.transaction() as session:
        known_sources = session.execute(select(SourceSentence.external_id, SourceSentence.id, SourceSentence.text)
                                        .where(SourceSentence.study_id == study_id)).all()
        source_ids = {external_id: source_id for external_id, source_id, _ in known_sources}
        first_sources = {external_id: (text, "in the study") for external_id, _, text in known_sources}
        system_ids = dict(session.execute(select(System.name, System.id).where(System.study_id == study_id)).all())
        # A string is one candidate in whichever Unicode form it came (NFC and NFD "café" are the same text).
        candidate_ids = {(s, unicodedata.normalize("NFC", t)): i for i, s, t in session.execute(
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
        _refuse_second_sources(rows, first_sources, path)
        for row in rows:
            if row.sentence_id in source_ids or row.sentence_id in new_sources:
                continue
            source_text = row.source if row.source is not None else sources.get(row.sentence_id)
            if source_text is None:
                raise InputFormatError(path, row.line, f"a source text for sentence_id {row.sentence_id} "
                                       "(a 'source' field or a --sources file covering it)")
            new_sources[row.sentence_id] = {
                "study_id": study_id, "external_id": row.sentence_id, "text": source_text, "test_set": test_set,
                "references": row.references or references.get(row.sentence_id) or [],
                "display": displays.get(row.sentence_id)}
        if new_sources:
            new_ids = session.scalars(insert(SourceSentence).returning(SourceSentence.id, sort_by_parameter_order=True),
                                      list(new_sources.values())).all()
            source_ids.update(zip(new_sources, new_ids))
        report.sources_added = len(new_sources)
        source_texts = {key: value["text"] for key, value in new_sources.items()}
        _check_derivations(session, study_id, rows, source_texts, path)
        for row in rows:
            report.rows += 1
            source_id = source_ids[row.sentence_id]
            if row.system not in system_ids:
                try:  # one spelling per system, no look-alikes, nothing invisible (core.person_names)
                    if clean_name(row.system, "system name") != row.system:
                        raise BadNameError(f"system name {ascii(row.system)} is not in its composed form (NFC) or "
                                           "has spaces around it")
                    similar = look_alike(row.system, system_ids)
                    if similar is not None:
                        raise BadNameError(f"system name {ascii(row.system)} reads as the system {ascii(similar)}")
                except BadNameError as error:
                    raise InputFormatError(path, row.line, "a system name that names one system", str(error)) \
                        from None
                system = System(study_id=study_id, name=row.system)
                session.add(system)
                session.flush()
                system_ids[row.system] = system.id
            system_id = system_ids[row.system]
            key = (source_id, unicodedata.normalize("NFC", row.text))
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
                tables, lm = None, None
                if params:
                    tables, lm = _tables_and_lm(params)
                new_candidates.append({
                    "study_id": study_id, "source_id": source_id, "text": row.text, "kind": "candidate",
                    "scores": {}, "derivation": row.derivation, "tables": tables,
                    "lm": lm, "params": params})
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
        log_event(session, study_id, "candidates_imported", {"path": str(path), **asdict(report)})
    return report


def _check_derivations(session, study_id: int, rows: list[CandidateRow], new_sources: dict[str, str],
                       path: str) -> None:
    """Each derivation of a row without its own source against the source it rewrites: the reader checked
    the candidate side of every derivation, and the source side where the row carried its source."""
    rows = [row for row in rows if row.derivation is not None and row.source is None]
    known = {}
    wanted = {row.sentence_id for row in rows} - set(new_sources)
    if wanted:
        known = dict(session.execute(select(SourceSentence.external_id, SourceSentence.text).where(
            SourceSentence.study_id == study_id, SourceSentence.external_id.in_(sorted(wanted)))).all())
    for row in rows:
        source = new_sources.get(row.sentence_id, known.get(row.sentence_id))
        problem = derivation_problem(row.derivation, row.text, source)
        if problem:
            raise InputFormatError(path, row.line, problem, json.dumps(row.derivation)[:200])


def _refuse_second_sources(rows: list[CandidateRow], first_sources: dict[str, tuple[str, str]], path: str) -> None:
    """A sentence id is one source: a row whose ``source`` has other words than the first one given for its id
    (in the study, or on an earlier line) would be filed under that first source, so it stops the import."""
    for row in rows:
        if row.source is None:
            continue
        first = first_sources.setdefault(row.sentence_id, (row.source, f"line {row.line}"))
        if first[0].split() != row.source.split():
            raise InputFormatError(path, row.line, f"the source of sentence_id {row.sentence_id} as first given "
                                   f"({first[1]}: {first[0]!r})", row.source)


def add_choice_tasks(db: Database, study_id: int, tasks: Iterable[dict], *, path: str = "<input>") -> int:
    """Choice tasks (seed 001 §4.2) from dicts {"id", "sentence", "span": [i, j], "options": [...]}."""
    added = 0
    with db.transaction() as session:
        for number, task in enumerate(tasks, 1):
            if not isinstance(task, dict):
                raise InputFormatError(path, number, "a choice task as a JSON object", repr(task)[:200])
            number = task.get("line", number)
            span, options = task.get("span"), task.get("options")
            if not (isinstance(span, list) and len(span) == 2 and all(type(x) is int for x in span)
                    and isinstance(options, list) and all(isinstance(o, str) for o in options)
                    and type(task.get("id")) in (int, str) and isinstance(task.get("sentence"), str)):
                raise InputFormatError(path, number, 'an object {"id", "sentence", "span": [i, j], "options": '
                                       '[strings]}', json.dumps(task)[:200])
            start, end = span
            options = options[:5]
            external_id = str(task["id"])
            sentence_text = task["sentence"]
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
        log_event(session, study_id, "choice_tasks_added", {"path": str(path), "count": added})
    return added


def _tables_and_lm(params: dict) -> tuple[list | None, str | None]:
    """The table and LM paths of a candidate's params: ``inputs`` (``generate`` since provenance by sha256),
    else the older ``tables``/``table`` and ``lm``."""
    inputs = params.get("inputs")
    if isinstance(inputs, dict):
        tables = [t.get("path") or t.get("name") for t in inputs.get("tables") or [] if isinstance(t, dict)]
        lm = inputs.get("lm")
        return tables or None, lm.get("path") if isinstance(lm, dict) else None
    tables = params.get("tables") or ([params["table"]] if params.get("table") else None)
    return tables, params.get("lm")
