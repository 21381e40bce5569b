"""Seed 002 §3.4: the pivot score's weights λ1..λ4 and threshold T that maximize F on labelled pairs.

Labelled pairs come from a dev set's unit replacements: replacement ``e1 -> e2`` labelled correct or incorrect
(by the replacement task, or derived). A pair judged in several places takes the majority; a tie is left out.

Each pair carries one feature vector ``h_c = (h1, h2, h3, h4)`` per pivot ``c`` (what a *feature source* gives,
see below) and is extracted when ``ln score(e2|e1) = ln Σ_c exp(λ·h_c) > T`` (seed 002 Eq. 3,
:mod:`core.tablebuild.pivot_loglinear`). With set1 the extracted pairs and set2 the pairs labelled correct,
``F = 2PR/(P+R)`` (:func:`core.stats.replacement_measures.set_precision_recall_f`); ``accuracy`` counts pairs
on the right side of T.

The search: seed 002 cites "gradient descent" from Press et al. (1992), pp. 412-420, which is Numerical
Recipes' §10.5, Powell's direction-set method. F is piecewise constant in (λ, T), so Brent's line minimisation
is replaced by an exact one, as MERT does (:mod:`core.tuning.line_search`): along a line ``θ + γ d`` in
(λ1..λ4, T), pair j's decision function ``g_j(γ) = LSE_c(a_c + γ s_c) - T`` (``a_c = λ·h_c``, ``s_c = dλ·h_c -
dT``) is convex, so it changes sign at most twice; those roots (bisection to the last bit, linear and exact
with one pivot) are the breakpoints of the pair's piecewise-constant statistics, and the sweep gives F on
every interval exactly. Starting point as seed 002's: λ = 1 and T below every pair (all extracted).

Feature sources (what a table must carry):

* :class:`PivotTableSource`: a table whose lines are ``e1 ||| e2 ||| s h1 h2 h3 h4 ...`` (natural-log features
  after one score, as ``parastudio pivot`` writes them). Its h are summed over pivots before the log (one row
  per pair), so the sum over c has one term and ``ln score = λ·h``: a log-linear model on the marginalised
  features, not Eq. 3 itself. Re-scored line by line: the score column becomes ``exp(λ·h)``, h kept.
* :class:`PhraseTableSource`: the bilingual phrase table the pivot table was built from; per-pivot features,
  Eq. 3 exactly; re-scored by one SQL query (:func:`core.tablebuild.pivot_loglinear.loglinear_pivot_table`).
* :class:`PatternTableSource`: a pattern paraphrase table (docs/pattern-table.md, ``parastudio patterns
  build``): h1..h4 of every pivot pattern c on the line, so Eq. 3 exactly, ``score = Σ_c exp(Σ_i λ_i h_i)``
  (seed 002 §3.3); re-scored by :func:`core.tablebuild.patterns.rescoring.rescore_table` (pairs whose ln
  score exceeds T, each e1's pairs re-sorted, λ and T in the new sidecar). Its labelled pairs come from a
  judged pattern-pair study: ``export-devset`` gives each pair one replacement e1 -> e2 labelled from the
  ``correct`` criterion (:mod:`core.tuning.devset`).
* any object with ``features(pairs)`` -> ``{(e1, e2): [[h1, h2, h3, h4], ...]}``, ``write_rescored(lambdas,
  threshold, output)`` -> pair count, and ``describe()``.
"""

from __future__ import annotations

import math
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from parastudio.core.errors import InputFormatError
from parastudio.core.progress import Progress, no_progress
from parastudio.core.textio import atomic_output, open_text_maybe_gzip
from parastudio.core.tuning.line_search import Piecewise, choose_gamma, sweep
from parastudio.core.tuning.mert import search
from parastudio.core.tuning.versions import library_versions
from parastudio.core.tuning.weights_file import FORMAT

PAIR_STATS = ("tp", "fp", "fn", "tn")
PIVOT_OBJECTIVES = ("f1", "accuracy")
FAR = 1e9  # beyond every breakpoint that matters: roots are searched in [-FAR, FAR]
_SEPARATOR = " ||| "


