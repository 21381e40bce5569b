"""Which words of a source and a candidate changed: from the derivation when the candidate has one, else by diff.

The generator knows which rules it applied, so its derivation says exactly
which words were rewritten; imported candidates and planted controls come
without one, and a word-level Levenshtein alignment (python-Levenshtein's
``opcodes`` on token lists) stands in. Used to highlight changes (the
annotation and inspection screens) and to count them.
"""

from __future__ import annotations

from typing import Any, Sequence

import Levenshtein


def changed_from_derivation(derivation: Any, source: Sequence[str],
                            candidate: Sequence[str]) -> tuple[set[int], set[int]] | None:
    """Changed source and candidate token indices, or None if the derivation is unusable.

    A segment is ``{"src": [i, j], "tgt": [k, l], "source", "target",
    "identity"}`` (:meth:`core.engine.model.derivation.Segment.to_json`); a rule whose
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
