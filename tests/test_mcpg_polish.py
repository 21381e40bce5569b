"""MCPG's polish (MCPGOptions.polish): hill climbing on the best finals, checked by brute force."""

import dataclasses
import random

import pytest
from conftest import EXAMPLE1_RULES, WORDS
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_mcpg_incremental import random_case, random_free_sequence

from parastudio.core.engine.decoders.mcpg import (
    FAITHFUL,
    TUNED,
    ActionSpace,
    Finals,
    MCPGStats,
    Polish,
    SearchInputs,
    generate_mcpg,
)
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.scoring import channel_log10
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule

# Every pair counts as near and no move is skipped, so the end is a local optimum of all three move kinds.
POLISH = dataclasses.replace(TUNED, polish_pairs=3, polish_triples=10**6, polish_margin=float("inf"),
                             polish_slack=None)


def fixture_ok(examples):
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def lm(tiny_lm):
    return LanguageModel(tiny_lm["binary"])


def polish_of(source, table, lm, mode="true-score", options=POLISH):
    """The action space, the finals and a polish over them, with no tree search."""
    inputs = SearchInputs(source, table, lm, mode=mode, options=options)
    space = ActionSpace(inputs)
    finals = Finals(inputs, space)
    return space, finals, Polish(space, finals, options, MCPGStats())


def objective(space, scorer, applied):
    """The objective of ``applied`` computed independently of the search (-inf for the source)."""
    sentence = space.sentence(applied)
    if sentence == space.source:
        return float("-inf")
    if space.translator:
        return channel_log10(sentence, [space.rules[a] for a in applied], space.lm)
    return scorer.score(space.source, sentence).log10_score


def neighbours(space, applied, pairs):
    """Every set one polish move away from ``applied``, built from the definition, not from ActionSpace.insert."""
    masks, identity, starts, ends = space.masks, space.identity, space.starts, space.ends
    positions = range(len(space.source) + 1)

    def put(current, a):
        kept = {b for b in current if not masks[b] & masks[a]} | {a}
        if space.translator:
            covered = 0
            for b in kept:
                covered |= masks[b]
            kept |= {space.identity_action[i] for i in range(len(space.source)) if not covered >> i & 1}
        return frozenset(kept)

    rewrites = [a for a in range(len(space)) if not identity[a]]
    starting_at = {i: [a for a in space.order if not identity[a] and starts[a] == i] for i in positions}
    ending_at = {i: [a for a in space.order if not identity[a] and ends[a] == i] for i in positions}
    moves = [put(applied, a) for a in range(len(space)) if a not in applied]
    if not space.translator:
        moves += [applied - {r} for r in applied]
    for a in rewrites:
        for b in starting_at[ends[a]][:pairs]:
            pair = put(put(applied, a), b)
            moves.append(pair)
            moves += [put(pair, c) for c in starting_at[ends[b]][:pairs]]
            moves += [put(pair, c) for c in ending_at[starts[a]][:pairs]]
    return moves


@fixture_ok(100)
@given(st.integers(0, 10**6), st.sampled_from(["true-score", "translator"]))
def test_polish_ends_at_a_local_optimum_no_single_pair_or_triple_move_improves(lm, seed, mode):
    rng, source, table = random_case(seed)
    space, finals, polish = polish_of(source, table, lm, mode)
    assume(not all(space.identity))
    scorer = TrueScorer(table, lm)
    start = random_free_sequence(rng, space)
    if space.translator:
        covered = 0
        for a in start:
            covered |= space.masks[a]
        start += [space.identity_action[i] for i in range(len(source)) if not covered >> i & 1]
    before = objective(space, scorer, start)
    polish.climb(start, lambda: False)
    best_sentence, (best, model, applied) = max(finals.by_sentence.items(), key=lambda item: item[1][0])
    # What the search recorded is the independent objective of what it applied, and it only went up.
    assert best == pytest.approx(objective(space, scorer, applied), abs=1e-9)
    assert best >= before - 1e-12
    if space.translator:
        covered = 0
        for a in applied:
            assert not covered & space.masks[a]
            covered |= space.masks[a]
        assert covered == space.full_mask
    for move in neighbours(space, frozenset(applied), POLISH.polish_pairs):
        assert objective(space, scorer, move) <= best + 1e-9, "a polish move still improves"


