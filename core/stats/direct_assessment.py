"""Direct assessment (issue 30; Graham, Baldwin, Moffat & Zobel 2013, 2017; WMT since 2017).

Judges score each candidate from 0 to 100. Judges use the scale differently, so each judge's scores are
standardized: ``z = (x - mean_j) / sd_j`` over that judge's scores (``sd`` the sample standard deviation,
``ddof = 1``; a judge with fewer than two scores, or all equal, has no z). A candidate's z is the mean of its
judges' z; a system's score is the mean z of its candidates (a string two systems produced counts for both),
with a 95 % Student t interval over those candidates.

Agreement: Krippendorff's α with the interval metric on the raw scores (:mod:`core.stats.alpha`).

Quality control (Graham et al. 2017 §3): each judge also scores degraded copies of candidates they scored
(words dropped or repeated). A careful judge scores the degraded copy lower; the judge's reliability is the
one-sided Wilcoxon signed-rank test of original minus degraded > 0 over those pairs (``scipy.stats.wilcoxon``,
zero differences dropped); WMT keeps judges with p < 0.05.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import ClassVar, Sequence

import numpy as np

from parastudio.core.number_text import parse_decimal
from parastudio.core.stats.alpha import krippendorff_alpha
from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.signature import Signed


@dataclass(frozen=True)
class DAScore:
    """One judge's score of one candidate; ``systems`` every system that produced it."""

    item: str
    annotator: str
    score: float
    systems: tuple[str, ...] = ()
    criterion: str = "da"


def scores_of_records(records: JudgmentRecords) -> list[DAScore]:
    """The scores of the records' 0-100 criteria (:meth:`JudgmentRecords.scored_criteria`), in the records'
    order, each with every system that produced its candidate; one reading for a study and its exported CSV,
    so the report gives both the same z."""
    scored = set(records.scored_criteria())
    if not scored:
        return []
    producers = records.producers or [(system,) for system in records.systems or ["-"] * len(records)]
    return [DAScore(item, annotator, parse_decimal(value), tuple(systems) or ("-",), criterion)
            for item, annotator, criterion, value, systems in zip(
                records.items, records.annotators, records.criteria, records.values, producers)
            if criterion in scored]


def judge_moments(scores: Sequence[DAScore]) -> dict[str, tuple[float, float] | None]:
    """Judge -> (mean, sample sd) of their scores; None when the sd is undefined or 0."""
    by_judge: dict[str, list[float]] = defaultdict(list)
    for s in scores:
        by_judge[s.annotator].append(s.score)
    moments: dict[str, tuple[float, float] | None] = {}
    for judge, values in by_judge.items():
        sd = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
        moments[judge] = (float(np.mean(values)), sd) if sd > 0 else None
    return moments


def z_scores(scores: Sequence[DAScore]) -> list[float | None]:
    """Each score standardized by its judge's mean and sd, in input order (None: the judge has no sd)."""
    moments = judge_moments(scores)
    out: list[float | None] = []
    for s in scores:
        m = moments[s.annotator]
        out.append(None if m is None else (s.score - m[0]) / m[1])
    return out


@dataclass(frozen=True)
class SystemDA:
    system: str
    items: int
    mean_raw: float
    mean_z: float
    low: float
    high: float


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and its 95 % Student t interval (NaN bounds with fewer than two values)."""
    from scipy.stats import t

    array = np.asarray(values, dtype=float)
    mean = float(array.mean())
    if array.size < 2:
        return mean, float("nan"), float("nan")
    half = float(t.ppf(0.975, array.size - 1) * array.std(ddof=1) / np.sqrt(array.size))
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class DirectAssessment(Signed):
    """Per-system mean z with 95 % intervals, and α (module docstring)."""

    name: ClassVar[str] = "direct-assessment"

    def settings(self) -> dict[str, object]:
        return {"z": "per-judge-sample-sd", "item": "mean-over-judges", "ci": "student-t-95-over-items",
                "alpha": "krippendorff-interval-raw"}

    def systems(self, scores: Sequence[DAScore]) -> list[SystemDA]:
        """Per system, best mean z first."""
        z = z_scores(scores)
        item_z: dict[str, list[float]] = defaultdict(list)
        item_raw: dict[str, list[float]] = defaultdict(list)
        producers: dict[str, tuple[str, ...]] = {}
        for s, value in zip(scores, z):
            item_raw[s.item].append(s.score)
            producers[s.item] = s.systems
            if value is not None:
                item_z[s.item].append(value)
        per_system: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for item, values in item_z.items():
            for system in producers[item]:
                per_system[system].append((float(np.mean(values)), float(np.mean(item_raw[item]))))
        rows = []
        for system, pairs in per_system.items():
            mean_z, low, high = mean_interval([p[0] for p in pairs])
            rows.append(SystemDA(system, len(pairs), float(np.mean([p[1] for p in pairs])), mean_z, low, high))
        return sorted(rows, key=lambda row: (-row.mean_z, row.system))

    def alpha(self, scores: Sequence[DAScore]) -> float | None:
        """Krippendorff's α (interval) over the raw scores of items with at least two judges."""
        values = sorted({s.score for s in scores})
        if len(values) < 2:
            return None
        column = {v: k for k, v in enumerate(values)}
        items = sorted({s.item for s in scores})
        row = {item: k for k, item in enumerate(items)}
        counts = np.zeros((len(items), len(values)))
        for s in scores:
            counts[row[s.item], column[s.score]] += 1
        return krippendorff_alpha(counts, "interval", np.asarray(values, dtype=float))


@dataclass(frozen=True)
class JudgeReliability:
    annotator: str
    pairs: int
    mean_drop: float | None  # mean of original minus degraded
    p_value: float | None


def judge_reliability(annotator: str, originals: Sequence[float], degraded: Sequence[float]) -> JudgeReliability:
    """One-sided Wilcoxon signed-rank test that the judge scored the degraded copies lower (module docstring);
    p None with no pair that differs."""
    from scipy.stats import wilcoxon

    differences = np.asarray(originals, dtype=float) - np.asarray(degraded, dtype=float)
    if differences.size == 0:
        return JudgeReliability(annotator, 0, None, None)
    p = None
    if np.any(differences != 0):
        p = float(wilcoxon(differences, alternative="greater", zero_method="wilcox").pvalue)
    return JudgeReliability(annotator, int(differences.size), float(differences.mean()), p)
