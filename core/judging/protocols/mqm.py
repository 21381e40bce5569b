"""Multidimensional Quality Metrics as WMT ran it from 2020 to 2024 (Freitag, Foster, Grangier, Ratnakar, Tan and
Macherey 2021, "Experts, Errors, and Context: A Large-Scale Study of Human Evaluation for Machine Translation",
TACL 9; the data and its scoring in ``google/wmt-mqm-human-evaluation``): a judge marks each error in the
candidate with a category of MQM's hierarchy and a severity; the segment's score is the sum of its errors'
weights, lower is better. ESA (:mod:`.error_spans`) is its lighter successor.

Weights (Freitag et al. 2021, Table 2; the repository's README): Major 5, Minor 1, Neutral 0, with two
exceptions: a Minor ``Fluency/Punctuation`` error weighs 0.1 and a Major ``Non-translation`` (a segment too
garbled to mark errors in, the whole segment) 25. Kept in tenths (:func:`segment_tenths`), so sums are exact.

A judgment of an ``mqm`` criterion stores the errors as JSON in its text,
``[{"start": i, "end": j, "category": "Accuracy/Mistranslation", "severity": "major"}]``, word indices of the
candidate as the judge read it (``end`` exclusive; :func:`core.judging.view.judged_words`), or ``start`` and
``end`` both null for an error on no word of the candidate (an omission marked on the source, a Non-translation).
Errors may overlap (two errors on one word). The value is the segment's score negated (``-5.1``; ``0`` for no
error), as the repository's per-segment files write it, so a higher value is better everywhere a value is read as
a number (``metaeval``'s human score); the store checks that it is the score of the errors given.

By keys (:class:`MqmMarking`, :meth:`Mqm.key_table`): Ctrl+arrows move and Ctrl+Shift+arrows extend a selection
of words as ESA's (the plain arrows move between items, as on every protocol); a digit picks the category of that
number (:data:`CATEGORY_KEYS`); M marks the selection Minor, J Major, K Neutral with that category (N is "no"
everywhere); X marks the whole segment Non-translation (Major); Backspace removes the errors under the selection;
Enter records.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from parastudio.core.judging.protocols.key_binding import DIGITS, KeyBinding
from parastudio.core.judging.protocols.protocol import OWN_RECORDS, POINTS, JudgingProtocol

MAJOR, MINOR, NEUTRAL = "major", "minor", "neutral"
SEVERITIES = (MINOR, MAJOR, NEUTRAL)
NON_TRANSLATION = "Non-translation"
PUNCTUATION = "Fluency/Punctuation"
# MQM's hierarchy as Freitag et al. (2021, Table 1) and the repository's files name it.
CATEGORIES = (
    "Accuracy/Addition", "Accuracy/Omission", "Accuracy/Mistranslation", "Accuracy/Untranslated text",
    "Fluency/Punctuation", "Fluency/Spelling", "Fluency/Grammar", "Fluency/Register", "Fluency/Inconsistency",
    "Fluency/Character encoding", "Fluency/Display",
    "Terminology/Inappropriate for context", "Terminology/Inconsistent use of terminology",
    "Style/Awkward",
    "Locale convention/Address format", "Locale convention/Currency format", "Locale convention/Date format",
    "Locale convention/Name format", "Locale convention/Telephone format", "Locale convention/Time format",
    "Other", "Source error", NON_TRANSLATION,
)
# Key -> category on the screen: the ten most used in WMT's data; the rest are reached by importing.
CATEGORY_KEYS = {"1": "Accuracy/Mistranslation", "2": "Accuracy/Omission", "3": "Accuracy/Addition",
                 "4": "Accuracy/Untranslated text", "5": "Fluency/Grammar", "6": "Fluency/Punctuation",
                 "7": "Fluency/Spelling", "8": "Terminology/Inappropriate for context", "9": "Style/Awkward",
                 "0": "Other"}
SEVERITY_KEYS = {"M": MINOR, "J": MAJOR, "K": NEUTRAL}
NON_TRANSLATION_KEY = "X"
RECORD_KEYS = ("Return", "Enter")
UNMARK_KEYS = ("Backspace", "Del")


def error_tenths(category: str, severity: str) -> int:
    """One error's weight in tenths of a point (Freitag et al. 2021, Table 2)."""
    if severity == MAJOR:
        return 250 if category == NON_TRANSLATION else 50
    if severity == MINOR:
        return 1 if category == PUNCTUATION else 10
    return 0


