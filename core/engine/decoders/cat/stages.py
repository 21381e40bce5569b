"""The four kinds of stage of seed 001's paraphraser (§3.4.4), each one small interface.

Rustamli made every stage a Decorator that wraps the previous one; here a
stage is a plain function with one of four signatures, and an approach is the
lists of their names (:mod:`core.engine.decoders.cat.approaches`), applied in order:

* a *partial filter* thins the partial paraphrases (best score first);
* a *score function* scores one FSM transition in [0, 1]; a chain of them is
  folded as the Decorators fold it: the first function's score, then after
  each further function the average of the running score and its own;
* a *filter* drops whole suggestions;
* a *sorter* reorders whole suggestions.

:class:`SuggestContext` carries what stages may look at: the sentence graph,
the translation, the aligned selection, the LM, the request's parameters.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, Sequence

from parastudio.core.engine.decoders.cat.aligner import Alignment
from parastudio.core.engine.decoders.cat.graph_store import GraphNode, SentenceGraph
from parastudio.core.engine.decoders.cat.partials import Partial
from parastudio.core.engine.decoders.cat.segmentation import Translation
from parastudio.core.engine.lm.language_model import LanguageModel

# Seed 001's numbers where it gives them (SDPF t = 3), ours where it does not (documented at each stage).
DEFAULT_PARAMETERS: dict[str, Any] = {
    "sdpf_threshold": 3,  # §3.4.4.1: "For all our experiments we used t = 3"
    "ptrf_threshold": 3,  # PTRF repeats SDPF's logic on whole suggestions
    "sbrf_keep": 20,  # SBRF: how many suggestions sorters can handle (the paper gives no number)
    "paths": 100,  # K of the K best paths (n per end state = paths // end states)
    "follow_limit": 4,  # source words up to which forward links are followed (§3.4.2: n > 4)
    "retrieval": "forward",  # §3.4.2's retrieval; "all-spans" is ours (core.engine.decoders.cat.partials)
    "sdsf_reading": "source-over-target",  # Eq. 3.7 as the text describes it; "as-printed" is the equation's letters
    "function_words": "closed-classes",  # FWPF/FNRF's list; "nltk-2013" is the paper's (function_words.py)
}


@dataclass(frozen=True)
class Suggestion:
    """A whole paraphrase of the selection: its words, the product of its FSM transition scores, its path."""

    words: tuple[str, ...]
    fsm_score: float
    path: tuple[Partial, ...] = ()
    lm_score: float | None = None  # log10 P(sentence with the selection replaced), set by LMBS

    @property
    def text(self) -> str:
        return " ".join(self.words)

    def with_lm(self, lm_score: float) -> "Suggestion":
        return replace(self, lm_score=lm_score)


@dataclass
class SuggestContext:
    """What one request's stages may use (built by :func:`core.engine.decoders.cat.paraphraser.suggest`)."""

    graph: SentenceGraph
    translation: Translation
    alignment: Alignment
    tokens: tuple[str, ...]  # the text the user sees (the translation, or their edit of it)
    lm: LanguageModel | None
    top: int
    parameters: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_PARAMETERS))
    feedback: tuple[str, ...] | None = None
    before: GraphNode | None = None  # the 1-best's hypothesis just before the selection: the start state's
    user_selection: tuple[int, int] | None = None  # the selection in an edited text, as the user made it

    def parameter(self, name: str) -> Any:
        return self.parameters.get(name, DEFAULT_PARAMETERS.get(name))

    def selection_words(self) -> tuple[str, ...]:
        return self.translation.tokens[self.alignment.start:self.alignment.end]

    def with_replacement(self, words: Sequence[str]) -> tuple[str, ...]:
        """The user's text with the selection replaced by ``words``."""
        start, end = self.user_span()
        return (*self.tokens[:start], *words, *self.tokens[end:])

    def user_span(self) -> tuple[int, int]:
        """The selection's span in the user's text (for an edited text: the span the fuzzy aligner matched)."""
        if self.tokens == self.translation.tokens:
            return self.alignment.start, self.alignment.end
        return self.user_selection if self.user_selection is not None else self.alignment.requested


class PartialFilter(Protocol):
    def __call__(self, partials: list[Partial], context: SuggestContext) -> list[Partial]: ...


class ScoreFunction(Protocol):
    def __call__(self, source: Partial | None, target: Partial, context: SuggestContext) -> float: ...


class Filter(Protocol):
    def __call__(self, suggestions: list[Suggestion], context: SuggestContext) -> list[Suggestion]: ...


class Sorter(Protocol):
    def __call__(self, suggestions: list[Suggestion], context: SuggestContext) -> list[Suggestion]: ...


def normalized(words: Sequence[str]) -> tuple[str, ...]:
    """How a suggestion is compared with a gold phrase: lowercase, punctuation removed (every approach's PTPF
    removes it from the suggestions, so a gold's punctuation could never be matched)."""
    return _normalized(words if isinstance(words, tuple) else tuple(words))


@functools.lru_cache(maxsize=1 << 18)
def _normalized(words: tuple[str, ...]) -> tuple[str, ...]:  # a gold's trace asks it of every hypothesis again
    return tuple(w.lower() for w in strip_punctuation(words))


def strip_punctuation(words: Sequence[str]) -> tuple[str, ...]:
    """PTPF's normalisation: tokens with no letter or digit go (spaces between words collapse with them)."""
    return tuple(w for w in words if _has_letter_or_digit(w))


@functools.lru_cache(maxsize=1 << 16)
def _has_letter_or_digit(word: str) -> bool:  # asked of every word of every partial: a graph's words repeat
    return any(c.isalnum() for c in word)
