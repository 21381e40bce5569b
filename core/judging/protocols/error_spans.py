"""Error span annotation (ESA; Kocmi et al. 2024, WMT since 2024): the words a judge marks wrong, with a
severity, before scoring the candidate 0-100 (issue 30).

A judgment of an ``esa`` criterion stores the score as its value and the spans as JSON in its text:
``[{"start": i, "end": j, "severity": "minor" | "major"}]``, indices of the words the judge read (``end``
exclusive; :func:`core.judging.view.judged_words`: the readable words under the study's display rule, the
tokens when it shows them tokenized), sorted and not overlapping. :func:`core.store.error_spans.blamed_units`
takes spans over the stored tokens onto the derivation's unit replacements; :mod:`core.judging.span_rewrites`
first maps the judged words onto those tokens, so rule blame and unit labels can come from the words judges marked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from parastudio.core.judging.protocols.direct_assessment import (
    DA_RECORD_KEYS,
    DirectAssessment,
    checked_score,
    score_keys,
)
from parastudio.core.judging.protocols.key_binding import KeyBinding

SEVERITIES = ("minor", "major")


def parse_spans(text: str | None) -> list[dict]:
    """The spans of a stored or submitted answer, checked; ValueError saying what a span must be."""
    if text is None or not str(text).strip():
        return []
    try:
        spans = json.loads(text)
    except json.JSONDecodeError:
        raise ValueError('error spans as JSON: [{"start": i, "end": j, "severity": "minor" or "major"}]') from None
    if not isinstance(spans, list):
        raise ValueError('error spans as a JSON list of {"start", "end", "severity"}')
    checked, last_end = [], 0
    for span in sorted(spans, key=lambda s: s.get("start", -1) if isinstance(s, dict) else -1):
        if not (isinstance(span, dict) and set(span) == {"start", "end", "severity"}
                and all(isinstance(span[k], int) and not isinstance(span[k], bool) for k in ("start", "end"))
                and 0 <= span["start"] < span["end"] and span["severity"] in SEVERITIES):
            raise ValueError(f'an error span {{"start": i, "end": j, "severity": "minor" or "major"}} with '
                             f"0 <= i < j, not {json.dumps(span)}")
        if span["start"] < last_end:
            raise ValueError(f"error spans that do not overlap, not {json.dumps(span)} after one ending at "
                             f"{last_end}")
        last_end = span["end"]
        checked.append({"start": span["start"], "end": span["end"], "severity": span["severity"]})
    return checked


def span_past_the_words(spans: list[dict], text: str | None) -> dict | None:
    """The first span that ends past the candidate's words, None when all lie within. Bounded by its stored
    tokens: the words a judge read (the readable words of the study's display rule) join tokens, never split
    them, so a span past the tokens is past every reading of it."""
    words = len((text or "").split())
    return next((span for span in spans if span["end"] > words), None)


class SpanMarking:
    """Marking by keys, one candidate at a time (the screen shows it): a cursor on a word, a selection from
    ``anchor`` to the cursor, the spans marked so far. ``move(step)`` moves the cursor and collapses the
    selection, ``move(step, extend=True)`` extends it, ``mark(severity)`` marks the selection (replacing the
    marks it overlaps), ``unmark()`` removes the marks under the selection."""

    def __init__(self, words: int, spans: list[dict] | None = None):
        self.words = words
        self.spans = [dict(s) for s in spans or [] if s["end"] <= words]
        self.cursor = self.anchor = 0

    @property
    def selection(self) -> tuple[int, int]:
        """``(start, end)`` word indices of the selection, ``end`` exclusive; empty for a candidate with no words."""
        if self.words == 0:
            return 0, 0
        return min(self.cursor, self.anchor), max(self.cursor, self.anchor) + 1

    def move(self, step: int, extend: bool = False) -> None:
        self.cursor = max(0, min(self.words - 1, self.cursor + step)) if self.words else 0
        if not extend:
            self.anchor = self.cursor

    def _without_selection(self) -> list[dict]:
        start, end = self.selection
        return [s for s in self.spans if s["end"] <= start or end <= s["start"]]

    def mark(self, severity: str) -> None:
        if severity not in SEVERITIES:
            raise ValueError(f"severity is minor or major, not {severity!r}")
        start, end = self.selection
        if end > start:
            self.spans = sorted(self._without_selection() + [{"start": start, "end": end, "severity": severity}],
                                key=lambda s: s["start"])
        self.anchor = self.cursor

    def unmark(self) -> None:
        self.spans = self._without_selection()

    def as_text(self) -> str:
        return json.dumps(self.spans)


@dataclass(frozen=True)
class ErrorSpans(DirectAssessment):
    """A score as DA's, with the marked spans as its text; the report adds the spans' counts by severity."""

    view: str = "spans"
    statistics: tuple[str, ...] = ("da-z-scores", "error-spans", "quality")
    takes_text: bool = True
    marks_words: bool = True
    spans_blame_units: bool = True
    not_adjudicated: str | None = (
        "an error span annotation (marks and a 0-100 score) is each judge's own measurement, averaged like direct "
        "assessment (Kocmi et al. 2024), not a label a third judge settles")
    no_competence_model: str | None = (
        "error span annotation ends in a 0-100 score, not a label: MACE and Dawid-Skene do not apply")

    def key_table(self) -> tuple[KeyBinding, ...]:
        """Marking by Ctrl+arrows (a word at a time, as text editors move; the plain arrows move between items as
        everywhere), M / J to mark, Backspace to unmark; then the score by direct assessment's keys (a score key
        goes on to the score from the marking), Enter to go on and to record, Esc back to the marking."""
        view = self.view
        return (KeyBinding(("Ctrl+Left",), "word_previous", "previous word", view),
                KeyBinding(("Ctrl+Right",), "word_next", "next word", view),
                KeyBinding(("Ctrl+Shift+Left",), "extend_previous", "extend the selection left", view),
                KeyBinding(("Ctrl+Shift+Right",), "extend_next", "extend the selection right", view),
                KeyBinding(("M",), "mark_minor", "mark minor", view),
                KeyBinding(("J",), "mark_major", "mark major", view),
                KeyBinding(("Backspace", "Del"), "unmark", "unmark", view),
                *score_keys(view),
                KeyBinding(DA_RECORD_KEYS, "confirm", "marks done, then record the score", view),
                KeyBinding(("Esc",), "back", "back to marking", view))

    def check(self, question, levels, value, text, options=()):
        score = checked_score(question, value)
        spans = parse_spans(text)
        return score, json.dumps(spans)

    def marked_spans(self, text: str | None) -> list[dict]:
        return parse_spans(text)


ERROR_SPANS = ErrorSpans("esa")
