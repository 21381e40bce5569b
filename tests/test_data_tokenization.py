"""The one tokenizer: Moses rules, lowercased, idempotent."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacremoses import MosesTokenizer

from parastudio.core.engine.text.tokenization import tokenize


def test_policy_examples():
    assert tokenize("In the beginning, God created the heavens and the earth.") == \
        "in the beginning , god created the heavens and the earth ."
    # Curly and straight apostrophes give the same tokens.
    assert tokenize("God’s Son didn’t go") == tokenize("God's Son didn't go") == "god 's son didn 't go"
    # No XML escaping, no aggressive dash splitting.
    assert tokenize("Cain & Abel's burnt-offering") == "cain & abel 's burnt-offering"
    assert tokenize("¡OH Jehová, cuánto se han multiplicado!", "es") == "¡ oh jehová , cuánto se han multiplicado !"


def test_agrees_with_plain_sacremoses_on_simple_text():
    # A second implementation of the same rules: sacremoses called directly on lowercased ASCII text.
    text = "and the lord said unto moses, go in unto pharaoh; and he went (quickly) to the river: yes!"
    direct = MosesTokenizer(lang="en").tokenize(text, escape=False, aggressive_dash_splits=False, return_str=True)
    assert tokenize(text) == direct


def test_unknown_language_is_refused():
    with pytest.raises(ValueError, match="unsupported language"):
        tokenize("hello", "fr")


SENTENCE = st.lists(st.sampled_from(["God's", "didn't", "I.", "Yahweh", "said,", "“Go”", "‘come’", "the", "end.",
                                     "burnt-offering", "3:16", "(and", "it)", "Mr.", "won’t", "'s", "n't", "¡Oh!"]),
                    min_size=1, max_size=15).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(SENTENCE)
def test_idempotent(sentence):
    once = tokenize(sentence)
    assert tokenize(once) == once
    assert once == once.lower()
    assert "  " not in once and once == once.strip()
