"""Direct assessment (WMT's DA, Graham et al. 2013/2017; issue 30): a whole number from 0 to 100 set by keys.

WMT's Appraise shows a slider; here the judge never needs the mouse. + and − move the score by 1, Page Up /
Page Down by 10, a digit d jumps to 10·d, Home to 0 and End to 100. A score not yet touched starts from the
middle (50), as Appraise's slider does; Enter records it. The arrows move between items as on every protocol
(issue 44: a key means one thing), so the score has keys of its own (:meth:`DirectAssessment.key_table`).
"""

from __future__ import annotations

from dataclasses import dataclass

from parastudio.core.judging.protocols.key_binding import DIGITS, KeyBinding
from parastudio.core.judging.protocols.protocol import OWN_RECORDS, SCORE, JudgingProtocol
from parastudio.core.vocabulary import DA_HIGHEST, DA_LOWEST

DA_START = (DA_LOWEST + DA_HIGHEST) // 2
# Key (as Qt's QKeySequence writes it; "+" typed with Shift arrives as "+") -> step.
DA_STEPS = {"-": -1, "+": 1, "PgDown": -10, "PgUp": 10}
DA_JUMPS = {"Home": DA_LOWEST, "End": DA_HIGHEST, **{str(d): 10 * d for d in range(10)}}
DA_RECORD_KEYS = ("Return", "Enter")


def score_keys(view: str) -> tuple[KeyBinding, ...]:
    """The keys that set a score (direct assessment's, and error spans' once the marks are done)."""
    return (KeyBinding(DIGITS, "answer_number", "score ten times the digit", view),
            KeyBinding(("+",), "adjust_score", "score +1", view),
            KeyBinding(("-",), "adjust_score", "score −1", view),
            KeyBinding(("PgUp",), "adjust_score", "score +10", view),
            KeyBinding(("PgDown",), "adjust_score", "score −10", view),
            KeyBinding(("Home",), "adjust_score", f"score {DA_LOWEST}", view),
            KeyBinding(("End",), "adjust_score", f"score {DA_HIGHEST}", view))


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


def known_range(known: str) -> tuple[int, int]:
    """The (low, high) scores of a training item's known answer as :meth:`DirectAssessment.known_answer` keeps it."""
    low, _, high = known.partition("-")
    return int(low), int(high or low)


@dataclass(frozen=True)
class DirectAssessment(JudgingProtocol):
    """Answered by a score; z-scores per judge in the report (Graham et al.), records of their own in a dev set."""

    answer: str = SCORE
    view: str = "score"
    statistics: tuple[str, ...] = ("da-z-scores", "quality")
    devset: str = OWN_RECORDS
    not_adjudicated: str | None = (
        "a direct assessment score (0-100) is a measurement: judges' scores are averaged after each judge's "
        "z-score (Graham et al. 2017), so two scores that differ are not a disagreement a third judge settles")
    no_competence_model: str | None = (
        "direct assessment is a 0-100 score, not a label: MACE and Dawid-Skene do not apply")

    def check(self, question, levels, value, text, options=()):
        return checked_score(question, value), None

    def known_answer(self, question, levels, answer, options=()) -> str:
        """A training item's known score: a whole number, or the range of scores that agree with it, written
        ``[70, 100]`` or ``"70-100"``; kept as ``"LOW-HIGH"`` (a single score as ``"85-85"``)."""
        if isinstance(answer, str) and "-" in answer.strip()[1:]:
            answer = answer.strip().split("-", 1)
        if isinstance(answer, list) and len(answer) == 2:
            low, high = (checked_score(question, bound) for bound in answer)
        elif isinstance(answer, (int, str)) and not isinstance(answer, bool):
            low = high = checked_score(question, answer)
        else:
            raise ValueError(f"criterion {question!r} takes a score from {DA_LOWEST} to {DA_HIGHEST} or a range "
                             "of them ([LOW, HIGH]) as a known answer")
        if int(low) > int(high):
            raise ValueError(f"a range of scores from low to high, not {low}-{high}")
        return f"{low}-{high}"

    def agrees_with_known(self, known: str, given: str) -> bool:
        low, high = known_range(known)
        return given.isdigit() and low <= int(given) <= high

    def key_table(self) -> tuple[KeyBinding, ...]:
        return score_keys(self.view) + (KeyBinding(DA_RECORD_KEYS, "confirm", "record the score", self.view),)

    def level_keys(self, index, level) -> tuple[str, ...]:
        return ()


DIRECT_ASSESSMENT = DirectAssessment("da")
