"""Seed 001's filters on whole suggestions (§3.4.4.3, §5.3): PTRF, FNRF, SBRF and the abbreviation filter.

Suggestions arrive ordered by FSM score, best first; each filter keeps the
first of a group of near-duplicates, as the partial filters do.
"""

from __future__ import annotations

import Levenshtein

from parastudio.core.engine.decoders.cat.function_words import FUNCTION_WORD_LISTS, content_words
from parastudio.core.engine.decoders.cat.stages import Filter, SuggestContext, Suggestion, strip_punctuation


def ptrf(suggestions: list[Suggestion], context: SuggestContext) -> list[Suggestion]:
    """Punctuation String Distance Filter: PTPF's and SDPF's logic on whole suggestions (punctuation
    removed, duplicates and those within Levenshtein distance < t of a better one dropped)."""
    threshold = context.parameter("ptrf_threshold")
    kept: list[Suggestion] = []
    texts: list[str] = []
    for suggestion in suggestions:
        words = strip_punctuation(suggestion.words)
        text = " ".join(words)
        if any(Levenshtein.distance(text, other) < threshold for other in texts):
            continue
        texts.append(text)
        kept.append(Suggestion(words, suggestion.fsm_score, suggestion.path, suggestion.lm_score))
    return kept


def fnrf(suggestions: list[Suggestion], context: SuggestContext) -> list[Suggestion]:
    """Function Word Filter: FWPF's logic on whole suggestions (the same ``function_words`` list)."""
    vocabulary = FUNCTION_WORD_LISTS[context.parameter("function_words")]
    kept, seen = [], set()
    for suggestion in suggestions:
        key = content_words(suggestion.words, vocabulary)
        if key not in seen:
            seen.add(key)
            kept.append(suggestion)
    return kept


def sbrf(suggestions: list[Suggestion], context: SuggestContext) -> list[Suggestion]:
    """Score Based Filter: when there are more than ``sbrf_keep`` suggestions, those whose FSM score is below
    the ``sbrf_keep``-th best go ("the threshold depends on the number of items"; the number is ours)."""
    keep = context.parameter("sbrf_keep")
    if len(suggestions) <= keep:
        return list(suggestions)
    threshold = sorted((s.fsm_score for s in suggestions), reverse=True)[keep - 1]
    return [s for s in suggestions if s.fsm_score >= threshold]


def _letters(words) -> str:
    return "".join(c for w in words for c in w.lower() if c.isalnum())


def abbreviation(suggestions: list[Suggestion], context: SuggestContext) -> list[Suggestion]:
    """§5.3's "expand abbreviation" request: keeps suggestions whose words' first letters spell the selection's
    letters ("u.s." -> "united states"); the selection itself is not an expansion of itself."""
    letters = _letters(context.selection_words())
    kept = []
    for suggestion in suggestions:
        words = strip_punctuation(suggestion.words)
        if len(words) > 1 and "".join(w[0].lower() for w in words) == letters:
            kept.append(suggestion)
    return kept


FILTERS: dict[str, Filter] = {"PTRF": ptrf, "FNRF": fnrf, "SBRF": sbrf, "ABRF": abbreviation}
