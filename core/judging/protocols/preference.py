"""Pairwise preference (issue 30): two systems' candidates for one source side by side, the better one chosen
(WMT's relative ranking reduced to two outputs); sign tests and Bradley-Terry in the report."""

from __future__ import annotations

from dataclasses import dataclass

from parastudio.core.judging.protocols.protocol import OWN_RECORDS, PAIR, SIDE, JudgingProtocol
from parastudio.core.vocabulary import PREFER_LEFT, PREFER_RIGHT, PREFER_TIE, preference

# (keys, stored answer, button label), in the order the buttons stand; on a preference item they answer before
# the arrows that move between items would.
PREFERENCE_KEYS = (
    (("A", "Left"), PREFER_LEFT, "Left is better"),
    (("T", "Down"), PREFER_TIE, "No difference"),
    (("B", "Right"), PREFER_RIGHT, "Right is better"),
)


@dataclass(frozen=True)
class Preference(JudgingProtocol):
    answer: str = SIDE
    view: str = "pair"
    item: str = PAIR
    statistics: tuple[str, ...] = ("preference-sign-tests", "bradley-terry", "quality")
    devset: str = OWN_RECORDS

    def check(self, question, levels, value, text, options=()):
        answer = preference(str(value).strip().lower())
        if answer is None:
            raise ValueError(f"criterion {question!r} takes left (a), right (b) or tie (t), not "
                             f"{str(value).strip()!r}")
        return answer, None

    def level_keys(self, index, level) -> tuple[str, ...]:
        return next(keys for keys, value, _label in PREFERENCE_KEYS if value == str(level["value"]))


PREFERENCE = Preference("preference")
