"""How well scores predict binary labels: accuracy, ROC AUC and the majority baseline.

``roc_auc`` is the Mann-Whitney form: the probability that a random positive scores above a random negative,
a tie counting one half (the same number as scikit-learn's ``roc_auc_score``, which the tests check).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy.stats import rankdata


def accuracy(labels: Sequence[int], predicted: Sequence[int]) -> float:
    labels, predicted = np.asarray(labels), np.asarray(predicted)
    if labels.shape != predicted.shape:
        raise ValueError("labels and predictions differ in length")
    return float(np.mean(labels == predicted)) if labels.size else 0.0


def majority_baseline(labels: Sequence[int]) -> tuple[int, float]:
    """The more frequent class (1 on a tie) and the accuracy of always predicting it."""
    labels = np.asarray(labels, dtype=int)
    if not labels.size:
        return 1, 0.0
    positives = int(labels.sum())
    majority = 1 if positives * 2 >= labels.size else 0
    return majority, float(np.mean(labels == majority))


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float:
    """Area under the ROC curve; ValueError when only one class is present (it is undefined)."""
    labels, scores = np.asarray(labels, dtype=int), np.asarray(scores, dtype=float)
    positives, negatives = int(labels.sum()), int(labels.size - labels.sum())
    if positives == 0 or negatives == 0:
        raise ValueError("ROC AUC needs both classes")
    ranks = rankdata(scores)  # average ranks: ties count one half
    return float((ranks[labels == 1].sum() - positives * (positives + 1) / 2) / (positives * negatives))