def segment_tenths(errors: list[dict]) -> int:
    """A segment's MQM score in tenths: the sum of its errors' weights."""
    return sum(error_tenths(error["category"], error["severity"]) for error in errors)


def value_of_tenths(tenths: int) -> str:
    """The stored value of a segment scoring ``tenths``: the score negated, in points (``-5.1``, ``0``)."""
    if tenths == 0:
        return "0"
    whole, tenth = divmod(tenths, 10)
    return f"-{whole}" if tenth == 0 else f"-{whole}.{tenth}"


def tenths_of_value(value: str) -> int | None:
    """The score in tenths a stored value says (``"-5.1"`` -> 51), None when it is not one."""
    raw = str(value).strip()
    body = raw[1:] if raw.startswith("-") else raw
    whole, _, tenth = body.partition(".")
    if not (whole.isascii() and whole.isdigit() and (tenth == "" or (tenth.isascii() and tenth.isdigit()
                                                                   and len(tenth) == 1))):
        return None
    tenths = int(whole) * 10 + int(tenth or 0)
    return tenths if raw.startswith("-") or tenths == 0 else None


_FORM = ('MQM errors as JSON: [{"start": i, "end": j, "category": C, "severity": "minor", "major" or "neutral"}] '
         "(start and end both null for an error on no word)")


def parse_errors(text: str | None) -> list[dict]:
    """The errors of a stored or submitted answer, checked and in order (by start, errors on no word first);
    ValueError saying what an error must be."""
    if text is None or not str(text).strip():
        return []
    try:
        errors = json.loads(text)
    except json.JSONDecodeError:
        raise ValueError(_FORM) from None
    if not isinstance(errors, list):
        raise ValueError(_FORM)
    checked = [_checked_error(error) for error in errors]
    return sorted(checked, key=lambda e: (-1, -1) if e["start"] is None else (e["start"], e["end"]))


def _checked_error(error) -> dict:
    if not (isinstance(error, dict) and set(error) == {"start", "end", "category", "severity"}):
        raise ValueError(f"{_FORM}, not {json.dumps(error)}")
    start, end = error["start"], error["end"]
    placed = all(isinstance(v, int) and not isinstance(v, bool) for v in (start, end)) and 0 <= start < end
    if not (placed or (start is None and end is None)):
        raise ValueError(f"an MQM error's words from start to end with 0 <= start < end, or both null, not "
                         f"{json.dumps(error)}")
    if error["category"] not in CATEGORIES:
        raise ValueError(f"an MQM category among {', '.join(CATEGORIES)}, not {json.dumps(error['category'])}")
    if error["severity"] not in SEVERITIES:
        raise ValueError(f"an MQM severity among {', '.join(SEVERITIES)}, not {json.dumps(error['severity'])}")
    return {"start": start, "end": end, "category": error["category"], "severity": error["severity"]}


