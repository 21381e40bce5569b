"""MQM ratings as Google published WMT's (``google/wmt-mqm-human-evaluation``; Freitag et al. 2021), read and
checked line by line: a TSV, plain or gzip-compressed, with the header
``system doc doc_id seg_id rater source target category severity comment``, one error per line (a rating
with no error is one line of category and severity ``No-error``), the error's words marked ``<v>…</v>`` in the
target (an omission is marked in the source instead, and covers no word of the target).

What :func:`read_mqm_ratings` gives is what a study needs (:func:`core.study_builder.study_from_mqm`): the
source of each segment, each system's output as a candidate row, the ``ref`` system's output as the reference,
and each rater's rating of one system's output as its errors on the target's words
(:mod:`core.judging.protocols.mqm`), word indices of the target without its marks split on whitespace.
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field

from parastudio.core.errors import InputFormatError
from parastudio.core.judging.protocols.mqm import CATEGORIES, MAJOR, MINOR, NEUTRAL
from parastudio.core.store.candidate_files import CandidateRow
from parastudio.core.textio import read_lines

MQM_COLUMNS = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity", "comment")
NO_ERROR = "No-error"
_SEVERITIES = {"Major": MAJOR, "Minor": MINOR, "Neutral": NEUTRAL}
# The system whose output is the reference translation in Google's files.
REFERENCE_SYSTEM = "ref"
_MARK = re.compile(r"</?v>")


@dataclass
class MqmRating:
    """One rater's rating of one system's output of one segment: its errors, each as the store keeps it."""

    line: int  # the first line of the rating
    system: str
    segment: str
    rater: str
    text: str  # the target without its marks
    errors: list[dict] = field(default_factory=list)


@dataclass
class MqmRatings:
    sources: dict[str, str]  # segment -> source text
    documents: dict[str, str]  # segment -> its document
    candidates: list[CandidateRow]  # each system's output of each segment
    references: dict[str, list[str]]  # segment -> [the ref system's output]
    ratings: list[MqmRating]


def marked_words(target: str) -> tuple[str, tuple[int, int] | None] | None:
    """The target without its marks and the words ``(start, end)`` the one ``<v>…</v>`` mark covers (a word is
    covered when any of its characters is inside the mark; None when it covers none); None when there is more
    than one mark or a mark closes before it opens."""
    opens, closes = target.count("<v>"), target.count("</v>")
    if opens > 1 or closes > opens or (closes and target.index("<v>") > target.index("</v>")):
        return None
    text = _MARK.sub("", target)
    if not opens:
        return text, None
    begin = target.index("<v>")
    # A mark never closed runs to the end of the target (one line of the TED en-de file: "… Mobilität. <v>?").
    end = target.index("</v>") - len("<v>") if closes else len(text)
    covered = [index for index, match in enumerate(re.finditer(r"\S+", text))
               if match.start() < end and begin < match.end()]
    return text, (covered[0], covered[-1] + 1) if covered else None


def read_mqm_ratings(path: str | os.PathLike) -> MqmRatings:
    """Every rating of an MQM TSV (module docstring), checked; :class:`InputFormatError` (``file:line: expected
    ...``) at the first line that is not one."""
    lines = read_lines(path)
    number, header = next(lines, (1, ""))
    if tuple(cell.strip() for cell in header.split("\t")) != MQM_COLUMNS:
        raise InputFormatError(str(path), number, "an MQM TSV header: " + " ".join(MQM_COLUMNS), header)
    reading = _Reading(str(path))
    for number, line in lines:
        if line.strip():
            reading.add(number, line)
    if not reading.ratings:
        raise InputFormatError(str(path), number, "at least one MQM rating after the header", "")
    return reading.result()


class _Reading:
    def __init__(self, path: str) -> None:
        self.path = path
        self.sources: dict[str, str] = {}
        self.documents: dict[str, str] = {}
        self.outputs: dict[tuple[str, str], tuple[str, int]] = {}  # (system, segment) -> (text, first line)
        self.ratings: dict[tuple[str, str, str], MqmRating] = {}
        self.without_errors: set[tuple[str, str, str]] = set()  # ratings whose one line says No-error

    def _refuse(self, number: int, expected: str, got: str) -> InputFormatError:
        return InputFormatError(self.path, number, expected, got)

    def add(self, number: int, line: str) -> None:
        cells = line.split("\t")
        if len(cells) != len(MQM_COLUMNS):
            raise self._refuse(number, f"{len(MQM_COLUMNS)} tab-separated fields ({' '.join(MQM_COLUMNS)})",
                               f"{len(cells)} fields")
        row = dict(zip(MQM_COLUMNS, cells))
        for name in ("system", "seg_id", "rater"):
            if not row[name].strip() or row[name] != row[name].strip():
                raise self._refuse(number, f"a {name} (not empty, no spaces around it)", row[name])
        segment, system = row["seg_id"], unicodedata.normalize("NFC", row["system"])
        source = _MARK.sub("", row["source"])
        if self.sources.setdefault(segment, source) != source:
            raise self._refuse(number, f"segment {segment}'s source as on its first line", source)
        self.documents.setdefault(segment, row["doc"])
        marked = marked_words(row["target"])
        if marked is None:
            raise self._refuse(number, "a target with at most one error marked <v>…</v>", row["target"])
        text, words = marked
        if not text.strip():
            raise self._refuse(number, "a target with words", row["target"])
        first = self.outputs.setdefault((system, segment), (text, number))
        if first[0] != text:
            raise self._refuse(number, f"{system}'s output of segment {segment} as on line {first[1]}", text)
        rating = self.ratings.setdefault((system, segment, row["rater"]),
                                         MqmRating(number, system, segment, row["rater"], text))
        error = self._error(number, row, words)
        key = (system, segment, row["rater"])
        if key in self.without_errors or (error is None and rating.line != number):
            raise self._refuse(number, f"{NO_ERROR} only as the one line of a rating ({row['rater']} on "
                               f"{system}'s segment {segment} has other lines)", row["category"])
        if error is None:
            self.without_errors.add(key)
        else:
            rating.errors.append(error)

    def _error(self, number: int, row: dict, words: tuple[int, int] | None) -> dict | None:
        """The line's error as stored (None for a line saying the rating found none)."""
        category, severity = row["category"].strip(), row["severity"].strip()
        if category == NO_ERROR or severity == NO_ERROR:
            if (category, severity) != (NO_ERROR, NO_ERROR) or "<v>" in row["target"]:
                raise self._refuse(number, f"category and severity both {NO_ERROR}, with no word marked",
                                   f"{category} / {severity}")
            return None
        category = category.rstrip("!")  # some of Google's files write "Non-translation!"
        if category not in CATEGORIES:
            raise self._refuse(number, f"an MQM category among {', '.join(CATEGORIES)} or {NO_ERROR}", category)
        if severity not in _SEVERITIES:
            raise self._refuse(number, f"a severity among {', '.join(_SEVERITIES)} or {NO_ERROR}", severity)
        start, end = words if words is not None else (None, None)
        return {"start": start, "end": end, "category": category, "severity": _SEVERITIES[severity]}

    def result(self) -> MqmRatings:
        candidates = [CandidateRow(sentence_id=segment, text=text, system=system, source=self.sources[segment],
                                   line=line)
                      for (system, segment), (text, line) in self.outputs.items()]
        references = {segment: [text] for (system, segment), (text, _line) in self.outputs.items()
                      if system == REFERENCE_SYSTEM}
        return MqmRatings(self.sources, self.documents, candidates, references, list(self.ratings.values()))
