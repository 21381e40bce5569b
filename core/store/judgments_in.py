"""Judgments in from elsewhere, one transaction per file: a judgments CSV in long format
(:func:`import_judgments_csv`), or rows another reader made of its own format (:func:`import_judgment_rows`, an
MQM file's ratings), each row checked as a CSV row is. Planted controls and repeats keep their role."""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select

from parastudio.core.errors import BadNameError, InputFormatError
from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.error_spans import span_past_the_words
from parastudio.core.judging.protocols.protocol import PAIR
from parastudio.core.store.assignment import next_free_positions
from parastudio.core.store.clock import duration_ms, now, parse_time
from parastudio.core.store.criteria import normalize_value
from parastudio.core.store.database import Database
from parastudio.core.store.events import log_event
from parastudio.core.store.items import parse_pair_key, parse_unit_item_key
from parastudio.core.store.models import (
    Annotator,
    Assignment,
    Candidate,
    CandidateSystem,
    ChoiceTask,
    Criterion,
    Judgment,
    PreferencePair,
    System,
)
from parastudio.core.store.studies import annotator_in
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
    answered_at, kind, output_of``). One transaction: a bad line imports nothing. An item
    already judged by that annotator on that criterion with another value is
    reported as a conflict and left as it was.

    Planted controls and repeats keep their role: a judgment of a control item
    goes to a control assignment, and a row of ``kind`` ``repeat`` (as
    ``export-judgments --include-qc`` writes it) to a repeat of the
    annotator's judgment of that item, so no statistic counts either.

    ``output_of`` names the system whose output the judge rated, for a study that rates each system's output
    apart (an MQM import: each output read in its own document; the assignment's ``system``): the candidate must
    be that system's, and the judgment counts for it alone. Empty: the candidate's judgment counts for every
    system that produced it."""
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


def import_judgment_rows(db: Database, study_id: int, path: str | os.PathLike, rows) -> MergeReport:
    """Judgments read from another format (``rows``: ``(line, {column: cell})``, the columns of
    :func:`import_judgments_csv`), brought in exactly as a judgments CSV's rows are, in one transaction."""
    with db.transaction() as session:
        reading = _JudgmentsCsv(session, study_id, path)
        for number, row in rows:
            reading.bring_in(reading.answer_of_row(number, row))
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
    system: str | None = None  # output_of: the one system whose output was rated


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
        self.producers: set[tuple[int, str]] | None = None  # (candidate, system), read when output_of is first met

    def _refuse(self, number: int, expected: str, found) -> InputFormatError:
        return InputFormatError(self.path, number, expected, found)

    def answer(self, number: int, cells: list[str], header: list[str]) -> _CsvAnswer:
        if any(cell.strip() for cell in cells[len(header):]):  # a value under no column: dropped, it changes the row
            raise self._refuse(number, f"at most {len(header)} fields (the header's columns) with a value",
                               ",".join(cells)[:120])
        # As csv.DictReader reads a row: a missing column is None.
        return self.answer_of_row(number, {name: cells[index] if index < len(cells) else None
                                           for index, name in enumerate(header)})

    def answer_of_row(self, number: int, row: dict) -> _CsvAnswer:
        """One row (column -> cell, None for a missing column) checked as :func:`import_judgments_csv` reads it."""
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
                          started_at, answered_at, recorded, name, annotator_id,
                          self._output_of(number, row, candidate_id))

    def _output_of(self, number: int, row: dict, candidate_id: int | None) -> str | None:
        """The system named by ``output_of``, which must have produced the candidate; None when not given."""
        name = (row.get("output_of") or "").strip()
        if not name:
            return None
        if candidate_id is not None and self.producers is None:
            self.producers = {(c, n) for c, n in self.session.execute(
                select(CandidateSystem.candidate_id, System.name).join(System)
                .where(System.study_id == self.study_id))}
        if candidate_id is None or (candidate_id, name) not in self.producers:
            raise self._refuse(number, "output_of naming a system that produced the candidate", name)
        return name

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
        if of_candidate:
            past = span_past_the_words(protocol_of(criterion.scale).marked_spans(stored_text), item.text)
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
        same_item = same_item & (Assignment.system.is_(None) if answer.system is None
                                 else Assignment.system == answer.system)
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
                                    pair_id=answer.pair_id, kind=answer.role, system=answer.system,
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
