"""Phrase extraction against a brute-force consistency check; Moses scores by hand."""

from __future__ import annotations

import gzip
import math
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.tablebuild.phrase_extraction import extract_phrase_pairs
from parastudio.core.tablebuild.phrase_scoring import (
    NULL,
    PhrasePairCounts,
    WordTranslationTable,
    lexical_weight_source_given_target,
    lexical_weight_target_given_source,
)


def brute_force_pairs(m, n, links, max_length):
    """Every pair of spans that satisfies the consistency definition directly."""
    result = set()
    for ss in range(m):
        for se in range(ss, min(m, ss + max_length)):
            for ts in range(n):
                for te in range(ts, min(n, ts + max_length)):
                    inside = [(s, t) for s, t in links if ss <= s <= se and ts <= t <= te]
                    crossing = [
                        (s, t) for s, t in links if (ss <= s <= se) != (ts <= t <= te)
                    ]
                    if inside and not crossing:
                        result.add((ss, se, ts, te))
    return result


@st.composite
def alignments(draw):
    m = draw(st.integers(1, 7))
    n = draw(st.integers(1, 7))
    links = draw(st.sets(st.tuples(st.integers(0, m - 1), st.integers(0, n - 1)), max_size=10))
    return m, n, sorted(links), draw(st.integers(1, 5))


@settings(max_examples=300, deadline=None)
@given(alignments())
def test_extraction_equals_brute_force(case):
    m, n, links, max_length = case
    extracted = list(extract_phrase_pairs(m, n, links, max_length=max_length))
    spans = [(p.source_start, p.source_end, p.target_start, p.target_end) for p in extracted]
    assert len(spans) == len(set(spans))
    assert set(spans) == brute_force_pairs(m, n, links, max_length)
    for pair in extracted:
        expected = sorted(
            (s - pair.source_start, t - pair.target_start)
            for s, t in links
            if pair.source_start <= s <= pair.source_end
        )
        assert list(pair.links) == expected


def test_unaligned_target_words_extend_the_target_span():
    # "la casa" -> "the house ." with "." unaligned: both "the house" and "the house ." extracted
    pairs = {
        (p.source_start, p.source_end, p.target_start, p.target_end)
        for p in extract_phrase_pairs(2, 3, [(0, 0), (1, 1)], max_length=7)
    }
    assert (0, 1, 0, 1) in pairs and (0, 1, 0, 2) in pairs and (1, 1, 1, 2) in pairs
    assert (1, 1, 2, 2) not in pairs  # an unaligned word alone is never a phrase pair


def test_max_length_limits_both_sides():
    links = [(i, i) for i in range(9)]
    spans = list(extract_phrase_pairs(9, 9, links, max_length=7))
    assert max(p.source_end - p.source_start + 1 for p in spans) == 7
    assert max(p.target_end - p.target_start + 1 for p in spans) == 7


def test_word_translation_table_and_lexical_weights_by_hand():
    words = WordTranslationTable()
    # sentence 1: das Haus -> the house (0-0 1-1)
    words.add_sentence(["das", "Haus"], ["the", "house"], [(0, 0), (1, 1)])
    # sentence 2: das Buch -> the book . (0-0 1-1), "." unaligned
    words.add_sentence(["das", "Buch"], ["the", "book", "."], [(0, 0), (1, 1)])
    # sentence 3: ein Haus -> a house ("ein" aligned to both "a" and "house")
    words.add_sentence(["ein", "Haus"], ["a", "house"], [(0, 0), (0, 1), (1, 1)])
    # w(e|f) = count(f,e) / total(f)
    assert words.target_given_source("the", "das") == 1.0
    assert words.target_given_source("house", "Haus") == 1.0
    assert words.target_given_source("house", "ein") == 0.5
    assert words.target_given_source(".", NULL) == 1.0
    # w(f|e) = count(f,e) / total(e): "house" linked to Haus twice and ein once
    assert words.source_given_target("Haus", "house") == pytest.approx(2 / 3)
    assert words.source_given_target("ein", "house") == pytest.approx(1 / 3)
    # lex(e|f) for "ein Haus" -> "a house": a <- ein (.5); house <- avg(w(house|ein), w(house|Haus)) = (.5+1)/2
    links = [(0, 0), (0, 1), (1, 1)]
    assert lexical_weight_target_given_source(["ein", "Haus"], ["a", "house"], links, words) == pytest.approx(0.5 * 0.75)
    # lex(f|e): ein <- avg(w(ein|a), w(ein|house)) = (1 + 1/3)/2; Haus <- w(Haus|house) = 2/3
    assert lexical_weight_source_given_target(["ein", "Haus"], ["a", "house"], links, words) == pytest.approx(
        (1 + 1 / 3) / 2 * (2 / 3)
    )
    # unaligned target word explained by NULL: "Buch" -> "book ." : w(book|Buch) * w(.|NULL)
    assert lexical_weight_target_given_source(["Buch"], ["book", "."], [(0, 0)], words) == pytest.approx(1.0)


