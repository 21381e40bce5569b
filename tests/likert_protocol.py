"""A judging protocol that is not the product's: a 1-5 Likert scale answered with keys of its own (Q W E R T,
left to right on the keyboard's top row). tests/test_judging_protocol_registry.py adds it to the registry with
one line and uses it everywhere a protocol is read: nothing else in the house is written for it."""

from __future__ import annotations

from dataclasses import dataclass

from parastudio.core.judging.protocols.protocol import JudgingProtocol

LIKERT_KEYS = "QWERT"
LIKERT_LEVELS = tuple({"value": str(value), "label": label, "description": ""} for value, label in
                      enumerate(("strongly disagree", "disagree", "neither", "agree", "strongly agree"), start=1))


@dataclass(frozen=True)
class Likert(JudgingProtocol):
    """Levels 1-5 as any categorical scale, each given by its letter of Q W E R T instead of its digit."""

    def level_keys(self, index: int, level: dict) -> tuple[str, ...]:
        return (LIKERT_KEYS[index],)


LIKERT = Likert("likert")
