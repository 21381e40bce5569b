"""The compiled true-score dynamic program gives the Python reference's result: the same bits, the same segments."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.engine.model import truescore
from parastudio.core.engine.model.derivation import apply_matches
from parastudio.core.engine.model.truescore import (
    SegmentPath,
    SourceRuleIndex,
    TrueScorer,
    best_derivation,
    best_derivation_reference,
)
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule

pytestmark = pytest.mark.skipif(truescore._truescore_core is None,
                                reason="the compiled true-score core is not built (setup.py could not compile it)")

VOCAB = ["a", "b", "c", "d", "é"]
phrases = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=3).map(tuple)
# Probabilities from a small set make exactly equal scores common, so the tie rule is exercised.
probabilities = st.sampled_from([1.0, 0.5, 0.25, 0.125, 0.1, 0.2]) | st.floats(1e-6, 1.0)
rules = st.lists(st.tuples(phrases, phrases, probabilities), min_size=0, max_size=12)


def compiled(target, index):
    index.targets_scored = 2  # past the first target: the compiled index is used
    return best_derivation(tuple(target), index)


@settings(max_examples=400, deadline=None)
@given(rules=rules, source=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=8), data=st.data())
def test_the_compiled_program_finds_the_references_score_bits_and_segments(rules, source, data):
    table = ParaphraseTable(Rule(s, t, p) for s, t, p in rules)
    table.sort()
    source = tuple(source)
    index = SourceRuleIndex(source, table.span_rules(source))
    matches = table.matches(source)
    targets = [data.draw(st.lists(st.sampled_from(VOCAB), min_size=0, max_size=9)) for _ in range(3)]
    for _ in range(4):
        chosen, end = [], -1
        for match in sorted(matches, key=lambda m: (m.start, m.end)):
            if match.start >= end and data.draw(st.booleans()):
                chosen.append(match)
                end = match.end
        targets.append(list(apply_matches(source, chosen)[0]))
    for target in targets:
        expected = best_derivation_reference(tuple(target), index)
        found = compiled(target, index)
        if expected is None:
            assert found is None
            continue
        assert found is not None
        assert found[0] == expected[0] or (math.isnan(found[0]) and math.isnan(expected[0]))
        assert found[1] == expected[1] and tuple(found[1]) == expected[1]


@settings(max_examples=100, deadline=None)
@given(rules=rules, source=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=6))
def test_the_scorer_gives_every_target_the_same_true_score_whichever_program_runs(rules, source):
    table = ParaphraseTable(Rule(s, t, p) for s, t, p in rules)
    source = tuple(source)
    matches = table.matches(source)
    assume(matches)
    targets = [tuple(apply_matches(source, [m])[0]) for m in matches[:6]] + [source]
    scorer = TrueScorer(table)  # its first target runs the Python program, the others the compiled one
    for target in targets:
        result = scorer.score(source, target)
        best = best_derivation_reference(target, SourceRuleIndex(source, table.span_rules(source)))
        assert result.rules_log10 == (best[0] if best else None)
        assert tuple(result.derivation) == (best[1] if best else ())


def test_fewer_rewrites_win_an_exact_tie_in_the_compiled_program():
    # a b -> x y in one rule (p = 0.25) or two (0.5 * 0.5): the same product, the single rule wins.
    table = ParaphraseTable([Rule(("a", "b"), ("x", "y"), 0.25), Rule(("a",), ("x",), 0.5), Rule(("b",), ("y",), 0.5)])
    table.sort()
    index = SourceRuleIndex(("a", "b"), table.span_rules(("a", "b")))
    score, segments = compiled(("x", "y"), index)
    assert score == math.log10(0.25) == best_derivation_reference(("x", "y"), index)[0]
    assert [(s.src_start, s.src_end) for s in segments] == [(0, 2)]


def test_a_segment_path_reads_compares_and_hashes_as_the_tuple_of_its_segments():
    table = ParaphraseTable([Rule(("a",), ("x",), 0.5)])
    index = SourceRuleIndex(("a", "b"), table.span_rules(("a", "b")))
    score, path = compiled(("x", "b"), index)
    assert isinstance(path, SegmentPath)
    as_tuple = best_derivation_reference(("x", "b"), index)[1]
    assert len(path) == 2 and path == as_tuple and as_tuple == path and hash(path) == hash(as_tuple)
    assert [s.rule.target for s in path] == [("x",), ("b",)] and path[0].identity is False and path[1].identity


def test_the_compiled_index_refuses_arrays_that_do_not_fit():
    with pytest.raises(ValueError, match="outside the source"):
        truescore._truescore_core.RuleIndex([0, 1], [2], [0, 1], [0], [1], [5], [0.0])
    with pytest.raises(ValueError, match="different lengths"):
        truescore._truescore_core.RuleIndex([0], [2], [0, 1], [0, 0], [0], [1], [0.0])
