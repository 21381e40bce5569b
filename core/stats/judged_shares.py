"""The per-system statistics of seed 003's Table 1, seed 004's Table 1 and seed 001's Fig. 4.5, each a frozen
object that computes its numbers and signs them from its own settings (:class:`core.stats.signature.Signed`).

* :class:`PositiveShares` (seed 003 §5, Table 1): over the items judged by at
  least ``min_judges`` judges, the share every judge calls positive, the share
  at least one does, and the judges' kappa (Cohen's with two judges, Fleiss'
  with more).
* :class:`FixedChanceShares` (seed 004 §5, Table 1): the share of each label of
  a scale, pooled over judges, and the kappa with fixed chance agreement
  P(E) = 1/q, q the number of labels of the scale, P(A) Fleiss' mean pairwise
  agreement.
* :class:`UnifiedSuccesses` (seed 001 §4.2.2, Fig. 4.5): successes per
  annotator, and the items at least ``unified_min`` annotators call a success.

A candidate several systems produced counts for each (the records are read
``per_system()``), which every signature says (``systems:every-producer``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from parastudio.core.stats.agreement import (
    MISSING,
    RatingMatrix,
    category_counts,
    cohen_kappa,
    fixed_chance_kappa,
    fleiss_kappa,
    observed_agreement,
)
from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.signature import Signed

EVERY_PRODUCER = "every-producer"


@dataclass(frozen=True)
class PositiveShares(Signed):
    """Seed 003's shares of positive judgments and kappa (module docstring)."""

    name: ClassVar[str] = "share-positive+kappa"
    positive: tuple[str, ...]
    min_judges: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "positive", tuple(self.positive))
        if self.min_judges < 2:
            raise ValueError("an item needs at least 2 judges to be shared (min_judges >= 2)")

    def settings(self) -> dict[str, object]:
        return {"positive": self.positive, "both": "all-judges-positive", "min_judges": self.min_judges,
                "systems": EVERY_PRODUCER}

    def codes(self, matrix: RatingMatrix) -> np.ndarray:
        """Units x annotators: 1 positive, 0 negative, -1 missing."""
        wanted = {label.lower() for label in self.positive}
        is_positive = np.array([c.lower() in wanted for c in matrix.categories] + [False], dtype=np.int64)
        binary = is_positive[matrix.codes]  # index -1 (missing) reads the padding entry; then restore the marker
        return np.where(matrix.codes == MISSING, MISSING, binary)

    def shares(self, codes: np.ndarray) -> tuple[float | None, float | None, int]:
        """(share all judges positive, share at least one positive, items) over the items judged enough."""
        judged = (codes != MISSING).sum(axis=1)
        yes = (codes == 1).sum(axis=1)
        counted = judged >= self.min_judges
        n = int(counted.sum())
        if n == 0:
            return None, None, 0
        return float(np.mean(yes[counted] == judged[counted])), float(np.mean(yes[counted] >= 1)), n

    @staticmethod
    def kappa(codes: np.ndarray) -> tuple[float | None, str]:
        """Cohen's kappa for exactly two annotators, otherwise Fleiss' kappa; and which it is."""
        if codes.shape[1] == 2:
            a, b = codes[:, 0], codes[:, 1]
            both = (a != MISSING) & (b != MISSING)
            return cohen_kappa(a[both], b[both], 2), "cohen"
        return fleiss_kappa(category_counts(codes, 2)), "fleiss"


@dataclass(frozen=True)
class FixedChanceShares(Signed):
    """Seed 004's label shares and fixed-chance kappa; ``scales``: (criterion, its labels in order) pairs,
    ``q_from``: (criterion, "scale" or "observed") pairs, where each scale came from."""

    name: ClassVar[str] = "label-share+kappa-fixed-chance"
    scales: tuple[tuple[str, tuple[str, ...]], ...]
    q_from: tuple[tuple[str, str], ...] = ()

    def settings(self) -> dict[str, object]:
        return {"pe": "1/q", "q": ",".join(f"{name}={len(labels)}" for name, labels in self.scales),
                "q_from": ",".join(f"{name}={source}" for name, source in self.q_from),
                "pa": "fleiss-p-bar", "systems": EVERY_PRODUCER}

    def labels(self, criterion: str) -> tuple[str, ...]:
        return dict(self.scales)[criterion]

    def shares_and_kappa(self, judgments: JudgmentRecords, criterion: str) -> tuple[list[float], float | None,
                                                                                      int, int]:
        """(share of each label, kappa with P(E) = 1/q, judgments, items) of one criterion's judgments."""
        labels = self.labels(criterion)
        matrix = judgments.rating_matrix(categories=labels)
        counts = matrix.category_counts()
        shares = counts.sum(axis=0) / counts.sum()
        kappa = fixed_chance_kappa(observed_agreement(counts), len(labels))
        return [float(share) for share in shares], kappa, int(counts.sum()), matrix.n_units


@dataclass(frozen=True)
class UnifiedSuccesses(Signed):
    """Seed 001's successes per annotator and unified score (module docstring); ``positive``: the labels
    that are a success (a choice task's picked option is read as "yes" before)."""

    name: ClassVar[str] = "successes+unified"
    positive: tuple[str, ...]
    unified_min: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "positive", tuple(self.positive))

    def settings(self) -> dict[str, object]:
        return {"positive": self.positive, "unified_min": self.unified_min, "systems": EVERY_PRODUCER}

    def count(self, group: JudgmentRecords, annotators: Sequence[str]) -> tuple[dict[str, int], int, int]:
        """(successes per annotator, items unified-successful, items) of one system's judgments."""
        wanted = {label.lower() for label in self.positive} | {"yes"}
        successes = {annotator: 0 for annotator in annotators}
        votes: dict[str, int] = {}
        for item, annotator, value in zip(group.items, group.annotators, group.values):
            success = value.lower() in wanted
            successes[annotator] += success
            votes[item] = votes.get(item, 0) + success
        return successes, sum(count >= self.unified_min for count in votes.values()), len(votes)
