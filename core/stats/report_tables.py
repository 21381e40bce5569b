"""The tables researchers publish about a human evaluation, computed from judgments.

Each table reproduces a layout from the seeds:

* ``seed003_table1`` (seed 003 §5, Table 1): per system and yes/no criterion,
  the share of items both judges call positive (with kappa) and, in a second
  column, the share at least one judge calls positive; plus the conjunction
  of all yes/no criteria ("well formed and meaning preserved").
* ``seed004_table1`` (seed 004 §5, Table 1): per application (and system) and
  scale criterion, the share of each label (1, 2, 3) and the kappa with fixed
  chance agreement P(E) = 1/q.
* ``sign_tests:<criterion>`` (seed 003 §5): exact sign tests between every
  two systems, paired on the source sentence (:mod:`core.stats.system_scores`),
  Holm corrected over all pairs.
* ``seed001_fig4_5`` (seed 001 §4.2, Fig. 4.5): per approach (system) and
  annotator, the number of successes (a choice task: an offered option was
  picked), and the unified score (an item succeeds when at least 2 annotators
  say so), with ``seed001_sign_tests``: exact sign tests on the unified
  success, case by case, between every two approaches, Holm corrected.
* ``seed002_table2`` / ``seed002_table3`` (seed 002 §4.1, §4.4) for a pattern-pair
  study (criteria ``correct`` and ``type``): precision per model and counts per
  type (:mod:`core.stats.report_patterns`).
* per annotator pair and criterion (:mod:`core.stats.report_pairs`): kappa,
  the confusion matrix and drift (kappa per block of 50 items, in judging order).

Per-system tables read :meth:`JudgmentRecords.per_system`: a candidate that
several systems produced is judged once and counts for every one of them.

Every table carries a signature in the style of sacrebleu's
(``stat:...|opt:...|items:N|judges:J|version:V``) that says exactly how its
numbers were computed. Rendering lives in :mod:`core.stats.report_render`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from parastudio.core.progress import Progress, no_progress
from parastudio.core.stats.agreement import MISSING
from parastudio.core.stats.direct_assessment import DAScore
from parastudio.core.stats.judged_shares import FixedChanceShares, PositiveShares, UnifiedSuccesses
from parastudio.core.stats.judgment_records import JudgmentRecords, ScoreRecords
from parastudio.core.stats.preference import PreferenceJudgment
from parastudio.core.stats.report_agreement import agreement_table
from parastudio.core.stats.report_anytime import EarlyStopping, anytime_sign_test_table
from parastudio.core.stats.report_da import da_tables
from parastudio.core.stats.report_model import Column, PlotSpec, Report, ReportTable
from parastudio.core.stats.report_mqm import mqm_tables
from parastudio.core.stats.report_pairs import pair_tables
from parastudio.core.stats.report_patterns import pattern_tables
from parastudio.core.stats.report_preference import preference_tables
from parastudio.core.stats.significance import PairwiseTests
from parastudio.core.stats.system_scores import is_choice_label, sentence_scores
from parastudio.core.vocabulary import NO_WORDS, PREFERENCE_LABELS, YES_WORDS

POSITIVE_LABELS = YES_WORDS


# ---------------------------------------------------------------------------
# Which criteria are yes/no and which are scales


def is_binary(labels: Iterable[str], positive: Sequence[str]) -> bool:
    """A criterion is yes/no when all its labels are positive or negative words."""
    vocabulary = {label.lower() for label in positive} | set(NO_WORDS)
    labels = {label.lower() for label in labels}
    return bool(labels) and labels <= vocabulary


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


def seed003_table(records: JudgmentRecords, binary_criteria: Sequence[str], positive: Sequence[str],
                  shares: PositiveShares | None = None) -> ReportTable:
    """Seed 003's Table 1, computed and signed by ``shares`` (by default items judged by at least 2 judges)."""
    shares = shares or PositiveShares(tuple(positive))
    columns = [Column("system")]
    names = list(binary_criteria) + (["all criteria"] if len(binary_criteria) > 1 else [])
    for name in names:
        columns += [Column(f"{name}: % both yes", "percent"), Column(f"{name}: κ", "kappa"), Column(f"{name}: % ≥1 yes", "percent")]
    columns.append(Column("items", "count"))
    rows = []
    kappa_kinds, n_total = set(), 0
    records = records.select_criteria(binary_criteria).per_system()
    for application, system in _group_keys(records):
        group = records.select(system=system, application=application)
        row: list = [_group_label(application, system)]
        conjunction = None
        n_items = 0
        for name in binary_criteria:
            binary = _aligned_binary(group, name, shares)
            conjunction = binary if conjunction is None else _and(conjunction, binary)
            both, any_yes, n_items = shares.shares(binary.codes)
            kappa, kind = shares.kappa(binary.codes)
            kappa_kinds.add(kind)
            row += [both, kappa, any_yes]
        if len(binary_criteria) > 1 and conjunction is not None:
            both, any_yes, n_items = shares.shares(conjunction.codes)
            kappa, kind = shares.kappa(conjunction.codes)
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
        signature=shares.signature(n_total, judges, kappa="+".join(sorted(kappa_kinds)) or "none"),
        note=f"% both yes: every judge of the item says yes; % ≥1 yes: at least one judge does; items judged by "
        f"at least {shares.min_judges} judges. κ: Cohen's kappa with two judges, Fleiss' kappa with more.",
        plot=PlotSpec("bar", 0, tuple(1 + 3 * i for i in range(len(names))), "% items both judges say yes"),
    )


