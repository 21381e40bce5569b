"""Human judgments and system scores in memory, read from long-format CSV.

Judgments CSV (header required, any column order, extra columns ignored)::

    item,annotator,criterion,value[,system][,systems][,application][,sentence][,levels][,scale]

one judgment per row; values stay strings ("yes", "3", "3.0" are three
labels). ``systems`` lists every system that produced the judged candidate,
separated by ``;`` (a string two systems produced is judged once and counts
for both); ``system`` alone names one. ``sentence`` is the source sentence
the item paraphrases: systems are compared sentence by sentence. ``scale``
names the criterion's scale as the study does: ``da`` and ``esa`` mark a
0-100 score, read as a direct assessment (an older export without the column
marks one by its ``z`` cells). Scores CSV::

    item,system,score

one numeric score per item and system. Every bad line is reported as
``file:line: expected ...``. Annotator and system names follow the study's rules
(:mod:`core.person_names`): taken in their composed form, refused when they hold an
invisible, direction or control character or when two spellings of a file read as one
name, so a CSV counts the people its study counts. The study store builds the same
:class:`JudgmentRecords` with :meth:`JudgmentRecords.from_columns`.

A *unit* is what annotators judge: the item alone, or, when the file has
``system`` or ``application`` columns, the triple (application, system, item),
since the same source item is usually judged once per system.

Per-system figures read :meth:`JudgmentRecords.per_system`, where a judgment
of a candidate made by k systems appears once for each of them; agreement
reads the records as they are, so a judgment counts once.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from parastudio.core.errors import BadNameError, InputFormatError
from parastudio.core.judging.protocols import scales_where
from parastudio.core.judging.protocols.protocol import SCORE
from parastudio.core.number_text import ASCII_SPACE, parse_decimal
from parastudio.core.person_names import LookAlikeNameError, NameCharacterError, Spellings
from parastudio.core.stats.agreement import DuplicateJudgmentError, RatingMatrix
from parastudio.core.textio import read_csv
from parastudio.core.vocabulary import DA_HIGHEST, DA_LOWEST

JUDGMENT_COLUMNS = ("item", "annotator", "criterion", "value")
# "levels": the criterion's scale, its labels in order separated by ";" (as `study export-judgments` writes it).
# The source sentence: "source_key" and "sentence_id" (study export-judgments), "sentence" in older exports.
SENTENCE_COLUMNS = ("source_key", "sentence_id", "sentence")
# "scale": the criterion's scale by name (study export-judgments); "z": a score standardized per judge, written for
# 0-100 scores only, so an older export without "scale" still tells a direct assessment by it.
OPTIONAL_JUDGMENT_COLUMNS = ("system", "systems", "application", *SENTENCE_COLUMNS, "levels", "scale", "z")
SYSTEMS_SEPARATOR = ";"
SCORE_COLUMNS = ("item", "system", "score")


@dataclass(frozen=True)
class JudgmentRecords:
    """Judgments as parallel columns (one entry per judgment, in judging order)."""

    items: list[str]
    annotators: list[str]
    criteria: list[str]
    values: list[str]
    systems: list[str] | None = None
    applications: list[str] | None = None
    line_numbers: list[int] | None = None
    source: str | None = None
    # Every system that produced the judged candidate (``systems`` holds one of them).
    producers: list[tuple[str, ...]] | None = None
    # The source sentence each item paraphrases (the unit systems are paired on).
    sentences: list[str] | None = None
    # Criterion -> the labels of its scale in order, where the study knows them.
    scales: dict[str, tuple[str, ...]] | None = None
    # The criteria answered with a 0-100 score (direct assessment, ESA), where the origin says so.
    scored: frozenset[str] | None = None
    # Criterion -> the name of its scale (a judgments CSV's ``scale`` column), where the origin says so.
    scale_names: dict[str, str] | None = None

    @classmethod
    def from_columns(
        cls,
        items: Sequence[str],
        annotators: Sequence[str],
        criteria: Sequence[str],
        values: Sequence[str],
        systems: Sequence[str] | None = None,
        applications: Sequence[str] | None = None,
        *,
        producers: Sequence[Sequence[str]] | None = None,
        sentences: Sequence[str] | None = None,
        scales: dict[str, Sequence[str]] | None = None,
        scored: Iterable[str] | None = None,
    ) -> "JudgmentRecords":
        columns = [list(items), list(annotators), list(criteria), [str(v) for v in values]]
        optional = [None if column is None else list(column) for column in (systems, applications)]
        produced = None if producers is None else [tuple(p) for p in producers]
        sentence_column = None if sentences is None else [str(s) for s in sentences]
        lengths = {len(column) for column in columns + [c for c in (*optional, produced, sentence_column)
                                                         if c is not None]}
        if len(lengths) > 1:
            raise ValueError("all judgment columns must have the same length")
        if produced is not None and optional[0] is None:
            optional[0] = [p[0] if p else "-" for p in produced]
        return cls(*columns, *optional, producers=produced, sentences=sentence_column,
                   scales=None if scales is None else {name: tuple(labels) for name, labels in scales.items()},
                   scored=None if scored is None else frozenset(scored))

    def __len__(self) -> int:
        return len(self.items)

    @property
    def has_units_beyond_items(self) -> bool:
        return self.systems is not None or self.applications is not None

    def criterion_names(self) -> list[str]:
        return list(dict.fromkeys(self.criteria))

    def system_names(self) -> list[str]:
        if self.producers is not None:
            return list(dict.fromkeys(system for produced in self.producers for system in produced))
        return list(dict.fromkeys(self.systems)) if self.systems is not None else []

    def per_system(self) -> "JudgmentRecords":
        """Every judgment once for each system that produced its candidate (``systems`` = that system).

        The form every per-system table, plot and test reads: a string made by
        two systems is judged once and credited to both.
        """
        if self.producers is None or all(len(p) <= 1 for p in self.producers):
            return self
        keep, systems = [], []
        for i, produced in enumerate(self.producers):
            for system in produced or (self.systems[i],):
                keep.append(i)
                systems.append(system)
        exploded = self._take(keep)
        return JudgmentRecords(**{**exploded.__dict__, "systems": systems,
                                  "producers": [(system,) for system in systems]})

    def scale_of(self, criterion: str) -> tuple[str, ...] | None:
        """The labels of the criterion's scale, when the records' origin knows it."""
        return (self.scales or {}).get(criterion)

    def scored_criteria(self) -> list[str]:
        """The criteria answered with a 0-100 score, in the records' order."""
        return [name for name in self.criterion_names() if name in (self.scored or ())]

    def application_names(self) -> list[str]:
        return list(dict.fromkeys(self.applications)) if self.applications is not None else []

    def annotator_names(self) -> list[str]:
        return list(dict.fromkeys(self.annotators))

    def units(self) -> list:
        """The unit key of every judgment (see the module docstring)."""
        if not self.has_units_beyond_items:
            return self.items
        systems = self.systems if self.systems is not None else [""] * len(self)
        applications = self.applications if self.applications is not None else [""] * len(self)
        return list(zip(applications, systems, self.items))

    def select(
        self,
        *,
        criterion: str | None = None,
        system: str | None = None,
        application: str | None = None,
    ) -> "JudgmentRecords":
        """The judgments matching every given field."""
        tests = []
        if criterion is not None:
            tests.append((self.criteria, criterion))
        if system is not None:
            tests.append((self.systems or [], system))
        if application is not None:
            tests.append((self.applications or [], application))
        if not tests:
            return self
        if len(tests) == 1:  # the common case, kept fast for a million judgments
            column, wanted = tests[0]
            keep = [i for i, value in enumerate(column) if value == wanted]
        else:
            keep = [i for i in range(len(self)) if all(column[i] == wanted for column, wanted in tests)]
        return self._take(keep)

    def select_criteria(self, names: Iterable[str]) -> "JudgmentRecords":
        """The judgments of any of the given criteria."""
        wanted = set(names)
        keep = [i for i, criterion in enumerate(self.criteria) if criterion in wanted]
        return self._take(keep)

    def _take(self, keep: list[int]) -> "JudgmentRecords":
        def take(column):
            return None if column is None else [column[i] for i in keep]

        return JudgmentRecords(
            items=take(self.items),
            annotators=take(self.annotators),
            criteria=take(self.criteria),
            values=take(self.values),
            systems=take(self.systems),
            applications=take(self.applications),
            line_numbers=take(self.line_numbers),
            source=self.source,
            producers=take(self.producers),
            sentences=take(self.sentences),
            scales=self.scales,
            scored=self.scored,
        )

    def rating_matrix(self, criterion: str | None = None, categories: Sequence[str] | None = None) -> RatingMatrix:
        """Units x annotators matrix of one criterion (all judgments if ``None``).

        Two judgments of the same unit, annotator and criterion are an input
        error naming both lines.
        """
        chosen = self.select(criterion=criterion) if criterion is not None else self
        if criterion is None and len(set(chosen.criteria)) > 1:
            raise ValueError("rating_matrix needs a criterion when the records hold several")
        try:
            return RatingMatrix.from_judgments(chosen.units(), chosen.annotators, chosen.values, categories)
        except DuplicateJudgmentError as error:
            first, second = error.rows
            if chosen.line_numbers is None:
                raise
            raise InputFormatError(
                chosen.source or "<judgments>",
                chosen.line_numbers[second],
                f"one judgment per item, annotator and criterion (line {chosen.line_numbers[first]} already judges it)",
                got=",".join((chosen.items[second], chosen.annotators[second], chosen.criteria[second], chosen.values[second])),
            ) from None


