"""Agreement of one pair of annotators on the units both judged: Cohen's kappa (weighted on numeric scales), the
confusion matrix, and the drift of kappa over blocks of units in judging order.

Each is a small frozen object whose fields are its settings, so a report table's signature is read from the
object that computed it (:mod:`core.stats.signature`). Kappa's definitions are in :mod:`core.stats.agreement`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parastudio.core.stats.agreement import WEIGHTINGS, cohen_kappa, confusion_matrix
from parastudio.core.stats.signature import Signed


@dataclass(frozen=True)
class PairKappas(Signed):
    """Cohen's kappa of two annotators, once per weighting of ``weightings`` (Cohen 1960, 1968)."""

    weightings: tuple[str, ...] = ("none",)
    name = "cohen-kappa"

    def __post_init__(self) -> None:
        unknown = [w for w in self.weightings if w not in WEIGHTINGS]
        if unknown or not self.weightings:
            raise ValueError(f"weightings must be among {WEIGHTINGS}, not {self.weightings!r}")

    def settings(self) -> dict[str, object]:
        return {"units": "judged-by-both", "weights": self.weightings}

    def __call__(self, codes_a: np.ndarray, codes_b: np.ndarray, n_categories: int) -> list[float | None]:
        return [cohen_kappa(codes_a, codes_b, n_categories, weighting) for weighting in self.weightings]


@dataclass(frozen=True)
class PairConfusion(Signed):
    """Counts of (first annotator's category, second annotator's category) on the units both judged."""

    name = "confusion-matrix"

    def settings(self) -> dict[str, object]:
        return {"rows": "first-annotator", "columns": "second-annotator"}

    def __call__(self, codes_a: np.ndarray, codes_b: np.ndarray, n_categories: int) -> np.ndarray:
        return confusion_matrix(codes_a, codes_b, n_categories)


@dataclass(frozen=True)
class KappaDrift(Signed):
    """Unweighted Cohen's kappa per block of ``block_size`` consecutive units, units in judging order."""

    block_size: int = 50
    name = "cohen-kappa-drift"

    def __post_init__(self) -> None:
        if self.block_size < 1:
            raise ValueError(f"block_size must be at least 1, not {self.block_size}")

    def settings(self) -> dict[str, object]:
        return {"block": self.block_size, "order": "judging", "weights": "none"}

    def __call__(self, codes_a: np.ndarray, codes_b: np.ndarray,
                 n_categories: int) -> list[tuple[int, int, int, float | None]]:
        """``(block number from 1, first unit from 0, units, kappa)`` per block; the codes in judging order."""
        blocks = []
        for start in range(0, len(codes_a), self.block_size):
            stop = min(start + self.block_size, len(codes_a))
            kappa = cohen_kappa(codes_a[start:stop], codes_b[start:stop], n_categories)
            blocks.append((start // self.block_size + 1, start, stop - start, kappa))
        return blocks
