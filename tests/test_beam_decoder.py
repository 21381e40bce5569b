"""The monotone beam decoder against a brute-force oracle over all monotone segmentations."""

import math

import pytest
from conftest import EXAMPLE1_RULES, WORDS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.scoring import ScoringModel
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule, identity_rule

EXHAUSTIVE = DecoderSettings(stack_size=10**9, beam_threshold=0.0, option_limit=None, nbest_factor=10**6)
SOURCE = tuple("the dog runs after the young cat".split())


def table_of(rules):
    table = ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in rules)
    table.sort()
    return table


@pytest.fixture(scope="module")
def lm(tiny_lm):
    return LanguageModel(tiny_lm["binary"])


def all_derivations(source, table):
    """Every monotone segmentation with every rule (and identity) per segment: (target, rules)."""
    n = len(source)
    found = []

    def extend(i, target, rules):
        if i == n:
            found.append((tuple(target), list(rules)))
            return
        for j in range(i + 1, n + 1):
            choices = list(table.rules_for(source[i:j]))
            if j == i + 1:
                choices.append(identity_rule(source[i]))
            for rule in choices:
                extend(j, target + list(rule.target), rules + [rule])

    extend(0, [], [])
    return found


def oracle_scores(source, table, lm):
    """Best score per distinct output string over all derivations."""
    best = {}
    for target, rules in all_derivations(source, table):
        score = lm.score(target) + sum(math.log10(r.prob) for r in rules)
        if target not in best or score > best[target]:
            best[target] = score
    return best


@st.composite
def sentence_and_table(draw):
    source = tuple(draw(st.lists(st.sampled_from(WORDS[:12]), min_size=1, max_size=5)))
    rules = []
    for _ in range(draw(st.integers(0, 6))):
        start = draw(st.integers(0, len(source) - 1))
        end = draw(st.integers(start + 1, min(len(source), start + 3)))
        target = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))
        prob = draw(st.floats(0.01, 1.0))
        rules.append((" ".join(source[start:end]), " ".join(target), prob))
    return source, rules


def test_example1_best_equals_oracle_and_nbest_is_the_true_ranking(lm):
    table = table_of(EXAMPLE1_RULES)
    oracle = oracle_scores(SOURCE, table, lm)
    result = BeamDecoder(table, lm, EXHAUSTIVE).decode(SOURCE)
    entries = result.nbest(len(oracle) + 5)
    assert len(entries) == len(oracle)
    assert {e.tokens for e in entries} == set(oracle)
    for entry in entries:
        assert entry.score == pytest.approx(oracle[entry.tokens], abs=1e-4)
    assert entries[0].score == pytest.approx(max(oracle.values()), abs=1e-4)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=sentence_and_table())
def test_exhaustive_decoder_matches_brute_force(lm, case):
    source, rules = case
    table = table_of(rules)
    oracle = oracle_scores(source, table, lm)
    result = BeamDecoder(table, lm, EXHAUSTIVE).decode(source)
    best = result.best()
    assert best.score == pytest.approx(max(oracle.values()), abs=1e-4)
    entries = result.nbest(len(oracle))
    # Distinct n-best over the unpruned lattice is exactly the true-score ranking.
    assert {e.tokens for e in entries} == set(oracle)
    for entry in entries:
        assert entry.score == pytest.approx(oracle[entry.tokens], abs=1e-4)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=sentence_and_table(), stack_size=st.integers(1, 4), n=st.integers(1, 12))
def test_nbest_properties_under_pruning(lm, case, stack_size, n):
    source, rules = case
    table = table_of(rules)
    decoder = BeamDecoder(table, lm, DecoderSettings(stack_size=stack_size))
    entries = decoder.decode(source).nbest(n)
    model = ScoringModel(table, lm)
    truth = TrueScorer(table, lm)
    assert 1 <= len(entries) <= n
    texts = [e.tokens for e in entries]
    assert len(texts) == len(set(texts))  # distinct
    scores = [e.score for e in entries]
    assert scores == sorted(scores, reverse=True)
    oracle_best = max(oracle_scores(source, table, lm).values())
    for entry in entries:
        # The path's decoder score is the scoring model's score of that derivation ...
        assert entry.score == pytest.approx(model.derivation_log10(entry.tokens, entry.segments), abs=1e-4)
        # ... the derivation really turns the source into the output ...
        assert tuple(w for s in entry.segments for w in s.rule.target) == entry.tokens
        assert [(s.src_start, s.src_end) for s in entry.segments] == \
            list(zip([0] + [s.src_end for s in entry.segments[:-1]], [s.src_end for s in entry.segments]))
        assert entry.segments[-1].src_end == len(source)
        # ... and can never beat the exact true score, nor the global optimum.
        assert entry.score <= truth.score(source, entry.tokens).log10_score + 1e-4
        assert entry.score <= oracle_best + 1e-4


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=sentence_and_table())
def test_recombination_keeps_the_best_hypothesis(lm, case):
    """With no pruning, recombination alone must never lose the optimum, and losers stay as arcs."""
    source, rules = case
    table = table_of(rules)
    result = BeamDecoder(table, lm, EXHAUSTIVE).decode(source)
    assert result.best().score == pytest.approx(max(oracle_scores(source, table, lm).values()), abs=1e-4)
    for stack in result.stacks:
        states = [h.lm_state for h in stack]
        assert len(states) == len(set(states))  # one winner per LM state
        for winner in stack:
            for loser in winner.arcs:
                assert loser.winner is winner and loser.lm_state == winner.lm_state
                assert loser.score <= winner.score


