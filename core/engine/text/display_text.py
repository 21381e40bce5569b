"""Tokenized, lowercased text shown as people write it: truecased, detokenized, sentences capitalized.

The project keeps every sentence tokenized and lowercased (:mod:`core.engine.text.tokenization`):
that is what tables, LMs and statistics need. Judges read fluency off the
screen, so they see it the other way round:

1. truecased with sacremoses' ``MosesTruecaser`` (``use_known``: a word seen
   lowercased in the middle of a sentence stays so, one seen only
   capitalized, like a name, gets its usual casing), trained on the training
   side of the corpus (:func:`train_truecaser`);
2. detokenized with sacremoses' ``MosesDetokenizer`` ("don 't" -> "don't",
   no space before punctuation);
3. the first letter of the text, of a sentence after ``. ? !`` and of a
   quotation opening a sentence are capitalized.

:meth:`SentenceDisplay.show` also returns where each token ended up in the
text, so the screens can highlight changed words in the readable form.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from sacremoses import MosesDetokenizer, MosesPunctNormalizer, MosesTruecaser

# A letter that starts a sentence: at the start, after . ? ! and a space, or after an opening quote there.
_SENTENCE_START = re.compile(r'(^|[.?!]["\u201d]?\s+|(?:^|[.?!,:;]\s+)["\u201c]\s*)([a-z\u00e0-\u00fe])')


@dataclass(frozen=True)
class DisplayedSentence:
    """A sentence as shown, and the character span of each of its tokens in ``text``."""

    text: str
    spans: tuple[tuple[int, int], ...]


def cased_tokens(original: str, tokens: Sequence[str], lang: str = "en") -> list[str]:
    """The project's tokens of ``original`` (lowercased) with the casing they have in ``original``.

    The tokens keep the project's boundaries (:func:`core.engine.text.tokenization.tokenize`), so a model
    trained on them knows exactly the words the tables and LM know; each token's letters are taken from
    the normalized original where they are found in order, and left as they are where not.
    """
    text = MosesPunctNormalizer(lang=lang).normalize(original)
    lowered = text.lower()
    if len(lowered) != len(text):  # a letter whose case changes its length: no position to copy casing from
        return list(tokens)
    cased, position = [], 0
    for token in tokens:
        found = lowered.find(token, position)
        if found < 0:
            cased.append(token)
            continue
        cased.append(text[found:found + len(token)])
        position = found + len(token)
    return cased


def train_truecaser(pairs: Iterable[tuple[str, Sequence[str]]], model_path: str | os.PathLike,
                    lang: str = "en") -> Path:
    """Train a Moses truecaser on (original text, project tokens) pairs and save it to ``model_path``."""
    tokenized = [cased_tokens(original, tokens, lang) for original, tokens in pairs if original]
    Path(model_path).parent.mkdir(parents=True, exist_ok=True)
    MosesTruecaser().train(tokenized, save_to=str(model_path), processes=1, progress_bar=False)
    return Path(model_path)


class SentenceDisplay:
    """Shows tokenized sentences readably (module docstring); without a model, only detokenizes and capitalizes."""

    def __init__(self, truecase_model: str | os.PathLike | None = None, lang: str = "en"):
        self.model = Path(truecase_model) if truecase_model else None
        self._truecaser = MosesTruecaser(load_from=str(self.model)) if self.model and self.model.is_file() else None
        self._detokenizer = MosesDetokenizer(lang=lang)
        self.lang = lang

    def show(self, tokens: str | Sequence[str]) -> DisplayedSentence:
        words = tokens.split() if isinstance(tokens, str) else list(tokens)
        if not words:
            return DisplayedSentence("", ())
        cased = (self._truecaser.truecase(" ".join(words), use_known=True) if self._truecaser is not None
                 else list(words))
        if len(cased) != len(words):  # the truecaser keeps tokens one for one; if not, show them as they are
            cased = list(words)
        # unescape=False: the project tokenizes with escape=False, so a stored "&amp;" is those five characters,
        # and the judge must read the string that is stored (issue 28: '&amp;' was shown as '&').
        text = self._detokenizer.detokenize(cased, unescape=False)
        spans = _spans_in_step(text, cased)
        if spans is not None:
            return DisplayedSentence(capitalize_sentences(text), tuple(spans))
        spans, position = [], 0
        for word in cased:
            found = text.find(word, position)
            if found < 0:  # the detokenizer rewrote this token: it has no span of its own
                spans.append((position, position))
                continue
            spans.append((found, found + len(word)))
            position = found + len(word)
        return DisplayedSentence(capitalize_sentences(text), tuple(spans))

    def show_original(self, original: str, tokens: str | Sequence[str]) -> DisplayedSentence:
        """The sentence as published (quotes straightened), with each token's place in it; when a token cannot
        be found in it (the original was edited, or is not this sentence), :meth:`show` of the tokens."""
        words = tokens.split() if isinstance(tokens, str) else list(tokens)
        text = MosesPunctNormalizer(lang=self.lang).normalize(original).strip()
        lowered = text.lower()
        if len(lowered) != len(text):
            return self.show(words)
        spans, position = [], 0
        for word in words:
            found = lowered.find(word, position)
            if found < 0:
                return self.show(words)
            spans.append((found, found + len(word)))
            position = found + len(word)
        return DisplayedSentence(text, tuple(spans))

    def show_in_place(self, tokens: str | Sequence[str], span: tuple[int, int], phrase: str | Sequence[str]) -> str:
        """``phrase`` as it reads in place of ``tokens[span[0]:span[1]]``: cased and detokenized within the whole
        sentence (capitalized at its start, "doesn 't" joined), so a choice option reads like the sentence above it."""
        words = tokens.split() if isinstance(tokens, str) else list(tokens)
        inserted = phrase.split() if isinstance(phrase, str) else list(phrase)
        start, end = span
        if not inserted or not 0 <= start <= end <= len(words):
            return self.show(inserted).text if inserted else ""
        shown = self.show(words[:start] + inserted + words[end:])
        first, last = shown.spans[start], shown.spans[start + len(inserted) - 1]
        if first[1] <= first[0] or last[1] <= last[0]:  # a token the detokenizer rewrote: the phrase on its own
            return self.show(inserted).text
        return shown.text[first[0]:last[1]]

    def __call__(self, tokens: str | Sequence[str]) -> str:
        return self.show(tokens).text


def _spans_in_step(text: str, tokens: Sequence[str]) -> list[tuple[int, int]] | None:
    """Each token's span in the detokenizer's ``text``, walking both in step: Moses' detokenizer only drops
    spaces between tokens, but for its aggressive-hyphen rule, which shows a ``@-@`` token as ``-`` glued to both
    neighbours (one right after such a ``-`` stays ``@-@``: the rule's matches do not overlap). None when the
    text does not read so (then :meth:`SentenceDisplay.show` finds each token where it can)."""
    spans, position, glued = [], 0, False
    for token in tokens:
        if not glued:
            while position < len(text) and text[position].isspace():
                position += 1
        glued = token == "@-@" and not glued
        shown = "-" if glued else token
        if not text.startswith(shown, position):
            return None
        spans.append((position, position + len(shown)))
        position += len(shown)
    return spans if not text[position:].strip() else None


def capitalize_sentences(text: str) -> str:
    """Capitalize the letter that starts each sentence (lengths unchanged, so token spans still hold)."""
    return _SENTENCE_START.sub(lambda m: m.group(1) + m.group(2).upper(), text)


@functools.lru_cache(maxsize=8)
def sentence_display(truecase_model: str | None) -> SentenceDisplay:
    """One :class:`SentenceDisplay` per model file (loading one takes a fraction of a second)."""
    return SentenceDisplay(truecase_model)
