"""Pairwise preference judgments (issue 30) and the sign tests between systems they give.

Each answer says which of two systems' candidates for one source sentence a judge found better, or neither.
A sentence both systems paraphrased with the same string is a tie by construction (no judge saw it).

Sign tests are paired on source sentences, as for every other criterion (seed 001 §4.1.3): on a sentence,
system A scores the number of judges who preferred A's candidate and B the number who preferred B's; the
sentence is a win for the higher, a tie when equal (ties dropped, ``n = wins_a + wins_b``), then the exact
two-sided binomial test with p = 1/2 and Holm's step-down correction over the system pairs
(:func:`core.stats.significance.sign_test`, :func:`core.stats.significance.holm_adjust`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import ClassVar, Iterable, Sequence

from parastudio.core.stats.signature import Signed
from parastudio.core.stats.significance import CORRECTIONS, PairwiseComparison, holm_adjust, sign_test
from parastudio.core.vocabulary import PREFER_LEFT, PREFER_RIGHT, PREFER_TIE


@dataclass(frozen=True)
class PreferenceJudgment:
    """One answer: ``value`` is ``left``, ``right`` or ``tie``; ``annotator`` None for a tie by construction."""

    sentence: str
    left: str
    right: str
    value: str
    annotator: str | None = None

    def __post_init__(self) -> None:
        if self.value not in (PREFER_LEFT, PREFER_RIGHT, PREFER_TIE):
            raise ValueError(f"a preference is left, right or tie, not {self.value!r}")
        if self.left == self.right:
            raise ValueError(f"a preference compares two systems, not {self.left!r} with itself")

    @property
    def winner(self) -> str | None:
        return {PREFER_LEFT: self.left, PREFER_RIGHT: self.right}.get(self.value)

    @property
    def loser(self) -> str | None:
        return {PREFER_LEFT: self.right, PREFER_RIGHT: self.left}.get(self.value)


def systems_of(judgments: Iterable[PreferenceJudgment]) -> list[str]:
    """Every system compared, sorted by name."""
    return sorted({name for j in judgments for name in (j.left, j.right)})


def system_pairs(judgments: Iterable[PreferenceJudgment]) -> list[tuple[str, str]]:
    """The pairs of systems compared, each as (first, second) by name, sorted."""
    return sorted({tuple(sorted((j.left, j.right))) for j in judgments})


def sentence_counts(judgments: Iterable[PreferenceJudgment]) -> dict[tuple[str, str], dict[str, list[int]]]:
    """(A, B) with A before B by name -> sentence -> [judges preferring A, judges preferring B]."""
    counts: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(dict)
    for j in judgments:
        a, b = sorted((j.left, j.right))
        cell = counts[(a, b)].setdefault(j.sentence, [0, 0])
        if j.winner is not None:
            cell[0 if j.winner == a else 1] += 1
    return dict(counts)


@dataclass(frozen=True)
class PreferenceSignTests(Signed):
    """Every pair of systems compared on the source sentences they were judged on (module docstring)."""

    name: ClassVar[str] = "preference-sign-test"
    correction: str = "holm"

    def __post_init__(self) -> None:
        if self.correction not in CORRECTIONS:
            raise ValueError(f"correction must be one of {CORRECTIONS}, not {self.correction!r}")

    def settings(self) -> dict[str, object]:
        return {"test": "exact-binomial-two-sided", "unit": "source-sentence",
                "sentence-score": "judges-preferring", "ties": "dropped", "correction": self.correction}

    def compare(self, judgments: Sequence[PreferenceJudgment]) -> list[PairwiseComparison]:
        rows = []
        for (a, b), by_sentence in sorted(sentence_counts(judgments).items()):
            scores = list(by_sentence.values())
            result = sign_test([s[0] for s in scores], [s[1] for s in scores])
            rows.append((a, b, len(scores), result))
        p_values = [r[3].p_value for r in rows]
        adjusted = (holm_adjust(p_values) if self.correction == "holm" else p_values) if rows else []
        return [PairwiseComparison(a, b, n, s.wins_a, s.wins_b, s.ties, s.p_value, p)
                for (a, b, n, s), p in zip(rows, adjusted)]


def preferences_from_records(records) -> list[PreferenceJudgment]:
    """The preference answers in judgment records read from a file (``study export-judgments``' CSV): rows of a
    criterion whose labels are all ``left``/``right``/``tie``, each row's ``systems`` the two systems in the
    order shown (``left;right``), its sentence the ``source_key`` (else ``sentence_id``). Such a file has no
    ties by construction (pairs both systems answered with one string are never shown, so never judged)."""
    if records.producers is None or records.sentences is None:
        return []
    criteria = [name for name in records.criterion_names()
                if set(records.select(criterion=name).values) <= {PREFER_LEFT, PREFER_RIGHT, PREFER_TIE}]
    return [PreferenceJudgment(sentence, systems[0], systems[1], value, annotator)
            for criterion, value, annotator, systems, sentence in zip(
                records.criteria, records.values, records.annotators, records.producers, records.sentences)
            if criterion in criteria and len(systems) == 2 and systems[0] != systems[1]]