class FeatureSource(Protocol):
    def features(self, pairs: set[tuple[str, str]]) -> dict[tuple[str, str], list[list[float]]]: ...

    def write_rescored(self, lambdas: Sequence[float], threshold: float, output: str | os.PathLike) -> int: ...

    def describe(self) -> dict: ...


def labelled_pairs(records: Sequence[dict]) -> dict[tuple[str, str], bool]:
    """``(e1, e2) -> correct`` from the dev set's replacements (majority over occurrences; ties left out)."""
    votes: dict[tuple[str, str], list[int]] = {}
    for record in records:
        for unit in record["replacements"]:
            if unit.get("label") in ("correct", "incorrect"):
                key = (" ".join(unit["source"].split()), " ".join(unit["target"].split()))
                votes.setdefault(key, [0, 0])[0 if unit["label"] == "correct" else 1] += 1
    return {key: good > bad for key, (good, bad) in votes.items() if good != bad}


@dataclass
class PivotTableSource:
    """A phrase pivot table ``e1 ||| e2 ||| s h1 h2 h3 h4`` (see the module docstring)."""

    path: str

    def _rows(self):
        with open_text_maybe_gzip(self.path) as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                fields = line.rstrip("\n").split(_SEPARATOR)
                try:
                    scores = [float(x) for x in fields[2].split()]
                    if len(fields) < 3 or len(scores) < 5 or not all(math.isfinite(x) for x in scores[1:5]):
                        raise ValueError
                except (ValueError, IndexError):
                    raise InputFormatError(self.path, number, "a pivot-table line 'e1 ||| e2 ||| p h1 h2 h3 h4' "
                                           "(four finite natural-log features after the score)",
                                           line.rstrip("\n")) from None
                yield fields, scores

    def features(self, pairs):
        found = {}
        for fields, scores in self._rows():
            key = (fields[0].strip(), fields[1].strip())
            if key in pairs:
                found[key] = [scores[1:5]]
        return found

    def write_rescored(self, lambdas, threshold, output) -> int:
        lambdas = [float(x) for x in lambdas]
        count = 0
        with atomic_output(output, compresslevel=6, inputs=[self.path]) as handle:
            for fields, scores in self._rows():
                log_score = sum(l * h for l, h in zip(lambdas, scores[1:5]))
                if log_score > threshold:
                    score = math.exp(min(log_score, 700.0))
                    rest = _SEPARATOR.join(fields[3:])
                    handle.write(_SEPARATOR.join([fields[0].strip(), fields[1].strip(),
                                                  " ".join([repr(score)] + [repr(h) for h in scores[1:]])])
                                 + (_SEPARATOR + rest if rest else "") + "\n")
                    count += 1
        return count

    def describe(self) -> dict:
        return {"kind": "pivot-table", "path": str(self.path),
                "features": "h1..h4 marginalised over pivots (one row per pair): ln score = λ·h"}


@dataclass
class PhraseTableSource:
    """The bilingual phrase table behind a pivot table: per-pivot features, seed 002 Eq. 3 exactly."""

    path: str
    reverse: bool = False
    max_pivot: int = 200

    def features(self, pairs):
        from parastudio.core.tablebuild.pivot_loglinear import pivot_features

        return pivot_features(self.path, pairs, reverse=self.reverse, max_pivot=self.max_pivot)

    def write_rescored(self, lambdas, threshold, output) -> int:
        from parastudio.core.tablebuild.pivot_loglinear import loglinear_pivot_table

        return loglinear_pivot_table(self.path, output, lambdas, threshold, reverse=self.reverse,
                                     max_pivot=self.max_pivot)

    def describe(self) -> dict:
        return {"kind": "phrase-table", "path": str(self.path), "reverse": self.reverse, "max_pivot": self.max_pivot,
                "features": "per pivot c: ln p(c|e1), ln p(e2|c), ln LW(c|e1), ln LW(e2|c) (seed 002 Eq. 3-5)"}


