"""The compiled MCPG search (core/engine/native/mcpg_core.cpp) against the Python reference (issue 24).

Same inputs and seed: the same random numbers, language model and true scores, the same tree (every state's
visits, tries, counts, reward sums, maxima and RAVE maxima, to the bit) and the same outputs and search record.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from test_mcpg_incremental import fixture_ok, lm  # noqa: F401 (lm is a fixture)
from test_mcpg_incremental import random_case as random_case_with_generator

from parastudio.core.engine.decoders.mcpg import (
    FAITHFUL,
    TUNED,
    MCPGStats,
    SearchInputs,
    TreeSearch,
    generate_mcpg,
    native,
)
from parastudio.core.engine.decoders.mcpg.counter_random import MASK, draw
from parastudio.core.engine.decoders.mcpg.pace import FixedPace
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable

pytestmark = pytest.mark.skipif(not native.available(), reason="the compiled MCPG core is not built")

ROOT = Path(__file__).resolve().parent.parent
# The seeds' search and each departure the compiled core runs as well.
VARIANTS = {
    "faithful": FAITHFUL,
    "widening": dataclasses.replace(FAITHFUL, widening=(1.0, 0.5)),
    "log reward": dataclasses.replace(FAITHFUL, reward="log", reward_scale=3.0),
    "prior order": dataclasses.replace(FAITHFUL, action_order="prior"),
    "restarts": dataclasses.replace(FAITHFUL, restart_until_budget=True),
}
# (mode, translator reward): the true-score mode, and translator mode with the channel reward and with seed
# 003 §4.3's reward as printed (each rule over p(s_i|s_i)).
MODES = [("true-score", "channel"), ("translator", "channel"), ("translator", "seed003")]


def random_case(seed, words=6, length=(2, 10), rules=18):
    """A source over few words (so rewrites meet again: transpositions, returns to an earlier sentence)."""
    return random_case_with_generator(seed, words, length, rules, top=1.0)[1:]


def hexes(values):
    return [float(v).hex() for v in values]


def python_node(node):
    """What the core's snapshot holds of a state, floats as hex (NaN included)."""
    if node.local is None:
        return (tuple(node.applied), node.covered, node.visits, node.tried, None, None, None, None, None, None,
                {a: v.hex() for a, v in node.pending_rave.items()})
    return (tuple(node.applied), node.covered, node.visits, node.tried, list(node.actions), hexes(node.count),
            hexes(node.reward_sum), hexes(node.reward_squares), hexes(node.best), hexes(node.rave_best), {})


def native_node(item, core, translator):
    key, applied, covered, visits, tried, actions, *arrays, pending = item
    floats = [None if values is None else hexes(values) for values in arrays]
    key = tuple(key) if translator else core.sentence(key)  # translator mode: a state is its actions
    return key, (tuple(applied), covered, visits, tried, actions, *floats, {a: v.hex() for a, v in pending.items()})


def trees(search, core):
    python = {key: python_node(node) for key, node in search.tree.items()}
    compiled = dict(native_node(item, core, search.translator) for item in core.core.tree())
    return python, compiled


def episodes_from_the_source(inputs, episodes, enough=lambda search: True):
    """Both searches run ``episodes`` episodes from the source, no commit (cases with no rewrite, or that
    ``enough`` turns down after the Python search, are assumed away before the compiled one runs)."""
    search = TreeSearch(inputs)
    assume(len(search.space) > 0 and not all(search.space.identity))
    compiled = native.NativeSearch(TreeSearch(inputs), 1, None)
    root = search.root()
    search.tree = {search.key(()): root}
    for _ in range(episodes):
        search.episode(search.tree, search.key(()), root)
    assume(enough(search))
    compiled.core.run_episodes(episodes)
    return search, compiled


@fixture_ok(40)
@given(st.integers(-(2**63), 2**64 - 1), st.integers(0, 10**9), st.integers(0, 200))
def test_the_core_draws_the_reference_numbers(seed, episode, index):
    assert native._mcpg_core.draw(seed & MASK, episode, index) == draw(seed, episode, index)


