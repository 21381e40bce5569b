"""Judgments in from elsewhere: a long-format CSV, and annotator packages sent out and returned.

A package is a standalone SQLite study file with one annotator's
assignments and the items they need (system names left out: judging stays
blind); merging it back brings its judgments in with their full history.
"""

from __future__ import annotations

import json
import os
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from sqlalchemy import insert, select, update

from parastudio.core.errors import BadNameError, InputFormatError
from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.error_spans import parse_spans, span_past_the_words
from parastudio.core.judging.protocols.protocol import PAIR
from parastudio.core.store.assignment import next_free_positions
from parastudio.core.store.clock import duration_ms, iso_time, now, parse_time
from parastudio.core.store.criteria import normalize_value
from parastudio.core.store.database import Database, open_database
from parastudio.core.store.events import log_event
from parastudio.core.store.items import item_key, parse_pair_key, parse_unit_item_key
from parastudio.core.store.models import (
    Annotator,
    Assignment,
    Base,
    Candidate,
    ChoiceTask,
    Criterion,
    Judgment,
    PreferencePair,
    Study,
)
from parastudio.core.store.sqlite_file import building_sqlite_file
from parastudio.core.store.studies import JUDGING_SETTINGS, annotator_in
from parastudio.core.textio import read_csv


@dataclass
class MergeReport:
    applied: int = 0
    already_present: int = 0
    duplicates: int = 0
    conflicts: list[dict] = field(default_factory=list)


def import_judgments_csv(db: Database, study_id: int, path: str | os.PathLike) -> MergeReport:
    """Judgments gathered elsewhere, long format with header ``item,annotator,
    criterion,value`` (optional ``text, comment, flag, started_at,
    answered_at, kind``). One transaction: a bad line imports nothing. An item
    already judged by that annotator on that criterion with another value is
    reported as a conflict and left as it was.

    Planted controls and repeats keep their role: a judgment of a control item
    goes to a control assignment, and a row of ``kind`` ``repeat`` (as
    ``export-judgments --include-qc`` writes it) to a repeat of the
    annotator's judgment of that item, so no statistic counts either."""
    records = read_csv(path)
    with db.transaction() as session:
        header_line, header = next(records, (1, []))
        header = [h.strip() for h in header]
        if not {"item", "annotator", "criterion", "value"} <= set(header):
            raise InputFormatError(path, header_line, "a header with columns item, annotator, criterion, value",
                                   ",".join(header))
        reading = _JudgmentsCsv(session, study_id, path)
        for number, cells in records:
            if cells:
                reading.bring_in(reading.answer(number, cells, header))
        report = reading.report
        log_event(session, study_id, "judgments_imported", {"path": str(path), "applied": report.applied,
                                                        "duplicates": report.duplicates,
                                                        "conflicts": len(report.conflicts)})
    return report


@dataclass
class _CsvAnswer:
    """One row of a judgments CSV, checked: the item (one of candidate, choice task, preference pair; ``unit``:
    a candidate's unit replacement), the criterion, the role of the assignment, who answered, and the answer as
    the store keeps it."""

    number: int
    row: dict
    candidate_id: int | None
    task_id: int | None
    unit: int | None
    pair_id: int | None
    criterion: Criterion
    role: str  # normal, repeat or control
    label: str
    stored_text: str | None
    started_at: datetime | None
    answered_at: datetime
    recorded: str  # the row's duration_ms, "" when not given
    name: str
    annotator_id: int


