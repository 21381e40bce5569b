"""Seed 001's partial filters (§3.4.4.1): PTPF, SDPF, FWPF.

Each takes the partial paraphrases best score first and keeps the best of
each group of near-duplicates. Partials are compared only within one source
span: SDPF says so ("if ... it has the same coverage as current item"), and
partials of different spans are different states of the FSM, which must all
stay for the coverage to be completed; PTPF and FWPF follow the same rule.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import Levenshtein

from parastudio.core.engine.decoders.cat.function_words import FUNCTION_WORD_LISTS, content_words
from parastudio.core.engine.decoders.cat.partials import Partial
from parastudio.core.engine.decoders.cat.stages import PartialFilter, SuggestContext, strip_punctuation


def ptpf(partials: list[Partial], context: SuggestContext) -> list[Partial]:
    """Punctuation Partial Filter: punctuation removed from each output, then duplicates (same span) removed."""
    kept, seen = [], set()
    for partial in partials:
        words = strip_punctuation(partial.words)
        key = (partial.span, words)
        if key not in seen:
            seen.add(key)
            kept.append(partial.with_words(words))
    return kept


def sdpf(partials: list[Partial], context: SuggestContext) -> list[Partial]:
    """String Distance Partial Filter: a partial within Levenshtein distance < t of a better one of its span goes."""
    threshold = context.parameter("sdpf_threshold")
    kept: list[Partial] = []
    by_span: dict[tuple[int, int], list[str]] = {}
    for partial in partials:
        text = " ".join(partial.words)
        better = by_span.setdefault(partial.span, [])
        if any(Levenshtein.distance(text, other) < threshold for other in better):
            continue
        better.append(text)
        kept.append(partial)
    return kept


def fwpf(partials: list[Partial], context: SuggestContext) -> list[Partial]:
    """Function Word Partial Filter: a partial differing from a better one of its span only in function words goes
    (the words of the ``function_words`` parameter's list)."""
    vocabulary = FUNCTION_WORD_LISTS[context.parameter("function_words")]
    kept: list[Partial] = []
    seen: set[tuple[tuple[int, int], tuple[str, ...]]] = set()
    for partial in partials:
        key = (partial.span, content_words(partial.words, vocabulary))
        if key in seen:
            continue
        seen.add(key)
        kept.append(partial)
    return kept


PARTIAL_FILTERS: dict[str, PartialFilter] = {"PTPF": ptpf, "SDPF": sdpf, "FWPF": fwpf}


def keeps_one_per_output(names: Sequence[str], parameters: Mapping[str, object]) -> bool:
    """Whether the first of these partial filters keeps, of the partials of one span with one output, only the
    best: PTPF and FWPF group them together (their keys are made from the output), SDPF drops a copy of a kept
    text (distance 0) or of a dropped one (as close to what dropped it) when its threshold is above 0. Then
    retrieving only the best of each span and output changes nothing that filter keeps."""
    if not names:
        return False
    return names[0] in ("PTPF", "FWPF") or (names[0] == "SDPF" and float(parameters["sdpf_threshold"]) > 0)