@dataclass(frozen=True)
class _BinaryMatrix:
    unit_ids: tuple
    annotator_ids: tuple
    codes: np.ndarray


def _aligned_binary(group: JudgmentRecords, criterion: str, shares: PositiveShares) -> _BinaryMatrix:
    matrix = group.rating_matrix(criterion)
    return _BinaryMatrix(matrix.unit_ids, matrix.annotator_ids, shares.codes(matrix))


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
    """Shares of each label and κ with P(E) = 1/q, q the number of labels of the criterion's scale.

    q comes from the scale where the records know it (a study does), so a
    3-point scale answered only with 2 and 3 still has P(E) = 1/3 (seed 004
    §5); from a CSV it is the number of labels observed (``agreement
    --categories`` sets it there).
    """
    records = records.select_criteria(scale_criteria).per_system()
    scales = {}
    for name in scale_criteria:
        observed = records.rating_matrix(name).categories
        known = records.scale_of(name)
        scales[name] = tuple(known) + tuple(label for label in observed if label not in known) if known else observed
    statistic = FixedChanceShares(tuple((name, tuple(scales[name])) for name in scale_criteria),
                                  tuple((name, "scale" if records.scale_of(name) else "observed")
                                        for name in scale_criteria))
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
            shares, kappa, judgments, units = statistic.shares_and_kappa(chosen, name)
            row += [*shares, kappa]
            n_judgments += judgments
            n_items = max(n_items, units)
        row.append(n_judgments)
        rows.append(row)
    judges = len(records.annotator_names())
    return ReportTable(
        key="seed004_table1",
        title="Label shares and fixed-chance kappa per application (seed 004, Table 1)",
        columns=columns,
        rows=rows,
        signature=statistic.signature(n_items, judges),
        note="Shares pool the labels of all judges. κ = (P(A) − 1/q) / (1 − 1/q), q = number of labels of the "
        "scale. A candidate made by several systems counts for each.",
        plot=PlotSpec("bar", 0, tuple(i for i, column in enumerate(columns) if column.kind == "percent"), "share of labels"),
    )


# ---------------------------------------------------------------------------
# Seed 001, Fig. 4.5; sign tests between systems, paired on the source sentence

# The thesis's own figures, to set beside a study's (50 cases, judges A-D, unified at 2 of 4).
PAPER_FIG_4_5 = ("Seed 001's Fig. 4.5 (50 cases, 4 judges A-D): approach 1: 8, 6, 9, 6, unified 6/50; approach 7: "
                 "15, 17, 12, 10, unified 13/50; approach 10: 24, 20, 26, 29, unified 26/50.")


def as_success(records: JudgmentRecords, criterion: str, positive: Sequence[str]) -> JudgmentRecords:
    """A choice criterion's answers as yes (picked an offered option) or no (kept the original, typed its own)."""
    chosen = records.select(criterion=criterion)
    if not all(is_choice_label(value) for value in chosen.values):
        return chosen
    values = ["yes" if value.startswith("option:") else "no" for value in chosen.values]
    return JudgmentRecords(**{**chosen.__dict__, "values": values})