_HEADER_WIDTH = "\0width"  # how many columns the header names, beside the positions _read_header returns


def _read_header(rows, path: str, required: Sequence[str], optional: Sequence[str] = ()) -> dict[str, int]:
    line_number = 0
    for line_number, row in rows:
        if not row or all(not cell.strip() for cell in row):
            continue
        names = [cell.strip().lower() for cell in row]
        missing = [name for name in required if name not in names]
        if missing:
            expected = "a header with columns " + ",".join(required)
            if optional:
                expected += " (optional: " + ",".join(optional) + ")"
            raise InputFormatError(path, line_number, expected, got=",".join(row))
        return {name: names.index(name) for name in list(required) + [o for o in optional if o in names]} \
            | {_HEADER_WIDTH: len(names)}
    raise InputFormatError(path, max(line_number, 1), "a header with columns " + ",".join(required),
                           got="an empty file")


def _rows(path: str, required: Sequence[str], optional: Sequence[str] = ()):
    """Yield (line_number, {column: stripped value}) for every non-blank row."""
    rows = read_csv(path)
    positions = _read_header(rows, path, required, optional)
    header_width = positions.pop(_HEADER_WIDTH)
    width = max(positions.values()) + 1
    for line_number, row in rows:
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        if len(row) < width:
            raise InputFormatError(path, line_number, f"at least {width} comma-separated fields", got=",".join(row))
        if len(row) > header_width and any(cell.strip() for cell in row[header_width:]):
            # A value under no column name (a comma inside an unquoted name): dropped, it would change the row.
            raise InputFormatError(path, line_number, f"at most {header_width} fields (the header's columns) with "
                                   "a value", got=",".join(row)[:120])
        # ASCII white space only: a number after a no-break space is not a number (core.number_text).
        fields = {name: row[position].strip(ASCII_SPACE) for name, position in positions.items()}
        for name in required:
            if not fields[name]:
                raise InputFormatError(path, line_number, f"a non-empty {name!r} field", got=",".join(row))
        yield line_number, fields


