"""MCPG's commit pace: eta is a count of episodes, never a share of a clock (core/engine/decoders/mcpg/pace.py)."""

from __future__ import annotations

from parastudio.core.engine.decoders.mcpg import DEFAULT_EPISODES_PER_STEP, MCPGStats, generate_mcpg
from parastudio.core.engine.decoders.mcpg.pace import FixedPace
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule


def test_fixed_pace_commits_every_eta_episodes():
    pace = FixedPace(3)
    assert [pace.due(n, uncovered=5) for n in range(1, 5)] == [False, False, True, True]


def small_table() -> ParaphraseTable:
    rules = [("a", "x", 0.5), ("b", "y", 0.4), ("c", "z", 0.3), ("a b", "w", 0.2), ("d", "v", 0.6)]
    return ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in rules)


def test_the_faithful_profile_commits_after_its_count_whatever_the_time_cap():
    """No pacing to the clock: a cap that never runs out leaves eta and the output as they are without one."""
    runs = []
    for cap in (None, 300.0):
        stats = MCPGStats()
        results = generate_mcpg("a b c d".split(), small_table(), None, mode="translator", profile="faithful",
                                time_budget=cap, stats=stats)
        runs.append((results, stats))
    (results, stats), (capped, capped_stats) = runs
    assert results and results == capped
    assert stats.episodes_per_commit == capped_stats.episodes_per_commit
    assert set(stats.episodes_per_commit) == {DEFAULT_EPISODES_PER_STEP}  # translator mode: its last commit fills
    assert not stats.cut and not capped_stats.cut


def test_an_explicit_eta_is_the_episodes_of_every_decision():
    stats = MCPGStats()
    generate_mcpg("a b c d".split(), small_table(), None, mode="translator", profile="faithful",
                  time_budget=300.0, episodes_per_step=7, stats=stats)
    assert stats.episodes_per_commit and set(stats.episodes_per_commit) == {7}
    assert stats.episodes == 7 * stats.commits
