"""MCPG (seed 003 §3, seed 000 §4.1) against brute force, and its defining rules."""

import dataclasses
import itertools
import math
import random

import pytest
from conftest import EXAMPLE1_RULES, WORDS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parastudio.core.engine.decoders.mcpg import (
    FAITHFUL,
    STOP,
    TUNED,
    ActionSpace,
    MCPGStats,
    SearchInputs,
    TreeSearch,
    generate_mcpg,
)
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.derivation import apply_matches
from parastudio.core.engine.model.scoring import channel_log10, mcpg_reward
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule

SOURCE = tuple("the dog runs after the young cat".split())


def table_of(rules):
    return ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in rules)


@pytest.fixture(scope="module")
def lm(tiny_lm):
    return LanguageModel(tiny_lm["binary"])


def exhaustive_best(source, table, lm):
    """Best true score over every sentence reachable by a non-empty set of disjoint rules."""
    matches = [m for m in table.matches(source) if m.rule.target != m.rule.source]
    scorer = TrueScorer(table, lm)
    best = None
    for size in range(1, len(matches) + 1):
        for subset in itertools.combinations(matches, size):
            try:
                target, _ = apply_matches(source, subset)
            except ValueError:
                continue  # overlapping rules
            if target == tuple(source):
                continue
            score = scorer.score(source, target).log10_score
            if best is None or score > best[0]:
                best = (score, target)
    return best


def random_table(rng, source, rules=6):
    entries = []
    for _ in range(rules):
        start = rng.randrange(len(source))
        end = min(len(source), start + rng.randint(1, 2))
        target = tuple(rng.choice(WORDS) for _ in range(rng.randint(1, 2)))
        entries.append(Rule(tuple(source[start:end]), target, round(rng.uniform(0.01, 0.9), 3)))
    return ParaphraseTable(entries)


@pytest.mark.parametrize("profile", ["faithful", "tuned"])
def test_example1_true_score_mode_finds_the_optimum(lm, profile):
    table = table_of(EXAMPLE1_RULES)
    results = generate_mcpg(SOURCE, table, lm, mode="true-score", nbest=3, max_episodes=3000, profile=profile)
    best_score, best_target = exhaustive_best(SOURCE, table, lm)
    assert results[0][0] == best_target
    assert results[0][1] == pytest.approx(best_score, abs=1e-9)
    # The model score is the true score of the output, and the segments derive it.
    tokens, score, segments = results[0]
    assert TrueScorer(table, lm).score(SOURCE, tokens).log10_score == pytest.approx(score, abs=1e-9)
    assert tuple(w for s in segments for w in s.rule.target) == tokens


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.sampled_from(["faithful", "tuned"]))
def test_true_score_mode_matches_brute_force_on_tiny_tables(lm, seed, profile):
    rng = random.Random(seed)
    source = tuple(rng.choice(WORDS) for _ in range(rng.randint(3, 7)))
    table = random_table(rng, source)
    expected = exhaustive_best(source, table, lm)
    results = generate_mcpg(source, table, lm, mode="true-score", max_episodes=2000, seed=seed, profile=profile)
    if expected is None:
        assert results == []
        return
    assert results, "a paraphrase was reachable"
    assert results[0][1] == pytest.approx(expected[0], abs=1e-9)


@pytest.mark.parametrize("profile", ["faithful", "tuned"])
def test_same_seed_same_output_and_nbest_distinct(lm, profile):
    rng = random.Random(3)
    source = tuple(rng.choice(WORDS) for _ in range(12))
    table = random_table(rng, source, rules=25)
    runs = [
        generate_mcpg(source, table, lm, mode=mode, nbest=10, max_episodes=400, episodes_per_step=100, seed=5,
                      profile=profile)
        for mode in ("true-score", "translator", "true-score", "translator")
    ]
    assert runs[0] == runs[2] and runs[1] == runs[3]
    for run in runs:
        texts = [tokens for tokens, _, _ in run]
        assert len(set(texts)) == len(texts)
        assert source not in texts  # a paraphrase differs from its source
        scores = [score for _, score, _ in run]
        assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("profile", ["faithful", "tuned"])
def test_translator_mode_covers_the_whole_sentence_and_scores_the_channel(lm, profile):
    table = table_of(EXAMPLE1_RULES)
    results = generate_mcpg(SOURCE, table, lm, mode="translator", nbest=5, max_episodes=3000, profile=profile)
    assert results
    for tokens, score, segments in results:
        assert [s.src_start for s in segments] == [0] + [s.src_end for s in segments[:-1]]
        assert segments[-1].src_end == len(SOURCE)
        assert tuple(w for s in segments for w in s.rule.target) == tokens
        assert score == pytest.approx(channel_log10(tokens, [s.rule for s in segments], lm), abs=1e-9)
    # The best derivation: T2 alone, everything else identity (probability 1).
    assert results[0][0] == tuple("the dog runs after the kitten".split())


