"""Readers for paraphrase-table files: Moses, PPDB phrasal packs and TSV.

Formats (one rule per line, UTF-8, plain or gzip):

* Moses: ``src ||| tgt ||| score [score ...] [||| alignment ||| counts ...]``.
  Columns are named ``c0``, ``c1``, ... in the order they appear. In a
  bilingual Moses table the columns are ``p(f|e) lex(f|e) p(e|f) lex(e|f)``
  where ``f`` is the first field.
* PPDB: ``LHS ||| phrase ||| paraphrase ||| k=v k=v ... ||| alignment
  [||| entailment]``. Features keep their PPDB names.
* TSV: ``src<TAB>tgt<TAB>prob[<TAB>more scores]``, columns ``c0``, ``c1``...

The user says which column (``c0``, ``c1``, ... or an index) or PPDB feature
is the rule probability; the default is the first. PPDB's ``p(...)`` features
are negative natural logs of probabilities (Ganitkevitch et al. 2013), so they
are read as ``exp(-v)``; other features are read as probabilities.

What is refused (issue 18), with ``file:line: expected ...``: the chosen
column must give a probability in (0, 1] once read as its ``ValueKind`` (a
probability above 1 would make a search's scores rise without bound), so a
``prob`` column holds (0, 1], a ``log10`` or ``ln`` column a value <= 0 and a
``neglog`` one a value >= 0. The other columns are scores, not probabilities
(Moses' lexical weights, the h1..h4 logs of a pivot table, PPDB's counts and
penalties): any finite number. NaN and infinities are refused everywhere.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Iterator

from parastudio.core.engine.tables.rules import Rule
from parastudio.core.errors import InputFormatError
from parastudio.core.number_text import ASCII_SPACE, ascii_words, is_decimal
from parastudio.core.option_values import check_fields, one_of
from parastudio.core.textio import open_text_maybe_gzip

SEPARATOR = " ||| "


class TableFormat(str, Enum):
    MOSES = "moses"
    PPDB = "ppdb"
    TSV = "tsv"


class ValueKind(str, Enum):
    """How a stored number maps to a probability."""

    PROB = "prob"  # the number is the probability
    NEGLOG = "neglog"  # -ln p (PPDB)
    LOG10 = "log10"  # log10 p
    LN = "ln"  # ln p

    def to_probability(self, value: float) -> float:
        if self is ValueKind.PROB:
            return value
        if self is ValueKind.NEGLOG:
            return math.exp(-value)
        if self is ValueKind.LOG10:
            return 10.0**value
        return math.exp(value)


@dataclass
class LoadReport:
    """What a load did: rules read, lines skipped and the first problems seen."""

    path: str
    rules: int = 0
    skipped: int = 0
    first_errors: list[str] = field(default_factory=list)
    binary: str | None = None  # the binary form the rules came from, if one was used
    notes: list[str] = field(default_factory=list)  # a binary form not used, and why

    def note_skip(self, error: InputFormatError) -> None:
        self.skipped += 1
        if len(self.first_errors) < 5:
            self.first_errors.append(str(error))


@dataclass(frozen=True)
class TableLoading:
    """How a table file is read: the one group of loading options (``core/cli/table_options.py``'s flags), held
    by every run's options and handed whole to :func:`read_rules` and ``ParaphraseTable.load`` (Moses hands each
    component the options of its concern).

    ``format``: moses, ppdb or tsv (None: read from the first line). ``score``: the column (``c0``, ``c1``, ... or
    an index) or PPDB feature that is the rule probability (None: the first). ``value_kind``: how that number maps
    to a probability (None: prob; PPDB's ``p(...)`` features neglog). ``skip_bad_lines``: count malformed lines in
    the report instead of stopping at the first. ``swap_sides``: each line's second phrase is the source (a
    bilingual table used the other way). ``channel_from_reverse``: a rule ``s -> t`` carries the probability of
    ``t -> s`` (for a table giving p(t|s)); applied to the table once read, so a binary form serves both.
    """

    format: str | None = one_of(None, [f.value for f in TableFormat])
    score: str | None = None
    value_kind: str | None = one_of(None, [k.value for k in ValueKind])
    skip_bad_lines: bool = False
    swap_sides: bool = False
    channel_from_reverse: bool = False

    def __post_init__(self) -> None:
        check_fields(self)


AS_DETECTED = TableLoading()  # every default: the format read from the first line, the first column a probability


def detect_format(path: str | os.PathLike) -> TableFormat:
    """Guess the format from the first non-empty line."""
    with open_text_maybe_gzip(path) as handle:
        for line in handle:
            if line.strip():
                return format_of_line(line, path)
    return TableFormat.MOSES


def format_of_line(line: str, path: str | os.PathLike) -> TableFormat:
    """The format a table's first non-empty line is in."""
    line = line.rstrip("\n")
    if "|||" in line:
        fields = [f.strip() for f in line.split("|||")]
        if len(fields) >= 4 and fields[0].startswith("[") and fields[0].endswith("]") and "=" in fields[3]:
            return TableFormat.PPDB
        return TableFormat.MOSES
    if "\t" in line:
        return TableFormat.TSV
    raise InputFormatError(
        str(path), 1, "a Moses ('src ||| tgt ||| scores'), PPDB or TSV ('src<TAB>tgt<TAB>prob') line", line
    )