def test_identity_options_pass_unknown_words_through(lm):
    source = ("zebra", "runs", "quickly")
    entries = BeamDecoder(ParaphraseTable(), lm).decode(source).nbest(5)
    assert [e.tokens for e in entries] == [source]
    assert entries[0].score == pytest.approx(lm.score(source), abs=1e-4)
    assert all(s.identity and s.rule.prob == 1.0 for s in entries[0].segments)


def test_option_limit_keeps_the_best_by_estimated_score(lm):
    rules = [("dog", f"{w}", p) for w, p in zip(WORDS[:8], (0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2))]
    table = table_of(rules)
    decoder = BeamDecoder(table, lm, DecoderSettings(option_limit=3))
    options = decoder.translation_options(("the", "dog"))
    table_options = [o for o in options[1] if not o.identity]
    assert len(table_options) == 3
    everything = BeamDecoder(table, lm, DecoderSettings(option_limit=None)).translation_options(("the", "dog"))
    estimates = sorted((o.estimate for o in everything[1] if not o.identity), reverse=True)
    assert [o.estimate for o in table_options] == estimates[:3]
    # each option's estimate: log10 p + LM of its target without context
    for option in table_options:
        assert option.estimate == pytest.approx(
            math.log10(option.rule.prob) + lm.score(option.target, bos=False, eos=False))


def test_future_cost_table_is_the_best_split(lm):
    table = table_of(EXAMPLE1_RULES)
    decoder = BeamDecoder(table, lm)
    options = decoder.translation_options(SOURCE)
    cost = options.future_costs()
    n = len(SOURCE)

    def brute(i, j):
        if i == j:
            return 0.0
        best = max((o.estimate for o in options[i] if o.end == j), default=-math.inf)
        for k in range(i + 1, j):
            best = max(best, brute(i, k) + brute(k, j))
        return best

    for i in range(n):
        for j in range(i + 1, n + 1):
            assert cost[i][j] == pytest.approx(brute(i, j))


def inserted_within_the_threshold(stack, width):
    """Whether every hypothesis of ``stack`` (winners and arcs) was within ``width`` of the best inserted before it.

    Hypothesis ids follow creation, so "before" is a smaller id; this is the
    floor Moses' ``AddPrune`` applies when a hypothesis is inserted.
    """
    members = sorted([h for winner in stack for h in (winner, *winner.arcs)], key=lambda h: h.id)
    best = -math.inf
    for hypothesis in members:
        if hypothesis.future_score < best + width - 1e-9:
            return False
        best = max(best, hypothesis.future_score)
    return True


def test_threshold_and_histogram_pruning_bound_the_stacks(lm):
    table = table_of(EXAMPLE1_RULES + [("runs", "walks", 0.5), ("dog", "cat", 0.3), ("after", "before", 0.6)])
    result = BeamDecoder(table, lm, DecoderSettings(stack_size=2, beam_threshold=1e-2)).decode(SOURCE)
    for stack in result.stacks[1:]:
        assert 1 <= len(stack) <= 2
        assert inserted_within_the_threshold(stack, -2.0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=sentence_and_table(), stack_size=st.integers(1, 4), threshold=st.sampled_from([1e-1, 1e-2, 1e-4]))
def test_pruning_applies_the_threshold_at_insertion_and_the_histogram_before_expansion(lm, case, stack_size,
                                                                                        threshold):
    source, rules = case
    result = BeamDecoder(table_of(rules), lm, DecoderSettings(stack_size=stack_size, beam_threshold=threshold)) \
        .decode(source)
    for stack in result.stacks:
        assert len(stack) <= stack_size
        assert inserted_within_the_threshold(stack, math.log10(threshold))
    assert result.best().score == max(h.score for h in result.final_stack)


