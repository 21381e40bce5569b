"""MCPG's faster and incremental computations (tuned profile) against full recomputation."""

import dataclasses
import random

import pytest
from conftest import WORDS
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from parastudio.core.engine.decoders.mcpg import (
    FAITHFUL,
    STOP,
    TUNED,
    ActionSpace,
    Finals,
    SearchInputs,
    TreeSearch,
    generate_mcpg,
)
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule


def fixture_ok(examples):
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def lm(tiny_lm):
    return LanguageModel(tiny_lm["binary"])


def random_case(seed, words=8, length=(3, 12), rules=20, top=0.9):
    """A source over ``words`` words and ``rules`` rules on it (probabilities up to ``top``), with the
    random generator that made them, to draw more from."""
    rng = random.Random(seed)
    source = tuple(rng.choice(WORDS[:words]) for _ in range(rng.randint(*length)))
    entries = []
    for _ in range(rules):
        start = rng.randrange(len(source))
        end = min(len(source), start + rng.randint(1, 3))
        target = tuple(rng.choice(WORDS[:words]) for _ in range(rng.randint(0 if rng.random() < 0.1 else 1, 3)))
        entries.append(Rule(tuple(source[start:end]), target, round(rng.uniform(0.01, top), 3)))
    return rng, source, ParaphraseTable(entries)


def random_free_sequence(rng, space):
    """A random order of disjoint actions of ``space``, as the tree and playouts apply them."""
    covered, sequence = 0, []
    actions = list(range(len(space)))
    rng.shuffle(actions)
    for a in actions:
        if not space.masks[a] & covered and rng.random() < 0.5:
            sequence.append(a)
            covered |= space.masks[a]
    return sequence


@fixture_ok(60)
@given(st.integers(0, 10**6))
def test_forward_true_score_dp_equals_the_backward_dp_and_truescorer(lm, seed):
    rng, source, table = random_case(seed)
    space = ActionSpace(SearchInputs(source, table, lm, options=FAITHFUL))
    forward = Finals(SearchInputs(source, table, lm, options=dataclasses.replace(FAITHFUL, true_score_dp="forward")),
                     space)
    backward = Finals(SearchInputs(source, table, lm, options=FAITHFUL), space)
    scorer = TrueScorer(table, lm)
    targets = [space.sentence(random_free_sequence(rng, space)) for _ in range(6)]
    targets += [tuple(rng.choice(WORDS[:8]) for _ in range(rng.randint(1, 12))) for _ in range(6)]  # mostly unreachable
    for target in targets:
        got, full = forward.true_rules_log10(target), backward.true_rules_log10(target)
        expected = scorer.score(source, target)
        if not expected.reachable:
            assert got == full == float("-inf")
        else:
            # Same maximum; the sums run in the opposite order, so equal to rounding.
            assert got == pytest.approx(full, abs=1e-9)
            assert got == pytest.approx(expected.rules_log10, abs=1e-9)


@fixture_ok(60)
@given(st.integers(0, 10**6), st.sampled_from(["true-score", "translator"]))
def test_spliced_sentences_equal_the_full_rebuild(lm, seed, mode):
    rng, source, table = random_case(seed)
    space = ActionSpace(SearchInputs(source, table, lm, mode=mode, options=TUNED))
    sentence, offset, applied = list(source), space.offsets(()), []
    for a in random_free_sequence(rng, space):
        sentence = space.rewrite(sentence, offset, a)
        space.shift(offset, a)
        applied.append(a)
        assert tuple(sentence) == space.sentence(applied)
        assert offset == space.offsets(applied)  # any application order gives the same offsets


@fixture_ok(40)
@given(st.integers(0, 10**6))
def test_vectorised_state_equals_the_plain_filter(lm, seed):
    rng, source, table = random_case(seed, length=(3, 20), rules=40)
    search = TreeSearch(SearchInputs(source, table, lm, options=TUNED))
    space = search.space
    covered = 0
    for a in random_free_sequence(rng, space):
        covered |= space.masks[a]
    node = search.state((), covered)
    expected_pool = [a for a in space.order if not space.masks[a] & covered]
    assert node.pool == expected_pool and all(type(a) is int for a in node.pool)
    reach = 0
    for a in expected_pool:
        reach |= space.masks[a]
    assert node.reach == reach
    assert node.actions == [STOP] + expected_pool
    node.allocate(len(space), search.finals.reward)
    for i, a in enumerate(node.actions):
        assert node.local[a] == i
    assert sum(1 for a in range(len(space)) if node.local[a] >= 0) == len(expected_pool)


@fixture_ok(40)
@given(st.integers(0, 10**6), st.sampled_from(["true-score", "translator"]))
def test_context_playout_takes_only_rewrites_that_gain_in_context(lm, seed, mode):
    rng, source, table = random_case(seed, length=(4, 12), rules=30)
    search = TreeSearch(SearchInputs(source, table, lm, mode=mode, seed=seed, options=TUNED))
    space = search.space
    root = search.root()
    start = [a for a in random_free_sequence(rng, space) if not space.identity[a]][:1]
    node = root
    if start:
        node = search.state(*search.child(root, start[0]))
    taken = search.playouts.run(node, start[0] if start else None)
    covered, applied = node.covered, list(node.applied)
    score = lm.score(space.sentence(applied)) + sum(space.terms[a] for a in applied)
    pending = None  # (score before, first action) of a pair whose first rewrite lost
    for a in taken:
        assert not space.masks[a] & covered  # disjoint from what is already rewritten
        covered |= space.masks[a]
        applied.append(a)
        if space.identity[a]:
            continue  # translator mode fills the rest with identities at the end
        after = lm.score(space.sentence(applied)) + sum(space.terms[b] for b in applied)
        if pending is not None:
            before, first = pending
            # The pair's second rewrite touches the first and the two together gain.
            assert space.starts[a] == space.ends[first] or space.ends[a] == space.starts[first]
            assert after > before
            pending = None
        elif after <= score:
            assert TUNED.context_pairs > 0
            pending = (score, a)
        score = after
    assert pending is None  # a losing rewrite is always followed by its partner
    if mode == "translator":
        assert covered == space.full_mask


