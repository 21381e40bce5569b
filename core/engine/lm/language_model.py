"""KenLM language model: log10 P(sentence) with <s> and </s>, per-word scores, a cache.

Scores are base-10 log probabilities, as KenLM, SRILM and Moses' ARPA files
give them. Input is a token sequence or a whitespace-tokenized string; the
caller tokenizes and cases it the way the model was trained.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import kenlm

from parastudio.core.engine.lm.file_check import check_lm_file
from parastudio.core.errors import InputFileError
from parastudio.core.textio import missing_input


@dataclass(frozen=True, slots=True)
class WordScore:
    """One word's conditional log10 probability (``</s>`` included last)."""

    word: str
    log10_prob: float
    ngram_length: int
    oov: bool


class LanguageModel:
    """A KenLM model (ARPA or binary) with a bounded LRU cache of sentence scores."""

    def __init__(self, path: str | os.PathLike, *, cache_size: int = 100_000):
        self.path = Path(path)
        if not self.path.exists():
            raise missing_input(self.path, "language model file")
        check_lm_file(self.path)  # a pipe or a folder: refused there, by what it is
        try:
            self._model = kenlm.Model(str(self.path))
        except (OSError, RuntimeError, UnicodeDecodeError) as error:  # the last: KenLM's message quoting bad bytes
            raise InputFileError(self.path, "a KenLM ARPA or binary model", str(error)) from None
        self.order = self._model.order
        self._cache: OrderedDict[str, float] = OrderedDict()
        self._cache_size = cache_size
        self.cache_hits = 0
        self.cache_misses = 0

    @staticmethod
    def _text(sentence: str | Sequence[str]) -> str:
        return sentence if isinstance(sentence, str) else " ".join(sentence)

    def score(self, sentence: str | Sequence[str], *, bos: bool = True, eos: bool = True, cache: bool = True) -> float:
        """log10 P(sentence), with ``<s>`` and ``</s>`` by default. ``cache=False``: neither read nor kept in the
        cache (for a caller whose sentences do not come again: the same value, without the cache's memory)."""
        if not self._cache_size or not cache:  # KenLM splits on whitespace itself: nothing to normalize without a key
            self.cache_misses += 1
            return self._model.score(sentence if isinstance(sentence, str) else " ".join(sentence), bos=bos, eos=eos)
        text = " ".join(self._text(sentence).split())
        key = f"{int(bos)}{int(eos)}{text}"
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            self.cache_hits += 1
            return cached
        self.cache_misses += 1
        value = self._model.score(text, bos=bos, eos=eos)
        self._cache[key] = value
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return value

    def phrase_score(self, words: Sequence[str]) -> float:
        """log10 P(words) as a phrase, without ``<s>`` and ``</s>`` and without the sentence cache: what
        ``score(words, bos=False, eos=False)`` gives, for callers that keep their own (decoders' options)."""
        return self._model.score(" ".join(words), bos=False, eos=False)

    def word_scores(self, sentence: str | Sequence[str], *, bos: bool = True, eos: bool = True) -> list[WordScore]:
        text = " ".join(self._text(sentence).split())
        words = text.split() + (["</s>"] if eos else [])
        return [
            WordScore(word, log10_prob, ngram_length, oov)
            for word, (log10_prob, ngram_length, oov) in zip(words, self._model.full_scores(text, bos=bos, eos=eos))
        ]

    def __contains__(self, word: str) -> bool:
        return word in self._model

    # Incremental scoring for decoders: a state is KenLM's own context object,
    # comparable and hashable, so equal states recombine.
    def begin_state(self) -> "kenlm.State":
        state = kenlm.State()
        self._model.BeginSentenceWrite(state)
        return state

    def null_state(self) -> "kenlm.State":
        state = kenlm.State()
        self._model.NullContextWrite(state)
        return state

    def advance(self, state: "kenlm.State", word: str) -> tuple[float, "kenlm.State"]:
        """log10 P(word | state) and the state after it."""
        out = kenlm.State()
        return self._model.BaseScore(state, word, out), out

    def advance_phrase(self, state: "kenlm.State", words: Sequence[str]) -> tuple[float, "kenlm.State"]:
        total = 0.0
        for word in words:
            score, state = self.advance(state, word)
            total += score
        return total, state

    def end(self, state: "kenlm.State") -> float:
        """log10 P(</s> | state)."""
        return self._model.BaseScore(state, "</s>", kenlm.State())