def _named(spellings: Spellings, path: str, line_number: int, column: str, name: str) -> str:
    """``name`` of the ``column`` as the study would store it; the line refused when it cannot be one."""
    expected = f"a name in the {column!r} column"
    try:
        return spellings.take(name, f"line {line_number}")
    except NameCharacterError as error:
        expected += f" without invisible, control or direction characters (it holds {error.character})"
    except LookAlikeNameError as error:
        expected += f" spelled as on {error.where}, {error.earlier!r}, or a name that does not read like it"
    except BadNameError as error:
        expected += f" ({error})"
    raise InputFormatError(path, line_number, expected, got=name)


def _check_label(path: str, line_number: int, value: str) -> None:
    """A label is a word or a finite number >= 0 (every scale of the seeds: yes/no, 1-3, 1-5, 0/1)."""
    try:
        number = parse_decimal(value)
    except ValueError:
        if any(ord(character) < 32 for character in value):
            raise InputFormatError(path, line_number, "a label without control characters", value) from None
        return
    if not math.isfinite(number) or number < 0:
        raise InputFormatError(path, line_number, "a label that is a word or a finite number >= 0", value)


def read_judgments(path: str | os.PathLike) -> JudgmentRecords:
    """Read a long-format judgments CSV (plain or gzip)."""
    path = str(path)
    items, annotators, criteria, values, systems, applications, lines = [], [], [], [], [], [], []
    producers, sentences = [], []
    scales: dict[str, tuple[str, ...]] = {}
    scale_names: dict[str, str] = {}
    with_z: set[str] = set()
    has = dict.fromkeys(OPTIONAL_JUDGMENT_COLUMNS, False)
    people, programs = Spellings("annotator name"), Spellings("system name")
    for line_number, fields in _rows(path, JUDGMENT_COLUMNS, OPTIONAL_JUDGMENT_COLUMNS):
        _check_label(path, line_number, fields["value"])
        items.append(fields["item"])
        annotators.append(_named(people, path, line_number, "annotator", fields["annotator"]))
        criteria.append(fields["criterion"])
        values.append(fields["value"])
        produced = tuple(_named(programs, path, line_number, "systems", name)
                         for name in fields.get("systems", "").split(SYSTEMS_SEPARATOR) if name.strip())
        system = fields.get("system", "") or (produced[0] if produced else "")
        if system:
            system = _named(programs, path, line_number, "system", system)
        systems.append(system)
        producers.append(produced or (system,))
        applications.append(fields.get("application", ""))
        sentences.append(next((fields[name] for name in SENTENCE_COLUMNS if fields.get(name)), ""))
        _note_scale(path, line_number, fields, scales, scale_names)
        if fields.get("z"):
            with_z.add(fields["criterion"])
        for name in has:
            has[name] = has[name] or name in fields
        lines.append(line_number)
    with_systems = has["system"] or has["systems"]
    scored = _scored_criteria(scale_names, with_z, named_scales=has["scale"])
    for line_number, criterion, value in zip(lines, criteria, values):
        if criterion in scored:
            _check_score(path, line_number, criterion, value)
    return JudgmentRecords(
        items=items,
        annotators=annotators,
        criteria=criteria,
        values=values,
        systems=systems if with_systems else None,
        applications=applications if has["application"] else None,
        line_numbers=lines,
        source=path,
        producers=producers if has["systems"] else None,
        sentences=sentences if any(has[name] for name in SENTENCE_COLUMNS) else None,
        scales=scales or None,
        scored=scored if has["scale"] or has["z"] else None,
        scale_names=scale_names or None,
    )


