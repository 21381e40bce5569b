"""Seed 001's input aligner (§3.4.1): exact alignment with extension and reduction, and the fuzzy HMM."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.engine.decoders.cat.aligner import (
    P_SKIP,
    SKIP_DECAY,
    AlignmentError,
    FuzzyHMM,
    align_exact,
    align_fuzzy,
    align_selection,
    fuzzy_match,
    matched_span,
)
from parastudio.core.engine.decoders.cat.segmentation import Translation, parse_segmentation

# Seed 001's example: "Indiana |0-0| became the |1-1| first state |2-3| to impose |4-4| such a requirement . |5-7|"
EXAMPLE = parse_segmentation("indiana |0-0| became the |1-1| first state |2-3| to impose |4-4| "
                             "such a requirement . |5-7|")


def test_the_papers_selection_becomes_source_words_one_to_three():
    alignment = align_exact(EXAMPLE, 1, 5)  # "became the first state"
    assert (alignment.start, alignment.end, alignment.coverage) == (1, 5, (1, 4))


def test_a_partly_selected_phrase_is_extended_to_the_whole_phrase():
    alignment = align_exact(EXAMPLE, 1, 4)  # "became the first" -> "became the first state"
    assert (alignment.start, alignment.end, alignment.coverage) == (1, 5, (1, 4))


def test_a_partly_selected_phrase_of_function_words_is_dropped_instead():
    alignment = align_exact(EXAMPLE, 2, 5)  # "the first state" -> "first state"
    assert (alignment.start, alignment.end, alignment.coverage) == (3, 5, (2, 4))
    alignment = align_exact(EXAMPLE, 3, 8)  # "first state to impose such": "such" (a determiner) goes
    assert (alignment.start, alignment.end, alignment.coverage) == (3, 7, (2, 5))
    alignment = align_exact(EXAMPLE, 3, 10)  # "... such a requirement" holds a content word: extended to "."
    assert (alignment.start, alignment.end, alignment.coverage) == (3, 11, (2, 8))


def test_function_words_alone_inside_one_phrase_extend_rather_than_vanish():
    alignment = align_exact(EXAMPLE, 2, 3)  # "the" of "became the"
    assert (alignment.start, alignment.end) == (1, 3)


def test_a_span_outside_the_translation_is_refused():
    with pytest.raises(AlignmentError, match="not inside"):
        align_exact(EXAMPLE, 5, 40)


def test_reordered_source_coverage_is_refused_with_a_reason():
    reordered = parse_segmentation("a |2-2| b |0-0| c |1-1|")
    with pytest.raises(AlignmentError, match="not contiguous"):
        align_exact(reordered, 0, 2)


def test_the_papers_fuzzy_example_matches_the_second_us():
    observed = "the us president told us the war on terror must come to an end".split()
    assert fuzzy_match(observed, "told us that war".split()) == (3, 7)


def test_an_edited_translation_is_aligned_fuzzily_then_exactly():
    edited = "indiana was the very first state to impose such a requirement .".split()
    alignment = align_selection(EXAMPLE, edited, 3, 6)  # "very first state" in the user's text
    assert alignment.fuzzy and (alignment.start, alignment.end, alignment.coverage) == (3, 5, (2, 4))


def test_edits_too_large_are_refused_with_a_reason():
    with pytest.raises(AlignmentError, match="matches nothing"):
        align_fuzzy(EXAMPLE, "xyzzy plugh".split())


WORDS = st.sampled_from(["the", "us", "war", "told", "that", "was", "ward", "tell"])


@settings(max_examples=150, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=5), st.lists(WORDS, min_size=1, max_size=2))
def test_viterbi_finds_the_best_state_path_of_brute_force(observed, selection):
    """Every state path over the HMM's states, scored by the model itself: Viterbi's best must equal their best."""
    hmm = FuzzyHMM(selection)
    best_score, best_path = hmm.viterbi(observed)
    entered = [p for p in itertools.product(range(hmm.states), repeat=len(observed)) if p[-1] != hmm.before]
    brute = max(hmm.path_score(observed, p) for p in entered)
    assume(brute > float("-inf"))
    assert best_score == pytest.approx(brute, abs=1e-9)
    assert hmm.path_score(observed, best_path) == pytest.approx(brute, abs=1e-9)
    span = matched_span(hmm, observed, best_path)
    if span is not None:
        assert 0 <= span[0] < span[1] <= len(observed)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=6), st.data())
def test_exact_alignment_covers_whole_phrases_and_their_source(lengths, data):
    words = iter(itertools.cycle(["the", "first", "state", "a", "of", "nation"]))
    translation = Translation.from_phrases(([next(words) for _ in range(n)], i, i + 1) for i, n in enumerate(lengths))
    total = sum(lengths)
    start = data.draw(st.integers(0, total - 1))
    end = data.draw(st.integers(start + 1, total))
    alignment = align_exact(translation, start, end)
    starts = {p.start for p in translation.phrases}
    ends = {p.end for p in translation.phrases}
    assert alignment.start in starts and alignment.end in ends
    kept = [p for p in translation.phrases if alignment.start <= p.start and p.end <= alignment.end]
    assert alignment.coverage == (kept[0].source_start, kept[-1].source_end)
    # Only whole phrases of function words at the ends are ever dropped from the selection.
    for phrase in translation.phrases:
        inside = start <= phrase.start and phrase.end <= end
        if inside:
            assert alignment.start <= phrase.start and phrase.end <= alignment.end


def test_a_selection_of_hundreds_of_words_is_aligned_not_refused_by_a_math_domain_error():
    """Seed 001's 620-word selection of an edited text: SKIP_DECAY ** 618 underflowed to 0 and log(0) raised."""
    observed = [f"w{i}" for i in range(40)]
    selection = [f"w{i}" for i in range(20)] + [f"x{i}" for i in range(680)]
    hmm = FuzzyHMM(selection)
    assert all(math.isfinite(p) for row in hmm.table for p in row.values())
    span = fuzzy_match(observed, selection)
    assert span is not None and span[0] == 0


@settings(max_examples=50, deadline=None)
@given(st.integers(2, 60))
def test_the_skip_transitions_are_the_logs_of_their_probabilities(m):
    hmm = FuzzyHMM([f"w{i}" for i in range(m)])
    for k in range(1, m + 1):
        for d in range(2, m - k + 1):
            assert hmm.table[k][k + d] == pytest.approx(math.log(P_SKIP * SKIP_DECAY ** (d - 2)), rel=1e-12)
