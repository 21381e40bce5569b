"""Seed 002's tables for a pattern-pair study (§4.1 Table 2, §4.4 Table 3), computed from judgments.

* ``seed002_table2``: per model (system), #PP (the pairs the model extracted from
  the table, which the study records: ``pairs_extracted``), the pairs judged and the precision:
  the share of ``correct`` judgments that say yes, and the share of pairs most
  of whose judges say yes (a pair with as many yes as no is not counted
  correct). Seed 002 reports 67.03 % (LL-model) and 60.60 % (MLE-model) on
  3,000 pairs each, one label per pair.
* ``seed002_table3``: the type of the pairs judged correct: for every judge
  who says a pair is correct, the type that judge gives it, counted per type
  overall and per model. Seed 002 classifies 500 correct pairs (79 trivial
  change, 267 phrase replacement, 56 phrase reordering, 71 structural
  paraphrase, 27 information + or -).

A pair both models extract is judged once and counts for both (as every
per-system table does, :meth:`JudgmentRecords.per_system`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Mapping, Sequence

from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.report_model import Column, PlotSpec, ReportTable, signature
from parastudio.core.vocabulary import PATTERN_CORRECT, PATTERN_TYPE, PATTERN_TYPES


def _answers(records: JudgmentRecords, criterion: str) -> dict[tuple[str, str, str], str]:
    """(system, item, annotator) -> the last answer on ``criterion``."""
    chosen = records.select(criterion=criterion)
    systems = chosen.systems or ["all"] * len(chosen)
    return {(system, item, annotator): value
            for system, item, annotator, value in zip(systems, chosen.items, chosen.annotators, chosen.values)}


def seed002_table2(records: JudgmentRecords, positive: Sequence[str],
                   pairs_extracted: Mapping[str, int] | None = None) -> ReportTable:
    """Seed 002's Table 2; #PP is empty (None) for a model ``pairs_extracted`` does not name."""
    extracted = dict(pairs_extracted or {})
    per_system = records.select(criterion=PATTERN_CORRECT).per_system()
    answers = _answers(per_system, PATTERN_CORRECT)
    wanted = {label.lower() for label in positive}
    rows, total_items = [], 0
    by_system: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for (system, item, _), value in answers.items():
        by_system[system][item].append(value.lower() in wanted)
    for system in per_system.system_names() or ["all"]:
        items = by_system.get(system, {})
        judgments = [vote for votes in items.values() for vote in votes]
        majority = [sum(votes) * 2 > len(votes) for votes in items.values()]
        rows.append([system, extracted.get(system), len(items), len(judgments),
                     sum(judgments) / len(judgments) if judgments else None,
                     sum(majority) / len(majority) if majority else None])
        total_items += len(items)
    return ReportTable(
        key="seed002_table2",
        title="Precision of the paraphrase patterns per model (seed 002, Table 2)",
        columns=[Column("model"), Column("#PP (pairs extracted)", "count"), Column("pairs judged", "count"),
                 Column("judgments", "count"),
                 Column("precision (judgments)", "percent"), Column("precision (majority of judges)", "percent")],
        rows=rows,
        signature=signature("pattern-precision", total_items, len(per_system.annotator_names()),
                            criterion=PATTERN_CORRECT, positive=",".join(positive), majority="strict",
                            systems="every-producer"),
        note="#PP: the pairs the model extracted from the table (the judged pairs are a sample of them), as the "
        "study records it (– for judgments read from a file). "
        "Precision (judgments): share of the 'correct' judgments that say yes. Precision (majority): share of "
        "pairs more than half of whose judges say yes. Seed 002: LL-model 67.03 %, MLE-model 60.60 % (3,000 pairs "
        "each; #PP 1,058,624 and 1,015,533). A pair both models extract counts for both.",
        plot=PlotSpec("bar", 0, (4, 5), "precision"),
    )


def seed002_table3(records: JudgmentRecords, positive: Sequence[str]) -> ReportTable:
    per_system = records.select_criteria([PATTERN_CORRECT, PATTERN_TYPE]).per_system()
    correct = _answers(per_system, PATTERN_CORRECT)
    types = _answers(per_system, PATTERN_TYPE)
    wanted = {label.lower() for label in positive}
    systems = per_system.system_names() or ["all"]
    counts: dict[str, Counter] = {system: Counter() for system in systems}
    overall: Counter = Counter()
    seen: set[tuple[str, str]] = set()
    for (system, item, annotator), value in types.items():
        if correct.get((system, item, annotator), "").lower() not in wanted:
            continue
        counts.setdefault(system, Counter())[value] += 1
        if (item, annotator) not in seen:  # overall: each judge's label on a pair once, whoever made it
            seen.add((item, annotator))
            overall[value] += 1
    labels = [value for value, _ in PATTERN_TYPES] + sorted(set(overall) - {v for v, _ in PATTERN_TYPES})
    names = dict(PATTERN_TYPES)
    total = sum(overall.values())
    rows = [[names.get(value, value), overall[value], overall[value] / total if total else None,
             *[counts[system][value] for system in systems]] for value in labels]
    return ReportTable(
        key="seed002_table3",
        title="Types of the correct paraphrase patterns (seed 002, Table 3)",
        columns=[Column("type"), Column("count", "count"), Column("share", "percent"),
                 *[Column(f"{system}: count", "count") for system in systems]],
        rows=rows,
        signature=signature("pattern-types", len({item for item, _ in seen}), len(per_system.annotator_names()),
                            criterion=PATTERN_TYPE, given=f"{PATTERN_CORRECT}-yes-by-the-same-judge",
                            positive=",".join(positive)),
        note="Each judge's type label on each pair that judge called correct. Seed 002 (500 correct pairs): trivial "
        "change 79, phrase replacement 267, phrase reordering 56, structural paraphrase 71, information + or - 27.",
        plot=PlotSpec("bar", 0, (1,), "judgments"),
    )


def pattern_tables(records: JudgmentRecords, positive: Sequence[str],
                   pairs_extracted: Mapping[str, int] | None = None) -> list[ReportTable]:
    """Table 2 when the records judge ``correct``; Table 3 as well when they judge ``type``."""
    criteria = set(records.criterion_names())
    if PATTERN_CORRECT not in criteria:
        return []
    tables = [seed002_table2(records, positive, pairs_extracted)]
    if PATTERN_TYPE in criteria:
        tables.append(seed002_table3(records, positive))
    return tables
