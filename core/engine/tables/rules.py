"""Paraphrase rules: a source phrase rewritten into a target phrase."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

Phrase = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Rule:
    """One rewrite ``source -> target`` of token sequences.

    ``prob`` is the probability the scoring model multiplies in when the rule
    is applied (see :mod:`core.engine.model.scoring` for which conditional it stands for).
    ``features`` keeps every other named score the table carried, so log-linear
    models and exports can use them.
    """

    source: Phrase
    target: Phrase
    prob: float
    features: Mapping[str, float | str] = field(default_factory=dict, compare=False, hash=False)
    # Computed once here because every scorer sums logs of rule probabilities.
    log10_prob: float = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "log10_prob", math.log10(self.prob))

    @property
    def is_identity(self) -> bool:
        return self.source == self.target

    def __str__(self) -> str:
        return f"{' '.join(self.source)} -> {' '.join(self.target)} ({self.prob:g})"


def identity_rule(word: str) -> Rule:
    """The identity rule of seed 000 §2.2: an unchanged word, probability 1."""
    return Rule((word,), (word,), 1.0)


@dataclass(frozen=True, slots=True)
class Match:
    """A rule applicable at source span ``[start, end)`` of a sentence."""

    start: int
    end: int
    rule: Rule
