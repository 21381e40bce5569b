"""Slot tokens as the pattern table writes them (docs/pattern-table.md): ``[TAG_n]``.

The engine reads them back with :mod:`core.engine.patterns.slots` (the two
layers do not import each other; a test checks they agree).
"""

from __future__ import annotations

import re
from typing import Sequence

_SLOT = re.compile(r"^\[([A-Z$]+)_([1-9][0-9]*)\]$")


def slot_token(tag: str, number: int) -> str:
    return f"[{tag}_{number}]"


def parse_slot(token: str) -> tuple[str, int] | None:
    found = _SLOT.match(token)
    return (found.group(1), int(found.group(2))) if found else None


def canonical_numbers(tokens: Sequence[str]) -> dict[str, str]:
    """Slot token -> its name when the slots of ``tokens`` are numbered per tag from left to right."""
    renamed: dict[str, str] = {}
    counts: dict[str, int] = {}
    for token in tokens:
        slot = parse_slot(token)
        if slot is not None and token not in renamed:
            counts[slot[0]] = counts.get(slot[0], 0) + 1
            renamed[token] = slot_token(slot[0], counts[slot[0]])
    return renamed


def renamed(tokens: Sequence[str], names: dict[str, str]) -> tuple[str, ...]:
    return tuple(names.get(token, token) for token in tokens)


def canonical(tokens: Sequence[str]) -> tuple[str, ...]:
    """``give [NN_2] [NN_1]`` -> ``give [NN_1] [NN_2]``."""
    return renamed(tokens, canonical_numbers(tokens))


def slot_count(tokens: Sequence[str]) -> int:
    return sum(1 for token in tokens if _SLOT.match(token))
