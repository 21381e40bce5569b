"""Test cases by round-trip translation, as seed 001 §4.1.1 makes them.

Rustamli translated 1,000 English sentences into Russian and back, then
aligned the original and the round-trip English "through the coverage
information" of the two passes (Moses ``-report-segmentation``), kept the
parts that differ, merged sequential differences, and got 2,139 cases: the
round-trip sentence, the span to paraphrase, and the original words as gold.

The alignment, made exact: both passes are monotone, so each pass's phrases
cut its input and its output into the same number of consecutive pieces. The
pivot (here Spanish) sentence is the first pass's output and the second
pass's input, so it carries two sets of cut points. Where a cut point belongs
to both, the original English and the round-trip English are cut too; between
two consecutive shared cut points lies a *block*: the original words the first
pass's phrases of that stretch translated, and the round-trip words the second
pass's phrases of that stretch produced (seed 001's "us states |5-6|" ->
Russian words 5-6 -> "american states"). Blocks whose words differ are
differences; adjacent differences merge into one case.

A difference is not a case when the round trip dropped the words (nothing to
select), when the original is punctuation only (nothing to find), or when the
two differ only in punctuation or case (every approach's PTPF removes punctuation, so
the gold would be the selection itself, which is never suggested); these are
counted and reported, like the WEB-KJV cases' skips.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from parastudio.core.engine.decoders.cat.segmentation import Translation


@dataclass(frozen=True)
class Block:
    """Original words ``[original_start, original_end)`` and round-trip words ``[start, end)`` of one stretch."""

    original_start: int
    original_end: int
    start: int
    end: int


def aligned_blocks(first_pass: Translation, second_pass: Translation) -> list[Block]:
    """The blocks of the module docstring; ``second_pass``'s source must be ``first_pass``'s output."""
    pivot_length = len(first_pass.tokens)
    if second_pass.phrases and max(p.source_end for p in second_pass.phrases) != pivot_length:
        raise ValueError("the second pass's source is not the first pass's output")
    first_cuts = {p.start for p in first_pass.phrases} | {pivot_length}
    second_cuts = {p.source_start for p in second_pass.phrases} | {pivot_length}
    shared = sorted(first_cuts & second_cuts)
    blocks = []
    for low, high in zip(shared, shared[1:]):
        firsts = [p for p in first_pass.phrases if low <= p.start and p.end <= high and not (p.start == p.end == high)]
        seconds = [p for p in second_pass.phrases if low <= p.source_start and p.source_end <= high]
        if not firsts or not seconds:
            continue
        blocks.append(Block(min(p.source_start for p in firsts), max(p.source_end for p in firsts),
                            min(p.start for p in seconds), max(p.end for p in seconds)))
    return blocks


def _punctuation_only(words: Sequence[str]) -> bool:
    return not any(c.isalnum() for w in words for c in w)


def _words(words: Sequence[str]) -> tuple[str, ...]:
    """Lowercase, punctuation tokens removed: what the paraphraser compares (core.engine.decoders.cat.stages.normalized)."""
    return tuple(w.lower() for w in words if any(c.isalnum() for c in w))


@dataclass
class RoundTripReport:
    sentences: int = 0
    unchanged_sentences: int = 0
    differences: int = 0
    dropped_by_round_trip: int = 0  # the round trip has no words there: nothing to select
    original_punctuation_only: int = 0
    punctuation_only_difference: int = 0
    cases: int = 0
    span_lengths: Counter = field(default_factory=Counter)

    def as_json(self) -> dict:
        return {"sentences": self.sentences, "unchanged_sentences": self.unchanged_sentences,
                "differences": self.differences, "skipped_dropped_by_round_trip": self.dropped_by_round_trip,
                "skipped_original_punctuation_only": self.original_punctuation_only,
                "skipped_punctuation_only_difference": self.punctuation_only_difference, "cases": self.cases,
                "span_lengths": {str(k): v for k, v in sorted(self.span_lengths.items())}}


def roundtrip_cases(case_prefix: str, sentence_id: int, original: Sequence[str], first_pass: Translation,
                    second_pass: Translation, report: RoundTripReport) -> list[dict]:
    """The cases of one sentence: ``{"id", "sentence_id", "source", "sentence", "span", "gold"}``."""
    report.sentences += 1
    if len(original) != max((p.source_end for p in first_pass.phrases), default=0):
        raise ValueError(f"{case_prefix}: the first pass's source is not the original sentence")
    original = tuple(original)
    differences: list[Block] = []
    for block in aligned_blocks(first_pass, second_pass):
        if original[block.original_start:block.original_end] == second_pass.tokens[block.start:block.end]:
            continue
        last = differences[-1] if differences else None
        if last is not None and last.original_end == block.original_start and last.end == block.start:
            differences[-1] = Block(last.original_start, block.original_end, last.start, block.end)
        else:
            differences.append(block)
    # Two differences merged can spell the same words on both sides ("a | a a" against "a a | a"): not a difference.
    differences = [b for b in differences
                   if original[b.original_start:b.original_end] != second_pass.tokens[b.start:b.end]]
    if not differences:
        report.unchanged_sentences += 1
    cases = []
    for block in differences:
        report.differences += 1
        gold = original[block.original_start:block.original_end]
        if block.end == block.start:
            report.dropped_by_round_trip += 1
            continue
        if _punctuation_only(gold):
            report.original_punctuation_only += 1
            continue
        if _words(gold) == _words(second_pass.tokens[block.start:block.end]):
            report.punctuation_only_difference += 1
            continue
        report.cases += 1
        report.span_lengths[block.end - block.start] += 1
        cases.append({"id": f"{case_prefix}:{block.start}-{block.end}", "sentence_id": sentence_id,
                      "source": " ".join(first_pass.tokens), "sentence": " ".join(second_pass.tokens),
                      "span": [block.start, block.end], "gold": " ".join(gold)})
    return cases
