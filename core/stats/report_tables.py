"""The tables researchers publish about a human evaluation, computed from judgments.

Each table reproduces a layout from the seeds:

* ``seed003_table1`` (seed 003 §5, Table 1): per system and yes/no criterion,
  the share of items both judges call positive (with kappa) and, in a second
  column, the share at least one judge calls positive; plus the conjunction
  of all yes/no criteria ("well formed and meaning preserved").
* ``seed004_table1`` (seed 004 §5, Table 1): per application (and system) and
  scale criterion, the share of each label (1, 2, 3) and the kappa with fixed
  chance agreement P(E) = 1/q.
* ``seed001_fig4_5`` (seed 001 §4.2, Fig. 4.5): per approach (system) and
  annotator, the number of successes, and the unified score (an item succeeds
  when at least 2 annotators say so), with ``seed001_sign_tests``: exact sign
  tests on the unified per-item success between every two approaches, Holm
  corrected.
* per annotator pair and criterion: kappa, the confusion matrix and drift
  (kappa per block of 50 items, in judging order).

Every table carries a signature in the style of sacrebleu's
(``stat:...|opt:...|items:N|judges:J|version:V``) that says exactly how its
numbers were computed. Rendering lives in :mod:`core.stats.report_render`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Iterable, Sequence

import numpy as np

from core import __version__
from core.stats.agreement import (
    MISSING,
    RatingMatrix,
    category_counts,
    cohen_kappa,
    confusion_matrix,
    fixed_chance_kappa,
    fleiss_kappa,
    landis_koch_label,
    observed_agreement,
)
from core.stats.judgment_records import JudgmentRecords
from core.stats.significance import pairwise_tests
from core.vocabulary import NO_WORDS, YES_WORDS

POSITIVE_LABELS = YES_WORDS


@dataclass(frozen=True)
class Column:
    """A table column; ``kind`` says how to show its numbers:
    text, count, percent (a share in [0, 1]), kappa, p."""

    name: str
    kind: str = "text"


@dataclass(frozen=True)
class PlotSpec:
    kind: str  # "bar" or "line"
    label_column: int
    value_columns: tuple[int, ...]
    y_label: str


@dataclass
class ReportTable:
    key: str
    title: str
    columns: list[Column]
    rows: list[list]
    signature: str
    note: str = ""
    plot: PlotSpec | None = None


@dataclass
class Report:
    title: str
    tables: list[ReportTable] = field(default_factory=list)


def signature(statistic: str, n_items: int, n_judges: int, **options) -> str:
    """``stat:<statistic>|<option>:<value>|...|items:N|judges:J|version:V``."""
    parts = [f"stat:{statistic}"]
    parts += [f"{name.replace('_', '-')}:{value}" for name, value in options.items()]
    parts += [f"items:{n_items}", f"judges:{n_judges}", f"version:{__version__}"]
    return "|".join(parts)


# ---------------------------------------------------------------------------
# Which criteria are yes/no and which are scales


def is_binary(labels: Iterable[str], positive: Sequence[str]) -> bool:
    """A criterion is yes/no when all its labels are positive or negative words."""
    vocabulary = {label.lower() for label in positive} | set(NO_WORDS)
    labels = {label.lower() for label in labels}
    return bool(labels) and labels <= vocabulary


def _positive_codes(matrix: RatingMatrix, positive: Sequence[str]) -> np.ndarray:
    """Units x annotators: 1 positive, 0 negative, -1 missing."""
    wanted = {label.lower() for label in positive}
    is_positive = np.array([category.lower() in wanted for category in matrix.categories] + [False], dtype=np.int64)
    # Index -1 (missing) reads the padding entry; then restore the marker.
    binary = is_positive[matrix.codes]
    return np.where(matrix.codes == MISSING, MISSING, binary)


def _two_judge_kappa(binary_codes: np.ndarray) -> tuple[float | None, str]:
    """Cohen's kappa for exactly two annotators, otherwise Fleiss' kappa."""
    if binary_codes.shape[1] == 2:
        a, b = binary_codes[:, 0], binary_codes[:, 1]
        both = (a != MISSING) & (b != MISSING)
        return cohen_kappa(a[both], b[both], 2), "cohen"
    return fleiss_kappa(category_counts(binary_codes, 2)), "fleiss"


def _yes_shares(binary_codes: np.ndarray) -> tuple[float | None, float | None, int]:
    """Share of units (judged at least twice) that all judges / at least one judge call positive."""
    judged = (binary_codes != MISSING).sum(axis=1)
    yes = (binary_codes == 1).sum(axis=1)
    pairable = judged >= 2
    n = int(pairable.sum())
    if n == 0:
        return None, None, 0
    return float(np.mean(yes[pairable] == judged[pairable])), float(np.mean(yes[pairable] >= 1)), n


def _group_keys(records: JudgmentRecords) -> list[tuple[str | None, str | None]]:
    applications = records.application_names() or [None]
    systems = records.system_names() or [None]
    present = set(zip(records.applications or [None] * len(records), records.systems or [None] * len(records)))
    return [(application, system) for application in applications for system in systems if (application, system) in present]


def _group_label(application: str | None, system: str | None) -> str:
    parts = [part for part in (application, system) if part is not None]
    return " / ".join(parts) if parts else "all"


# ---------------------------------------------------------------------------
# Seed 003, Table 1


def seed003_table(records: JudgmentRecords, binary_criteria: Sequence[str], positive: Sequence[str]) -> ReportTable:
    columns = [Column("system")]
    names = list(binary_criteria) + (["all criteria"] if len(binary_criteria) > 1 else [])
    for name in names:
        columns += [Column(f"{name}: % both yes", "percent"), Column(f"{name}: κ", "kappa"), Column(f"{name}: % ≥1 yes", "percent")]
    columns.append(Column("items", "count"))
    rows = []
    kappa_kinds, n_total = set(), 0
    records = records.select_criteria(binary_criteria)
    for application, system in _group_keys(records):
        group = records.select(system=system, application=application)
        row: list = [_group_label(application, system)]
        conjunction = None
        n_items = 0
        for name in binary_criteria:
            binary = _aligned_binary(group, name, positive)
            conjunction = binary if conjunction is None else _and(conjunction, binary)
            both, any_yes, n_items = _yes_shares(binary.codes)
            kappa, kind = _two_judge_kappa(binary.codes)
            kappa_kinds.add(kind)
            row += [both, kappa, any_yes]
        if len(binary_criteria) > 1 and conjunction is not None:
            both, any_yes, n_items = _yes_shares(conjunction.codes)
            kappa, kind = _two_judge_kappa(conjunction.codes)
            row += [both, kappa, any_yes]
        row.append(n_items)
        n_total += n_items
        rows.append(row)
    judges = len(records.select(criterion=binary_criteria[0]).annotator_names()) if binary_criteria else 0
    return ReportTable(
        key="seed003_table1",
        title="Human evaluation per system (seed 003, Table 1)",
        columns=columns,
        rows=rows,
        signature=signature(
            "share-positive+kappa",
            n_total,
            judges,
            positive=",".join(positive),
            both="all-judges-positive",
            kappa="+".join(sorted(kappa_kinds)) or "none",
            units="items-judged-twice",
        ),
        note="% both yes: every judge of the item says yes; % ≥1 yes: at least one judge does. "
        "κ: Cohen's kappa with two judges, Fleiss' kappa with more.",
        plot=PlotSpec("bar", 0, tuple(1 + 3 * i for i in range(len(names))), "% items both judges say yes"),
    )


@dataclass(frozen=True)
class _BinaryMatrix:
    unit_ids: tuple
    annotator_ids: tuple
    codes: np.ndarray


def _aligned_binary(group: JudgmentRecords, criterion: str, positive: Sequence[str]) -> _BinaryMatrix:
    matrix = group.rating_matrix(criterion)
    return _BinaryMatrix(matrix.unit_ids, matrix.annotator_ids, _positive_codes(matrix, positive))


def _and(left: _BinaryMatrix, right: _BinaryMatrix) -> _BinaryMatrix:
    """Per unit and judge: positive on every criterion; missing if any is missing."""
    units = [unit for unit in left.unit_ids if unit in set(right.unit_ids)]
    judges = [judge for judge in left.annotator_ids if judge in set(right.annotator_ids)]
    left_unit = {unit: i for i, unit in enumerate(left.unit_ids)}
    right_unit = {unit: i for i, unit in enumerate(right.unit_ids)}
    left_judge = {judge: i for i, judge in enumerate(left.annotator_ids)}
    right_judge = {judge: i for i, judge in enumerate(right.annotator_ids)}
    a = left.codes[np.ix_([left_unit[u] for u in units], [left_judge[j] for j in judges])]
    b = right.codes[np.ix_([right_unit[u] for u in units], [right_judge[j] for j in judges])]
    combined = np.where((a == MISSING) | (b == MISSING), MISSING, a & b)
    return _BinaryMatrix(tuple(units), tuple(judges), combined)


# ---------------------------------------------------------------------------
# Seed 004, Table 1


def seed004_table(records: JudgmentRecords, scale_criteria: Sequence[str]) -> ReportTable:
    records = records.select_criteria(scale_criteria)
    scales = {name: records.rating_matrix(name).categories for name in scale_criteria}
    columns = [Column("application / system")]
    for name in scale_criteria:
        columns += [Column(f"{name}: {label}", "percent") for label in scales[name]]
        columns.append(Column(f"{name}: κ (P(E)=1/{len(scales[name])})", "kappa"))
    columns.append(Column("judgments", "count"))
    rows, n_items = [], 0
    for application, system in _group_keys(records):
        group = records.select(system=system, application=application)
        row: list = [_group_label(application, system)]
        n_judgments = 0
        for name in scale_criteria:
            chosen = group.select(criterion=name)
            if len(chosen) == 0:
                row += [None] * (len(scales[name]) + 1)
                continue
            matrix = chosen.rating_matrix(categories=scales[name])
            counts = matrix.category_counts()
            shares = counts.sum(axis=0) / counts.sum()
            row += [float(share) for share in shares]
            row.append(fixed_chance_kappa(observed_agreement(counts), len(scales[name])))
            n_judgments += int(counts.sum())
            n_items = max(n_items, matrix.n_units)
        row.append(n_judgments)
        rows.append(row)
    judges = len(records.annotator_names())
    q = ",".join(f"{name}={len(scales[name])}" for name in scale_criteria)
    return ReportTable(
        key="seed004_table1",
        title="Label shares and fixed-chance kappa per application (seed 004, Table 1)",
        columns=columns,
        rows=rows,
        signature=signature("label-share+kappa-fixed-chance", n_items, judges, pe="1/q", q=q, pa="fleiss-p-bar"),
        note="Shares pool the labels of all judges. κ = (P(A) − 1/q) / (1 − 1/q), q = number of labels of the scale.",
        plot=PlotSpec("bar", 0, tuple(i for i, column in enumerate(columns) if column.kind == "percent"), "share of labels"),
    )


# ---------------------------------------------------------------------------
# Seed 001, Fig. 4.5 and its sign tests


def seed001_tables(
    records: JudgmentRecords, criterion: str, positive: Sequence[str], unified_min: int
) -> tuple[ReportTable, ReportTable | None]:
    chosen = records.select(criterion=criterion)
    annotators = chosen.annotator_names()
    wanted = {label.lower() for label in positive}
    systems = chosen.system_names() or [None]
    per_item: dict[str | None, dict[str, int]] = {}
    rows = []
    n_items_max = 0
    for system in systems:
        group = chosen.select(system=system) if system is not None else chosen
        successes = {annotator: 0 for annotator in annotators}
        votes: dict[str, int] = {}
        for item, annotator, value in zip(group.items, group.annotators, group.values):
            positive_vote = value.lower() in wanted
            successes[annotator] += positive_vote
            votes[item] = votes.get(item, 0) + positive_vote
        unified = {item: int(count >= unified_min) for item, count in votes.items()}
        per_item[system] = unified
        n_items_max = max(n_items_max, len(unified))
        rows.append([system if system is not None else "all", *[successes[a] for a in annotators], sum(unified.values()), len(unified)])
    columns = [Column("approach")] + [Column(annotator, "count") for annotator in annotators]
    columns += [Column(f"unified (≥{unified_min} say success)", "count"), Column("items", "count")]
    table = ReportTable(
        key=f"seed001_fig4_5:{criterion}",
        title=f"Successes per approach and annotator, '{criterion}' (seed 001, Fig. 4.5)",
        columns=columns,
        rows=rows,
        signature=signature("successes+unified", n_items_max, len(annotators), positive=",".join(positive), unified_min=unified_min),
        note=f"Unified score: an item succeeds when at least {unified_min} annotators say so.",
        plot=PlotSpec("bar", 0, tuple(range(1, len(annotators) + 2)), "successful items"),
    )
    if len(systems) < 2:
        return table, None
    comparisons = pairwise_tests({str(s): {i: float(v) for i, v in items.items()} for s, items in per_item.items()}, "sign")
    test_rows = [[c.system_a, c.system_b, c.n_items, c.wins_a, c.wins_b, c.ties, c.p_value, c.p_holm] for c in comparisons]
    tests = ReportTable(
        key=f"seed001_sign_tests:{criterion}",
        title=f"Sign tests between approaches on the unified score, '{criterion}'",
        columns=[
            Column("approach A"),
            Column("approach B"),
            Column("shared items", "count"),
            Column("wins A", "count"),
            Column("wins B", "count"),
            Column("ties", "count"),
            Column("p (exact, two-sided)", "p"),
            Column("p (Holm)", "p"),
        ],
        rows=test_rows,
        signature=signature("sign-test", n_items_max, len(annotators), test="exact-binomial-two-sided", ties="dropped", correction="holm", unified_min=unified_min),
        note="n = wins A + wins B (ties dropped); items scored for only one approach are skipped.",
    )
    return table, tests


# ---------------------------------------------------------------------------
# Annotator pairs: kappa, confusion matrix, drift


def pair_tables(records: JudgmentRecords, criterion: str, block_size: int) -> list[ReportTable]:
    matrix = records.rating_matrix(criterion)
    q = matrix.n_categories
    numeric = matrix.category_values is not None
    summary_rows, tables = [], []
    for first, second in combinations(range(matrix.n_annotators), 2):
        name_a, name_b = matrix.annotator_ids[first], matrix.annotator_ids[second]
        a, b = matrix.codes[:, first], matrix.codes[:, second]
        both = np.flatnonzero((a != MISSING) & (b != MISSING))
        if both.size == 0:
            continue
        # Judging order: when the later of the two judgments was given.
        when = np.maximum(matrix.source_rows[both, first], matrix.source_rows[both, second])
        both = both[np.argsort(when, kind="stable")]
        kappa = cohen_kappa(a[both], b[both], q)
        row = [name_a, name_b, int(both.size), float(np.mean(a[both] == b[both])), kappa, landis_koch_label(kappa)]
        if numeric:
            row += [cohen_kappa(a[both], b[both], q, "linear"), cohen_kappa(a[both], b[both], q, "quadratic")]
        summary_rows.append(row)
        confusion = confusion_matrix(a[both], b[both], q)
        tables.append(
            ReportTable(
                key=f"confusion:{criterion}:{name_a}:{name_b}",
                title=f"Confusion matrix, '{criterion}': {name_a} (rows) × {name_b} (columns)",
                columns=[Column(f"{name_a} \\ {name_b}")] + [Column(label, "count") for label in matrix.categories],
                rows=[[label, *map(int, confusion[i])] for i, label in enumerate(matrix.categories)],
                signature=signature("confusion-matrix", int(both.size), 2, criterion=criterion),
            )
        )
        drift_rows = []
        for start in range(0, both.size, block_size):
            block = both[start : start + block_size]
            drift_rows.append([start // block_size + 1, f"{start + 1}–{start + block.size}", int(block.size), cohen_kappa(a[block], b[block], q)])
        tables.append(
            ReportTable(
                key=f"drift:{criterion}:{name_a}:{name_b}",
                title=f"Drift of agreement, '{criterion}': {name_a} × {name_b}, κ per block of {block_size} items",
                columns=[Column("block", "count"), Column("items (judging order)"), Column("n", "count"), Column("κ", "kappa")],
                rows=drift_rows,
                signature=signature("cohen-kappa", int(both.size), 2, criterion=criterion, block=block_size, order="judging"),
                plot=PlotSpec("line", 0, (3,), "Cohen's κ"),
            )
        )
    columns = [Column("annotator A"), Column("annotator B"), Column("shared items", "count"), Column("observed", "percent"), Column("κ", "kappa"), Column("Landis & Koch")]
    if numeric:
        columns += [Column("κ linear", "kappa"), Column("κ quadratic", "kappa")]
    summary = ReportTable(
        key=f"pairs:{criterion}",
        title=f"Agreement per annotator pair, '{criterion}'",
        columns=columns,
        rows=summary_rows,
        signature=signature("cohen-kappa", matrix.n_units, matrix.n_annotators, criterion=criterion, units="judged-by-both", weights="none,linear,quadratic" if numeric else "none"),
        note="Weighted κ places labels at their rank on the scale.",
    )
    return [summary, *tables]


# ---------------------------------------------------------------------------
# The whole report


def build_report(
    records: JudgmentRecords,
    *,
    positive: Sequence[str] = POSITIVE_LABELS,
    unified_min: int = 2,
    block_size: int = 50,
    title: str = "Human evaluation report",
) -> Report:
    """Every table that applies to the judgments at hand."""
    report = Report(title=title)
    criteria = records.criterion_names()
    labels = {name: set(records.select(criterion=name).values) for name in criteria}
    binary = [name for name in criteria if is_binary(labels[name], positive)]
    scales = [name for name in criteria if name not in binary]
    if binary:
        report.tables.append(seed003_table(records, binary, positive))
    if scales:
        report.tables.append(seed004_table(records, scales))
    for name in binary:
        table, tests = seed001_tables(records, name, positive, unified_min)
        report.tables.append(table)
        if tests is not None:
            report.tables.append(tests)
    for name in criteria:
        report.tables.extend(pair_tables(records, name, block_size))
    return report
