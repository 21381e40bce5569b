"""Long sentences in pattern extraction (issue 39): no recursion on the input's length, subtrees as the brute-force
definition gives them, and `patterns extract` refusing a sentence past 1,000 tokens before the parser starts."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.engine.tables.patterns.dependency_parse import ROOT as NO_HEAD
from parastudio.core.engine.tables.patterns.dependency_parse import DependencyParse
from parastudio.core.engine.tables.patterns.induction import induce_patterns
from parastudio.core.textio import MAX_SENTENCE_TOKENS


@st.composite
def trees(draw) -> DependencyParse:
    """A forest: each word's head is a word before it in a random order of the words, or none."""
    size = draw(st.integers(1, 40))
    order = draw(st.permutations(range(size)))
    heads = [NO_HEAD] * size
    for place, word in enumerate(order):
        if place and draw(st.integers(0, 3)):  # mostly attached: a few roots
            heads[word] = order[draw(st.integers(0, place - 1))]
    tags = draw(st.lists(st.sampled_from(["NN", "VB", "JJ", "DT", "IN", "RB"]), min_size=size, max_size=size))
    return DependencyParse.of([f"w{i}" for i in range(size)], tags, heads, ["dep"] * size)


def _descendants_brute_force(parse: DependencyParse, node: int) -> tuple[int, ...]:
    return tuple(other for other in range(len(parse)) if other == node or parse.is_descendant(other, node))


@settings(max_examples=150, deadline=None)
@given(trees())
def test_subtrees_are_each_word_and_its_descendants(parse):
    expected = tuple(_descendants_brute_force(parse, node) for node in range(len(parse)))
    assert parse.subtrees == expected
    assert tuple(parse.subtree(node) for node in range(len(parse))) == expected
    assert parse.subtree_sizes == tuple(len(members) for members in expected)


@settings(max_examples=50, deadline=None)
@given(trees(), st.integers(0, 39), st.integers(0, 39))
def test_a_cycle_of_heads_is_refused(parse, a, b):
    size = len(parse)
    a, b = a % size, b % size
    assume(a != b)
    heads = list(parse.heads)
    heads[a], heads[b] = b, a  # a two-word cycle
    try:
        DependencyParse.of(parse.words, parse.tags, heads, parse.labels)
    except ValueError as error:
        assert "form a cycle" in str(error)
    else:
        raise AssertionError(f"heads {heads} were taken")


def test_a_chain_as_long_as_a_book_is_walked_without_recursion():
    size = 20_000  # Python's recursion limit is 1,000: a recursive walk of this chain stops with RecursionError
    chain = DependencyParse.of(["w"] * size, ["NN"] * size, [NO_HEAD, *range(size - 1)], ["dep"] * size)
    patterns = induce_patterns(chain, reshape=False)
    assert patterns and {p.span[1] for p in patterns} == {size}  # only the chain's last ten words stay short
    assert chain.subtree_sizes[0] == size and chain.subtree(size - 1) == (size - 1,)


def test_patterns_extract_refuses_a_sentence_past_the_bound_before_parsing(tmp_path):
    sentences = tmp_path / "sentences.txt"
    sentences.write_text("the dog runs\n" + " ".join(["word"] * (MAX_SENTENCE_TOKENS + 1)) + "\n", encoding="utf-8")
    completed = subprocess.run([sys.executable, "-m", "parastudio", "patterns", "extract", str(sentences),
                                "--pretokenized"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.strip() == (f"parastudio: error: {sentences}:2: expected a sentence of at most "
                                        f"{MAX_SENTENCE_TOKENS:,} tokens (a parse and its subtrees grow with the "
                                        f"sentence); got '{MAX_SENTENCE_TOKENS + 1:,} tokens'")
    assert completed.stdout == ""
