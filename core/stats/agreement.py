"""Inter-annotator agreement: observed agreement, kappas and Krippendorff's alpha.

Every statistic works on a :class:`RatingMatrix`: one row per unit (a judged
item), one column per annotator, each cell the index of a category of the
criterion's scale or ``-1`` when that annotator did not judge that unit.

Definitions (issue 5; the choices the issue leaves open are fixed here):

* Observed agreement ``P(A)``: Fleiss' ``P-bar``. For each unit with ``n_i >= 2``
  judgments, ``P_i`` is the share of agreeing ordered pairs of judgments,
  ``sum_j n_ij (n_ij - 1) / (n_i (n_i - 1))``; ``P(A)`` is the mean of ``P_i``
  over those units. With two annotators this is the share of units on which
  they agree. Units with a single judgment carry no agreement and are skipped.
* Cohen's kappa (Cohen 1960) needs exactly two annotators and uses the units
  judged by both. Weighted kappa (Cohen 1968) puts categories at their rank on
  the scale (0, 1, ..., q-1, the order of ``RatingMatrix.categories``) with
  disagreement weights ``|i - j|`` (linear) or ``(i - j)**2`` (quadratic), the
  convention of scikit-learn's ``cohen_kappa_score`` and R's ``irr::kappa2``.
* Fixed-chance kappa (seed 004 §5; Bennett, Alpert & Goldstein's S):
  ``K = (P(A) - P(E)) / (1 - P(E))`` with ``P(E) = 1/q``, ``q`` the number of
  categories of the scale (distinct labels observed unless the caller says).
* Fleiss' kappa (Fleiss 1971) is defined only when every unit has the same
  number ``n >= 2`` of judgments.
* Krippendorff's alpha (nominal, ordinal, interval) from one coincidence matrix,
  as the ``krippendorff`` package computes it (tested equal); missing judgments
  are allowed; ordinal and interval need numeric labels.

A statistic that is undefined for the data (0/0, fewer than two categories,
no unit judged twice) is ``None`` rather than NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np

from parastudio.core.progress import Progress, no_progress
from parastudio.core.stats.alpha import ALPHA_LEVELS, coincidences, krippendorff_alpha, row_sums  # noqa: F401 (part of this module's face)
from parastudio.core.stats.signature import Signed

MISSING = -1

WEIGHTINGS = ("none", "linear", "quadratic")


class DuplicateJudgmentError(ValueError):
    """Two judgments of the same unit by the same annotator.

    ``rows`` holds the positions (in the input sequences) of the first
    duplicate pair found, so a reader can name both lines.
    """

    def __init__(self, rows: tuple[int, int]):
        self.rows = rows
        super().__init__(f"rows {rows[0]} and {rows[1]} judge the same unit by the same annotator")


def _as_number(label: str) -> float | None:
    try:
        number = float(label)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def order_categories(labels: Iterable[str]) -> tuple[tuple[str, ...], np.ndarray | None]:
    """Order a scale's labels: by value when all are numbers, else alphabetically.

    Returns the ordered labels and, when all are numbers, their values.
    """
    distinct = set(labels)
    numbers = {label: _as_number(label) for label in distinct}
    if distinct and all(value is not None for value in numbers.values()):
        ordered = tuple(sorted(distinct, key=lambda label: (numbers[label], label)))
        return ordered, np.array([numbers[label] for label in ordered], dtype=float)
    return tuple(sorted(distinct)), None


def _factorize(values: Sequence) -> tuple[list, np.ndarray]:
    """Distinct values in order of first appearance, and each value's index."""
    first: dict = {}
    # Each value's first position (map with a C method: a third faster than a generator); the distinct values'
    # positions, in the dict's order of first appearance, number them through a lookup table (no sort).
    positions = np.fromiter(map(first.setdefault, values, range(len(values))), dtype=np.int64, count=len(values))
    number_at = np.empty(len(values), dtype=np.int64)
    number_at[np.fromiter(first.values(), dtype=np.int64, count=len(first))] = np.arange(len(first))
    return list(first), number_at[positions]