def test_translator_seed003_reward_is_core_scoring_mcpg_reward(lm):
    table = table_of(EXAMPLE1_RULES + [("dog", "hound", 0.3), ("runs", "walks", 0.2)])
    search = TreeSearch(SearchInputs(SOURCE, table, lm, mode="translator", translator_reward="seed003",
                                     options=FAITHFUL))
    for _ in range(30):
        root = search.root()
        applied = tuple(sorted(search.playouts.run(root)))
        _, reward = search.finals.evaluate(applied)
        sentence = search.space.sentence(applied)
        if sentence == SOURCE:
            assert reward == 0.0
            continue
        segments = search.finals.segments(sentence, applied)
        assert reward == pytest.approx(mcpg_reward(SOURCE, sentence, segments, table, lm), rel=1e-9)


def test_stop_is_offered_everywhere_but_the_root(lm):
    table = table_of(EXAMPLE1_RULES)
    search = TreeSearch(SearchInputs(SOURCE, table, lm, options=FAITHFUL))
    root = search.root()
    assert STOP not in root.actions
    for action in root.actions:
        applied, covered = search.child(root, action)
        child = search.state(applied, covered)
        assert child.actions[0] == STOP
        # Actions overlapping a transformed part are gone, the others stay.
        masks = search.space.masks
        assert all(not masks[a] & covered for a in child.actions if a != STOP)
        assert len(child.actions) - 1 == sum(1 for a in root.actions if not masks[a] & covered)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6))
def test_fast_true_score_equals_core_truescore(lm, seed):
    rng = random.Random(seed)
    source = tuple(rng.choice(WORDS[:8]) for _ in range(rng.randint(2, 8)))
    table = random_table(rng, source, rules=10)
    search = TreeSearch(SearchInputs(source, table, lm, seed=seed, options=FAITHFUL))
    scorer = TrueScorer(table, lm)
    root = search.root()
    for _ in range(5):
        applied = tuple(sorted(search.playouts.run(root)))
        sentence = search.space.sentence(applied)
        expected = scorer.score(source, sentence)
        got = search.finals.true_rules_log10(sentence)
        assert expected.reachable
        assert got == pytest.approx(expected.rules_log10, abs=1e-9)
    # A sentence no rule set reaches.
    assert search.finals.true_rules_log10(("zzz",) + source) == float("-inf")


def test_playout_draws_stop_with_probability_one_over_m_plus_one(lm):
    """With m disjoint actions, the number taken before stop is uniform on 0..m."""
    source = tuple(WORDS[:4])
    table = ParaphraseTable(Rule((w,), (v,), 0.5) for w, v in zip(source, WORDS[4:8]))
    search = TreeSearch(SearchInputs(source, table, lm, seed=7, options=FAITHFUL))
    child = search.state(*search.child(search.root(), 0))
    lengths = [len(search.playouts.uniform(child)) for _ in range(4000)]
    m = len(child.pool)
    assert m == 3
    for taken in range(m + 1):
        assert lengths.count(taken) / len(lengths) == pytest.approx(1 / (m + 1), abs=0.03)


def test_stop_makes_partial_states_final(lm):
    """Every one-rule paraphrase (the rest unchanged) is a final state MCPG outputs."""
    table = table_of(EXAMPLE1_RULES)
    results = generate_mcpg(SOURCE, table, lm, mode="true-score", nbest=50, max_episodes=3000, profile="faithful")
    outputs = {tokens for tokens, _, _ in results}
    for match in table.matches(SOURCE):
        single, _ = apply_matches(SOURCE, [match])
        assert single in outputs


def test_values_are_the_maximum_reward_not_the_mean(lm):
    rng = random.Random(11)
    source = tuple(rng.choice(WORDS) for _ in range(10))
    table = random_table(rng, source, rules=30)
    search = TreeSearch(SearchInputs(source, table, lm, options=FAITHFUL))
    root = search.root()
    tree = {search.key(()): root}
    seen: dict[int, list[float]] = {}
    for _ in range(600):
        before = root.count.copy() if root.local is not None else None
        outcome = search.episode(tree, search.key(()), root)  # (objective, reward) of the episode's final state
        changed = [i for i in range(len(root.actions)) if before is None or root.count[i] != before[i]]
        (index,) = changed if before is not None else [i for i in range(len(root.actions)) if root.count[i]]
        seen.setdefault(index, []).append(outcome)
    some_spread = False
    for index, outcomes in seen.items():
        assert root.best[index] == max(objective for objective, _ in outcomes)
        rewards = [reward for _, reward in outcomes]
        if max(rewards) - sum(rewards) / len(rewards) > 1e-6:
            some_spread = True
            assert search.finals.reward(root.best[index]) > root.reward_sum[index] / root.count[index]
    assert some_spread
    # The committed action is the one with the best maximum.
    best = search.best_root_action(root)
    assert root.best[root.actions.index(best)] == max(root.best)


