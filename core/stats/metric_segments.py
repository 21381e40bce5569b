"""The table a meta-evaluation reads: every judged candidate, as each system that made it, with the judges' score
and every metric's score; the systems' scores beside it.

A *segment* is one candidate as one system made it (a string two systems produced is judged once and counts for
both, as in every per-system table of the project: :meth:`JudgmentRecords.per_system`). Its human score is its
judges' labels on the criterion made one number (:func:`core.stats.system_scores.aggregate_labels`: yes 1, no 0,
a numeric label itself; ``mean`` or ``majority``). It is joined to the metrics' record of the same source
sentence, system and candidate text, or, when the judgments carry no text, of the same item id (a scores file made
from the same study). The source sentence the segments are grouped by is the scores file's ``source_key``.

Every metric is compared on the same segments (the permutation test swaps their scores segment by segment): a
metric without a score on some judged segment is left out, and said so in :attr:`SegmentTable.notes`. Scores are
oriented so that higher is better (a metric whose file says ``"better": "lower"`` is negated).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.metric_scores_file import MetricScores
from parastudio.core.stats.system_scores import aggregate_labels
from parastudio.core.textio import read_csv


@dataclass(frozen=True)
class JudgedSegment:
    item: str
    sentence: str
    system: str
    text: str | None
    human: float
    judgments: int


@dataclass
class SegmentTable:
    """Judged segments joined to the metrics (module docstring). ``metrics`` and ``corpus`` hold oriented scores."""

    segments: list[JudgedSegment]
    metrics: dict[str, np.ndarray]
    lower_is_better: frozenset[str]
    corpus: dict[str, dict[str, float]]  # metric -> system -> its corpus score, for metrics every system has one
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sentence_names = list(dict.fromkeys(s.sentence for s in self.segments))
        self.system_names = list(dict.fromkeys(s.system for s in self.segments))
        sentence_index = {name: k for k, name in enumerate(self.sentence_names)}
        system_index = {name: k for k, name in enumerate(self.system_names)}
        self.sentence_of = np.array([sentence_index[s.sentence] for s in self.segments], dtype=np.int64)
        self.system_of = np.array([system_index[s.system] for s in self.segments], dtype=np.int64)
        self.human = np.array([s.human for s in self.segments], dtype=float)

    @property
    def metric_names(self) -> list[str]:
        return list(self.metrics)

    def raw(self, metric: str, value: float) -> float:
        """A score as the metric gives it (the table holds it oriented)."""
        return -value if metric in self.lower_is_better else value


def candidate_texts(path: str) -> dict[str, str]:
    """Item -> candidate text of a judgments CSV with a ``candidate`` column (``study export-judgments``); empty
    when it has none."""
    rows = read_csv(path)
    header = next((row for _, row in rows if any(cell.strip() for cell in row)), None)
    names = [cell.strip().lower() for cell in header or []]
    if "item" not in names or "candidate" not in names:
        return {}
    item, text = names.index("item"), names.index("candidate")
    texts: dict[str, str] = {}
    for _, row in rows:
        if len(row) > max(item, text) and row[item].strip():
            texts.setdefault(row[item].strip(), row[text])
    return texts


def judged_segments(records: JudgmentRecords, criterion: str, texts: Mapping[str, str], *,
                    aggregate: str = "mean") -> list[JudgedSegment]:
    """One segment per judged (item, system) of ``criterion`` whose labels make a number (module docstring)."""
    chosen = records.select(criterion=criterion).per_system()
    systems = chosen.systems if chosen.systems is not None else ["-"] * len(chosen)
    sentences = chosen.sentences if chosen.sentences is not None else chosen.items
    labels: dict[tuple[str, str], list[str]] = defaultdict(list)
    sentence_of: dict[str, str] = {}
    for item, system, sentence, value in zip(chosen.items, systems, sentences, chosen.values):
        labels[(item, system)].append(value)
        sentence_of.setdefault(item, sentence or item)
    segments = []
    for (item, system), values in labels.items():
        number = aggregate_labels(values, aggregate)
        if number is not None:
            segments.append(JudgedSegment(item, sentence_of[item], system, texts.get(item), number, len(values)))
    return segments


def join_scores(judged: list[JudgedSegment], scores: MetricScores) -> SegmentTable:
    """The judged segments that have metric scores, with every metric that scores all of them; ValueError when
    none can be joined."""
    joined, matched = _matched(judged, scores)
    notes = []
    if len(joined) < len(judged):
        notes.append(f"{len(judged) - len(joined)} of {len(judged)} judged segments have no record in "
                     f"{scores.path} (joined on source sentence, system and text, else item id) and are left out.")
    if not joined:
        raise ValueError(f"no judged candidate has a record in {scores.path} (joined on source sentence, system and "
                         "candidate text, else item id and system): were the scores made from these candidates?")
    lower = frozenset(name for name in scores.metric_names if not scores.higher_is_better(name))
    metrics = _complete_metrics(matched, scores, lower, notes)
    if not metrics:
        raise ValueError(f"no metric in {scores.path} scores every judged segment")
    systems = list(dict.fromkeys(s.system for s in joined))
    corpus = {}
    for name in metrics:
        values = [scores.systems.get(system, {}).get(name) for system in systems]
        if all(value is not None for value in values):
            sign = -1.0 if name in lower else 1.0
            corpus[name] = {system: sign * float(value) for system, value in zip(systems, values)}
    return SegmentTable(joined, metrics, lower, corpus, notes)


def _matched(judged: list[JudgedSegment], scores: MetricScores) -> tuple[list[JudgedSegment], list[dict]]:
    """The judged segments with a scores record (module docstring), grouped by the record's source sentence, and
    their records."""
    by_text, by_item = {}, {}
    for record in scores.segments:
        by_text.setdefault((record["source_key"], record["system"], record["text"]), record)
        if record["item"] is not None:
            by_item.setdefault((record["item"], record["system"]), record)
    joined, matched = [], []
    for segment in judged:
        record = by_text.get((segment.sentence, segment.system, segment.text)) if segment.text is not None else None
        record = record or by_item.get((segment.item, segment.system))
        if record is not None:
            joined.append(JudgedSegment(segment.item, record["source_key"], segment.system, record["text"],
                                        segment.human, segment.judgments))
            matched.append(record)
    return joined, matched


def _complete_metrics(matched: list[dict], scores: MetricScores, lower: frozenset[str],
                      notes: list[str]) -> dict[str, np.ndarray]:
    """Each metric that scores every matched segment, oriented; a note for one that scores only some."""
    metrics = {}
    for name in scores.metric_names:
        values = [record[name] for record in matched]
        missing = sum(value is None for value in values)
        if missing:
            if missing < len(values):
                notes.append(f"{name}: no score on {missing} of {len(values)} judged segments; left out (every "
                             "metric is compared on the same segments).")
            continue
        metrics[name] = (-1.0 if name in lower else 1.0) * np.array(values, dtype=float)
    return metrics