@dataclass
class PatternTableSource:
    """A pattern paraphrase table with per-pivot h1..h4 (see the module docstring): seed 002 Eq. 3 exactly.

    A pivot whose features are not all finite adds nothing under every λ of one sign and is dropped; a pair
    left with no pivot is left out (as a pair missing from the table)."""

    path: str

    def features(self, pairs):
        from parastudio.core.tablebuild.patterns.table_file import read_table

        found = {}
        for pair in read_table(Path(self.path)):
            key = (" ".join(pair.e1.split()), " ".join(pair.e2.split()))
            if key in pairs:
                vectors = [list(h) for h in pair.features if all(math.isfinite(x) for x in h)]
                if vectors:
                    found[key] = vectors
        return found

    def write_rescored(self, lambdas, threshold, output) -> int:
        from parastudio.core.tablebuild.patterns.rescoring import rescore_table

        return rescore_table(Path(self.path), Path(output), lambdas=[float(x) for x in lambdas],
                             threshold=float(threshold))["pairs"]

    def describe(self) -> dict:
        return {"kind": "pattern-table", "path": str(self.path),
                "features": "per pivot pattern c: h1..h4 of the table's line (seed 002 Eq. 3-5): "
                            "score = Σ_c exp(Σ_i λ_i h_i)"}


class PairSet:
    """Labelled pairs with their per-pivot features, padded into arrays for vectorised line searches."""

    def __init__(self, keys: list[tuple[str, str]], vectors: list[list[list[float]]], labels: list[bool]):
        self.keys, self.labels = keys, np.array(labels, dtype=bool)
        width = max((len(v) for v in vectors), default=1)
        self.h = np.zeros((len(keys), width, 4))
        self.mask = np.zeros((len(keys), width), dtype=bool)
        for i, vector in enumerate(vectors):
            self.h[i, :len(vector)] = vector
            self.mask[i, :len(vector)] = True
        outcomes = np.zeros((len(keys), 2, len(PAIR_STATS)))  # [pair, extracted?, stats]
        outcomes[self.labels, 1, 0] = 1  # extracted and correct: tp
        outcomes[~self.labels, 1, 1] = 1  # extracted and wrong: fp
        outcomes[self.labels, 0, 2] = 1  # left out but correct: fn
        outcomes[~self.labels, 0, 3] = 1  # left out and wrong: tn
        self.outcomes = outcomes

    def __len__(self) -> int:
        return len(self.keys)

    def log_scores(self, theta: np.ndarray) -> np.ndarray:
        """``ln score(e2|e1)`` of every pair under λ = theta[:4]."""
        z = np.where(self.mask, self.h @ theta[:4], -np.inf)
        top = z.max(axis=1)
        return top + np.log(np.exp(z - top[:, None]).sum(axis=1))

    def totals(self, theta: np.ndarray) -> np.ndarray:
        extracted = (self.log_scores(theta) > theta[4]).astype(int)
        return self.outcomes[np.arange(len(self)), extracted].sum(axis=0)

    def _g(self, a: np.ndarray, s: np.ndarray, threshold: float, gamma: np.ndarray) -> np.ndarray:
        z = np.where(self.mask, a + gamma[:, None] * s, -np.inf)
        top = z.max(axis=1)
        return top + np.log(np.exp(z - top[:, None]).sum(axis=1)) - threshold

    def pieces(self, theta: np.ndarray, direction: np.ndarray) -> list[Piecewise]:
        """Every pair's statistics along ``theta + γ direction`` (roots of the convex g_j, see the module doc)."""
        a = self.h @ theta[:4]
        s = self.h @ direction[:4] - direction[4]
        s_masked_low = np.where(self.mask, s, np.inf).min(axis=1)
        s_masked_high = np.where(self.mask, s, -np.inf).max(axis=1)
        # The minimiser of g (where g' = softmax-mean of s crosses 0); a monotone g has it at an end.
        low, high = np.full(len(self), -FAR), np.full(len(self), FAR)
        for _ in range(110):
            middle = (low + high) / 2
            z = np.where(self.mask, a + middle[:, None] * s, -np.inf)
            weights = np.exp(z - z.max(axis=1)[:, None])
            slope = (weights * np.where(self.mask, s, 0.0)).sum(axis=1) / weights.sum(axis=1)
            low, high = np.where(slope < 0, middle, low), np.where(slope < 0, high, middle)
        bottom = np.where(s_masked_low >= 0, -FAR, np.where(s_masked_high <= 0, FAR, (low + high) / 2))
        g_bottom = self._g(a, s, theta[4], bottom)
        roots = []
        for end in (-FAR, FAR):
            outer = np.full(len(self), end)
            g_outer = self._g(a, s, theta[4], outer)
            has = (g_bottom < 0) & (g_outer > 0)
            inside, out = bottom.copy(), outer.copy()  # g(inside) < 0 < g(out)
            for _ in range(110):
                middle = (inside + out) / 2
                positive = self._g(a, s, theta[4], middle) > 0
                out, inside = np.where(positive, middle, out), np.where(positive, inside, middle)
            roots.append(np.where(has, (inside + out) / 2, np.nan))
        pieces = []
        for j in range(len(self)):
            breaks = np.array(sorted({r for r in (roots[0][j], roots[1][j]) if not np.isnan(r)}))
            probes = (np.array([0.0]) if not len(breaks) else
                      np.concatenate([[breaks[0] - 1.0], (breaks[:-1] + breaks[1:]) / 2, [breaks[-1] + 1.0]]))
            z = np.where(self.mask[j], a[j] + probes[:, None] * s[j], -np.inf)
            top = z.max(axis=1)
            extracted = (top + np.log(np.exp(z - top[:, None]).sum(axis=1)) - theta[4]) > 0
            pieces.append(Piecewise(breaks, self.outcomes[j, extracted.astype(int)]))
        return pieces


