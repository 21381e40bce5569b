"""The parser's accuracy check: the gold sample reads back as trees over our tokens, and the scores count
right tags over all tokens and right heads over non-punctuation tokens."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.engine.tables.patterns.dependency_parse import DependencyParse
from parastudio.core.errors import InputFormatError
from parastudio.core.evaldata.parse_check import GOLD_SAMPLE, PUNCTUATION_TAGS, GoldVerse, accuracy, read_gold


def test_the_committed_sample_is_twelve_trees_over_229_tokens():
    gold = read_gold(GOLD_SAMPLE)
    assert len(gold) == 12 and sum(len(v.words) for v in gold) == 229
    for verse in gold:
        DependencyParse.of(verse.words, verse.tags, verse.heads, ["dep"] * len(verse.words))  # raises if not a tree


def test_a_bad_gold_line_names_file_and_line(tmp_path):
    bad = tmp_path / "gold.conll"
    bad.write_text("# verse 3 Gen.1.1\n1\tin\tIN\t0\n3\tthe\tDT\t1\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match="gold.conll:3: expected"):
        read_gold(bad)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["NN", "VB", ",", "."]), st.sampled_from(["NN", "VB", ",", "."]),
                          st.booleans()), min_size=1, max_size=12))
def test_accuracy_counts(tokens):
    n = len(tokens)
    words = tuple(f"w{i}" for i in range(n))
    gold_heads = tuple(-1 if i == 0 else 0 for i in range(n))
    parsed_heads = tuple(-1 if i == 0 else (0 if right or i == 1 else 1) for i, (_, _, right) in enumerate(tokens))
    gold = GoldVerse(0, "X.1.1", words, tuple(t[0] for t in tokens), gold_heads)
    parse = DependencyParse.of(words, [t[1] for t in tokens], parsed_heads, ["dep"] * n)
    scores = accuracy([gold], [parse])
    assert scores["tag_accuracy"] == sum(g == p for g, p, _ in tokens) / n
    scored = [i for i in range(n) if tokens[i][0] not in PUNCTUATION_TAGS]
    assert scores["uas_tokens"] == len(scored)
    if scored:
        assert scores["uas"] == sum(gold_heads[i] == parsed_heads[i] for i in scored) / len(scored)
