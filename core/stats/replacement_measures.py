"""Replacement precision, rate and F-measure (seed 004 §3.6), and precision, recall and F over sets (seed 002 §3.4).

Seed 004 §3.6, on a development set whose unit replacements raters labelled:

* ``rp = c_dev(+r) / c_dev(r)``: correct replacements over all replacements in the generated paraphrases;
* ``rr = w_dev(r) / w_dev(s)``: words in the replaced (source) units over the words of all source sentences;
* ``rf = 2 rp rr / (rp + rr)``: the objective MERT maximizes.

Notation -> names: ``c_dev(+r)`` -> ``correct``, ``c_dev(r)`` -> :attr:`ReplacementCounts.replacements`,
``w_dev(r)`` -> ``replaced_words``, ``w_dev(s)`` -> ``source_words``.

Seed 004's raters labelled *every* possible replacement, so each one is correct or incorrect. A replacement
nobody labelled (one a re-tuned system makes for the first time) is ``unlabelled``; how it counts is a stated
policy: ``"incorrect"`` (the default: no judge accepted it, so it cannot count as correct, and a tuner gains
nothing by reaching for unlabelled rewrites) or ``"skip"`` (left out of ``rp``; it still counts in ``rr``,
which needs no label). A measure of nothing (0/0) is 0.

Seed 002 §3.4: ``P = |set1 ∩ set2| / |set1|``, ``R = |set1 ∩ set2| / |set2|``, ``F = 2PR / (P + R)`` with set1
the pairs extracted under the current parameters and set2 the pairs labelled correct.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Iterable

UNLABELLED_POLICIES = ("incorrect", "skip")


def ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def f_measure(precision: float, recall: float) -> float:
    """The harmonic mean ``2PR / (P + R)`` (0 when both are 0)."""
    return 2.0 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


@dataclass(frozen=True)
class ReplacementCounts:
    """Counts over a set of generated paraphrases (one per source sentence)."""

    correct: int = 0
    incorrect: int = 0
    unlabelled: int = 0
    replaced_words: int = 0
    source_words: int = 0

    def __add__(self, other: "ReplacementCounts") -> "ReplacementCounts":
        return ReplacementCounts(self.correct + other.correct, self.incorrect + other.incorrect,
                                 self.unlabelled + other.unlabelled, self.replaced_words + other.replaced_words,
                                 self.source_words + other.source_words)

    @property
    def replacements(self) -> int:
        return self.correct + self.incorrect + self.unlabelled

    def rp(self, unlabelled: str = "incorrect") -> float:
        return replacement_precision(self.correct, self.incorrect, self.unlabelled, unlabelled)

    def rr(self) -> float:
        return ratio(self.replaced_words, self.source_words)

    def rf(self, unlabelled: str = "incorrect") -> float:
        return f_measure(self.rp(unlabelled), self.rr())

    def to_json(self, unlabelled: str = "incorrect") -> dict:
        return {"rp": self.rp(unlabelled), "rr": self.rr(), "rf": self.rf(unlabelled), "correct": self.correct,
                "incorrect": self.incorrect, "unlabelled": self.unlabelled, "replacements": self.replacements,
                "replaced_words": self.replaced_words, "source_words": self.source_words,
                "unlabelled_policy": unlabelled}


def replacement_precision(correct: float, incorrect: float, unlabelled: float, policy: str = "incorrect") -> float:
    """``rp`` with unlabelled replacements counted by ``policy`` (see the module docstring)."""
    if policy not in UNLABELLED_POLICIES:
        raise ValueError(f"unlabelled policy must be one of {UNLABELLED_POLICIES}, not {policy!r}")
    denominator = correct + incorrect + (unlabelled if policy == "incorrect" else 0)
    return ratio(correct, denominator)


def set_precision_recall_f(extracted: Iterable[Hashable], correct: Iterable[Hashable]) -> tuple[float, float, float]:
    """Seed 002 §3.4's P, R and F of the ``extracted`` set against the ``correct`` set."""
    extracted, correct = set(extracted), set(correct)
    hits = len(extracted & correct)
    precision, recall = ratio(hits, len(extracted)), ratio(hits, len(correct))
    return precision, recall, f_measure(precision, recall)