def test_polish_swaps_a_committed_rule_for_the_better_overlapping_one(lm):
    """MCPG never rewrites a transformed part again (seed 003 §2); a polish move does."""
    table = ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in EXAMPLE1_RULES)
    source = tuple("the dog runs after the young cat".split())
    space, finals, polish = polish_of(source, table, lm)
    scorer = TrueScorer(table, lm)
    action = {" ".join(space.rules[a].source) + " -> " + " ".join(space.targets[a]): a for a in range(len(space))}
    weak, strong = action["the young -> the"], action["the young cat -> the kitten"]
    assert space.masks[weak] & space.masks[strong]
    assert objective(space, scorer, [weak]) < objective(space, scorer, [strong])
    polish.climb([weak], lambda: False)
    best_sentence = max(finals.by_sentence, key=lambda sentence: finals.by_sentence[sentence][0])
    assert "kitten" in best_sentence and "young" not in best_sentence
    assert finals.by_sentence[best_sentence][0] >= objective(space, scorer, [strong]) - 1e-12


def test_polish_keeps_results_exact_deterministic_and_at_least_the_search(lm):
    for seed in range(5):
        rng, source, table = random_case(seed, length=(8, 12), rules=30)
        plain = dataclasses.replace(TUNED, polish=False)
        stats = MCPGStats()
        polished = generate_mcpg(source, table, lm, max_episodes=60, seed=seed, stats=stats)
        unpolished = generate_mcpg(source, table, lm, max_episodes=60, seed=seed, profile=plain)
        if not unpolished:
            assert polished == []
            continue
        assert polished == generate_mcpg(source, table, lm, max_episodes=60, seed=seed)
        assert polished[0][1] >= unpolished[0][1] - 1e-12
        assert polished[0][1] == pytest.approx(TrueScorer(table, lm).score(source, polished[0][0]).log10_score,
                                               abs=1e-9)
        assert stats.polish_moves > 0 and stats.polish_seconds > 0.0


def test_the_polish_runs_after_a_search_by_count_and_not_after_one_the_time_cap_cut(lm):
    rng = random.Random(3)
    source = tuple(rng.choice(WORDS) for _ in range(40))
    table = ParaphraseTable(Rule((w,), (v,), 0.4) for w in WORDS for v in WORDS[:12] if v != w)
    stats = MCPGStats()
    generate_mcpg(source, table, lm, max_episodes=300, seed=1, stats=stats)
    assert stats.episodes == 300 and stats.polish_moves > 0 and not stats.cut
    cut = MCPGStats()  # a cap no search can meet: one episode, no polish, and the candidate says so
    generate_mcpg(source, table, lm, max_episodes=300, time_budget=1e-9, seed=1, stats=cut)
    assert cut.cut and cut.episodes == 1 and cut.polish_moves == 0
    faithful = MCPGStats()
    generate_mcpg(source, table, lm, episodes_per_step=20, seed=1, stats=faithful, profile=FAITHFUL)
    assert faithful.polish_moves == 0


@fixture_ok(40)
@given(st.integers(0, 10**6))
def test_polish_slack_skips_only_moves_whose_channel_score_is_that_far_below(lm, seed):
    rng, source, table = random_case(seed)
    slack = 0.3
    space, finals, polish = polish_of(source, table, lm, options=dataclasses.replace(POLISH, polish_slack=slack))
    assume(len(space) > 0)
    scorer = TrueScorer(table, lm)
    for _ in range(5):
        applied = frozenset(random_free_sequence(rng, space))
        floor = rng.uniform(-30.0, -5.0)
        value = polish.value(applied, floor)
        exact = objective(space, scorer, applied)
        sentence = space.sentence(applied)
        channel = channel_log10(sentence, [space.rules[a] for a in applied], lm)
        if value == float("-inf") and exact != float("-inf"):
            # Skipped: either the LM bound or the channel score with the slack could not beat the floor.
            assert lm.score(sentence) <= floor or channel + slack <= floor + 1e-9
        else:
            assert value == pytest.approx(exact, abs=1e-9)
