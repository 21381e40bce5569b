"""Candidates and choice tasks into a study (read by :mod:`core.store.candidate_files`), crediting a string to every
system that made it."""

from __future__ import annotations

import json
import unicodedata
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Iterable, Iterator

from sqlalchemy import insert, select, update

from parastudio.core.errors import BadNameError, InputFormatError
from parastudio.core.person_names import clean_name, look_alike
from parastudio.core.progress import Progress, no_progress
from parastudio.core.store.candidate_files import CandidateRow, derivation_problem
from parastudio.core.store.database import Database
from parastudio.core.store.events import log_event
from parastudio.core.store.models import Candidate, CandidateSystem, ChoiceTask, SourceSentence, System


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
    with db.transaction() as session:
        known_sources = session.execute(select(SourceSentence.external_id, SourceSentence.id, SourceSentence.text)
                                        .where(SourceSentence.study_id == study_id)).all()
        source_ids = {external_id: source_id for external_id, source_id, _ in known_sources}
        first_sources = {external_id: (text, "in the study") for external_id, _, text in known_sources}
        system_ids = dict(session.execute(select(System.name, System.id).where(System.study_id == study_id)).all())
        crediting = _Crediting(session, study_id)
        rows = list(_counted(rows, progress))
        _refuse_second_sources(rows, first_sources, path)
        new_sources = _new_sources(study_id, rows, source_ids, sources or {}, references or {}, displays or {},
                                   test_set, path)
        if new_sources:
            new_ids = session.scalars(insert(SourceSentence).returning(SourceSentence.id, sort_by_parameter_order=True),
                                      list(new_sources.values())).all()
            source_ids.update(zip(new_sources, new_ids))
        report.sources_added = len(new_sources)
        source_texts = {key: value["text"] for key, value in new_sources.items()}
        _check_derivations(session, study_id, rows, source_texts, path)
        for row in rows:
            report.rows += 1
            if row.system not in system_ids:
                system_ids[row.system] = _new_system(session, study_id, row, system_ids, path)
            crediting.credit(row, source_ids[row.sentence_id], system_ids[row.system], report)
        report.candidates_added = crediting.insert_candidates()
        crediting.insert_links({v: k for k, v in system_ids.items()})
        report.systems = sorted({row.system for _t, _s, row in crediting.links})
        log_event(session, study_id, "candidates_imported", {"path": str(path), **asdict(report)})
    return report


def _counted(rows: Iterable[CandidateRow], progress: Progress) -> Iterator[CandidateRow]:
    for number, row in enumerate(rows, 1):
        if number % 1000 == 0:
            progress(number, None, "reading candidates")
        yield row


def _new_sources(study_id: int, rows: list[CandidateRow], source_ids: dict[str, int], sources: dict[str, str],
                 references: dict[str, list[str]], displays: dict[str, str], test_set: str | None,
                 path: str) -> dict[str, dict]:
    """The rows of the source sentences the study lacks, by sentence id: a row's own source, else ``sources``'."""
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
            "references": row.references or references.get(row.sentence_id) or [],
            "display": displays.get(row.sentence_id)}
    return new_sources


def _new_system(session, study_id: int, row: CandidateRow, system_ids: dict[str, int], path: str) -> int:
    """A system the study lacks, added; its name one spelling, no look-alikes, nothing invisible
    (:mod:`core.person_names`)."""
    try:
        if clean_name(row.system, "system name") != row.system:
            raise BadNameError(f"system name {ascii(row.system)} is not in its composed form (NFC) or "
                               "has spaces around it")
        similar = look_alike(row.system, system_ids)
        if similar is not None:
            raise BadNameError(f"system name {ascii(row.system)} reads as the system {ascii(similar)}")
    except BadNameError as error:
        raise InputFormatError(path, row.line, "a system name that names one system", str(error)) from None
    system = System(study_id=study_id, name=row.system)
    session.add(system)
    session.flush()
    return system.id


