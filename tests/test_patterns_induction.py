"""Algorithm 1 of seed 002 (English patterns from subtrees and partial subtrees) on the paper's own example,
and against a literal brute-force reading of Algorithm 1 plus simplification on random trees."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.engine.tables.patterns.dependency_parse import DependencyParse
from parastudio.core.engine.tables.patterns.induction import MAX_SUBTREE_WORDS, induce_patterns
from parastudio.core.engine.tables.patterns.slots import CONTENT_TAGS, SLOT_TAGS
from parastudio.core.engine.tables.patterns.verb_groups import auxiliary_headed
from tests.pattern_fixtures import FIGURE2, SPACY_SHAPE


def test_figure2_gives_take_nn_into_consideration():
    patterns = {p.unnumbered: p for p in induce_patterns(FIGURE2, reshape=False)}
    found = patterns["take NN into consideration"]
    assert found.text == "take [NN_1] into consideration"
    assert found.root == 3 and found.span == (3, 8)
    assert found.filler_words() == {"[NN_1]": ("market", "demand")}
    # Before simplification Algorithm 1 writes "take NN NN into consideration": that form never comes out.
    assert "take NN NN into consideration" not in patterns


def test_figure2_patterns_are_exactly_those_of_the_partial_subtrees():
    texts = {p.unnumbered for p in induce_patterns(FIGURE2, reshape=False)}
    assert {"take NN into consideration", "take NN into NN", "take NN demand into consideration",
            "take market demand into NN", "take NN demand into NN", "NN demand", "we should first VB",
            # rooted at "should": its subtree is the sentence, eight words
            "we should first take NN into consideration", "we should first take NN into NN",
            "we should first take NN demand into consideration", "we should first take NN demand into NN",
            "we should first take market demand into NN"} == texts


def test_spacy_shaped_parse_is_reheaded_to_the_paper_shape():
    reshaped = auxiliary_headed(SPACY_SHAPE)
    assert reshaped.heads == (1, -1, 1, 1, 5, 3, 3, 6)
    assert reshaped.labels[1] == "ROOT" and reshaped.labels[3] == "vc"
    assert {p.unnumbered for p in induce_patterns(SPACY_SHAPE)} == {
        p.unnumbered for p in induce_patterns(FIGURE2, reshape=False)}
    # Without re-heading, every pattern of "take" carries "we should first".
    assert "take NN into consideration" not in {p.unnumbered for p in induce_patterns(SPACY_SHAPE, reshape=False)}


def test_a_verb_group_that_is_a_left_dependent_moves_whole():
    # "having eaten , he should go": eaten (aux having) is a left dependent of go (aux should).
    parse = DependencyParse.of(["having", "eaten", ",", "he", "should", "go"],
                               ["VBG", "VBN", ",", "PRP", "MD", "VB"],
                               [1, 5, 5, 5, 5, -1], ["aux", "advcl", "punct", "nsubj", "aux", "ROOT"])
    reshaped = auxiliary_headed(parse)
    assert reshaped.heads == (4, 0, 4, 4, -1, 4)


def test_a_parse_must_be_a_forest():
    with pytest.raises(ValueError, match="cycle"):
        DependencyParse.of(["a", "b"], ["NN", "NN"], [1, 0], ["x", "y"])
    with pytest.raises(ValueError, match="one tag"):
        DependencyParse.of(["a", "b"], ["NN"], [-1, 0], ["x", "y"])


# --- brute force: Algorithm 1 read literally, then simplification and the paper's constraints ----------


def _literal_patterns(parse: DependencyParse) -> set[tuple[int, str]]:
    found = set()
    for root, subtree in enumerate(parse.subtrees):
        if len(subtree) > MAX_SUBTREE_WORDS or subtree[-1] - subtree[0] + 1 != len(subtree):
            continue
        others = [p for p in subtree if p != root]
        for size in range(len(others) + 1):
            for chosen in combinations(others, size):
                kept = {root, *chosen}
                if any(parse.heads[p] not in kept for p in chosen):
                    continue  # not connected: not a partial subtree
                # Algorithm 1: a word of PST(e) is kept, any other word of ST(e) becomes its POS.
                items = [(p, p in kept) for p in subtree]
                slots = [p for p, is_word in items if not is_word]
                # Simplification: drop a slot whose word descends from another slot's word.
                slots = [p for p in slots if not any(parse.is_descendant(p, q) for q in slots if q != p)]
                if not slots or any(parse.tags[p] not in SLOT_TAGS for p in slots):
                    continue
                if not any(parse.tags[p] in CONTENT_TAGS for p in kept):
                    continue
                text = " ".join(parse.words[p] if is_word else parse.tags[p] for p, is_word in items
                                if is_word or p in slots)
                found.add((root, text))
    return found


@st.composite
def random_parses(draw):
    n = draw(st.integers(1, 9))
    heads = [-1] + [draw(st.integers(0, i - 1)) for i in range(1, n)]  # word i hangs from an earlier word
    tags = [draw(st.sampled_from(["NN", "NNS", "VB", "JJ", "DT", "IN", "RB", "PRP"])) for _ in range(n)]
    order = draw(st.permutations(list(range(n))))
    position = {node: place for place, node in enumerate(order)}
    words = [f"w{position[i]}" for i in range(n)]
    arranged = [0] * n
    for node in range(n):
        arranged[position[node]] = node
    return DependencyParse.of([words[node] for node in arranged], [tags[node] for node in arranged],
                              [-1 if heads[node] == -1 else position[heads[node]] for node in arranged],
                              ["dep"] * n)


@settings(max_examples=200, deadline=None)
@given(random_parses())
def test_induction_equals_literal_algorithm_1(parse):
    assume(len(parse) >= 2)
    fast = {(p.root, p.unnumbered) for p in induce_patterns(parse, reshape=False)}
    assert fast == _literal_patterns(parse)
