"""The compiled MCPG core's flat tables of states and finals (core/engine/native/mcpg_arena.hh) across their
growth and pruning: on cases with hundreds of states (the slot arrays double at 32, 64, 128, ... entries and are
rebuilt at each commit), the same tree, finals and record as the Python reference, to the bit."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from test_mcpg_incremental import fixture_ok, lm  # noqa: F401 (lm is a fixture)
from test_mcpg_native import MODES, episodes_from_the_source, random_case, trees

from parastudio.core.engine.decoders.mcpg import FAITHFUL, SearchInputs, TreeSearch, native
from parastudio.core.engine.decoders.mcpg.pace import FixedPace

pytestmark = pytest.mark.skipif(not native.available(), reason="the compiled MCPG core is not built")


@fixture_ok(25)
@given(st.integers(0, 10**6), st.integers(300, 900), st.sampled_from(MODES))
def test_a_tree_of_hundreds_of_states_is_the_reference_tree(lm, seed, episodes, mode):
    source, table = random_case(seed, words=12, length=(8, 14), rules=40)
    inputs = SearchInputs(source, table, lm, options=FAITHFUL, seed=seed, mode=mode[0], translator_reward=mode[1])
    # past the tables' first two growths
    search, compiled = episodes_from_the_source(
        inputs, episodes, enough=lambda s: len(s.tree) > 64 and len(s.finals.by_sentence) > 64)
    python, core = trees(search, compiled)
    assert python == core
    assert search.finals.by_sentence == {compiled.sentence(ids): (objective, model, tuple(applied))
                                         for ids, objective, model, applied in compiled.core.finals()}


@fixture_ok(25)
@given(st.integers(0, 10**6), st.integers(40, 200), st.sampled_from(MODES))
def test_commits_prune_a_large_tree_as_the_reference_does(lm, seed, eta, mode):
    """Each commit rebuilds the slots with the new root's subtree; later episodes must find those states."""
    source, table = random_case(seed, words=12, length=(8, 14), rules=40)
    options = dataclasses.replace(FAITHFUL, restart_until_budget=False)
    inputs = SearchInputs(source, table, lm, options=options, seed=seed, mode=mode[0], translator_reward=mode[1])
    search = TreeSearch(inputs)
    assume(len(search.space) > 0 and not all(search.space.identity))
    limit = 4 * eta
    pace = FixedPace(eta)
    search.descend(pace, lambda: search.stats.episodes >= limit)
    assume(search.stats.commits >= 2 and search.stats.tree_states > 64)
    other = TreeSearch(inputs)
    compiled = native.NativeSearch(other, eta, limit)
    etas = compiled.run(None)
    assert (other.stats.episodes, other.stats.commits, other.stats.committed, other.stats.tree_states, etas) == \
        (search.stats.episodes, search.stats.commits, search.stats.committed, search.stats.tree_states, pace.etas)
    python, core = trees(search, compiled)
    assert python == core