class _Crediting:
    """Which candidate each row's string is, one import long: a candidate of the study (by id), or one this
    import adds (by its (source, NFC text) key until inserted), each credited once per system."""

    def __init__(self, session, study_id: int) -> None:
        self.session, self.study_id = session, study_id
        # A string is one candidate in whichever Unicode form it came (NFC and NFD "café" are the same text).
        self.candidate_ids = {(s, unicodedata.normalize("NFC", t)): i for i, s, t in session.execute(
            select(Candidate.id, Candidate.source_id, Candidate.text)
            .where(Candidate.study_id == study_id, Candidate.kind == "candidate"))}
        self.credited = set(session.execute(select(CandidateSystem.candidate_id, CandidateSystem.system_id)
                                            .join(Candidate).where(Candidate.study_id == study_id)).all())
        self.new_candidates: list[dict] = []
        self.links: list[tuple[tuple[int, str] | int, int, CandidateRow]] = []
        self.pending: dict[tuple[int, str], int] = {}

    def credit(self, row: CandidateRow, source_id: int, system_id: int, report: ImportReport) -> None:
        """The row's string credited to its system: a new candidate, or one already here or earlier in the
        import (counted in ``report``)."""
        key = (source_id, unicodedata.normalize("NFC", row.text))
        params = row.params if isinstance(row.params, dict) else None
        if key in self.candidate_ids or key in self.pending:
            target: tuple[int, str] | int = self.candidate_ids[key] if key in self.candidate_ids else key
            if (target, system_id) in self.credited:
                report.already_present += 1
                return
            report.credited_to_existing += 1
        else:
            self.pending[key] = len(self.new_candidates)
            tables, lm = None, None
            if params:
                tables, lm = _tables_and_lm(params)
            self.new_candidates.append({
                "study_id": self.study_id, "source_id": source_id, "text": row.text, "kind": "candidate",
                "scores": {}, "derivation": row.derivation, "tables": tables,
                "lm": lm, "params": params})
            target = key
        self.credited.add((target, system_id))
        self.links.append((target, system_id, row))
        if isinstance(target, tuple):  # new here: its scores go in with the insert
            self.new_candidates[self.pending[target]]["scores"][row.system] = {
                "rank": row.rank, "model_score": row.model_score, "true_score": row.true_score}

    def insert_candidates(self) -> int:
        """The new candidates inserted (their ids known from then on); returns how many."""
        if self.new_candidates:
            # insertmanyvalues with RETURNING: one round trip per batch, ids in input order.
            new_ids = self.session.scalars(insert(Candidate).returning(Candidate.id, sort_by_parameter_order=True),
                                           self.new_candidates).all()
            for key, index in self.pending.items():
                self.candidate_ids[key] = new_ids[index]
        return len(self.new_candidates)

    def insert_links(self, system_names: dict[int, str]) -> None:
        """One candidate_system row per credit; a candidate from an earlier import gets the new systems'
        scores beside those of its other systems."""
        link_rows = []
        score_updates: dict[int, dict] = defaultdict(dict)
        for target, system_id, row in self.links:
            candidate_id = self.candidate_ids[target] if isinstance(target, tuple) else target
            link_rows.append({"candidate_id": candidate_id, "system_id": system_id, "rank": row.rank,
                              "model_score": row.model_score, "true_score": row.true_score,
                              "derivation": row.derivation, "params": row.params})
            if not isinstance(target, tuple):
                score_updates[candidate_id][system_names[system_id]] = {
                    "rank": row.rank, "model_score": row.model_score, "true_score": row.true_score}
        if link_rows:
            self.session.execute(insert(CandidateSystem.__table__), link_rows)
        earlier = sorted(score_updates)
        existing_scores: dict[int, dict] = {}
        for start in range(0, len(earlier), 500):
            existing_scores.update(self.session.execute(select(Candidate.id, Candidate.scores)
                                                        .where(Candidate.id.in_(earlier[start:start + 500]))).all())
        if score_updates:
            self.session.execute(update(Candidate), [
                {"id": cid, "scores": {**(existing_scores.get(cid) or {}), **scores}}
                for cid, scores in score_updates.items()])


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
