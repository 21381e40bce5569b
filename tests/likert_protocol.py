"""A judging protocol that is not the product's: a 1-5 Likert scale answered with keys of its own (Q W R U I,
left to right on the keyboard's top row, passing over E, T and Y, which mean other things on the product's
protocols: tests/test_key_table.py checks that no key has two meanings). tests/test_judging_protocol_registry.py
adds it to the registry with one line and uses it everywhere a protocol is read: nothing else in the house is
written for it."""

from __future__ import annotations

from dataclasses import dataclass

from parastudio.core.judging.keys import KeyBinding
from parastudio.core.judging.protocols.protocol import JudgingProtocol

LIKERT_KEYS = "QWRUI"
LIKERT_LEVELS = tuple({"value": str(value), "label": label, "description": ""} for value, label in
                      enumerate(("strongly disagree", "disagree", "neither", "agree", "strongly agree"), start=1))


@dataclass(frozen=True)
class Likert(JudgingProtocol):
    """Levels 1-5 as any categorical scale, each given by its letter of Q W R U I instead of its digit."""

    def key_table(self) -> tuple[KeyBinding, ...]:
        return (KeyBinding(tuple(LIKERT_KEYS), "answer_level", "the level of that letter, left to right", self.view),)

    def level_keys(self, index: int, level: dict) -> tuple[str, ...]:
        return (LIKERT_KEYS[index],)


LIKERT = Likert("likert")