def _note_scale(path: str, line_number: int, fields: dict[str, str], scales: dict[str, tuple[str, ...]],
                scale_names: dict[str, str]) -> None:
    """Record a row's levels and scale name for its criterion: every row of a criterion must give the same."""
    criterion = fields["criterion"]
    levels = tuple(label.strip() for label in fields.get("levels", "").split(SYSTEMS_SEPARATOR) if label.strip())
    if levels:
        known = scales.setdefault(criterion, levels)
        if known != levels:
            raise InputFormatError(path, line_number, f"the levels {';'.join(known)} of criterion "
                                   f"{criterion!r} given on an earlier line", got=fields["levels"])
    if fields.get("scale"):
        named = scale_names.setdefault(criterion, fields["scale"])
        if named != fields["scale"]:
            raise InputFormatError(path, line_number, f"the scale {named} of criterion {criterion!r} "
                                   "given on an earlier line", got=fields["scale"])


def _scored_criteria(scale_names: dict[str, str], with_z: set[str], *, named_scales: bool) -> frozenset[str]:
    """The criteria a file marks as 0-100 scores: by their scale's name, or, in an export older than the
    ``scale`` column, by a ``z`` cell (written for those criteria only)."""
    if named_scales:
        scored_scales = scales_where(answer=SCORE)  # a score from DA_LOWEST to DA_HIGHEST, by the protocol
        return frozenset(name for name, scale in scale_names.items() if scale in scored_scales)
    return frozenset(with_z)


