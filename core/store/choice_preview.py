"""Seed 001 Fig. 4.4's preview-then-Accept: picking an option shows the sentence with it in place; only
"Accept Selection" records the choice (a custom paraphrase goes by "Submit Custom" directly).

Qt-free, so the screen only paints what this says: which answer a selection stands for, and the sentence
to show with the selection's words in place of the highlighted span.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class ChoicePreview:
    """A selection not yet accepted: the answer it stands for, its paraphrase (None: the original), and the
    sentence with that paraphrase in place, with the tokens ``marked`` that replaced the span."""

    value: str
    text: str | None
    sentence: str
    marked: range


def preview(source: str, span: tuple[int, int], options: Sequence[str], value: str) -> ChoicePreview | None:
    """The preview of ``value`` (``option:N`` or ``original``) for a task; None when it names no option."""
    tokens = source.split()
    start, end = span
    if value == "original":
        return ChoicePreview(value, None, source, range(start, end))
    if not value.startswith("option:") or not value[7:].isdigit():
        return None
    number = int(value[7:])
    if not 1 <= number <= len(options):
        return None
    words = str(options[number - 1]).split()
    sentence = " ".join([*tokens[:start], *words, *tokens[end:]])
    return ChoicePreview(value, options[number - 1], sentence, range(start, start + len(words)))
