"""Direct assessment (WMT's DA, Graham et al. 2013/2017; issue 30): a whole number from 0 to 100 set by keys.

WMT's Appraise shows a slider; here the judge never needs the mouse. ← and → move by 1, Shift+← / Shift+→
and Page Down / Page Up by 10, a digit d jumps to 10·d, Home to 0 and End to 100. A score not yet touched
starts from the middle (50), as Appraise's slider does; Enter records it.
"""

from __future__ import annotations

from dataclasses import dataclass

from parastudio.core.judging.protocols.protocol import OWN_RECORDS, SCORE, JudgingProtocol
from parastudio.core.vocabulary import DA_HIGHEST, DA_LOWEST

DA_START = (DA_LOWEST + DA_HIGHEST) // 2
# Key (as Qt's QKeySequence writes it) -> step.
DA_STEPS = {"Left": -1, "Right": 1, "Shift+Left": -10, "Shift+Right": 10, "PgDown": -10, "PgUp": 10}
DA_JUMPS = {"Home": DA_LOWEST, "End": DA_HIGHEST, **{str(d): 10 * d for d in range(10)}}
DA_RECORD_KEYS = ("Return", "Enter")


def da_score_after_key(score: int | None, key: str) -> int | None:
    """The score after ``key`` (clamped to the scale), or None when the key does not move it."""
    if key in DA_JUMPS:
        return DA_JUMPS[key]
    if key in DA_STEPS:
        start = DA_START if score is None else score
        return max(DA_LOWEST, min(DA_HIGHEST, start + DA_STEPS[key]))
    return None


def checked_score(question: str, value) -> str:
    """A 0-100 score as stored (a whole number), or ValueError."""
    raw = str(value).strip()
    if raw.isascii() and raw.isdigit() and DA_LOWEST <= int(raw) <= DA_HIGHEST:
        return str(int(raw))
    raise ValueError(f"criterion {question!r} takes a whole number from {DA_LOWEST} to {DA_HIGHEST}, not {raw!r}")


@dataclass(frozen=True)
class DirectAssessment(JudgingProtocol):
    """Answered by a score; z-scores per judge in the report (Graham et al.), records of their own in a dev set."""

    answer: str = SCORE
    view: str = "score"
    statistics: tuple[str, ...] = ("da-z-scores", "quality")
    devset: str = OWN_RECORDS

    def check(self, question, levels, value, text, options=()):
        return checked_score(question, value), None

    def level_keys(self, index, level) -> tuple[str, ...]:
        return ()


DIRECT_ASSESSMENT = DirectAssessment("da")