def seed001_tables(
    records: JudgmentRecords, criterion: str, positive: Sequence[str], unified_min: int, *,
    stopped_early: EarlyStopping | None = None, anytime_key: str | None = None,
) -> tuple[ReportTable, ReportTable | None]:
    """Seed 001 §4.2.2, Fig. 4.5: per approach, successes per annotator and the unified score, with sign tests.

    A choice task succeeds for an annotator who picked one of the offered
    options; a case succeeds (unified) when at least ``unified_min``
    annotators found a suitable option. Approaches are compared case by case
    (the case is the choice task's sentence).
    """
    chosen = as_success(records, criterion, positive).per_system()
    annotators = chosen.annotator_names()
    statistic = UnifiedSuccesses(tuple(positive), unified_min)
    systems = chosen.system_names() or [None]
    rows = []
    n_items_max = 0
    for system in systems:
        group = chosen.select(system=system) if system is not None else chosen
        successes, unified, n_items = statistic.count(group, annotators)
        n_items_max = max(n_items_max, n_items)
        rows.append([system if system is not None else "all", *[successes[a] for a in annotators], unified, n_items])
    item_counts = sorted({row[-1] for row in rows})
    # Fig. 4.5 gives each approach the same cases; a case where an approach offered nothing has no task, so counts
    # over unequal item numbers are not comparable: say so where it happens.
    unequal = "" if len(item_counts) < 2 else (
        f" The approaches stand on different numbers of items ({', '.join(f'{row[0]}: {row[-1]}' for row in rows)}), "
        "for example where an approach made no suggestion for a case and so got no task: compare shares of items, "
        "not counts, and the sign tests below use only the cases both approaches have.")
    columns = [Column("approach")] + [Column(annotator, "count") for annotator in annotators]
    columns += [Column(f"unified (≥{unified_min} say success)", "count"), Column("items", "count")]
    table = ReportTable(
        key=f"seed001_fig4_5:{criterion}",
        title=f"Successes per approach and annotator, '{criterion}' (seed 001, Fig. 4.5)",
        columns=columns,
        rows=rows,
        signature=statistic.signature(n_items_max, len(annotators)),
        note=f"Unified score: an item succeeds when at least {unified_min} annotators say so "
        "(a choice: picked one of the offered options, or closed by seed 001 §4.2.1's auto-skip rule because the "
        f"judge's paraphrase for that case was among the options).{unequal} {PAPER_FIG_4_5}",
        plot=PlotSpec("bar", 0, tuple(range(1, len(annotators) + 2)), "successful items"),
    )
    if len(systems) < 2:
        return table, None
    scores = sentence_scores(chosen, criterion, "unified", unified_min=unified_min, positive=tuple({label.lower() for label in positive} | {"yes"}))
    return table, sign_test_table(scores, f"seed001_sign_tests:{criterion}",
                                  f"Sign tests between approaches on the unified score, '{criterion}'",
                                  len(annotators), aggregate=f"unified-{unified_min}",
                                  stopped_early=stopped_early, anytime_key=anytime_key)


def sign_test_table(scores: ScoreRecords, key: str, title: str, n_judges: int, *, aggregate: str,
                    tests: PairwiseTests = PairwiseTests("sign", "holm"), stopped_early: EarlyStopping | None = None,
                    anytime_key: str | None = None) -> ReportTable:
    """Tests between every two systems over the sentences both scored (by default exact sign tests, ties
    dropped, Holm over all pairs); the signature is ``tests``'s own. In a study that ``stopped_early``, the
    p-values are withheld (empty cells, ``p-values:withheld`` in the signature) and the note says why and
    points at ``anytime_key``: a table with a note but the numbers beside it is still copied into papers."""
    comparisons = tests.compare(scores.scores)
    sentences = {sentence for by_sentence in scores.scores.values() for sentence in by_sentence}
    adjusted = "p (Holm)" if tests.correction == "holm" else "p (uncorrected)"
    withheld = {} if stopped_early is None else {"p_values": "withheld", "stopping": stopped_early.rules}
    note = "" if stopped_early is None else stopped_early.withheld_note(anytime_key) + " "
    return ReportTable(
        key=key,
        title=title + (" (fixed-n p-values withheld: the study stopped early)" if withheld else ""),
        columns=[
            Column("system A"),
            Column("system B"),
            Column("shared sentences", "count"),
            Column("wins A", "count"),
            Column("wins B", "count"),
            Column("ties", "count"),
            Column("p (exact, two-sided)" if tests.test == "sign" else "p (Wilcoxon, two-sided)", "p"),
            Column(adjusted, "p"),
        ],
        rows=[[c.system_a, c.system_b, c.n_items, c.wins_a, c.wins_b, c.ties,
               *((None, None) if withheld else (c.p_value, c.p_holm))] for c in comparisons],
        signature=tests.signature(len(sentences), n_judges, unit="source-sentence", score=aggregate, **withheld),
        note=f"{note}Paired on the source sentence: a system's score on a sentence is its candidates' aggregated judgment "
        f"({aggregate}), averaged over its candidates of that sentence. n = wins A + wins B (ties dropped); "
        "sentences only one system scored are skipped.",
    )