@fixture_ok(40)
@given(st.integers(0, 10**6), st.booleans())
def test_lm_and_true_score_are_the_same_bits(lm, seed, with_lm):
    """KenLM's C++ model summed as the kenlm module sums, and best_rules_log10's DP, on reachable sentences."""
    source, table = random_case(seed)
    search = TreeSearch(SearchInputs(source, table, lm if with_lm else None, options=FAITHFUL))
    space = search.space
    assume(len(space) > 0)
    compiled = native.NativeSearch(search, 10, 10)
    rng = random.Random(seed)
    for _ in range(10):
        covered, applied = 0, []
        for a in rng.sample(range(len(space)), len(space)):
            if not space.masks[a] & covered and rng.random() < 0.5:
                applied.append(a)
                covered |= space.masks[a]
        sentence = space.sentence(applied)
        ids = compiled.to_ids(sentence)
        assert compiled.core.lm_score(ids).hex() == space.lm_score(sentence).hex()
        assert compiled.core.true_rules_log10(ids).hex() == search.finals.true_rules_log10(sentence).hex()


@fixture_ok(60)
@given(st.integers(0, 10**6), st.sampled_from(sorted(VARIANTS)), st.sampled_from([0.0, 1.0, 1000.0]),
       st.sampled_from([(3, 1500), (18, 150)]), st.booleans(), st.sampled_from(MODES), st.data())
def test_episodes_build_the_same_tree(lm, seed, variant, k, size, with_lm, mode, data):
    """Episodes from the source, no commit: every state of both trees the same, pending RAVE maxima included.

    Few rules and many episodes too: only once an action's count is large against ln n(s) does the
    UCB1-tuned variance bound fall under its cap of 1/4 (module docstring of core/engine/decoders/mcpg/search.py)."""
    rules, most = size
    episodes = data.draw(st.integers(1, most))
    source, table = random_case(seed, rules=rules)
    inputs = SearchInputs(source, table, lm if with_lm else None, options=VARIANTS[variant], exploration=k, seed=seed,
                          mode=mode[0], translator_reward=mode[1])
    search, compiled = episodes_from_the_source(inputs, episodes)
    python, core = trees(search, compiled)
    assert python == core
    assert search.stats.tree_states == compiled.core.tree_states
    assert search.finals.by_sentence == {compiled.sentence(ids): (objective, model, tuple(applied))
                                         for ids, objective, model, applied in compiled.core.finals()}


@fixture_ok(50)
@given(st.integers(0, 10**6), st.sampled_from(sorted(VARIANTS)), st.integers(1, 40), st.integers(1, 400),
       st.booleans(), st.sampled_from(MODES))
def test_a_descent_commits_the_same_actions_and_keeps_the_same_tree(lm, seed, variant, eta, limit, with_lm, mode):
    """One descent with commits every eta episodes: the same decisions and, at its end, the same (pruned) tree."""
    source, table = random_case(seed, length=(2, 14), rules=30)
    options = dataclasses.replace(VARIANTS[variant], restart_until_budget=False)
    inputs = SearchInputs(source, table, lm if with_lm else None, options=options, seed=seed, mode=mode[0],
                          translator_reward=mode[1])
    search = TreeSearch(inputs)
    assume(len(search.space) > 0 and not all(search.space.identity))
    pace = FixedPace(eta)
    search.descend(pace, lambda: search.stats.episodes >= limit)
    other = TreeSearch(inputs)
    compiled = native.NativeSearch(other, eta, limit)
    etas = compiled.run(None)
    assert (other.stats.episodes, other.stats.commits, other.stats.committed, etas) == \
        (search.stats.episodes, search.stats.commits, search.stats.committed, pace.etas)
    python, core = trees(search, compiled)
    assert python == core


@fixture_ok(60)
@given(st.integers(0, 10**6), st.sampled_from(sorted(VARIANTS)), st.integers(1, 50), st.integers(1, 600),
       st.integers(1, 5), st.booleans(), st.sampled_from(MODES))
def test_generate_gives_the_same_outputs_and_record(lm, seed, variant, eta, limit, nbest, with_lm, mode):
    source, table = random_case(seed, length=(2, 14), rules=30)
    outcomes = []
    for core in ("python", "native"):
        stats = MCPGStats()
        results = generate_mcpg(source, table, lm if with_lm else None, profile=VARIANTS[variant], nbest=nbest,
                                episodes_per_step=eta, max_episodes=limit, seed=seed, stats=stats, core=core,
                                mode=mode[0], translator_reward=mode[1])
        outcomes.append((results, stats.provenance(), stats.tree_states, stats.distinct_finals, stats.commits))
    assert outcomes[0] == outcomes[1]


def test_settings_the_core_does_not_run_are_named():
    assert native.unsupported(FAITHFUL, "true-score") is None
    why = native.unsupported(TUNED, "true-score")
    assert "context playout" in why and "polish" in why
    assert native.unsupported(FAITHFUL, "translator") is None
    source, table = random_case(1)
    with pytest.raises(ValueError, match="uniform playout"):
        generate_mcpg(source, table, None, profile=TUNED, core="native")