class _JudgmentsCsv:
    """One import of a judgments CSV into one study, row by row in one transaction (:func:`import_judgments_csv`):
    each row is checked, in the order its columns are read, before anything of it is stored."""

    def __init__(self, session, study_id: int, path) -> None:
        self.session, self.study_id, self.path = session, study_id, path
        self.report = MergeReport()
        self.criteria = {c.name: c for c in session.scalars(select(Criterion).where(Criterion.study_id == study_id))}
        self.annotators = dict(session.execute(select(Annotator.name, Annotator.id)
                                               .where(Annotator.study_id == study_id)).all())
        self.positions = next_free_positions(session, study_id)

    def _refuse(self, number: int, expected: str, found) -> InputFormatError:
        return InputFormatError(self.path, number, expected, found)

    def answer(self, number: int, cells: list[str], header: list[str]) -> _CsvAnswer:
        if any(cell.strip() for cell in cells[len(header):]):  # a value under no column: dropped, it changes the row
            raise self._refuse(number, f"at most {len(header)} fields (the header's columns) with a value",
                               ",".join(cells)[:120])
        # As csv.DictReader reads a row: a missing column is None.
        row = {name: cells[index] if index < len(cells) else None for index, name in enumerate(header)}
        candidate_id, task_id, unit, pair_id = self._item(number, row)
        criterion = self.criteria.get((row["criterion"] or "").strip())
        if criterion is None:
            raise self._refuse(number, f"a criterion among {', '.join(self.criteria)}", row["criterion"])
        if (pair_id is not None) != (protocol_of(criterion.scale).item == PAIR):
            raise self._refuse(number, "a pair-N item for a preference criterion, and only there",
                               f"{row['item']} judged on {criterion.name}")
        exists = self._item_of_study(number, row, candidate_id, task_id, pair_id)
        role = self._role(number, row, "control" if candidate_id is not None and exists.kind == "control"
                          else "normal")
        label, stored_text, answered_at, started_at = self._value(number, row, criterion, exists,
                                                                  exists.options if task_id is not None else (),
                                                                  candidate_id is not None)
        recorded = (row.get("duration_ms") or "").strip()  # the screen's clock, paused while away
        if recorded and not (recorded.isascii() and recorded.isdigit()):
            raise self._refuse(number, "duration_ms in whole milliseconds >= 0", recorded)
        name, annotator_id = self._annotator(number, row)
        return _CsvAnswer(number, row, candidate_id, task_id, unit, pair_id, criterion, role, label, stored_text,
                          started_at, answered_at, recorded, name, annotator_id)

    def _item(self, number: int, row: dict) -> tuple[int | None, int | None, int | None, int | None]:
        try:
            pair_id = parse_pair_key(row["item"] or "")
            candidate_id, task_id, unit = (None, None, None) if pair_id is not None else \
                parse_unit_item_key(row["item"] or "")
        except ValueError:
            raise self._refuse(number, "an item id (a candidate id, N.u for its unit replacement u, "
                               "choice-N or pair-N)", row["item"]) from None
        return candidate_id, task_id, unit, pair_id

    def _item_of_study(self, number: int, row: dict, candidate_id: int | None, task_id: int | None,
                       pair_id: int | None):
        """The candidate, choice task or preference pair the row names, which must be of this study."""
        exists = (self.session.get(Candidate, candidate_id) if candidate_id is not None
                  else self.session.get(PreferencePair, pair_id) if pair_id is not None
                  else self.session.get(ChoiceTask, task_id))
        if exists is None or exists.study_id != self.study_id:
            raise self._refuse(number, "an item of this study", row["item"])
        return exists

    def _role(self, number: int, row: dict, role: str) -> str:
        """The row's ``kind`` against the item's own role: a planted control is always one."""
        stated = (row.get("kind") or "").strip().lower()
        if stated not in ("", "normal", "repeat", "control") or (stated == "control" and role != "control") \
                or (role == "control" and stated in ("normal", "repeat")):
            raise self._refuse(number, "kind normal or repeat, or control for a planted control item "
                               "(which is always one)", row.get("kind"))
        return "repeat" if stated == "repeat" else role

    def _value(self, number: int, row: dict, criterion: Criterion, item, options, of_candidate: bool):
        """The answer as stored, and when it was given (and started)."""
        try:
            label, stored_text = normalize_value(criterion, row["value"] or "", row.get("text") or None, options)
            answered_at = parse_time(row.get("answered_at")) or now()
            started_at = parse_time(row.get("started_at"))
        except ValueError as error:
            raise self._refuse(number, str(error), row["value"]) from None
        if protocol_of(criterion.scale).view == "spans" and of_candidate:
            past = span_past_the_words(parse_spans(stored_text), item.text)
            if past is not None:
                raise self._refuse(number, f"error spans within the candidate's {len(item.text.split())} words",
                                   json.dumps(past))
        return label, stored_text, answered_at, started_at

    def _annotator(self, number: int, row: dict) -> tuple[str, int]:
        """The annotator's name and id, added to the study when new."""
        name = (row["annotator"] or "").strip()
        if not name:
            raise self._refuse(number, "an annotator name", row["annotator"])
        if name not in self.annotators:
            try:
                self.annotators[name] = annotator_in(self.session, self.study_id, name)
            except BadNameError as error:
                raise self._refuse(number, "an annotator name (one spelling, nothing invisible)",
                                   str(error)) from None
        return name, self.annotators[name]

    def _assignment(self, answer: _CsvAnswer) -> Assignment:
        """The annotator's assignment of the item in the answer's role, added after their last when there is
        none (a repeat only of an item they judged)."""
        same_item = ((Assignment.candidate_id == answer.candidate_id) if answer.candidate_id is not None
                     else (Assignment.pair_id == answer.pair_id) if answer.pair_id is not None
                     else (Assignment.choice_task_id == answer.task_id))
        same_item = same_item & (Assignment.unit.is_(None) if answer.unit is None else Assignment.unit == answer.unit)
        mine = select(Assignment).where(Assignment.annotator_id == answer.annotator_id,
                                        Assignment.criterion_id == answer.criterion.id, same_item)
        repeat_of = None
        if answer.role == "repeat":
            repeat_of = self.session.scalar(mine.where(Assignment.kind == "normal"))
            if repeat_of is None:
                raise self._refuse(answer.number, "a repeat of an item this annotator judged (its normal "
                                   "judgment first)", answer.row["item"])
            assignment = self.session.scalar(mine.where(Assignment.kind == "repeat",
                                                        Assignment.live_judgment_id.is_(None)))
        else:
            assignment = self.session.scalar(mine.where(Assignment.kind == answer.role))
        if assignment is None:
            position = self.positions.get(answer.annotator_id, 0)
            self.positions[answer.annotator_id] = position + 1
            assignment = Assignment(study_id=self.study_id, annotator_id=answer.annotator_id,
                                    candidate_id=answer.candidate_id, choice_task_id=answer.task_id,
                                    criterion_id=answer.criterion.id, position=position, unit=answer.unit,
                                    pair_id=answer.pair_id, kind=answer.role,
                                    repeat_of=repeat_of.id if repeat_of is not None else None)
            self.session.add(assignment)
            self.session.flush()
        return assignment

    def bring_in(self, answer: _CsvAnswer) -> None:
        """The answer as a new judgment, or counted as a duplicate, or reported as a conflict when the
        assignment has another live answer."""
        assignment = self._assignment(answer)
        row = answer.row
        if assignment.live_judgment_id is not None:
            live = self.session.get(Judgment, assignment.live_judgment_id)
            if live.value == answer.label and live.text == answer.stored_text:
                self.report.duplicates += 1
            else:
                conflict = {"line": answer.number, "item": row["item"], "annotator": answer.name,
                            "criterion": answer.criterion.name, "present": live.value, "imported": answer.label}
                self.report.conflicts.append(conflict)
                log_event(self.session, self.study_id, "import_conflict",
                          {"path": str(self.path), **conflict, "row": row})
            return
        flag = str(row.get("flag") or "").strip().lower() in ("1", "true", "yes")
        duration = duration_ms(answer.started_at, answer.answered_at,
                               recorded=int(answer.recorded) if answer.recorded else None)
        judgment = Judgment(uid=str(uuid.uuid4()), study_id=self.study_id, assignment_id=assignment.id,
                            annotator_id=answer.annotator_id, candidate_id=answer.candidate_id,
                            choice_task_id=answer.task_id, criterion_id=answer.criterion.id, unit=answer.unit,
                            pair_id=answer.pair_id, action="answer", value=answer.label, text=answer.stored_text,
                            started_at=answer.started_at, answered_at=answer.answered_at, duration_ms=duration,
                            comment=row.get("comment") or None, flag=flag, origin="import")
        self.session.add(judgment)
        self.session.flush()
        assignment.live_judgment_id = judgment.id
        self.report.applied += 1


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
        for row in candidate_rows:
            control = row["kind"] != "candidate"
            row.update(scores={}, tables=None, lm=None, params=None, kind="candidate", control_of=None,
                       derivation=None if control else row["derivation"])
        for row in assignment_rows:
            row.update(kind="normal", repeat_of=None)
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
            if protocol_of(criterion.scale).view == "spans" and assignment.candidate_id is not None:
                past = span_past_the_words(parse_spans(stored_text),
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