# ---------------------------------------------------------------------------
# The whole report


def _declared_mqm(records: JudgmentRecords, sections: Mapping[str, Sequence[str]]) -> tuple[list[str], list[str]]:
    """The criteria whose protocol declares MQM's table, and the others (whose tables are read from labels)."""
    names = records.criterion_names()
    mqm = [name for name in names if "mqm-systems" in tuple(sections.get(name, ()))]
    return mqm, [name for name in names if name not in mqm]


def build_report(
    records: JudgmentRecords,
    *,
    positive: Sequence[str] = POSITIVE_LABELS,
    unified_min: int = 2,
    block_size: int = 50,
    title: str = "Human evaluation report",
    bootstrap: int = 1000,
    progress: Progress = no_progress,
    pairs_extracted: Mapping[str, int] | None = None,
    sampling: str | None = None,
    preferences: Sequence[PreferenceJudgment] = (),
    da_scores: Sequence[DAScore] = (),
    preference_note: str = "",
    early_stopping: EarlyStopping | None = None,
    sections: Mapping[str, Sequence[str]] | None = None,
) -> Report:
    """Every table that applies to the judgments at hand (``bootstrap``: replicates of the agreement CIs;
    ``pairs_extracted``: a pattern-pair study's #PP per model, for seed 002's Table 2; ``sampling``: how the
    items were sampled, when not all at once, added to the per-system tables' notes; ``preferences``: the
    answers of a pairwise preference criterion with the systems they compare, for its own tables, since its
    labels are not a score of one system (``preference_note`` added to their notes); ``da_scores``: direct assessment scores with their systems, for the
    z-score table that replaces a mean of raw labels; ``early_stopping``: how an adaptive study stopped judging
    pairs early, which withholds the fixed-n sign tests' p-values, :mod:`core.stats.report_anytime`; ``sections``:
    criterion -> the statistics its judging protocol declares, where its origin names the protocol, read by the
    caller from the registry since this layer may not: a criterion declaring ``mqm-systems`` gets MQM's table and
    none of those read from labels)."""
    report = Report(title=title)
    mqm, criteria = _declared_mqm(records, sections or {})
    report.tables.extend(mqm_tables(records, mqm))
    if criteria:
        report.tables.append(agreement_table(records, criteria, bootstrap=bootstrap, progress=progress))
    labels = {name: set(records.select(criterion=name).values) for name in criteria}
    choice = [name for name in criteria if labels[name] and all(is_choice_label(v) for v in labels[name])]
    binary = [name for name in criteria if name not in choice and is_binary(labels[name], positive)]
    comparative = [name for name in criteria if labels[name] <= set(PREFERENCE_LABELS)]
    comparative += sorted({s.criterion for s in da_scores})
    scales = [name for name in criteria if name not in binary and name not in choice and name not in comparative]
    if binary:
        report.tables.append(seed003_table(records, binary, positive))
        judges = len(records.annotator_names())
        for name in binary:
            if len(records.select(criterion=name).system_names()) >= 2:
                scores = sentence_scores(records, name, "mean", positive=positive)
                report.tables.append(sign_test_table(
                    scores, f"sign_tests:{name}", f"Sign tests between systems, '{name}': share of judges who say yes",
                    judges, aggregate="mean", stopped_early=early_stopping, anytime_key=f"anytime_sign_tests:{name}"))
                report.tables.append(anytime_sign_test_table(records, name, judges, positive))
    if scales:
        report.tables.append(seed004_table(records, scales))
    report.tables.extend(pattern_tables(records, positive, pairs_extracted))
    report.tables.extend(preference_tables(preferences, bootstrap=bootstrap, note=preference_note))
    report.tables.extend(da_tables(da_scores))
    for name in binary + choice:
        anytime_key = f"anytime_sign_tests:{name}" if name in binary else None
        table, tests = seed001_tables(records, name, positive, unified_min, stopped_early=early_stopping,
                                      anytime_key=anytime_key)
        report.tables.append(table)
        if tests is not None:
            report.tables.append(tests)
    scored = {s.criterion for s in da_scores}
    for name in criteria:
        report.tables.extend(pair_tables(records, name, block_size, by_label=name not in scored))
    for table in report.tables:
        if sampling and table.key in ("seed003_table1", "seed004_table1"):
            table.note = f"{table.note} {sampling}".strip()
    return report