@pytest.fixture(scope="module")
def demo():
    table_path, lm_path, test = (ROOT / "evaldata/demo" / name for name in ("paraphrase-table.gz", "lm.bin", "test.en"))
    if not (table_path.exists() and lm_path.exists() and test.exists()):
        pytest.skip("evaldata/demo missing")
    verses = [tuple(line.split()) for line in test.read_text(encoding="utf-8").splitlines() if line.strip()][:3]
    return verses, ParaphraseTable.load(table_path), LanguageModel(lm_path)


@pytest.mark.parametrize("mode", MODES)
def test_demo_verses_give_the_same_outputs_and_record(demo, mode):
    """The demo's first verses (24 to 28 words, the real table and 5-gram LM): the seeds' search, both cores."""
    verses, table, lm = demo
    for verse in verses:
        outcomes = []
        for core in ("python", "native"):
            stats = MCPGStats()
            results = generate_mcpg(verse, table, lm, profile=FAITHFUL, nbest=5, episodes_per_step=400,
                                    max_episodes=2000, seed=5, stats=stats, core=core, time_budget=None,
                                    mode=mode[0], translator_reward=mode[1])
            outcomes.append((results, stats.provenance(), stats.tree_states, stats.distinct_finals))
        assert outcomes[0] == outcomes[1]
        assert outcomes[0][0] and outcomes[0][1]["decisions"]


def _generate(argv, tmp_path, text):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "parastudio", "generate", *argv], input=text, capture_output=True,
                          text=True, cwd=tmp_path, env=env)


def test_generate_core_flag_runs_either_search_and_records_it(example1_table_path, tiny_lm, tmp_path):
    """``generate --core native|python``: the same candidates, the core in params; settings the compiled search
    does not run are refused with one line (exit 2)."""
    import json

    common = ["--system", "mcpg-true", "--profile", "faithful", "--table", str(example1_table_path), "--lm",
              str(tiny_lm["binary"]), "--episodes-per-step", "40", "--max-episodes", "400", "--nbest", "3", "--json"]
    text = "the young cat sat after the dog\nthe dog saw the young cat\n"
    runs = {}
    for core in ("native", "python"):
        done = _generate([*common, "--core", core], tmp_path, text)
        assert done.returncode == 0, done.stderr
        runs[core] = [json.loads(line) for line in done.stdout.splitlines()]
    assert runs["native"] and len(runs["native"]) == len(runs["python"])
    for native_row, python_row in zip(runs["native"], runs["python"]):
        assert native_row["params"].pop("core") == "native" and python_row["params"].pop("core") == "python"
        assert native_row == python_row
    default = _generate(common, tmp_path, text)
    assert [json.loads(line)["params"]["core"] for line in default.stdout.splitlines()][0] == "native"
    refused = _generate([*common[:3], "tuned", *common[4:], "--core", "native"], tmp_path, text)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "use --core python" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1


@pytest.fixture
def final_limit(monkeypatch):
    """Both searches trim their finals at the same small limit (finals.py's _CACHE_LIMIT and the core's)."""
    from parastudio.core.engine.decoders.mcpg import finals

    def set_limit(limit):
        monkeypatch.setattr(finals, "_CACHE_LIMIT", limit)
        native._mcpg_core._set_final_limit(limit)

    before = native._mcpg_core._final_limit()
    yield set_limit
    native._mcpg_core._set_final_limit(before)


@pytest.mark.parametrize("mode", MODES)
def test_trimming_the_finals_keeps_the_same_best_in_both_cores(demo, mode, final_limit):
    """Past the finals' limit both searches keep the best 1,000 (objective, model, then the words), as η =
    1,000,000 runs do at 200,000 finals: on a demo verse with the limit at 1,100 the trim happens several times
    (fewer finals are left than without it) and both cores keep the same outputs, record and tree."""
    verse = demo[0][1]
    table, lm = demo[1], demo[2]

    def run(core):
        stats = MCPGStats()
        results = generate_mcpg(verse, table, lm, profile=FAITHFUL, nbest=5, episodes_per_step=3000,
                                max_episodes=6000, seed=7, stats=stats, core=core, time_budget=None,
                                mode=mode[0], translator_reward=mode[1])
        return results, stats.provenance(), stats.tree_states, stats.distinct_finals

    untrimmed = run("native")
    final_limit(1100)
    python, compiled = run("python"), run("native")
    assert untrimmed[3] > 1100 > python[3]  # the limit was crossed and the finals trimmed
    assert python == compiled
