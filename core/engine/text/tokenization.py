"""The one tokenizer of the project: every table, LM, test set and user input goes through it.

Policy (stated in evaldata/README.md): Moses punctuation normalization, then the
Moses tokenizer (sacremoses, ``escape=False`` so no ``&apos;`` entities,
``aggressive_dash_splits=False`` so "burnt-offering" stays one token), then
lowercase everything, as the seeds' SMT pipelines did (truecasing is not worth
its cost on a 30k-verse corpus, and it would have to be trained on the training
portion only). Normalization turns curly quotes into straight ones, so "didn’t"
and "didn't" give the same tokens ``didn 't`` (sacremoses' English rule), and
``tokenize`` is idempotent, so already-tokenized input passes through unchanged.
"""

from __future__ import annotations

import functools
import re

SUPPORTED_LANGUAGES = ("en", "es")
POLICY = "sacremoses MosesPunctNormalizer + MosesTokenizer(escape=False, aggressive_dash_splits=False), lowercased"


@functools.lru_cache(maxsize=None)
def _moses(lang: str):
    """sacremoses' normalizer and tokenizer, imported on first use: sacremoses (with joblib and numpy) takes
    a quarter of a second to import, which every command that merely could tokenize would pay."""
    if lang not in SUPPORTED_LANGUAGES:
        raise ValueError(f"unsupported language {lang!r}; expected one of {', '.join(SUPPORTED_LANGUAGES)}")
    from sacremoses import MosesPunctNormalizer, MosesTokenizer

    return MosesPunctNormalizer(lang=lang), MosesTokenizer(lang=lang)


# Moses splits "god's" into "god 's" but "god 's" into "god ' s"; rejoining a split English clitic first
# makes tokenize(tokenize(x)) == tokenize(x), so already-tokenized user input is left as it is.
_SPLIT_ENGLISH_CLITIC = re.compile(r"(\w) ('(?:s|t|m|d|ll|re|ve))(?!\w)")


def tokenize(text: str, lang: str = "en") -> str:
    """Space-separated, lowercased Moses tokens of ``text``; the same call for corpus and user input."""
    normalizer, tokenizer = _moses(lang)
    # Lowercasing first also stops Moses from reading a sentence-final "I." as an initial.
    text = normalizer.normalize(text.lower())
    if lang == "en":
        text = _SPLIT_ENGLISH_CLITIC.sub(r"\1\2", text)
    tokens = tokenizer.tokenize(text, escape=False, aggressive_dash_splits=False, return_str=True)
    return " ".join(tokens.split())
