"""The fast corpus counter writes exactly the lines of the readable reference (extraction + Moses scoring)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.tablebuild.phrase_extraction import extract_phrase_pairs
from parastudio.core.tablebuild.phrase_pair_counter import CorpusPhraseCounts
from parastudio.core.tablebuild.phrase_scoring import PhrasePairCounts, WordTranslationTable


def reference_lines(corpus, max_length):
    words, counts = WordTranslationTable(), PhrasePairCounts()
    for source, target, links in corpus:
        words.add_sentence(source, target, links)
        for pair in extract_phrase_pairs(len(source), len(target), links, max_length=max_length):
            counts.add(" ".join(source[pair.source_start : pair.source_end + 1]),
                       " ".join(target[pair.target_start : pair.target_end + 1]), pair.links)
    return [pair.moses_line() + "\n" for pair in counts.scored(words)]


def fast_lines(corpus, max_length):
    counts = CorpusPhraseCounts(max_length)
    for source, target, links in corpus:
        counts.add_sentence(source, target, links)
    return list(counts.moses_lines())


@st.composite
def sentence_pairs(draw):
    # A tiny vocabulary so that phrases repeat across sentences and pairs get several alignments.
    m, n = draw(st.integers(1, 9)), draw(st.integers(1, 9))
    source = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=m, max_size=m))
    target = draw(st.lists(st.sampled_from(["x", "y", "z", "é"]), min_size=n, max_size=n))
    links = sorted(draw(st.sets(st.tuples(st.integers(0, m - 1), st.integers(0, n - 1)), max_size=12)))
    return source, target, links


@settings(max_examples=200, deadline=None)
@given(st.lists(sentence_pairs(), min_size=1, max_size=6), st.integers(1, 7))
def test_fast_counter_writes_the_reference_lines(corpus, max_length):
    assert fast_lines(corpus, max_length) == reference_lines(corpus, max_length)


def test_ties_between_alignments_go_to_the_smallest_like_the_reference():
    # "a b" -> "x" seen once with 0-0 and once with 1-0: equal counts, (0, 0) < (1, 0) wins.
    corpus = [(["a", "b"], ["x"], [(0, 0)]), (["a", "b"], ["x"], [(1, 0)])]
    lines = fast_lines(corpus, 7)
    assert lines == reference_lines(corpus, 7)
    assert "a b ||| x ||| " in lines[0] and lines[0].split(" ||| ")[3] == "0-0"


def test_occurrence_and_phrase_totals():
    counts = CorpusPhraseCounts(7)
    counts.add_sentence(["la", "casa"], ["the", "house", "."], [(0, 0), (1, 1)])
    # la-the, casa-house, casa-house ., la casa-the house, la casa-the house .
    assert counts.occurrence_total == 5
    lines = list(counts.moses_lines())
    assert len(lines) == counts.pair_total == 5
    assert (counts.source_total, counts.target_total) == (3, 5)
