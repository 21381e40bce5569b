"""Test cases for automatic evaluation, after seed 001 §4.1.1.

Rustamli corrupted 1,000 news sentences by round-trip translation, aligned the
original and corrupted sentences, merged sequential difference intervals and
kept each difference as a case: a sentence, the span to paraphrase, and the
original text as gold (2,139 cases). Here the two English translations of a verse
play both roles: the sentence is the tokenized WEB verse, the span a stretch of it
that the KJV words differently, and the gold the KJV's words for that stretch.

Alignment: ``difflib.SequenceMatcher`` on tokens (``autojunk=False``); the
consecutive non-equal opcodes between two equal blocks are merged into one
difference. A difference with an empty WEB side (the KJV only adds words) or an
empty KJV side (the KJV only drops words) has nothing to paraphrase or nothing
to paraphrase into, so it is counted and skipped; so is a difference of
punctuation only on both sides (", as" -> ": and" is kept, "." -> ";" is not).
"""

from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence


@dataclass(frozen=True)
class TestCase:
    """``sentence`` tokens[span[0]:span[1]] should become ``gold`` (end-exclusive token offsets)."""

    id: str
    sentence: str
    span: tuple[int, int]
    gold: str
    sentence_id: int | None = None  # the verse's line in its set (the search graph's sentence number)

    def as_json(self) -> dict:
        out = {"id": self.id, "sentence": self.sentence, "span": [self.span[0], self.span[1]], "gold": self.gold}
        if self.sentence_id is not None:
            out["sentence_id"] = self.sentence_id
        return out


def merged_differences(source: Sequence[str], target: Sequence[str]) -> list[tuple[int, int, int, int]]:
    """``(i1, i2, j1, j2)`` of each maximal run of differences between two token sequences."""
    matcher = difflib.SequenceMatcher(None, source, target, autojunk=False)
    differences: list[tuple[int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if differences and differences[-1][1] == i1 and differences[-1][3] == j1:
            previous = differences[-1]
            differences[-1] = (previous[0], i2, previous[2], j2)
        else:
            differences.append((i1, i2, j1, j2))
    return differences


def _punctuation_only(tokens: Sequence[str]) -> bool:
    return not any(character.isalnum() for token in tokens for character in token)


@dataclass
class CaseReport:
    """Counts behind the cases, for the README."""

    verses: int = 0
    cases: int = 0
    identical_verses: int = 0
    skipped_insertions: int = 0
    skipped_deletions: int = 0
    skipped_punctuation: int = 0
    span_lengths: Counter = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.span_lengths is None:
            self.span_lengths = Counter()

    def as_json(self) -> dict:
        return {"verses": self.verses, "cases": self.cases, "identical_verses": self.identical_verses,
                "skipped_insertions": self.skipped_insertions, "skipped_deletions": self.skipped_deletions,
                "skipped_punctuation": self.skipped_punctuation,
                "span_lengths": {str(length): count for length, count in sorted(self.span_lengths.items())}}


def cases_for_verse(ref: str, sentence: str, reference: str, report: CaseReport | None = None,
                    sentence_id: int | None = None) -> list[TestCase]:
    """Cases of one verse: ``sentence`` and ``reference`` are tokenized, space-separated."""
    source, target = sentence.split(), reference.split()
    cases = []
    differences = merged_differences(source, target)
    if report is not None:
        report.verses += 1
        report.identical_verses += not differences
    for i1, i2, j1, j2 in differences:
        if i1 == i2:
            if report is not None:
                report.skipped_insertions += 1
            continue
        if j1 == j2:
            if report is not None:
                report.skipped_deletions += 1
            continue
        if _punctuation_only(source[i1:i2]) and _punctuation_only(target[j1:j2]):
            if report is not None:
                report.skipped_punctuation += 1
            continue
        case = TestCase(f"{ref}:{len(cases)}", " ".join(source), (i1, i2), " ".join(target[j1:j2]), sentence_id)
        cases.append(case)
        if report is not None:
            report.cases += 1
            report.span_lengths[i2 - i1] += 1
    return cases


def build_cases(verses: Iterable[tuple[str, str, str]], report: CaseReport | None = None) -> list[TestCase]:
    """Cases of ``(ref, web_tokens, kjv_tokens)`` verses, in the given order."""
    cases: list[TestCase] = []
    for index, (ref, sentence, reference) in enumerate(verses):
        cases.extend(cases_for_verse(ref, sentence, reference, report, sentence_id=index))
    return cases