def _parse_probability(value: float, kind: ValueKind, path: str, number: int, line: str, what: str) -> float:
    try:
        probability = kind.to_probability(value)
    except OverflowError:  # 10 ** 400: far above 1
        probability = math.inf
    if not (probability > 0.0 and probability <= 1.0 + 1e-9) or math.isnan(probability):
        raise InputFormatError(
            path, number, f"{what} to be a probability in (0, 1] (read as {kind.value})", line
        )
    return min(probability, 1.0)


def column_index(score: str | int | None) -> int:
    if score is None:
        return 0
    if isinstance(score, int):
        return score
    text = str(score)
    if text.startswith("c") and text[1:].isdigit():
        return int(text[1:])
    if text.isdigit():
        return int(text)
    raise ValueError(f"score column must be an index or c0, c1, ...; got {score!r}")


def _phrase_reader():
    """``text -> tuple of words``, one tuple per distinct phrase and one string per distinct word: a table
    repeats both (every rule of a source repeats it; words recur everywhere), and a table read whole keeps
    each of its rules in memory."""
    phrases: dict[str, tuple[str, ...]] = {}
    words: dict[str, str] = {}

    def phrase(text: str) -> tuple[str, ...]:
        found = phrases.get(text)
        if found is None:
            found = phrases[text] = tuple([words.setdefault(word, word) for word in text.split()])
        return found

    return phrase


def _float(text: str, path: str, number: int, line: str, what: str) -> float:
    try:
        value = float(text) if is_decimal(text) else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InputFormatError(path, number, f"{what} to be a finite number", line)
    return value


def read_rules(
    path: str | os.PathLike,
    loading: TableLoading = AS_DETECTED,
    *,
    keep_features: bool = True,
    report: LoadReport | None = None,
    only_sources: set[str] | None = None,
) -> Iterator[Rule]:
    """Yield the rules of a table file, read as ``loading`` says (its ``channel_from_reverse`` is the table's:
    ``ParaphraseTable.load``).

    A malformed line raises :class:`InputFormatError` naming the file and line,
    unless ``loading.skip_bad_lines`` is set; then it is counted in ``report``.
    ``loading.swap_sides`` reads each line's second phrase as the source (a bilingual
    table used in the other direction; choose the matching ``score`` column).
    ``only_sources`` keeps only rules whose source phrase (space-joined) is in
    the set, tested before a line is parsed (Moses' filter-model-given-input).
    """
    path = str(path)
    report = report if report is not None else LoadReport(path)
    # One opening: the format is read from the first line of the same pass (a pipe gives its bytes once).
    with open_text_maybe_gzip(path) as handle:
        parse = source_field = None
        for number, line in enumerate(handle, start=1):
            line = line.rstrip("\n").rstrip("\r")
            if not line.strip():
                continue
            if parse is None:
                chosen = TableFormat(loading.format) if loading.format else format_of_line(line, path)
                parse, source_field = _parser(path, chosen, loading.score, loading.value_kind, keep_features), \
                    _source_field(chosen, loading.swap_sides)
            if only_sources is not None and source_field(line) not in only_sources:
                continue
            try:
                rule = parse(line, number)
            except InputFormatError as error:
                if not loading.skip_bad_lines:
                    raise
                report.note_skip(error)
                continue
            report.rules += 1
            yield Rule(rule.target, rule.source, rule.prob, rule.features) if loading.swap_sides else rule