@dataclass(frozen=True)
class RatingMatrix:
    """Judgments of one criterion: units x annotators, category indices, -1 missing.

    Units and annotators keep the order of their first judgment, so a block of
    consecutive units follows the order in which judging happened.
    """

    unit_ids: tuple
    annotator_ids: tuple[str, ...]
    categories: tuple[str, ...]
    codes: np.ndarray
    category_values: np.ndarray | None = None
    # Position in the input of each filled cell, for error messages and drift.
    source_rows: np.ndarray | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_judgments(
        cls,
        units: Sequence,
        annotators: Sequence[str],
        labels: Sequence[str],
        categories: Sequence[str] | None = None,
    ) -> "RatingMatrix":
        """Build the matrix from parallel sequences, one entry per judgment.

        ``categories`` fixes the scale and its order (labels outside it are an
        error); by default the scale is the distinct labels, ordered by
        :func:`order_categories`.
        """
        if not (len(units) == len(annotators) == len(labels)):
            raise ValueError("units, annotators and labels must have the same length")
        unit_ids, unit_codes = _factorize(units)
        annotator_ids, annotator_codes = _factorize(annotators)
        label_ids, label_codes = _factorize(labels)
        return cls.from_codes(unit_ids, unit_codes, annotator_ids, annotator_codes, label_ids, label_codes, categories)

    @classmethod
    def from_codes(
        cls,
        unit_ids: Sequence,
        unit_codes: np.ndarray,
        annotator_ids: Sequence[str],
        annotator_codes: np.ndarray,
        label_ids: Sequence[str],
        label_codes: np.ndarray,
        categories: Sequence[str] | None = None,
    ) -> "RatingMatrix":
        """The matrix from integer codes, one entry per judgment: ``unit_codes[j]`` indexes ``unit_ids`` (and the
        same for annotators and labels). What a reader that has coded its columns already (a study's integer
        ids) hands over, so no string is looked at again."""
        unit_codes, annotator_codes, label_codes = (np.asarray(c, dtype=np.int64)
                                                    for c in (unit_codes, annotator_codes, label_codes))
        if categories is None:
            ordered, values = order_categories(label_ids)
        else:
            ordered = tuple(categories)
            unknown = sorted(set(label_ids) - set(ordered))
            if unknown:
                raise ValueError(f"labels {unknown} are not among the categories {list(ordered)}")
            numbers = [_as_number(label) for label in ordered]
            values = None if any(number is None for number in numbers) else np.array(numbers, dtype=float)
        rank = {label: position for position, label in enumerate(ordered)}
        label_to_category = np.array([rank[label] for label in label_ids], dtype=np.int64)
        n_units, n_annotators = len(unit_ids), len(annotator_ids)
        cells = unit_codes * n_annotators + annotator_codes
        codes = np.full(n_units * n_annotators, MISSING, dtype=np.int64)
        source_rows = np.full(n_units * n_annotators, -1, dtype=np.int64)
        if len(cells):
            filled_count = np.bincount(cells, minlength=n_units * n_annotators)
            if filled_count.max() > 1:
                duplicate_cell = int(np.argmax(filled_count > 1))
                rows = np.flatnonzero(cells == duplicate_cell)[:2]
                raise DuplicateJudgmentError((int(rows[0]), int(rows[1])))
            codes[cells] = label_to_category[label_codes]
            source_rows[cells] = np.arange(len(cells))
        return cls(
            unit_ids=tuple(unit_ids),
            annotator_ids=tuple(annotator_ids),
            categories=ordered,
            codes=codes.reshape(n_units, n_annotators),
            category_values=values,
            source_rows=source_rows.reshape(n_units, n_annotators),
        )

    @property
    def n_units(self) -> int:
        return self.codes.shape[0]

    @property
    def n_annotators(self) -> int:
        return self.codes.shape[1]

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    def category_counts(self) -> np.ndarray:
        """``n_ij``: how many annotators put unit ``i`` in category ``j``."""
        return category_counts(self.codes, self.n_categories)

    def pair(self, first: int, second: int) -> tuple[np.ndarray, np.ndarray]:
        """Category indices of two annotators on the units both judged."""
        a, b = self.codes[:, first], self.codes[:, second]
        both = (a != MISSING) & (b != MISSING)
        return a[both], b[both]


