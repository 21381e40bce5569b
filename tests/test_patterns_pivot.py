"""Algorithm 2 of seed 002 (aligned pivot patterns, numbered slots), the features h1..h4, Equations 1 and 3,
and pairing, on the paper's own example and against independent computations."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.engine.tables.patterns.induction import induce_patterns
from parastudio.core.tablebuild.patterns import slot_format
from parastudio.core.tablebuild.patterns.aligned_counts import AlignedPatternCounts
from parastudio.core.tablebuild.patterns.features import entry_features, lw_english_given_pivot, lw_pivot_given_english
from parastudio.core.tablebuild.patterns.pairing import pair_patterns
from parastudio.core.tablebuild.patterns.pivot_patterns import AlignedPattern, aligned_pivot_pattern
from parastudio.core.tablebuild.patterns.scoring import MLE_LAMBDAS, extracted, log_score, score
from parastudio.core.tablebuild.phrase_scoring import (
    WordTranslationTable,
    lexical_weight_source_given_target,
    lexical_weight_target_given_source,
)
from parastudio.core.vocabulary import is_slot, parse_slot, slot_token
from tests.pattern_fixtures import (
    ACTIVE,
    ACTIVE_LINKS,
    CHINESE,
    CHINESE_3,
    CHINESE_LINKS,
    FIGURE2,
    PASSIVE,
    PASSIVE_LINKS,
)


def _pattern(parse, unnumbered):
    return next(p for p in induce_patterns(parse, reshape=False) if p.unnumbered == unnumbered)


def test_algorithm_2_on_the_paper_example():
    take = _pattern(FIGURE2, "take NN into consideration")
    aligned = aligned_pivot_pattern(take.elements, FIGURE2.words, CHINESE, CHINESE_LINKS)
    # 考虑 is aligned with the pattern words take and consideration, 需求 with the slot's word demand;
    # 市场 is aligned with "market", a word the slot NN stands for (dropped by simplification): skipped.
    assert aligned == AlignedPattern(("take", "[NN_1]", "into", "consideration"), ("考虑", "[NN_1]"),
                                     ((0, 0), (0, 3)))


def test_figure3_slots_are_numbered_through_the_pivot():
    active = aligned_pivot_pattern(_pattern(ACTIVE, "NN considers NN").elements, ACTIVE.words, CHINESE_3,
                                   ACTIVE_LINKS)
    passive = aligned_pivot_pattern(_pattern(PASSIVE, "NN is considered by NN").elements, PASSIVE.words,
                                    CHINESE_3, PASSIVE_LINKS)
    assert active.pivot == passive.pivot == ("[NN_1]", "考虑", "[NN_2]")
    assert active.english == ("[NN_1]", "considers", "[NN_2]")
    assert passive.english == ("[NN_2]", "is", "considered", "by", "[NN_1]")


def test_a_slot_without_an_aligned_pivot_word_gives_no_pivot_pattern():
    take = _pattern(FIGURE2, "take NN into consideration")
    links = [link for link in CHINESE_LINKS if link[0] != 5]  # demand unaligned
    assert aligned_pivot_pattern(take.elements, FIGURE2.words, CHINESE, links) is None
    only_slot = [(5, 5)]  # the pivot pattern would be the slot alone
    assert aligned_pivot_pattern(take.elements, FIGURE2.words, CHINESE, only_slot) is None


def _figure3_counts():
    counts, words = AlignedPatternCounts(), WordTranslationTable()
    for parse, links, pattern in ((ACTIVE, ACTIVE_LINKS, "NN considers NN"),
                                  (PASSIVE, PASSIVE_LINKS, "NN is considered by NN")):
        words.add_sentence(parse.words, CHINESE_3, links)
        counts.add(aligned_pivot_pattern(_pattern(parse, pattern).elements, parse.words, CHINESE_3, links))
    return counts, words


def test_pairs_through_the_figure3_pivot_with_hand_computed_features():
    counts, words = _figure3_counts()
    pairs = pair_patterns(entry_features(counts, words))
    assert set(pairs) == {("[NN_1] considers [NN_2]", "[NN_2] is considered by [NN_1]"),
                          ("[NN_1] is considered by [NN_2]", "[NN_2] considers [NN_1]")}
    (pivot, (h1, h2, h3, h4)), = pairs[("[NN_1] considers [NN_2]", "[NN_2] is considered by [NN_1]")]
    assert pivot == "[NN_1] 考虑 [NN_2]"
    assert h1 == pytest.approx(0.0)  # p(c|e1) = 1: e1 seen once, with c
    assert h2 == pytest.approx(math.log(1 / 2))  # p(e2|c) = 1/2: c seen with e1 and with e2
    # h3 = score_LW(c|e1): c's one word 考虑 is linked to "considers"; w(考虑|considers) = 1/1.
    assert h3 == pytest.approx(0.0)
    # h4 = score_LW(e2|c) over e2's words is, considered, by: "considered" linked to 考虑, w = 1/2 (考虑 is
    # aligned with considers and considered); "is" and "by" are unaligned: w(is|NULL) = w(by|NULL) = 1/6
    # (NULL stands for the six unaligned English words: the, the of the first sentence, the, is, by, the).
    assert h4 == pytest.approx((math.log(1 / 6) + math.log(1 / 2) + math.log(1 / 6)) / 3)


@st.composite
def aligned_phrases(draw):
    english = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=4))
    pivot = draw(st.lists(st.sampled_from(["x", "y", "z"]), min_size=1, max_size=4))
    links = sorted(draw(st.sets(st.tuples(st.integers(0, len(english) - 1), st.integers(0, len(pivot) - 1)))))
    return english, pivot, links


@settings(max_examples=100, deadline=None)
@given(st.lists(aligned_phrases(), min_size=1, max_size=5), st.integers(0, 4))
def test_lexical_scores_are_moses_lexical_weights_normalised_by_length(corpus, pick):
    """Eq. 5 equals ln(lex) / n with lex computed by the Moses-style code of the phrase table (no slots)."""
    words = WordTranslationTable()
    for english, pivot, links in corpus:
        words.add_sentence(english, pivot, links)
    english, pivot, links = corpus[pick % len(corpus)]
    assume(all(any(c == i for c, _ in [(p, e) for e, p in links]) for i in range(len(pivot))))
    pattern_links = [(p, e) for e, p in links]
    expected_c = math.log(lexical_weight_target_given_source(english, pivot, links, words)) / len(pivot)
    expected_e = math.log(lexical_weight_source_given_target(english, pivot, links, words)) / len(english)
    assert lw_pivot_given_english(english, pivot, pattern_links, words) == pytest.approx(expected_c)
    assert lw_english_given_pivot(english, pivot, pattern_links, words) == pytest.approx(expected_e)


features_lists = st.lists(st.tuples(*[st.floats(-30, 0, allow_nan=False)] * 4), min_size=1, max_size=6)
weights = st.tuples(*[st.floats(-2, 2, allow_nan=False)] * 4)


@settings(max_examples=200, deadline=None)
@given(features_lists, weights)
def test_equation_3_is_the_sum_over_pivots(features, lambdas):
    brute = sum(math.exp(sum(w * h for w, h in zip(lambdas, f))) for f in features)
    assert score(features, lambdas) == pytest.approx(brute, rel=1e-9)
    assert log_score(features, lambdas) == pytest.approx(math.log(brute), rel=1e-9, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(features_lists)
def test_mle_weights_give_equation_1(features):
    brute = sum(math.exp(h1) * math.exp(h2) for h1, h2, _, _ in features)
    assert score(features, MLE_LAMBDAS) == pytest.approx(brute, rel=1e-9)


def test_threshold_keeps_scores_that_exceed_it():
    assert extracted(-10.0, -10.002) and not extracted(-10.002, -10.002)
    assert extracted(-1e300)  # T = -inf keeps everything


@st.composite
def aligned_corpora(draw):
    """Random aligned patterns: English and pivot strings over a small vocabulary, one NN slot each."""
    english_forms = ["take [NN_1]", "consider [NN_1]", "[NN_1] thought", "think of [NN_1]"]
    pivot_forms = ["tener [NN_1]", "considerar [NN_1]", "[NN_1] pensado"]
    items = draw(st.lists(st.tuples(st.sampled_from(english_forms), st.sampled_from(pivot_forms)), min_size=1,
                          max_size=25))
    return [AlignedPattern(tuple(e.split()), tuple(c.split()),
                           ((next(i for i, t in enumerate(c.split()) if not t.startswith("[")),
                             next(i for i, t in enumerate(e.split()) if not t.startswith("["))),))
            for e, c in items]


@settings(max_examples=100, deadline=None)
@given(aligned_corpora())
def test_equation_1_over_all_e2_including_e1_sums_to_one(aligned):
    """Σ_e2 p(e2|e1) = Σ_c p(c|e1) Σ_e2 p(e2|c) = 1: the pairs plus e1's own share through its pivots."""
    counts, words = AlignedPatternCounts(), WordTranslationTable()
    for pattern in aligned:
        counts.add(pattern)
        words.add_sentence([t for t in pattern.english], [t for t in pattern.pivot],
                           [(e, c) for c, e in pattern.links])
    entries = list(entry_features(counts, words))
    pairs = pair_patterns(entries)
    for e1 in {entry.english for entry in entries}:
        paired = sum(score([f for _, f in pivots], MLE_LAMBDAS) for (a, _), pivots in pairs.items() if a == e1)
        itself = sum(math.exp(entry.log_p_pivot_given_english + entry.log_p_english_given_pivot)
                     for entry in entries if entry.english == e1)
        assert paired + itself == pytest.approx(1.0)


def test_the_one_slot_format_reads_slots_and_only_slots():
    expected = {"[NN_1]": ("NN", 1), "[VBZ_12]": ("VBZ", 12), "[NN_0]": None, "[nn_1]": None, "NN_1": None,
                "[NN_1": None, "word": None}
    for token, slot in expected.items():
        assert parse_slot(token) == slot
        assert is_slot(token) == (slot is not None)
        if slot is not None:
            assert slot_token(*slot) == token
    assert slot_format.canonical("give [NN_2] to [NN_1]".split()) == ("give", "[NN_1]", "to", "[NN_2]")