def test_a_tiny_time_budget_still_returns_a_result(lm):
    rng = random.Random(4)
    source = tuple(rng.choice(WORDS) for _ in range(15))
    table = random_table(rng, source, rules=40)
    stats = MCPGStats()
    results = generate_mcpg(source, table, lm, mode="true-score", time_budget=1e-9, stats=stats)
    assert stats.episodes >= 1 and stats.cut
    assert results
    results = generate_mcpg(source, table, lm, mode="translator", time_budget=0.05)
    assert results


def test_commits_follow_eta_and_end_with_stop(lm):
    table = table_of(EXAMPLE1_RULES)
    stats = MCPGStats()
    generate_mcpg(SOURCE, table, lm, mode="true-score", episodes_per_step=200, stats=stats, profile="faithful")
    assert stats.committed[-1] == "stop"
    assert stats.episodes == 200 * stats.commits
    tuned = MCPGStats()
    generate_mcpg(SOURCE, table, lm, mode="true-score", stats=tuned)  # the tuned profile's eta = 1,000
    assert set(tuned.episodes_per_commit) == {TUNED.episodes_per_step}
    assert tuned.episodes <= TUNED.max_episodes and not tuned.cut


def test_no_rule_no_paraphrase(lm):
    assert generate_mcpg(SOURCE, ParaphraseTable(), lm, mode="true-score") == []
    assert generate_mcpg((), table_of(EXAMPLE1_RULES), lm) == []
    with pytest.raises(ValueError):
        generate_mcpg(SOURCE, table_of(EXAMPLE1_RULES), lm, mode="decoder")


def test_option_limit_keeps_the_beams_twenty_best_options_per_span(lm):
    source = tuple("the dog runs".split())
    targets = [w for w in WORDS if w not in source] + ["zz1", "zz2", "zz3", "zz4"]
    assert len(targets) == 25
    table = ParaphraseTable(Rule(("dog",), (w,), 0.5 + i / 100) for i, w in enumerate(targets))
    faithful = ActionSpace(SearchInputs(source, table, lm, options=FAITHFUL))
    tuned = ActionSpace(SearchInputs(source, table, lm, options=TUNED))
    assert len(faithful) == 25 and len(tuned) == 20
    # Ranked like the beam decoder's options: log10 p + LM of the target alone.
    estimate = {w: math.log10(0.5 + i / 100) + lm.score((w,), bos=False, eos=False) for i, w in enumerate(targets)}
    kept = {t[0] for t in tuned.targets}
    assert min(estimate[w] for w in kept) >= max(estimate[w] for w in targets if w not in kept)


def test_priors_are_one_step_gains_and_order_the_actions(lm):
    table = table_of(EXAMPLE1_RULES)
    space = ActionSpace(SearchInputs(SOURCE, table, lm, options=TUNED))
    for a in range(len(space)):
        single = SOURCE[: space.starts[a]] + space.targets[a] + SOURCE[space.ends[a]:]
        assert space.prior[a] == pytest.approx(
            math.log10(space.rules[a].prob) + lm.score(single) - lm.score(SOURCE), abs=1e-9)
    assert [space.prior[a] for a in space.order] == sorted(space.prior, reverse=True)


def test_log_reward_and_progressive_widening(lm):
    table = table_of(EXAMPLE1_RULES)
    search = TreeSearch(SearchInputs(SOURCE, table, lm, options=TUNED))
    base = search.space.source_lm
    assert search.finals.reward(base) == 0.5
    assert search.finals.reward(base - 5.0) == pytest.approx(0.25)
    assert search.finals.reward(base - 30.0) == 0.0 and search.finals.reward(base + 30.0) == 1.0
    root = search.root()
    assert search.offered(root) == 1
    root.visits = 15
    assert search.offered(root) == min(len(root.actions), 4)  # ceil(1 * 16 ** 0.5)


def test_greedy_playout_takes_only_positive_prior_actions(lm):
    rng = random.Random(2)
    source = tuple(rng.choice(WORDS) for _ in range(10))
    table = random_table(rng, source, rules=30)
    search = TreeSearch(SearchInputs(source, table, lm, options=dataclasses.replace(TUNED, playout="greedy")))
    root = search.root()
    space = search.space
    for _ in range(50):
        taken = search.playouts.greedy(root)
        assert all(space.prior[a] > 0 for a in taken)
        covered = 0
        for a in taken:
            assert not covered & space.masks[a]
            covered |= space.masks[a]


def test_start_from_adds_a_known_final(lm):
    table = table_of(EXAMPLE1_RULES)
    target = tuple("the beast runs after the kitten".split())
    results = generate_mcpg(SOURCE, table, lm, nbest=100, max_episodes=1, start_from=[target])
    scores = {tokens: score for tokens, score, _ in results}
    assert scores[target] == pytest.approx(TrueScorer(table, lm).score(SOURCE, target).log10_score, abs=1e-9)
    with pytest.raises(ValueError):
        generate_mcpg(SOURCE, table, lm, profile="fast")
