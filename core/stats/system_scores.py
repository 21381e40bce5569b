"""A system's score on each source sentence, from the judgments of its candidates: the unit systems are compared on.

Seed 003 §5 and seed 001 §4.2 compare systems sentence by sentence: every
system paraphrased the same sources, so the paired unit of a sign test is the
source sentence, never a candidate (two systems' candidates have different ids
even when their strings are equal).

For one criterion:

1. Each judged candidate gets one number from its judges' labels
   (``aggregate``):

   * ``"mean"``: yes/no -> the share of judges who say yes; a numeric scale ->
     the mean label; a choice task -> the share of judges who picked one of
     the offered options (seed 001: the list held a suitable paraphrase).
   * ``"majority"``: the label most judges gave, as a number (yes 1, no 0; a
     choice success 1); a tie -> the mean of the tied labels (so two judges
     who split on yes/no give 0.5).
   * ``"unified"`` with ``unified_min = k`` (seed 001 Fig. 4.5): 1 when at
     least k judges say yes (or picked an option), else 0.

2. A system's score on a sentence is the mean of that number over its judged
   candidates of the sentence (one with a 1-best study, the n-best's mean
   otherwise); a candidate several systems produced counts for each of them.

Items with no sentence (a CSV without the ``source_key``, ``sentence_id`` or older
``sentence`` column) are their own sentence, so such files keep pairing on item
ids, as before.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable, Sequence

from parastudio.core.stats.judgment_records import JudgmentRecords, ScoreRecords
from parastudio.core.vocabulary import NO_WORDS, YES_WORDS

AGGREGATES = ("mean", "majority", "unified")
CHOICE_FAILURES = ("original", "custom")


def is_choice_label(label: str) -> bool:
    """A choice-task answer: ``option:N`` (picked the N-th offered paraphrase), ``original`` or ``custom``."""
    return label.startswith("option:") or label in CHOICE_FAILURES


def label_number(label: str, positive: Sequence[str] = YES_WORDS) -> float | None:
    """The label as a number: yes 1, no 0, a choice success 1 and failure 0, a numeric label itself."""
    low = label.strip().lower()
    if low in {p.lower() for p in positive}:
        return 1.0
    if low in NO_WORDS:
        return 0.0
    if is_choice_label(low):
        return 1.0 if low.startswith("option:") else 0.0
    try:
        return float(low)
    except ValueError:
        return None


def aggregate_labels(labels: Sequence[str], aggregate: str = "mean", *, unified_min: int = 2,
                     positive: Sequence[str] = YES_WORDS) -> float | None:
    """One candidate's number from its judges' labels (module docstring); ``None`` when no label is a number."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate must be one of {', '.join(AGGREGATES)}, not {aggregate!r}")
    numbers = [n for n in (label_number(label, positive) for label in labels) if n is not None]
    if not numbers:
        return None
    if aggregate == "mean":
        return sum(numbers) / len(numbers)
    if aggregate == "unified":
        return 1.0 if sum(1 for n in numbers if n >= 1.0) >= unified_min else 0.0
    counts = Counter(numbers)
    top = max(counts.values())
    tied = [value for value, count in counts.items() if count == top]
    return sum(tied) / len(tied)


def sentence_scores(records: JudgmentRecords, criterion: str, aggregate: str = "mean", *, unified_min: int = 2,
                    positive: Sequence[str] = YES_WORDS) -> ScoreRecords:
    """system -> sentence -> score for one criterion (module docstring), every producing system credited."""
    chosen = records.select(criterion=criterion).per_system()
    systems = chosen.systems if chosen.systems is not None else ["-"] * len(chosen)
    sentences = chosen.sentences if chosen.sentences is not None else [None] * len(chosen)
    labels: dict[tuple[str, str, str], list[str]] = defaultdict(list)  # (system, sentence, item) -> labels
    for system, sentence, item, value in zip(systems, sentences, chosen.items, chosen.values):
        labels[(system, sentence or item, item)].append(value)
    per_sentence: dict[str, dict[str, list[float]]] = {}
    for (system, sentence, _item), values in labels.items():
        number = aggregate_labels(values, aggregate, unified_min=unified_min, positive=positive)
        if number is not None:
            per_sentence.setdefault(system, {}).setdefault(sentence, []).append(number)
    return ScoreRecords({system: {sentence: sum(numbers) / len(numbers) for sentence, numbers in by_sentence.items()}
                         for system, by_sentence in per_sentence.items()})


def score_rows(scores: ScoreRecords) -> Iterable[tuple[str, str, float]]:
    """``(item, system, score)`` rows, the ``parastudio signtest`` CSV, sentence by sentence."""
    for system, by_sentence in scores.scores.items():
        for sentence, score in by_sentence.items():
            yield sentence, system, score
