"""What MERT maximizes on generated paraphrases: rf (seed 004 §3.6), F1 of correct replacements, or accuracy.

Each candidate carries sufficient statistics (:data:`STATS`), summed over the chosen candidate of every
sentence:

* ``correct`` / ``incorrect`` / ``unlabelled``: its unit replacements by their dev-set label;
* ``replaced_words``: source words inside its replaced units; ``source_words``: its source's length;
* ``acceptable``: 1 when the candidate itself was judged acceptable (its aggregated label positive on every
  criterion asked), else 0; ``sentences``: 1.

Objectives (all in [0, 1]):

* ``rf``: seed 004's ``2 rp rr / (rp + rr)`` (:mod:`core.stats.replacement_measures`);
* ``f1``: ``2PR / (P + R)`` with ``P = rp`` and ``R`` = correct replacements chosen over all replacements the
  dev set labels correct (recall of known-good rewrites, where ``rr`` rewards any rewrite);
* ``accuracy``: the share of sentences whose chosen candidate was judged acceptable (judged precision of the
  1-best); a candidate nobody judged counts as not acceptable.
"""

from __future__ import annotations

import numpy as np

from parastudio.core.stats.replacement_measures import UNLABELLED_POLICIES, ReplacementCounts, f_measure, ratio
from parastudio.core.tuning.line_search import Objective

STATS = ("correct", "incorrect", "unlabelled", "replaced_words", "source_words", "acceptable", "sentences")
COLUMN = {name: index for index, name in enumerate(STATS)}
OBJECTIVES = ("rf", "f1", "accuracy")


def _safe_ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros_like(numerator, dtype=float)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _harmonic(p: np.ndarray, r: np.ndarray) -> np.ndarray:
    return _safe_ratio(2.0 * p * r, p + r)


def make_objective(name: str, *, unlabelled: str = "incorrect", correct_known: int = 0) -> Objective:
    """The vectorised objective ``name`` over rows of summed :data:`STATS`."""
    if name not in OBJECTIVES:
        raise ValueError(f"objective must be one of {', '.join(OBJECTIVES)}, not {name!r}")
    if unlabelled not in UNLABELLED_POLICIES:
        raise ValueError(f"unlabelled policy must be one of {UNLABELLED_POLICIES}, not {unlabelled!r}")
    c = COLUMN

    def precision(totals: np.ndarray) -> np.ndarray:
        denominator = totals[:, c["correct"]] + totals[:, c["incorrect"]]
        if unlabelled == "incorrect":
            denominator = denominator + totals[:, c["unlabelled"]]
        return _safe_ratio(totals[:, c["correct"]], denominator)

    if name == "rf":
        return lambda totals: _harmonic(precision(totals),
                                        _safe_ratio(totals[:, c["replaced_words"]], totals[:, c["source_words"]]))
    if name == "f1":
        known = float(correct_known)
        return lambda totals: _harmonic(precision(totals),
                                        totals[:, c["correct"]] / known if known else np.zeros(len(totals)))
    return lambda totals: _safe_ratio(totals[:, c["acceptable"]], totals[:, c["sentences"]])


def figures(totals: np.ndarray, *, unlabelled: str = "incorrect", correct_known: int = 0) -> dict:
    """Every measure of summed statistics, for reports (rp, rr, rf, recall, f1, accuracy and the counts)."""
    counts = ReplacementCounts(*(int(totals[COLUMN[n]]) for n in STATS[:5]))
    recall = ratio(counts.correct, correct_known)
    return {**counts.to_json(unlabelled), "recall": recall, "f1": f_measure(counts.rp(unlabelled), recall),
            "accuracy": ratio(totals[COLUMN["acceptable"]], totals[COLUMN["sentences"]]),
            "acceptable": int(totals[COLUMN["acceptable"]]), "sentences": int(totals[COLUMN["sentences"]])}
