"""Seed 003 §4.3's reward as printed, R = min(p(f')/p(f) * prod p(f_i|f'_i) / p(f_i|f_i), 1), in both cores.

The reward is recomputed here by brute force from its definition: every tiling of a small source by its
actions (rules at places, identities for unchanged words), the LM's probabilities and the rules'
probabilities multiplied as printed, p(f_i|f_i) being the probability of the most probable paraphrase of
f_i (seed 003 §4.3: identity probabilities are "biased" to it). Both cores must give each final they record
that reward, and their best final must be the best tiling.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from test_mcpg_native import fixture_ok, lm, random_case  # noqa: F401 (lm is a fixture)

from parastudio.core.engine.decoders.mcpg import FAITHFUL, SearchInputs, TreeSearch, generate_mcpg, native
from parastudio.core.engine.decoders.mcpg.pace import FixedPace

pytestmark = pytest.mark.skipif(not native.available(), reason="the compiled MCPG core is not built")


def tilings(space):
    """Every set of actions covering each source word exactly once (translator mode's final states)."""
    n = len(space.source)

    def extend(position):
        if position == n:
            yield ()
            return
        for a in range(len(space)):
            if space.starts[a] == position:
                for rest in extend(space.ends[a]):
                    yield (a, *rest)

    return list(extend(0))


def printed_reward(space, table, lm, applied):
    """R as seed 003 prints it, in probabilities (not the cores' log10 sums)."""
    ratio = 10.0 ** lm.score(space.sentence(applied)) / 10.0 ** lm.score(space.source)
    for a in applied:
        if not space.identity[a]:
            rule = space.rules[a]
            ratio *= rule.prob / table.best_probability(rule.source)
    return min(ratio, 1.0)


@fixture_ok(25)
@given(st.integers(0, 10**6), st.sampled_from(["python", "native"]))
def test_each_final_gets_the_printed_reward_and_the_best_tiling_is_found(lm, seed, core):
    source, table = random_case(seed, words=5, length=(2, 4), rules=6)
    inputs = SearchInputs(source, table, lm, mode="translator", translator_reward="seed003", options=FAITHFUL,
                          seed=seed)
    search = TreeSearch(inputs)
    space = search.space
    every = [t for t in tilings(space) if space.sentence(t) != space.source]
    assume(every and not all(space.identity))
    if core == "native":
        compiled = native.NativeSearch(search, 300, 3000)
        compiled.run(None)
        finals = [(objective, tuple(applied)) for _, objective, _, applied in compiled.core.finals()]
    else:
        search.descend(FixedPace(300), lambda: search.stats.episodes >= 3000)
        finals = [(objective, applied) for objective, _, applied in search.finals.by_sentence.values()]
    assert finals
    for objective, applied in finals:
        reward = min(1.0, 10.0 ** (objective - space.source_lm))
        assert math.isclose(reward, printed_reward(space, table, lm, applied), rel_tol=1e-9, abs_tol=1e-300)
    best = max(printed_reward(space, table, lm, t) for t in every)
    found = max(min(1.0, 10.0 ** (objective - space.source_lm)) for objective, _ in finals)
    assert math.isclose(found, best, rel_tol=1e-9, abs_tol=1e-300)


def test_the_reward_option_reaches_both_cores_the_same(lm):
    """generate_mcpg(mode="translator", translator_reward="seed003"): the same outputs from either core, and
    not those of the channel reward on a case where p(f_i|f_i) < 1 changes the ranking."""
    outputs = {}
    for seed in range(40):
        source, table = random_case(seed, words=5, length=(3, 6), rules=10)
        runs = {(core, reward): generate_mcpg(source, table, lm, mode="translator", translator_reward=reward,
                                             profile=FAITHFUL, nbest=3, episodes_per_step=50, max_episodes=600,
                                             seed=seed, core=core)
                for core in ("python", "native") for reward in ("channel", "seed003")}
        assert runs["python", "seed003"] == runs["native", "seed003"]
        assert runs["python", "channel"] == runs["native", "channel"]
        outputs[seed] = runs
    assert any(runs["native", "seed003"] != runs["native", "channel"] for runs in outputs.values())
