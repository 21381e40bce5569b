"""Seed 001's suggestions of equal score: ordered by a rule that ignores spelling, and the ties at the cut counted."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.cli import main as cli_main
from parastudio.core.engine.decoders.cat.approaches import Approach
from parastudio.core.engine.decoders.cat.graph_store import GraphNode
from parastudio.core.engine.decoders.cat.paraphraser import SuggestResult, tie_order
from parastudio.core.engine.decoders.cat.partials import Partial
from parastudio.core.engine.decoders.cat.stages import Suggestion

WORDS = ["zeal", "abide", "mercy", "the", "a"]


def suggestion(words, score, hyps):
    path = tuple(Partial(GraphNode(hyp, 1, None, 0.0, 0.0, None, None, None, 0, 1, (w,)), (w,))
                 for hyp, w in zip(hyps, words))
    return Suggestion(tuple(words), score, path)


def ranked_by_the_rule(suggestions):
    return sorted(suggestions, key=lambda s: (-s.fsm_score, *tie_order(s)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.sampled_from([0.5, 0.25])), min_size=2, max_size=6),
       st.permutations(WORDS))
def test_the_order_of_equal_scores_does_not_depend_on_spelling(shapes, spelling):
    hyps = itertools.count(1)
    made = [suggestion([f"w{i}{j}" for j in range(length)], score, [next(hyps) for _ in range(length)])
            for i, (length, score) in enumerate(shapes)]
    respelled = [suggestion([spelling[(k + j) % len(spelling)] + str(k) for j in range(len(s.words))], s.fsm_score,
                            [p.node.hyp for p in s.path]) for k, s in enumerate(made)]
    order = [made.index(s) for s in ranked_by_the_rule(made)]
    assert [respelled.index(s) for s in ranked_by_the_rule(respelled)] == order
    for a, b in zip(ranked_by_the_rule(made), ranked_by_the_rule(made)[1:]):
        assert a.fsm_score > b.fsm_score or (a.fsm_score == b.fsm_score and len(a.path) <= len(b.path))


def result_with(scores, top):
    approach = Approach("plain", (), ("FSM",))
    result = SuggestResult(0, approach, top, None)
    result.candidates = [suggestion([f"s{i}"], score, [i + 1]) for i, score in enumerate(scores)]
    return result


def test_a_tie_across_the_cut_is_found_and_broken_the_other_way():
    result = result_with([0.9, 0.8, 0.5, 0.5, 0.5, 0.5, 0.1], top=4)
    assert result.tie_at_cut() == (2, 6)
    assert result.hit(["s3"]) and not result.hit(["s5"])
    assert result.hit_with_ties_reversed(["s5"]) and result.hit_with_ties_reversed(["s4"])
    assert not result.hit_with_ties_reversed(["s2"]) and not result.hit_with_ties_reversed(["s3"])
    assert result.hit_with_ties_reversed(["s0"])


def test_no_tie_is_reported_when_the_cut_falls_between_different_scores():
    assert result_with([0.9, 0.8, 0.5, 0.5, 0.4], top=4).tie_at_cut() is None
    assert result_with([0.9, 0.5, 0.5], top=5).tie_at_cut() is None  # nothing is cut


def test_autoeval_counts_the_hits_a_tie_decides(capsys):
    assert cli_main(["autoeval", "--approach", "approach-1", "--json"]) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    ties = out["ties"]
    assert ties["cases_with_tie_at_cut"] > 0
    assert 0 <= ties["hits_in_tie_at_cut"] <= min(ties["cases_with_tie_at_cut"], out["successes"])
    # Reversing a tie can only move the hits that fall inside one.
    low = out["successes"] - ties["hits_in_tie_at_cut"]
    assert low <= ties["successes_with_ties_reversed"] <= low + ties["cases_with_tie_at_cut"]
    assert ties["successes_with_ties_reversed"] != out["successes"]
