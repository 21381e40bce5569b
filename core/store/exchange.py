"""Annotator packages sent out and returned (judgments in from a CSV: :mod:`core.store.judgments_in`).

A package is a standalone SQLite study file with one annotator's
assignments and the items they need (system names left out: judging stays
blind); merging it back brings its judgments in with their full history.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

from sqlalchemy import insert, select, update

from parastudio.core.errors import InputFormatError
from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.error_spans import span_past_the_words
from parastudio.core.store.clock import iso_time, now
from parastudio.core.store.criteria import normalize_value
from parastudio.core.store.database import Database, open_database
from parastudio.core.store.events import log_event
from parastudio.core.store.items import item_key
from parastudio.core.store.judgments_in import MergeReport
from parastudio.core.store.models import (
    Annotator,
    Assignment,
    Base,
    Candidate,
    ChoiceTask,
    Criterion,
    Judgment,
    Study,
)
from parastudio.core.store.sqlite_file import building_sqlite_file
from parastudio.core.store.studies import JUDGING_SETTINGS
from parastudio.core.store.training import TRAINING


def _rows(session, table, where) -> list[dict]:
    return [dict(row._mapping) for row in session.execute(select(table).where(where).order_by(*table.primary_key))]


def export_package(db: Database, study_id: int, annotator_name: str, output: str | os.PathLike, *,
                   inputs=()) -> int:
    """A standalone SQLite study file holding one annotator's assignments, the
    items and criteria they need, and their judgments so far (system names are
    left out: judging stays blind). Returns the number of assignments. ``inputs``: the command's input files
    (the study's own), which ``output`` may not name."""
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
        pair_ids = {r["pair_id"] for r in assignment_rows if r["pair_id"] is not None}
        pair_rows = _rows(session, tables["preference_pair"], tables["preference_pair"].c.id.in_(pair_ids))
        for row in pair_rows:  # blind: which system is on which side stays in the master study
            row.update(left_system=f"left-{row['id']}", right_system=f"right-{row['id']}")
            candidate_ids |= {row["left_candidate_id"], row["right_candidate_id"]}
        candidate_rows = _rows(session, tables["candidate"], tables["candidate"].c.id.in_(candidate_ids))
        # Blind (issue 38): the package says neither which system made what nor which items are planted controls
        # or repeats, as a judge's own login on a server reads neither; merging reads the master's assignments.
        # A training item stays one (issue 44): the judge is told so on its screen, and it counts in no figure of
        # the package either.
        for row in candidate_rows:
            control = row["kind"] not in ("candidate", TRAINING)
            row.update(scores={}, tables=None, lm=None, params=None, control_of=None,
                       kind=TRAINING if row["kind"] == TRAINING else "candidate",
                       derivation=None if control else row["derivation"])
        for row in assignment_rows:
            row.update(kind=TRAINING if row["kind"] == TRAINING else "normal", repeat_of=None, system=None)
        task_ids = {r["choice_task_id"] for r in assignment_rows if r["choice_task_id"] is not None}
        task_rows = _rows(session, tables["choice_task"], tables["choice_task"].c.id.in_(task_ids))
        for row in task_rows:
            row.update(system=None)
        source_ids = {r["source_id"] for r in candidate_rows} | {r["source_id"] for r in task_rows}
        source_rows = _rows(session, tables["source_sentence"], tables["source_sentence"].c.id.in_(source_ids))
    study_rows[0]["settings"] = {**{key: value for key, value in (study_rows[0]["settings"] or {}).items()
                                    if key in JUDGING_SETTINGS},
                                 "package": {"annotator": annotator_name, "exported_at": iso_time(now())}}
    with building_sqlite_file(output, inputs=inputs) as temporary:
        package = open_database(temporary, create=True)
        try:
            with package.engine.begin() as connection:
                connection.exec_driver_sql("PRAGMA defer_foreign_keys=ON")
                for name, rows in (("study", study_rows), ("criterion", criterion_rows),
                                   ("annotator", annotator_rows), ("source_sentence", source_rows),
                                   ("candidate", candidate_rows), ("choice_task", task_rows),
                                   ("preference_pair", pair_rows),
                                   ("assignment", assignment_rows), ("judgment", judgment_rows)):
                    if rows:
                        connection.execute(insert(tables[name]), rows)
                connection.execute(insert(tables["event_log"]), [{
                    "study_id": study_id, "at": now(), "actor": annotator_name, "kind": "package_created",
                    "payload": {"assignments": len(assignment_rows)}}])
        finally:
            package.close()
    with db.transaction() as session:
        log_event(session, study_id, "package_exported", {"annotator": annotator_name, "path": str(output),
                                                      "assignments": len(assignment_rows)})
    return len(assignment_rows)


def _refuse_off_scale(session, package_path, criterion: Criterion, assignment: Assignment, rows) -> None:
    """A package's answer must be one the criterion's scale gives (stored as :func:`normalize_value` stores it):
    another program may have written the file; the row named is the package's judgment row."""
    options = ()
    if assignment.choice_task_id is not None:
        options = session.get(ChoiceTask, assignment.choice_task_id).options or ()
    for row in rows:
        if row.action != "answer":
            continue
        try:
            label, stored_text = normalize_value(criterion, row.value, row.text, options)
            past = None
            if assignment.candidate_id is not None:
                past = span_past_the_words(protocol_of(criterion.scale).marked_spans(stored_text),
                                           session.get(Candidate, assignment.candidate_id).text)
            if past is not None:
                raise ValueError(f"an error span past the candidate's words: {json.dumps(past)}")
        except ValueError as error:
            label, problem = None, str(error)
        else:
            problem = f"criterion {criterion.name!r} stores it as {label!r}"
        if label != row.value:
            raise InputFormatError(str(package_path), row.id, f"an answer on criterion {criterion.name!r}'s scale "
                                   f"in judgment row {row.id} ({problem})", row.value)


def merge_package(db: Database, package_path: str | os.PathLike) -> MergeReport:
    """Bring a returned package's judgments into this (master) study, in one transaction.

    Rows already here (same uid) are skipped. An assignment the master has
    meanwhile answered differently, from another package or another source,
    is a conflict: reported, logged with the package's rows, and left as the
    master has it. Judgments otherwise come in with their full history."""
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
        merging = _PackageMerge(session, study.id, package_path, package_rows)
        for assignment_id, rows in by_assignment.items():
            merging.merge_assignment(assignment_id, rows, package_annotators.get(rows[0].annotator_id))
        report = merging.report
        log_event(session, study.id, "package_merged", {"path": str(package_path), "applied": report.applied,
                                                   "already_present": report.already_present,
                                                   "duplicates": report.duplicates,
                                                   "conflicts": len(report.conflicts)})
    return report


class _PackageMerge:
    """One package merged into the master study in one transaction (:func:`merge_package`), assignment by
    assignment: what the master has of the package's rows (by uid) is known before the first."""

    def __init__(self, session, study_id: int, package_path, package_rows: list[Judgment]) -> None:
        self.session, self.study_id, self.package_path = session, study_id, package_path
        self.report = MergeReport()
        self.master_annotators = dict(session.execute(select(Annotator.name, Annotator.id)
                                                      .where(Annotator.study_id == study_id)).all())
        merged_before = session.execute(select(Judgment.uid, Judgment.id, Judgment.action, Judgment.value,
                                               Judgment.text).where(
            Judgment.uid.in_([r.uid for r in package_rows]))).all() if package_rows else []
        self.known = {uid: judgment_id for uid, judgment_id, *_ in merged_before}
        self.known_answers = {uid: tuple(answer) for uid, _, *answer in merged_before}

    def _conflict(self, conflict: dict, logged: dict | None) -> None:
        self.report.conflicts.append(conflict)
        if logged is not None:
            log_event(self.session, self.study_id, "merge_conflict", {**conflict, **logged})

    def _in_master(self, assignment: Assignment | None, annotator_name: str | None, first: Judgment) -> bool:
        """Whether the package's assignment is the master's: of this study, this annotator, this criterion."""
        return not (assignment is None or assignment.study_id != self.study_id
                    or self.master_annotators.get(annotator_name) != assignment.annotator_id
                    or assignment.criterion_id != first.criterion_id)

    def merge_assignment(self, assignment_id: int, rows: list[Judgment], annotator_name: str | None) -> None:
        """The package's rows of one assignment: skipped when known, a conflict when the master has the
        assignment otherwise, else copied with their history."""
        assignment = self.session.get(Assignment, assignment_id)
        if not self._in_master(assignment, annotator_name, rows[0]):
            self._conflict({"assignment": assignment_id, "annotator": annotator_name,
                            "reason": "assignment not in the master study"}, None)
            return
        criterion = self.session.get(Criterion, assignment.criterion_id)
        _refuse_off_scale(self.session, self.package_path, criterion, assignment, rows)
        item = item_key(assignment.candidate_id, assignment.choice_task_id, assignment.unit, assignment.pair_id)
        known_answers = self.known_answers
        altered = [r for r in rows if r.uid in known_answers and (r.action, r.value, r.text) != known_answers[r.uid]]
        if altered:  # a judgment merged before has another answer now: the package was edited, not judged
            self._conflict({"assignment": assignment_id, "annotator": annotator_name, "item": item,
                            "criterion": criterion.name, "master": known_answers[altered[0].uid][1],
                            "package": altered[0].value, "reason": "altered since it was merged"},
                           {"path": str(self.package_path)})
            return
        new_rows = [r for r in rows if r.uid not in self.known]
        if not new_rows:
            self.report.already_present += len(rows)
            return
        self.report.already_present += len(rows) - len(new_rows)
        package_live = next((r for r in reversed(rows) if r.action == "answer" and r.superseded_by is None),
                            None)
        master_live = (self.session.get(Judgment, assignment.live_judgment_id) if assignment.live_judgment_id
                       else None)
        if master_live is not None and master_live.uid not in {r.uid for r in rows}:
            self._answered_in_master(master_live, package_live, rows, {
                "assignment": assignment_id, "annotator": annotator_name, "item": item,
                "criterion": criterion.name})
            return
        self._copy(assignment, rows, new_rows, package_live)

    def _answered_in_master(self, master_live: Judgment, package_live: Judgment | None, rows: list[Judgment],
                            conflict: dict) -> None:
        """The master answered the assignment itself: the same answer is a duplicate, another a conflict
        logged with the package's rows."""
        if package_live is not None and (package_live.value, package_live.text) == (master_live.value,
                                                                                     master_live.text):
            self.report.duplicates += 1
            return
        self._conflict({**conflict, "master": master_live.value,
                        "package": package_live.value if package_live else None, "reason": "judged differently"},
                       {"path": str(self.package_path),
                        "rows": [{"uid": r.uid, "action": r.action, "value": r.value, "text": r.text,
                                  "answered_at": iso_time(r.answered_at), "comment": r.comment, "flag": r.flag}
                                 for r in rows]})

    def _copy(self, assignment: Assignment, rows: list[Judgment], new_rows: list[Judgment],
              package_live: Judgment | None) -> None:
        """The package's new rows as the master's, their supersedes links mapped onto the master's ids."""
        id_map = {r.id: self.known[r.uid] for r in rows if r.uid in self.known}
        for r in new_rows:
            judgment = Judgment(uid=r.uid, study_id=self.study_id, assignment_id=assignment.id,
                                annotator_id=assignment.annotator_id, candidate_id=assignment.candidate_id,
                                choice_task_id=assignment.choice_task_id, criterion_id=assignment.criterion_id,
                                unit=assignment.unit, pair_id=assignment.pair_id, action=r.action, value=r.value,
                                text=r.text, started_at=r.started_at, answered_at=r.answered_at,
                                duration_ms=r.duration_ms, comment=r.comment, flag=r.flag,
                                supersedes=id_map.get(r.supersedes), origin="merge")
            self.session.add(judgment)
            self.session.flush()
            id_map[r.id] = judgment.id
            self.known[r.uid] = judgment.id
        for r in rows:
            if r.superseded_by is not None and id_map.get(r.superseded_by) is not None:
                self.session.execute(update(Judgment).where(Judgment.id == id_map[r.id])
                                     .values(superseded_by=id_map[r.superseded_by]))
        assignment.live_judgment_id = id_map[package_live.id] if package_live is not None else None
        self.report.applied += sum(1 for r in new_rows if r.action == "answer")