def _check_score(path: str, line_number: int, criterion: str, value: str) -> None:
    try:
        score = parse_decimal(value)
    except ValueError:
        score = math.nan
    if not DA_LOWEST <= score <= DA_HIGHEST:  # NaN fails too
        raise InputFormatError(path, line_number, f"a score from {DA_LOWEST} to {DA_HIGHEST} (criterion "
                               f"{criterion!r} is scored 0-100)", got=value)


@dataclass(frozen=True)
class ScoreRecords:
    """One numeric score per (item, system), e.g. a per-item success or a rating."""

    scores: dict[str, dict[str, float]]  # system -> item -> score, items in file order

    def system_names(self) -> list[str]:
        return list(self.scores)

    def paired(self, system_a: str, system_b: str) -> tuple[list[str], np.ndarray, np.ndarray, int]:
        """Items scored for both systems, their two score arrays, and how many
        items were skipped because one of the two systems lacks a score."""
        for system in (system_a, system_b):
            if system not in self.scores:
                raise KeyError(f"no scores for system {system!r}; systems present: {', '.join(self.scores) or 'none'}")
        a, b = self.scores[system_a], self.scores[system_b]
        shared = [item for item in a if item in b]
        skipped = len(set(a) ^ set(b))
        return shared, np.array([a[i] for i in shared], dtype=float), np.array([b[i] for i in shared], dtype=float), skipped


def read_scores(path: str | os.PathLike) -> ScoreRecords:
    """Read an ``item,system,score`` CSV; duplicates and non-numbers are input errors."""
    path = str(path)
    scores: dict[str, dict[str, float]] = {}
    first_line: dict[tuple[str, str], int] = {}
    programs = Spellings("system name")
    for line_number, fields in _rows(path, SCORE_COLUMNS):
        fields["system"] = _named(programs, path, line_number, "system", fields["system"])
        try:
            score = parse_decimal(fields["score"])
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            raise InputFormatError(path, line_number, "a finite number in the 'score' field", got=fields["score"])
        key = (fields["system"], fields["item"])
        if key in first_line:
            raise InputFormatError(
                path, line_number, f"one score per item and system (line {first_line[key]} already scores it)", got=",".join(key[::-1])
            )
        first_line[key] = line_number
        scores.setdefault(fields["system"], {})[fields["item"]] = score
    return ScoreRecords(scores)


def scores_from_judgments(records: JudgmentRecords, criterion: str, positive: Iterable[str], min_positive: int) -> ScoreRecords:
    """Per (system, item): 1 when at least ``min_positive`` annotators gave a positive label, else 0.

    This is seed 001's unified score (§4.2.2: success when at least 2 of 4
    annotators say so), ready for a sign test between systems.
    """
    positive = set(positive)
    chosen = records.select(criterion=criterion)
    systems = chosen.systems if chosen.systems is not None else [""] * len(chosen)
    votes: dict[str, dict[str, int]] = {}
    for system, item, value in zip(systems, chosen.items, chosen.values):
        per_item = votes.setdefault(system, {})
        per_item[item] = per_item.get(item, 0) + (value in positive)
    return ScoreRecords({system: {item: float(count >= min_positive) for item, count in per_item.items()} for system, per_item in votes.items()})
