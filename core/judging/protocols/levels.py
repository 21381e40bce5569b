"""Protocols answered by a level of a scale: yes/no (seed 003's two steps), a replacement judged correct or not
(seed 004 §3.6), and the categorical scales with their levels (seed 004's 3-point, 5-point, a study's own)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from parastudio.core.judging.protocols.key_binding import KeyBinding
from parastudio.core.judging.protocols.protocol import REPLACEMENT_UNIT, JudgingProtocol
from parastudio.core.vocabulary import NO, YES, yes_or_no


@dataclass(frozen=True)
class YesNo(JudgingProtocol):
    """Yes or no, by Y/1 and N/0 (and every word of the yes/no vocabulary when imported)."""

    yes_no: bool = True

    def check(self, question, levels, value, text, options=()):
        answer = yes_or_no(str(value).strip().lower())
        if answer is None:
            raise ValueError(f"criterion {question!r} takes yes or no, not {str(value).strip()!r}")
        return answer, None

    def bad_values(self, levels: Sequence[dict]) -> set[str]:
        return {NO}

    def key_table(self) -> tuple[KeyBinding, ...]:
        return (KeyBinding(("Y",), "answer_yes", "yes", self.view), KeyBinding(("N",), "answer_no", "no", self.view),
                KeyBinding(("1", "0"), "answer_number", "1 yes, 0 no", self.view))

    def level_keys(self, index: int, level: dict) -> tuple[str, ...]:
        return ("Y", "1") if str(level["value"]) == YES else ("N", "0")


YES_NO = YesNo("yes-no")
REPLACEMENT = YesNo("replacement", item=REPLACEMENT_UNIT, devset="own-records")
CATEGORICAL = JudgingProtocol("categorical")