def category_counts(codes: np.ndarray, n_categories: int) -> np.ndarray:
    """Units x categories table of judgment counts from a code matrix."""
    n_units = codes.shape[0]
    filled = codes != MISSING
    unit_index = np.broadcast_to(np.arange(n_units)[:, None], codes.shape)[filled]
    flat = unit_index * n_categories + codes[filled]
    return np.bincount(flat, minlength=n_units * n_categories).reshape(n_units, n_categories)


def _undefined_to_none(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def observed_agreement(counts: np.ndarray) -> float | None:
    """Fleiss' ``P-bar``: mean share of agreeing judgment pairs per unit."""
    counts = np.asarray(counts, dtype=np.float64)
    per_unit = row_sums(counts)
    pairable = per_unit >= 2
    if not pairable.any():
        return None
    if not pairable.all():  # a copy of the table only when some unit has a single judgment
        counts, per_unit = counts[pairable], per_unit[pairable]
    agreeing = row_sums(counts * (counts - 1))
    return float(np.mean(agreeing / (per_unit * (per_unit - 1))))


def disagreement_weights(n_categories: int, weighting: str = "none") -> np.ndarray:
    """Cohen's disagreement weights on category ranks (0 on the diagonal)."""
    ranks = np.arange(n_categories, dtype=np.float64)
    distance = ranks[:, None] - ranks[None, :]
    if weighting == "none":
        return (distance != 0).astype(np.float64)
    if weighting == "linear":
        return np.abs(distance)
    if weighting == "quadratic":
        return distance**2
    raise ValueError(f"weighting must be one of {WEIGHTINGS}, not {weighting!r}")


def confusion_matrix(codes_a: np.ndarray, codes_b: np.ndarray, n_categories: int) -> np.ndarray:
    """Rows: first annotator's category; columns: second annotator's."""
    flat = np.asarray(codes_a, dtype=np.int64) * n_categories + np.asarray(codes_b, dtype=np.int64)
    return np.bincount(flat, minlength=n_categories * n_categories).reshape(n_categories, n_categories)


def kappa_from_confusion(confusion: np.ndarray, weighting: str = "none") -> float | None:
    """Cohen's (weighted) kappa ``1 - sum(w O) / sum(w E)`` from a confusion table."""
    confusion = np.asarray(confusion, dtype=np.float64)
    total = confusion.sum()
    if total == 0:
        return None
    observed = confusion / total
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    weights = disagreement_weights(confusion.shape[0], weighting)
    chance_disagreement = float((weights * expected).sum())
    if chance_disagreement == 0:
        return None
    return 1.0 - float((weights * observed).sum()) / chance_disagreement


def cohen_kappa(codes_a: np.ndarray, codes_b: np.ndarray, n_categories: int, weighting: str = "none") -> float | None:
    """Cohen's kappa between two annotators' category indices on the same units."""
    return kappa_from_confusion(confusion_matrix(codes_a, codes_b, n_categories), weighting)


def fixed_chance_kappa(observed: float | None, n_categories: int) -> float | None:
    """Seed 004 §5: ``K = (P(A) - P(E)) / (1 - P(E))`` with ``P(E) = 1/q``."""
    if observed is None or n_categories < 2:
        return None
    chance = 1.0 / n_categories
    return (observed - chance) / (1.0 - chance)


def fleiss_kappa(counts: np.ndarray, observed: float | None = None) -> float | None:
    """Fleiss (1971) kappa; ``None`` unless every unit has the same n >= 2 judgments. ``observed``: the table's
    :func:`observed_agreement` when the caller has it already."""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.shape[0] == 0:
        return None
    per_unit = row_sums(counts)
    n = per_unit[0]
    if n < 2 or not np.all(per_unit == n):
        return None
    p_bar = observed_agreement(counts) if observed is None else observed
    shares = counts.sum(axis=0) / counts.sum()
    chance = float((shares**2).sum())
    if chance == 1.0:
        return None
    return (p_bar - chance) / (1.0 - chance)


# Landis & Koch (1977), the scale seeds 003 and 004 quote; upper bounds inclusive.
_LANDIS_KOCH = ((0.20, "slight"), (0.40, "fair"), (0.60, "moderate"), (0.80, "substantial"))


def landis_koch_label(kappa: float | None) -> str:
    """Landis & Koch's name for a kappa: <0 poor, <=.20 slight, <=.40 fair, <=.60 moderate, <=.80 substantial, else almost perfect."""
    if kappa is None or not math.isfinite(kappa):
        return "undefined"
    if kappa < 0:
        return "poor"
    for upper, label in _LANDIS_KOCH:
        if kappa <= upper:
            return label
    return "almost perfect"


STATISTIC_NAMES = (
    "observed",
    "cohen_kappa",
    "fixed_chance_kappa",
    "fleiss_kappa",
    "krippendorff_alpha_nominal",
    "krippendorff_alpha_ordinal",
    "krippendorff_alpha_interval",
)


def _statistics(
    counts: np.ndarray,
    pair_confusion_codes: np.ndarray | None,
    n_categories: int,
    scale_size: int,
    category_values: np.ndarray | None,
) -> dict[str, float | None]:
    """All statistics from per-unit data (so a bootstrap can resample units)."""
    counts = np.asarray(counts, dtype=np.float64)  # once, not in each statistic
    observed = observed_agreement(counts)
    coincidence = coincidences(counts) if counts.ndim == 2 and counts.shape[1] >= 2 else None
    cohen = None
    if pair_confusion_codes is not None:
        judged = pair_confusion_codes[pair_confusion_codes >= 0]
        confusion = np.bincount(judged, minlength=n_categories * n_categories).reshape(n_categories, n_categories)
        cohen = kappa_from_confusion(confusion)
    return {
        "observed": observed,
        "cohen_kappa": cohen,
        "fixed_chance_kappa": fixed_chance_kappa(observed, scale_size),
        "fleiss_kappa": fleiss_kappa(counts, observed),
        "krippendorff_alpha_nominal": krippendorff_alpha(counts, "nominal", coincidence=coincidence),
        "krippendorff_alpha_ordinal": krippendorff_alpha(counts, "ordinal", category_values, coincidence=coincidence),
        "krippendorff_alpha_interval": krippendorff_alpha(counts, "interval", category_values,
                                                          coincidence=coincidence),
    }


@dataclass(frozen=True)
class AgreementSummary:
    """The numbers ``parastudio agreement`` prints, with how they were computed."""

    n_items: int
    n_annotators: int
    n_categories: int
    statistics: dict[str, float | None]
    ci95: dict[str, tuple[float, float] | None]
    bootstrap: int
    seed: int

    def to_json_dict(self) -> dict:
        stats = self.statistics
        return {
            "n_items": self.n_items,
            "n_annotators": self.n_annotators,
            "observed": stats["observed"],
            "cohen_kappa": stats["cohen_kappa"],
            "fixed_chance_kappa": stats["fixed_chance_kappa"],
            "fleiss_kappa": stats["fleiss_kappa"],
            "krippendorff_alpha": {
                "nominal": stats["krippendorff_alpha_nominal"],
                "ordinal": stats["krippendorff_alpha_ordinal"],
                "interval": stats["krippendorff_alpha_interval"],
            },
            "ci95": {name: (list(bounds) if bounds is not None else None) for name, bounds in self.ci95.items()},
        }


def _pair_cells(matrix: RatingMatrix) -> np.ndarray | None:
    """Per unit ``a * q + b`` for the two annotators, -1 where either is missing."""
    if matrix.n_annotators != 2:
        return None
    a, b = matrix.codes[:, 0], matrix.codes[:, 1]
    both = (a != MISSING) & (b != MISSING)
    return np.where(both, a * matrix.n_categories + b, -1)


def bootstrap_intervals(
    statistic: Callable[[np.ndarray], dict[str, float | None]],
    n_units: int,
    replicates: int,
    seed: int,
    names: Sequence[str],
    progress: Progress = no_progress,
) -> dict[str, tuple[float, float] | None]:
    """Percentile 95% intervals from resampling units with replacement.

    ``statistic`` takes an array of unit indices. Replicates where a statistic
    is undefined are left out of its interval; a statistic undefined in every
    replicate gets ``None``.
    """
    if replicates <= 0 or n_units == 0:
        return {name: None for name in names}
    rng = np.random.default_rng(seed)
    draws: dict[str, list[float]] = {name: [] for name in names}
    for replicate in range(1, replicates + 1):
        sample = rng.integers(0, n_units, size=n_units)
        for name, value in statistic(sample).items():
            if value is not None and math.isfinite(value):
                draws[name].append(value)
        progress(replicate, replicates, "bootstrap")
    intervals: dict[str, tuple[float, float] | None] = {}
    for name in names:
        values = draws[name]
        if values:
            low, high = np.percentile(np.asarray(values), [2.5, 97.5])
            intervals[name] = (float(low), float(high))
        else:
            intervals[name] = None
    return intervals


@dataclass(frozen=True)
class AgreementStatistics(Signed):
    """Every statistic of :data:`STATISTIC_NAMES` with percentile bootstrap 95 % intervals over items
    (``bootstrap`` replicates drawn from ``seed``); its settings make its signature."""

    bootstrap: int = 1000
    seed: int = 0
    name = "agreement"

    def settings(self) -> dict[str, object]:
        kappas = [name.removesuffix("_kappa").replace("_", "-") for name in STATISTIC_NAMES if name.endswith("_kappa")]
        return {"kappas": kappas, "alpha": ALPHA_LEVELS, "pe": "1/q", "ci": "percentile-bootstrap-over-items",
                "bootstrap": self.bootstrap, "seed": self.seed}

    def summarize(self, matrix: RatingMatrix, *, n_scale_categories: int | None = None,
                  progress: Progress = no_progress) -> AgreementSummary:
        """``n_scale_categories`` is the ``q`` of the fixed-chance kappa; by default the number of distinct
        labels observed."""
        return summarize_agreement(matrix, n_scale_categories=n_scale_categories, bootstrap=self.bootstrap,
                                   seed=self.seed, progress=progress)


def summarize_agreement(
    matrix: RatingMatrix,
    *,
    n_scale_categories: int | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    progress: Progress = no_progress,
) -> AgreementSummary:
    """Every agreement statistic of one criterion, with seeded bootstrap 95% CIs.

    ``n_scale_categories`` is the ``q`` of the fixed-chance kappa; by default
    the number of distinct labels observed.
    """
    q = matrix.n_categories
    scale_size = n_scale_categories if n_scale_categories is not None else q
    counts = matrix.category_counts()
    pairs = _pair_cells(matrix)

    def on_units(sample: np.ndarray) -> dict[str, float | None]:
        return _statistics(counts[sample], None if pairs is None else pairs[sample], q, scale_size, matrix.category_values)

    point = _statistics(counts, pairs, q, scale_size, matrix.category_values)
    intervals = bootstrap_intervals(on_units, matrix.n_units, bootstrap, seed, STATISTIC_NAMES, progress)
    # A statistic that is undefined on the data gets no interval either.
    intervals = {name: (intervals[name] if point[name] is not None else None) for name in STATISTIC_NAMES}
    return AgreementSummary(
        n_items=matrix.n_units,
        n_annotators=matrix.n_annotators,
        n_categories=q,
        statistics=point,
        ci95=intervals,
        bootstrap=bootstrap,
        seed=seed,
    )
