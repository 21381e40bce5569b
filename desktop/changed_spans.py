"""Changed words highlighted as HTML, in tokenized or readable text (which words changed:
:mod:`core.engine.text.changed_words`), and pattern slots (``[NN_1]``, seed 002) marked. Plain Python, no Qt."""

from __future__ import annotations

import html
from typing import Sequence

from parastudio.core.vocabulary import is_slot

HIGHLIGHT_STYLE = "background-color:#ffe08a; color:#000000; font-weight:bold"
# A slot of a paraphrase pattern: the same number in both patterns is filled with the same words.
SLOT_STYLE = "background-color:#d6e6ff; color:#0b3d91; font-weight:bold"


def _token_html(token: str) -> str:
    shown = html.escape(token)
    return f'<span style="{SLOT_STYLE}">{shown}</span>' if is_slot(token) else shown


def highlighted_html(tokens: Sequence[str], marked: set[int] | range, style: str = HIGHLIGHT_STYLE) -> str:
    """Tokens as escaped HTML, consecutive marked tokens wrapped in one span, slots marked."""
    parts: list[str] = []
    run: list[str] = []
    for index, token in enumerate(tokens):
        if index in marked:
            run.append(_token_html(token))
            continue
        if run:
            parts.append(f'<span style="{style}">{" ".join(run)}</span>')
            run = []
        parts.append(_token_html(token))
    if run:
        parts.append(f'<span style="{style}">{" ".join(run)}</span>')
    return " ".join(parts)


def highlighted_display_html(text: str, spans, marked: set[int] | range, style: str = HIGHLIGHT_STYLE) -> str:
    """A readable sentence as escaped HTML, the text of each marked token's span (and what lies between two
    marked neighbours) wrapped in one span."""
    runs: list[tuple[int, int]] = []
    for index, (start, end) in enumerate(spans):
        if index not in marked or end <= start:
            continue
        if runs and index - 1 in marked and runs[-1][1] <= start and not text[runs[-1][1]:start].strip(" ,;:"):
            runs[-1] = (runs[-1][0], end)
        else:
            runs.append((start, end))
    parts, position = [], 0
    for start, end in runs:
        parts.append(html.escape(text[position:start]))
        parts.append(f'<span style="{style}">{html.escape(text[start:end])}</span>')
        position = end
    parts.append(html.escape(text[position:]))
    return "".join(parts)


def sentence_html(shown) -> str:
    """A shown sentence (:class:`core.judging.view.ShownSentence`) as escaped HTML with its marked tokens
    highlighted (readable or tokenized)."""
    if shown.text is None:
        return highlighted_html(list(shown.tokens), shown.marked)
    return highlighted_display_html(shown.text, shown.spans, shown.marked)
