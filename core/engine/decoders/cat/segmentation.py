"""A translation with its phrase segmentation: Moses ``-report-segmentation`` output, written and read.

Moses prints each phrase of the 1-best followed by the source span it covers,
inclusive and 0-based (seed 001 §3.4.1)::

    indiana |0-0| became the |1-1| first state |2-3| to impose |4-4| such a requirement . |5-7|

:class:`Phrase` keeps both spans end-exclusive, as everything else in the
project does; only the text format is inclusive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from parastudio.core.errors import InputFormatError

_SPAN = re.compile(r"^\|(\d+)-(\d+)\|$")


@dataclass(frozen=True, slots=True)
class Phrase:
    """Target words ``[start, end)`` of the translation, produced from source words ``[source_start, source_end)``."""

    start: int
    end: int
    source_start: int
    source_end: int
    words: tuple[str, ...]


@dataclass(frozen=True)
class Translation:
    """A translation's tokens and the phrases that tile them, left to right."""

    tokens: tuple[str, ...]
    phrases: tuple[Phrase, ...]

    @classmethod
    def from_phrases(cls, pieces: Iterable[tuple[Sequence[str], int, int]]) -> "Translation":
        """From ``(target words, source_start, source_end)`` in output order (source end exclusive)."""
        tokens: list[str] = []
        phrases = []
        for words, source_start, source_end in pieces:
            start = len(tokens)
            tokens.extend(words)
            phrases.append(Phrase(start, len(tokens), source_start, source_end, tuple(words)))
        return cls(tuple(tokens), tuple(phrases))

    def phrase_at(self, position: int) -> Phrase:
        """The phrase holding target token ``position``."""
        for phrase in self.phrases:
            if phrase.start <= position < phrase.end:
                return phrase
        raise IndexError(f"token {position} is outside the translation ({len(self.tokens)} tokens)")

    def source_position_map(self) -> dict[int, Phrase]:
        """Source word -> the phrase that translated it."""
        return {i: phrase for phrase in self.phrases for i in range(phrase.source_start, phrase.source_end)}

    def format(self) -> str:
        return format_segmentation(self)


def format_segmentation(translation: Translation) -> str:
    """One line as Moses ``-report-segmentation`` prints it (an empty phrase prints its span alone)."""
    parts = []
    for phrase in translation.phrases:
        if phrase.words:
            parts.append(" ".join(phrase.words))
        parts.append(f"|{phrase.source_start}-{phrase.source_end - 1}|")
    return " ".join(parts)


def parse_segmentation(line: str, path: str = "<segmentation>", line_number: int = 0) -> Translation:
    """Read one line of ``-report-segmentation`` output (the reverse of :func:`format_segmentation`)."""
    pieces: list[tuple[list[str], int, int]] = []
    words: list[str] = []
    for token in line.split():
        match = _SPAN.match(token)
        if match is None:
            words.append(token)
            continue
        first, last = int(match.group(1)), int(match.group(2))
        if last < first:
            raise InputFormatError(path, line_number, "a span |i-j| with i <= j", token)
        pieces.append((words, first, last + 1))
        words = []
    if words:
        raise InputFormatError(path, line_number, "every phrase followed by its source span |i-j|",
                               " ".join(words[-5:]))
    return Translation.from_phrases(pieces)