class MqmMarking:
    """Marking MQM errors by keys, one candidate at a time (module docstring). ``category`` is the category the
    next mark takes; ``errors`` the errors marked so far."""

    def __init__(self, words: int, errors: list[dict] | None = None):
        self.words = words
        self.errors = [dict(e) for e in errors or [] if e["end"] is None or e["end"] <= words]
        self.cursor = self.anchor = 0
        self.category = CATEGORY_KEYS["1"]

    @property
    def selection(self) -> tuple[int, int]:
        if self.words == 0:
            return 0, 0
        return min(self.cursor, self.anchor), max(self.cursor, self.anchor) + 1

    def move(self, step: int, extend: bool = False) -> None:
        self.cursor = max(0, min(self.words - 1, self.cursor + step)) if self.words else 0
        if not extend:
            self.anchor = self.cursor

    def choose(self, category: str) -> None:
        if category not in CATEGORIES:
            raise ValueError(f"an MQM category among {', '.join(CATEGORIES)}, not {category!r}")
        self.category = category

    def mark(self, severity: str) -> None:
        """An error of the chosen category and ``severity`` on the selection (a second error on the same words
        is kept: MQM counts each)."""
        if severity not in SEVERITIES:
            raise ValueError(f"an MQM severity among {', '.join(SEVERITIES)}, not {severity!r}")
        start, end = self.selection
        if end > start:
            self.errors = parse_errors(json.dumps(self.errors + [
                {"start": start, "end": end, "category": self.category, "severity": severity}]))
        self.anchor = self.cursor

    def non_translation(self) -> None:
        """The whole segment marked Non-translation (Major): it replaces every other error, as in WMT's data."""
        self.errors = [{"start": None, "end": None, "category": NON_TRANSLATION, "severity": MAJOR}]

    def unmark(self) -> None:
        start, end = self.selection
        self.errors = [e for e in self.errors
                       if e["start"] is not None and (e["end"] <= start or end <= e["start"])]

    @property
    def spans(self) -> list[dict]:
        """The errors on words, as a page that paints marks reads them (desktop/esa_view.py)."""
        return [e for e in self.errors if e["start"] is not None]

    @property
    def tenths(self) -> int:
        return segment_tenths(self.errors)

    def as_text(self) -> str:
        return json.dumps(self.errors)


@dataclass(frozen=True)
class Mqm(JudgingProtocol):
    """Answered by errors (the text) and their score (the value, negated); the report gives each system's mean
    MQM score; a dev set takes the judgments as records of their own."""

    answer: str = POINTS
    view: str = "mqm"
    statistics: tuple[str, ...] = ("mqm-systems", "quality")
    devset: str = OWN_RECORDS
    takes_text: bool = True
    marks_words: bool = True

    def check(self, question, levels, value, text, options=()):
        errors = parse_errors(text)
        expected = value_of_tenths(segment_tenths(errors))
        given = str(value if value is not None else "").strip()
        if given and tenths_of_value(given) != segment_tenths(errors):
            raise ValueError(f"criterion {question!r} takes the MQM score of its errors, negated ({expected} for "
                             f"these), not {given!r}")
        return expected, json.dumps(errors)

    def stored_value(self, question, levels, value) -> str:
        tenths = tenths_of_value(value)
        if tenths is None:
            raise ValueError(f"criterion {question!r} stores an MQM score negated (-5.1, 0), not {value!r}")
        return value_of_tenths(tenths)

    def level_keys(self, index, level) -> tuple[str, ...]:
        return ()

    def key_table(self) -> tuple[KeyBinding, ...]:
        """The words selected as ESA's are (Ctrl+arrows), the category by its number, the severity by letter (M and J
        as ESA's minor and major), Enter records the errors with their score."""
        view, categories = self.view, ", ".join(f"{key} {name.split('/')[-1]}" for key, name in CATEGORY_KEYS.items())
        return (KeyBinding(DIGITS, "answer_number", f"the category of that number ({categories})", view),
                KeyBinding(("Ctrl+Left",), "word_previous", "previous word", view),
                KeyBinding(("Ctrl+Right",), "word_next", "next word", view),
                KeyBinding(("Ctrl+Shift+Left",), "extend_previous", "extend the selection left", view),
                KeyBinding(("Ctrl+Shift+Right",), "extend_next", "extend the selection right", view),
                KeyBinding(("M",), "mark_minor", "mark minor", view),
                KeyBinding(("J",), "mark_major", "mark major", view),
                KeyBinding(("K",), "mark_neutral", "mark neutral (no points)", view),
                KeyBinding((NON_TRANSLATION_KEY,), "mark_non_translation", "the whole segment not translated", view),
                KeyBinding(UNMARK_KEYS, "unmark", "unmark", view),
                KeyBinding(RECORD_KEYS, "confirm", "record the errors and their score", view))

    def marked_spans(self, text: str | None) -> list[dict]:
        return [e for e in parse_errors(text) if e["start"] is not None]


MQM = Mqm("mqm")