def pair_objective(name: str):
    if name not in PIVOT_OBJECTIVES:
        raise ValueError(f"--system pivot tunes on labelled pairs: objective f1 (seed 002's F) or accuracy, "
                         f"not {name!r} (rf measures generated sentences)")

    def objective(totals: np.ndarray) -> np.ndarray:
        tp, fp, fn, tn = (totals[:, i] for i in range(4))
        if name == "f1":
            denominator = 2 * tp + fp + fn
            return np.divide(2 * tp, denominator, out=np.zeros_like(tp, dtype=float), where=denominator > 0)
        total = tp + fp + fn + tn
        return np.divide(tp + tn, total, out=np.zeros_like(tp, dtype=float), where=total > 0)

    return objective


def pair_figures(pairs: PairSet, theta: np.ndarray) -> dict:
    tp, fp, fn, tn = (int(x) for x in pairs.totals(theta))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return {"precision": precision, "recall": recall,
            "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
            "accuracy": (tp + tn) / len(pairs) if len(pairs) else 0.0, "extracted": tp + fp, "pairs": len(pairs),
            "correct": tp + fn, "tp": tp, "fp": fp, "fn": fn, "tn": tn}


def optimise_pairs(pairs: PairSet, objective, start: np.ndarray, *, seed: int = 0, restarts: int = 5,
                   random_directions: int = 3) -> tuple[np.ndarray, float]:
    """The best (λ1..λ4, T) by direction-set ascent with exact line searches (module docstring)."""

    def line(theta, direction):
        return choose_gamma(*sweep(pairs.pieces(theta, direction), objective))

    def value_at(theta):
        return float(objective(pairs.totals(theta)[None, :])[0])

    spread = float(np.ptp(pairs.log_scores(start))) if len(pairs) else 1.0
    point, value, _ = search(line, value_at, start, seed=seed, restarts=restarts, random_directions=random_directions,
                             restart_scale=np.array([2.0, 2.0, 2.0, 2.0, abs(start[4]) + spread + 1.0]))
    return point, value


