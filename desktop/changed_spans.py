"""Which words of a source and a candidate changed, for highlighting.

From the derivation when the candidate has one (the generator knows which
rules it applied), else from a word-level Levenshtein alignment
(python-Levenshtein's ``opcodes`` on token lists): imported candidates and
planted controls come without a derivation. Plain Python, no Qt.
"""

from __future__ import annotations

import html
from typing import Any, Sequence

import Levenshtein


def changed_from_derivation(derivation: Any, source: Sequence[str],
                            candidate: Sequence[str]) -> tuple[set[int], set[int]] | None:
    """Changed source and candidate token indices, or None if the derivation is unusable.

    A segment is ``{"src": [i, j], "tgt": [k, l], "source", "target",
    "identity"}`` (:meth:`core.engine.derivation.Segment.to_json`); a rule whose
    target equals its source changes nothing.
    """
    if not isinstance(derivation, list) or not derivation:
        return None
    source_changed: set[int] = set()
    candidate_changed: set[int] = set()
    try:
        for segment in derivation:
            src_start, src_end = segment["src"]
            tgt_start, tgt_end = segment["tgt"]
            # The derivation must describe these very tokens (not, say, a re-tokenized import).
            if (" ".join(source[src_start:src_end]) != segment["source"]
                    or " ".join(candidate[tgt_start:tgt_end]) != segment["target"]):
                return None
            if segment.get("identity") or segment["source"] == segment["target"]:
                continue
            source_changed.update(range(src_start, src_end))
            candidate_changed.update(range(tgt_start, tgt_end))
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    return source_changed, candidate_changed


def changed_by_diff(source: Sequence[str], candidate: Sequence[str]) -> tuple[set[int], set[int]]:
    """Changed token indices on both sides from a word-level edit alignment."""
    source_changed: set[int] = set()
    candidate_changed: set[int] = set()
    for tag, i1, i2, j1, j2 in Levenshtein.opcodes(list(source), list(candidate)):
        if tag == "equal":
            continue
        source_changed.update(range(i1, i2))
        candidate_changed.update(range(j1, j2))
    return source_changed, candidate_changed


def changed_tokens(source: str, candidate: str, derivation: Any = None) -> tuple[set[int], set[int]]:
    source_tokens, candidate_tokens = source.split(), candidate.split()
    found = changed_from_derivation(derivation, source_tokens, candidate_tokens)
    return found if found is not None else changed_by_diff(source_tokens, candidate_tokens)


HIGHLIGHT_STYLE = "background-color:#ffe08a; color:#000000; font-weight:bold"


def highlighted_html(tokens: Sequence[str], marked: set[int] | range, style: str = HIGHLIGHT_STYLE) -> str:
    """Tokens as escaped HTML, consecutive marked tokens wrapped in one span."""
    parts: list[str] = []
    run: list[str] = []
    for index, token in enumerate(tokens):
        if index in marked:
            run.append(html.escape(token))
            continue
        if run:
            parts.append(f'<span style="{style}">{" ".join(run)}</span>')
            run = []
        parts.append(html.escape(token))
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