def test_a_hypothesis_inserted_before_a_better_one_stays_as_in_moses(lm):
    """Moses applies the beam threshold when a hypothesis is inserted, never to a complete stack.

    "the dog -> a cat" (p = 1e-6) reaches stack 2 first, from the root, when it
    is the best there; "the dog" unchanged arrives later from stack 1, more
    than 2 log10 better. With a threshold of 1e-2 (2 in log10) pruning the
    complete stack would drop "a cat"; Moses keeps it (it is not recombined:
    another LM state), so it is the second entry of the 2-best list.
    """
    source = ("the", "dog")
    table = table_of([("the dog", "a cat", 1e-6)])
    result = BeamDecoder(table, lm, DecoderSettings(beam_threshold=1e-2)).decode(source)
    unchanged, rewritten = lm.score(source), -6.0 + lm.score(("a", "cat"))
    assert unchanged - rewritten > 2.0
    entries = result.nbest(2)
    assert [e.tokens for e in entries] == [source, ("a", "cat")]
    assert [e.score for e in entries] == [pytest.approx(unchanged, abs=1e-4), pytest.approx(rewritten, abs=1e-4)]
    assert len(result.final_stack) == 1 and len(result.final_stack[0].arcs) == 1  # complete: one LM state
    # A hypothesis arriving after the best, more than the threshold below it, is still dropped.
    table = table_of([("the dog", "a cat", 1e-6), ("dog", "cat", 1e-6)])
    stack = BeamDecoder(table, lm, DecoderSettings(beam_threshold=1e-2)).decode(source).final_stack
    members = {h.option.target for winner in stack for h in (winner, *winner.arcs)}
    assert members == {("dog",), ("a", "cat")}  # "the cat" came after "the dog"


@pytest.mark.parametrize("core", ["python", "compiled"])
def test_complete_hypotheses_recombine_into_one_winner_as_in_moses(lm, core):
    """Moses recombines hypotheses on their feature states, and a complete one's LM state is KenLM's after
    </s>: empty, whatever words came before. So every complete hypothesis recombines into one winner and the
    others stay as its arcs, out of reach of histogram pruning (the final stack never holds two): with a stack
    of 1 the 3-best list is still the 3 best outputs of all derivations (each within the beam threshold)."""
    source = ("the", "dog")
    table = table_of([("the dog", "a cat", 0.5), ("the dog", "the kitten", 0.3)])
    result = BeamDecoder(table, lm, DecoderSettings(stack_size=1), core=core).decode(source)
    assert len(result.final_stack) == 1
    oracle = oracle_scores(source, table, lm)
    expected = sorted(oracle, key=lambda target: -oracle[target])
    assert len(expected) == 3 and oracle[expected[0]] - oracle[expected[-1]] < 5  # all within 1e-5
    entries = result.nbest(3)
    assert [e.tokens for e in entries] == expected
    assert [e.score for e in entries] == pytest.approx([oracle[target] for target in expected], abs=1e-5)


@pytest.mark.parametrize("core", ["python", "compiled"])
def test_a_stack_is_expanded_in_moses_hash_set_order_not_best_first(lm, core):
    """Moses expands a stack in the iteration order of its boost::unordered_set, where a node inserted goes
    before the nodes already there when the set holds two (tests/test_moses_order.py checks the order against
    Boost). The root's options are tried best estimate first, so stack 1 holds "kitten" (inserted first) and
    "slowly" (p = 0.1, inserted second), and Moses expands "slowly" first: "slowly after" reaches the final
    stack when it is the best there and stays (as an arc of "kitten after", which arrives later), although it
    is more than the threshold (1.7 in log10) below it. Expanding the best first would drop it."""
    source = ("kitten", "after")
    table = table_of([("kitten", "slowly", 0.1)])
    decoder = BeamDecoder(table, lm, DecoderSettings(beam_threshold=0.02), core=core)
    kept, other = decoder.translation_options(source)[0]
    assert (kept.target, other.target) == (("kitten",), ("slowly",)) and kept.estimate > other.estimate
    oracle = oracle_scores(source, table, lm)
    first, second = ("kitten", "after"), ("slowly", "after")
    start_gap = lm.score(("kitten",), eos=False) - (-1 + lm.score(("slowly",), eos=False))
    assert start_gap < 1.7 < oracle[first] - oracle[second]  # both in stack 1; apart by more at the end
    entries = decoder.decode(source).nbest(2)
    assert [e.tokens for e in entries] == [first, second]
    assert [e.score for e in entries] == pytest.approx([oracle[first], oracle[second]], abs=1e-5)