def _parser(path: str, table_format: TableFormat, score, value_kind, keep_features: bool):
    if table_format is TableFormat.PPDB:
        return _ppdb_parser(path, score, ValueKind(value_kind) if value_kind else None, keep_features)
    kind = ValueKind(value_kind) if value_kind else ValueKind.PROB
    return _columns_parser(path, table_format, column_index(score), kind, keep_features)


def _source_field(table_format: TableFormat, swap_sides: bool):
    """How to read a line's source phrase cheaply, before parsing it."""
    separator = "\t" if table_format is TableFormat.TSV else "|||"
    index = (1 if swap_sides else 0) + (1 if table_format is TableFormat.PPDB else 0)

    def source(line: str) -> str:
        fields = line.split(separator, index + 1)
        return " ".join(fields[index].split()) if len(fields) > index else ""

    return source


def _columns_parser(path: str, table_format: TableFormat, column: int, kind: ValueKind, keep_features: bool):
    moses = table_format is TableFormat.MOSES
    _phrase = _phrase_reader()
    shape = "'src ||| tgt ||| score [score ...]'" if moses else "'src<TAB>tgt<TAB>prob'"

    def parse(line: str, number: int) -> Rule:
        if moses:
            fields = line.split("|||")
            if len(fields) < 3:
                raise InputFormatError(path, number, f"at least 3 fields {shape}", line)
            # Scores are separated by ASCII white space only: str.split() would also cut at a no-break space
            # and so read "\u00a00.5" as 0.5, which no table tool would.
            source, target, scores_text = fields[0].strip(), fields[1].strip(), ascii_words(fields[2])
        else:
            fields = line.split("\t")
            if len(fields) < 3:
                raise InputFormatError(path, number, f"at least 3 tab-separated fields {shape}", line)
            source, target, scores_text = fields[0].strip(), fields[1].strip(), [f.strip(ASCII_SPACE)
                                                                                 for f in fields[2:]]
        if not source or not target:
            raise InputFormatError(path, number, f"a non-empty source and target phrase {shape}", line)
        if len(scores_text) <= column:
            raise InputFormatError(path, number, f"a score in column c{column} (found {len(scores_text)} scores)", line)
        values = [_float(t, path, number, line, "every score") for t in scores_text]
        probability = _parse_probability(values[column], kind, path, number, line, f"score c{column}")
        features = {f"c{i}": v for i, v in enumerate(values)} if keep_features else {}
        return Rule(_phrase(source), _phrase(target), probability, features)

    return parse


def _ppdb_parser(path: str, feature: str | int | None, kind: ValueKind | None, keep_features: bool):
    _phrase = _phrase_reader()
    shape = "'LHS ||| phrase ||| paraphrase ||| k=v ... ||| alignment [||| entailment]'"

    def parse(line: str, number: int) -> Rule:
        fields = [f.strip() for f in line.split("|||")]
        if len(fields) < 4:
            raise InputFormatError(path, number, f"at least 4 fields {shape}", line)
        phrase, paraphrase = fields[1], fields[2]
        if not phrase or not paraphrase:
            raise InputFormatError(path, number, f"a non-empty phrase and paraphrase {shape}", line)
        features: dict[str, float] = {}
        for item in fields[3].split():
            key, equals, value = item.partition("=")
            if not equals or not key:
                raise InputFormatError(path, number, f"features as k=v pairs {shape}", line)
            features[key] = _float(value, path, number, line, f"feature {key}")
        if not features:
            raise InputFormatError(path, number, f"at least one k=v feature {shape}", line)
        names = list(features)
        if feature is None:
            name = names[0]
        elif isinstance(feature, int) or str(feature).isdigit():
            index = int(feature)
            if index >= len(names):
                raise InputFormatError(path, number, f"a feature number {index} (found {len(names)})", line)
            name = names[index]
        else:
            name = str(feature)
            if name not in features:
                raise InputFormatError(path, number, f"a feature named {name!r}", line)
        value_kind = kind or (ValueKind.NEGLOG if name.startswith("p(") else ValueKind.PROB)
        probability = _parse_probability(features[name], value_kind, path, number, line, f"feature {name}")
        extra = dict(features) if keep_features else {}
        if keep_features:
            extra["lhs"] = fields[0]
            if len(fields) >= 6:
                extra["entailment"] = fields[5]
        return Rule(_phrase(phrase), _phrase(paraphrase), probability, extra)

    return parse


def table_name(path: str | os.PathLike) -> str:
    name = Path(path).name
    for suffix in (".gz", ".txt", ".tsv"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name
