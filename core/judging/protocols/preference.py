"""Pairwise preference (issue 30): two systems' candidates for one source side by side, the better one chosen
(WMT's relative ranking reduced to two outputs); sign tests and Bradley-Terry in the report.

Keys (issue 44: a key means one thing in every protocol, so the arrows move between items here too): A the left
one is better, B the right one, E equally good (no difference); or the button's number, 1 / 2 / 3 left to right.
"""

from __future__ import annotations

from dataclasses import dataclass

from parastudio.core.judging.protocols.key_binding import KeyBinding
from parastudio.core.judging.protocols.protocol import OWN_RECORDS, PAIR, SIDE, JudgingProtocol
from parastudio.core.vocabulary import PREFER_LEFT, PREFER_RIGHT, PREFER_TIE, preference

# (keys, stored answer, button label), in the order the buttons stand: a letter, then the button's number.
PREFERENCE_KEYS = (
    (("A", "1"), PREFER_LEFT, "Left is better"),
    (("E", "2"), PREFER_TIE, "No difference"),
    (("B", "3"), PREFER_RIGHT, "Right is better"),
)
# A training pair's known answer (core.store.training): the better of its two candidates as the guidelines file
# writes them, or neither.
TRAINING_ANSWERS = ("first", "second", "tie")
_PREFER_ACTIONS = {PREFER_LEFT: "prefer_left", PREFER_TIE: "prefer_neither", PREFER_RIGHT: "prefer_right"}


def preference_of_key(key: str) -> str | None:
    """The stored answer a key gives on a preference item, None when it gives none."""
    return next((value for keys, value, _label in PREFERENCE_KEYS if key in keys), None)


@dataclass(frozen=True)
class Preference(JudgingProtocol):
    answer: str = SIDE
    view: str = "pair"
    item: str = PAIR
    statistics: tuple[str, ...] = ("preference-sign-tests", "bradley-terry", "quality")
    devset: str = OWN_RECORDS
    no_competence_model: str | None = (
        "a preference compares two systems, it has no true label to recover: MACE and Dawid-Skene do not apply")

    def check(self, question, levels, value, text, options=()):
        answer = preference(str(value).strip().lower())
        if answer is None:
            raise ValueError(f"criterion {question!r} takes left (a), right (b) or tie (t), not "
                             f"{str(value).strip()!r}")
        return answer, None

    def known_answer(self, question, levels, answer, options=()) -> str:
        """A training pair's known answer: which of the two candidates as written is better (``first`` or
        ``second``) or ``tie``; the side the judge must press is fixed when the pair's order is drawn."""
        if isinstance(answer, str) and answer.strip().lower() in TRAINING_ANSWERS:
            return answer.strip().lower()
        raise ValueError(f"criterion {question!r} takes first, second or tie as a training pair's known answer")

    def key_table(self) -> tuple[KeyBinding, ...]:
        letters = tuple(KeyBinding(keys[:1], _PREFER_ACTIONS[value], label, self.view)
                        for keys, value, label in PREFERENCE_KEYS)
        numbers = tuple(keys[1] for keys, _value, _label in PREFERENCE_KEYS)
        return letters + (KeyBinding(numbers, "answer_number", "the button of that number", self.view),)

    def level_keys(self, index, level) -> tuple[str, ...]:
        return next(keys for keys, value, _label in PREFERENCE_KEYS if value == str(level["value"]))


PREFERENCE = Preference("preference")