def test_phrase_probabilities_are_relative_frequencies():
    counts = PhrasePairCounts()
    counts.add("das", "the", ((0, 0),))
    counts.add("das", "the", ((0, 0),))
    counts.add("das", "that", ((0, 0),))
    counts.add("der", "the", ((0, 0),))
    words = WordTranslationTable()
    words.add_sentence(["das"], ["the"], [(0, 0)])
    scored = {(p.source, p.target): p for p in counts.scored(words)}
    das_the = scored[("das", "the")]
    assert das_the.p_target_given_source == pytest.approx(2 / 3)  # p(e|f)
    assert das_the.p_source_given_target == pytest.approx(2 / 3)  # p(f|e): the seen 3 times, 2 with das
    assert (das_the.count_target, das_the.count_source, das_the.count_pair) == (3, 3, 2)
    assert scored[("der", "the")].p_source_given_target == pytest.approx(1 / 3)
    line = das_the.moses_line()
    fields = line.split(" ||| ")
    assert fields[0] == "das" and fields[1] == "the" and fields[3] == "0-0" and fields[4] == "3 3 2"
    assert [float(v) for v in fields[2].split()][::2] == pytest.approx([2 / 3, 2 / 3])
    assert [f"{p.source} ||| {p.target}" for p in counts.scored(words)] == sorted(
        f"{p.source} ||| {p.target}" for p in counts.scored(words)
    )


def test_most_frequent_internal_alignment_is_scored():
    counts = PhrasePairCounts()
    counts.add("a b", "x", ((0, 0),))
    counts.add("a b", "x", ((1, 0),))
    counts.add("a b", "x", ((1, 0),))
    words = WordTranslationTable()
    words.add_sentence(["a", "b"], ["x"], [(1, 0)])
    (pair,) = counts.scored(words)
    assert pair.alignment == ((1, 0),)


def test_built_table_columns_are_normalised(tmp_path):
    from parastudio.core.tablebuild.phrase_table_builder import build_phrase_table

    source = ["the house is small", "the house is big", "the home is small", "a big house", "the small home"] * 4
    target = ["la casa es pequeña", "la casa es grande", "el hogar es pequeño", "una casa grande", "el hogar pequeño"] * 4
    stats = build_phrase_table(source, target, tmp_path / "pt.gz", seed=1)
    assert stats["phrase_pairs"] > 0 and stats["eflomal_seeded"]
    by_source, by_target = defaultdict(float), defaultdict(float)
    with gzip.open(tmp_path / "pt.gz", "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    assert lines == sorted(lines, key=lambda line: line[: line.index(" ||| ", line.index(" ||| ") + 1)] + " |||")
    for line in lines:
        f, e, scores, alignment, counts = line.split(" ||| ")
        p_f_e, lex_f_e, p_e_f, lex_e_f = map(float, scores.split())
        assert all(0 < v <= 1 for v in (p_f_e, lex_f_e, p_e_f, lex_e_f))
        by_source[f] += p_e_f
        by_target[e] += p_f_e
    assert all(math.isclose(total, 1.0) for total in by_source.values())
    assert all(math.isclose(total, 1.0) for total in by_target.values())
    again = build_phrase_table(source, target, tmp_path / "pt2.gz", seed=1)
    assert (tmp_path / "pt.gz").read_bytes() == (tmp_path / "pt2.gz").read_bytes()
    assert again["phrase_pairs"] == stats["phrase_pairs"]