@pytest.mark.parametrize("first", ["better back", "worse back"])
def test_histogram_pruning_breaks_ties_as_moses_hypothesis_beats(first):
    """Moses sorts a stack with Hypothesis::beats: equal future scores are ordered by the future cost, then by
    the hypotheses they extend, the better first. Of two tied hypotheses, a stack of one keeps the one that
    extends the better hypothesis, whichever came first (not the one its hash set happens to list first)."""
    from parastudio.core.engine.decoders.beam_decoder import _Stack
    from parastudio.core.engine.decoders.decoder_types import Hypothesis

    root = Hypothesis(0, None, None, 0, 0.0, 0.0, "root", -4.0)
    better, worse = (Hypothesis(i, root, None, 1, score, score, f"s{i}", score - 2.0) for i, score in ((1, -1.0),
                                                                                                        (2, -3.0)))
    tails = [-4.0, -3.0, -2.0, 0.0]
    extends_better = Hypothesis(3, better, None, 2, -3.0, -2.0, "x", -5.0)
    extends_worse = Hypothesis(4, worse, None, 2, -3.0, 0.0, "y", -5.0)
    stack = _Stack(1, -5.0, 2, 3, tails)
    for hypothesis in ((extends_better, extends_worse) if first == "better back" else (extends_worse, extends_better)):
        stack.add(hypothesis)
    assert stack.hypotheses() == [extends_better]


TIE_ARPA = """\\data\\
ngram 1=7
ngram 2=4

\\1-grams:
-100\t<unk>\t0
-99\t<s>\t0
-1\t</s>\t0
-1\tx\t0
-1\tp\t0
-1\ty
-1\tz\t0

\\2-grams:
-1\t<s> x
-1.5\t<s> p
-0.5\tp y
-0.5\tx z

\\end\\
"""


@pytest.mark.parametrize("core", ["python", "compiled"])
def test_a_decoder_with_a_stack_of_one_keeps_the_tied_hypothesis_moses_keeps(tmp_path, core):
    """A hand-written LM whose log10s sum exactly: "a b -> x" (p = 0.1) after <s> scores -1 - 1 = -2, and
    "a -> p", "b -> y" score -1.5 - 0.5 = -2: a tie in stack 2, where a stack of one keeps one. Moses' beats
    keeps "x", which extends the root (future score -3, the sentence's future cost), over "p y", which extends
    "p" (-1.5 plus the future cost of "b c", -2: -3.5), though "p y" arrives second and so comes first in the
    hash set. Every output then begins with "x"."""
    arpa = tmp_path / "tie.arpa"
    arpa.write_text(TIE_ARPA, encoding="utf-8")
    table = table_of([("a b", "x", 0.1), ("a", "p", 1.0), ("b", "y", 1.0), ("c", "z", 1.0)])
    decoder = BeamDecoder(table, LanguageModel(arpa), DecoderSettings(stack_size=1), core=core)
    result = decoder.decode(("a", "b", "c"))
    assert result.future_costs[0][3] == -3.0 and result.future_costs[1][3] == -2.0
    assert [(h.option.target, h.score) for h in result.stacks[1]] == [(("p",), -1.5)]
    assert [(h.option.target, h.score) for h in result.stacks[2]] == [(("x",), -2.0)]
    entries = result.nbest(5)
    assert entries[0].tokens == ("x", "z") and all(e.tokens[0] == "x" for e in entries)


def test_decoding_without_lm_uses_rule_probabilities_only():
    table = table_of(EXAMPLE1_RULES)
    entries = BeamDecoder(table, None, EXHAUSTIVE).decode(SOURCE).nbest(3)
    assert entries[0].tokens == SOURCE and entries[0].score == 0.0
    assert entries[1].score == pytest.approx(math.log10(0.8))


def test_stack_size_one_is_greedy_and_no_better_than_exhaustive(lm):
    table = table_of(EXAMPLE1_RULES)
    greedy = BeamDecoder(table, lm, DecoderSettings(stack_size=1)).decode(SOURCE)
    full = BeamDecoder(table, lm, EXHAUSTIVE).decode(SOURCE)
    assert all(len(stack) <= 1 for stack in greedy.stacks)
    assert greedy.best().score <= full.best().score + 1e-9


def test_a_bilingual_table_makes_the_same_decoder_translate(lm):
    # Spanish -> English rules; the English LM picks the fluent word order the rules allow.
    table = table_of([("el perro", "the dog", 0.7), ("perro", "dog", 0.9), ("el", "the", 0.8),
                      ("corre", "runs", 0.8), ("corre", "walks", 0.2), ("rapido", "quickly", 0.6)])
    best = BeamDecoder(table, lm).decode(("el", "perro", "corre", "rapido")).nbest(1)[0]
    assert best.tokens in {("the", "dog", "runs", "quickly"), ("the", "dog", "walks", "quickly")}