def tune_pivot(records: Sequence[dict], source: FeatureSource, *, objective: str = "f1", heldout: float = 0.25,
               seed: int = 0, restarts: int = 5, random_directions: int = 3, table_out: str | None = None,
               devset: dict | None = None, progress: Progress = no_progress) -> dict:
    """Tune λ and T on the dev set's labelled pairs; write the re-scored table when ``table_out`` is given."""
    started = time.perf_counter()
    score = pair_objective(objective)
    labels = labelled_pairs(records)
    if not labels:
        raise ValueError("the dev set has no labelled replacement: nothing to tune the pivot score on")
    progress(0, 100, "pivot: reading the features of the labelled pairs")
    found = source.features(set(labels))
    keys = sorted(k for k in labels if k in found)
    if not keys:
        raise ValueError("no labelled pair is in the table: is it the table the candidates were made with?")
    order = list(keys)
    random.Random(f"split:{seed}").shuffle(order)
    held = set(order[:round(heldout * len(order))])
    parts = {name: PairSet([k for k in keys if (k in held) == (name == "heldout")],
                           [found[k] for k in keys if (k in held) == (name == "heldout")],
                           [labels[k] for k in keys if (k in held) == (name == "heldout")])
             for name in ("dev", "heldout")}
    start = np.array([1.0, 1.0, 1.0, 1.0, 0.0])
    start[4] = float(min(p.log_scores(start).min() for p in parts.values() if len(p))) - 1.0
    progress(20, 100, "pivot: tuning λ1..λ4 and T")
    theta, _value = optimise_pairs(parts["dev"], score, start, seed=seed, restarts=restarts,
                                   random_directions=random_directions)
    if all(p.mask.sum(axis=1).max(initial=1) == 1 for p in parts.values()):
        # One pivot per pair: ln score = λ·h, so (λ, T) and any positive multiple extract the same pairs;
        # rescaled to |λ|_1 = 4 (the start's), the written scores stay readable.
        norm = float(np.abs(theta[:4]).sum())
        if norm > 0:
            theta = theta * (4.0 / norm)
    before = {name: pair_figures(p, start) if len(p) else None for name, p in parts.items()}
    after = {name: pair_figures(p, theta) if len(p) else None for name, p in parts.items()}
    written = None
    if table_out:
        progress(80, 100, "pivot: writing the re-scored table")
        written = {"path": str(table_out), "pairs": source.write_rescored(theta[:4], float(theta[4]), table_out)}
    progress(100, 100, "done")
    versions = library_versions()
    return {
        "format": FORMAT, "system": "pivot",
        "weights": {"pivot": {"lambda": [float(x) for x in theta[:4]], "T": float(theta[4])}},
        "vector": {"names": ["lambda_1", "lambda_2", "lambda_3", "lambda_4", "T"],
                   "start": [float(x) for x in start], "tuned": [float(x) for x in theta]},
        "objective": objective, "features": source.describe(),
        "devset": {**(devset or {}), "records": len(records), "labelled_pairs": len(labels),
                   "pairs_in_table": len(keys), "tuning_pairs": len(parts["dev"]), "heldout_pairs": len(parts["heldout"])},
        "before": before, "after": after, "table_out": written,
        "search": {"method": "Powell direction set with exact line searches", "restarts": restarts,
                   "random_directions": random_directions, "seed": seed, "heldout": heldout},
        "seconds": round(time.perf_counter() - started, 2), "versions": versions,
        "signature": "|".join([f"parastudio-tune:{versions['parastudio']}", "system:pivot", f"objective:{objective}",
                               f"devset:sha256={((devset or {}).get('sha256') or 'unknown')[:16]}",
                               f"features:{source.describe()['kind']}", f"heldout:{heldout:g}", f"seed:{seed}",
                               f"search:restarts={restarts},directions={random_directions}",
                               f"numpy:{versions.get('numpy')}"]),
    }
