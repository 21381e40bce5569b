"""Slots renumbered as the pattern table writes them (docs/pattern-table.md); the ``[TAG_n]`` token format itself
is the base layer's (:mod:`core.vocabulary`), read back by the engine the same way."""

from __future__ import annotations

from typing import Sequence

from parastudio.core.vocabulary import is_slot, parse_slot, slot_token


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
    return sum(1 for token in tokens if is_slot(token))