@fixture_ok(30)
@given(st.integers(0, 10**6))
def test_rerank_scores_free_actions_in_the_root_sentence(lm, seed):
    rng, source, table = random_case(seed, length=(4, 12), rules=30)
    search = TreeSearch(SearchInputs(source, table, lm, seed=seed, options=TUNED))
    space = search.space
    root = search.root()
    tree = {search.key(()): root}
    for _ in range(30):
        search.episode(tree, search.key(()), root)
    action = search.best_root_action(root)
    assume(action is not None)
    applied, covered = search.child(root, action)
    new_root = tree.get(search.key(applied)) or search.state(applied, covered)
    for _ in range(5):
        search.episode(tree, search.key(applied), new_root)
    tried_before = new_root.actions[: new_root.tried]
    stats_before = None if new_root.local is None else new_root.best[: new_root.tried].copy()
    search.rerank(new_root)
    applied = new_root.applied  # a state keeps the first path that reached its sentence
    base = lm.score(space.sentence(applied))
    for a in new_root.pool:
        expected = space.terms[a] + lm.score(space.sentence(applied + (a,))) - base
        assert space.prior[a] == pytest.approx(expected, abs=1e-9)
    assert [space.prior[a] for a in space.order] == sorted(space.prior, reverse=True)
    # Tried actions keep their places and statistics; the untried follow the new order.
    assert new_root.actions[: new_root.tried] == tried_before
    if stats_before is not None:
        assert list(new_root.best[: new_root.tried]) == list(stats_before)
        for i, a in enumerate(new_root.actions):
            assert new_root.local[a] == i
    untried = [a for a in new_root.actions[new_root.tried:] if a != STOP]
    rank = {a: i for i, a in enumerate(space.order)}
    assert untried == sorted(untried, key=rank.__getitem__)
    assert new_root.pool == sorted(new_root.pool, key=rank.__getitem__)


@pytest.mark.parametrize("option", [
    {"true_score_dp": "forward"}, {"playout": "context"}, {"rerank_on_commit": True},
    {"playout": "context", "context_neighbours": 0}, {"playout": "context", "context_neighbours": 8},
    {"playout": "context", "context_neighbours": 8, "context_pairs": 3}, {"restart_until_budget": True},
    {"polish": True, "polish_pairs": 3},
])
def test_each_option_alone_still_finds_the_brute_force_optimum(lm, option):
    from test_mcpg_search import exhaustive_best, random_table

    options = dataclasses.replace(FAITHFUL, action_order="prior", **option)
    for seed in range(6):
        rng = random.Random(seed)
        source = tuple(rng.choice(WORDS) for _ in range(rng.randint(3, 7)))
        table = random_table(rng, source)
        expected = exhaustive_best(source, table, lm)
        results = generate_mcpg(source, table, lm, max_episodes=2000, episodes_per_step=500, seed=seed,
                                profile=options)
        if expected is None:
            assert results == []
        else:
            assert results[0][1] == pytest.approx(expected[0], abs=1e-9)


def test_sentences_longer_than_62_words_use_the_plain_filter_and_agree(lm):
    rng = random.Random(9)
    source = tuple(rng.choice(WORDS) for _ in range(70))
    table = ParaphraseTable(Rule((w,), (v,), 0.5) for w, v in zip(WORDS[:10], WORDS[10:20]))
    search = TreeSearch(SearchInputs(source, table, lm, options=TUNED))
    space = search.space
    assert space.order_masks is None
    covered = space.masks[space.order[0]] | space.masks[space.order[-1]]
    node = search.state((), covered)
    assert node.pool == [a for a in space.order if not space.masks[a] & covered]
    results = generate_mcpg(source, table, lm, max_episodes=300, seed=1)
    assert results and results[0][0] != source
    assert results[0][1] == pytest.approx(TrueScorer(table, lm).score(source, results[0][0]).log10_score, abs=1e-9)


def test_restart_until_budget_uses_the_whole_episode_limit(lm):
    from conftest import EXAMPLE1_RULES

    from parastudio.core.engine.decoders.mcpg import MCPGStats

    table = ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in EXAMPLE1_RULES)
    source = tuple("the dog runs after the young cat".split())
    tuned, faithful, unlimited = MCPGStats(), MCPGStats(), MCPGStats()
    first = generate_mcpg(source, table, lm, episodes_per_step=50, max_episodes=400, stats=tuned)
    generate_mcpg(source, table, lm, episodes_per_step=50, max_episodes=400, stats=faithful, profile="faithful")
    generate_mcpg(source, table, lm, episodes_per_step=50, stats=unlimited,
                  profile=dataclasses.replace(TUNED, max_episodes=None))
    assert tuned.restarts >= 1 and tuned.episodes == 400
    assert tuned.committed.count("stop") == tuned.restarts
    assert faithful.restarts == 0 and faithful.episodes < 400 and faithful.committed[-1] == "stop"
    assert unlimited.restarts == 0  # no limit, no restart
    # Deterministic, and the finals of every descent compete.
    assert generate_mcpg(source, table, lm, episodes_per_step=50, max_episodes=400) == first
    assert first[0][1] >= generate_mcpg(source, table, lm, episodes_per_step=50,
                                        profile=dataclasses.replace(TUNED, max_episodes=None))[0][1]
