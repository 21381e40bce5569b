"""Equation 3 and Equation 1 of seed 002 as pure functions of the per-pivot features (§3.3, §3.4, §4.1).

    score(e2|e1) = Σ_c exp( Σ_i λ_i h_i(e1, e2, c) )          (Eq. 3, the LL-model)

with ``features_per_pivot[k] = (h1, h2, h3, h4)`` for the k-th pivot c
(:mod:`.features`) and ``lambdas = (λ1, λ2, λ3, λ4)``. e2 is extracted as a
paraphrase of e1 when the score exceeds the threshold T; T is compared with the
natural log of the score (the paper's tuned values T = -10.002 and, for the
MLE-model, T' = -5.1 are negative, so they are logs). With λ = (1, 1, 0, 0) the
score is Bannard and Callison-Burch's p(e2|e1) = Σ_c p(c|e1) p(e2|c) (Eq. 1, the
MLE-model).

The tuner (``parastudio tune --system pivot``) calls :func:`score` /
:func:`log_score` on the features a table carries (docs/pattern-table.md).
"""

from __future__ import annotations

import math
from typing import Sequence

FEATURE_NAMES = ("h1", "h2", "h3", "h4")
DEFAULT_LAMBDAS = (1.0, 1.0, 1.0, 1.0)  # §3.4: "we set λ_i = 1 (i = 1, ..., 4)"
MLE_LAMBDAS = (1.0, 1.0, 0.0, 0.0)  # Eq. 1 as a special case of Eq. 3 (§4.1)
KEEP_ALL = -math.inf  # §3.4: "assign T a minimum value, so as to obtain all possible paraphrase patterns"
# Seed 002 footnote 4 and footnote 6: the weights and thresholds tuned on the authors' development set.
PAPER_LAMBDAS = (0.0594137, 0.995936, -0.0048954, 1.47816)
PAPER_THRESHOLD = -10.002
PAPER_MLE_THRESHOLD = -5.1


def _check(features_per_pivot: Sequence[Sequence[float]], lambdas: Sequence[float]) -> None:
    if len(lambdas) != len(FEATURE_NAMES):
        raise ValueError(f"expected {len(FEATURE_NAMES)} weights λ1..λ4, got {len(lambdas)}")
    if not features_per_pivot:
        raise ValueError("a pattern pair has at least one pivot")
    for features in features_per_pivot:
        if len(features) != len(FEATURE_NAMES):
            raise ValueError(f"expected h1..h4 per pivot, got {len(features)} values")


def log_score(features_per_pivot: Sequence[Sequence[float]], lambdas: Sequence[float] = DEFAULT_LAMBDAS) -> float:
    """ln score(e2|e1) of Eq. 3, summed in log space (no underflow for long patterns)."""
    _check(features_per_pivot, lambdas)
    exponents = [sum(weight * value for weight, value in zip(lambdas, features)) for features in features_per_pivot]
    top = max(exponents)
    if top == -math.inf:
        return -math.inf
    return top + math.log(sum(math.exp(x - top) for x in exponents))


def score(features_per_pivot: Sequence[Sequence[float]], lambdas: Sequence[float] = DEFAULT_LAMBDAS) -> float:
    """score(e2|e1) of Eq. 3."""
    return math.exp(log_score(features_per_pivot, lambdas))


def extracted(log_value: float, threshold: float = KEEP_ALL) -> bool:
    """Whether a pair is kept: its score exceeds T (T = -inf keeps every pair)."""
    return threshold == KEEP_ALL or log_value > threshold
