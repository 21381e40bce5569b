"""MCPG's commit pace: the seeds' fixed eta, and eta paced to a time budget (core/engine/mcpg/pace.py)."""

from __future__ import annotations

from hypothesis import given, strategies as st

from core.engine.mcpg import MCPGStats, generate_mcpg
from core.engine.mcpg.pace import BudgetPace, FixedPace
from core.engine.paraphrase_table import ParaphraseTable
from core.engine.rules import Rule


class FakeClock:
    """A clock the test advances by hand (the pace only reads it)."""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_fixed_pace_commits_every_eta_episodes():
    pace = FixedPace(3)
    assert [pace.due(n, uncovered=5) for n in range(1, 5)] == [False, False, True, True]


@given(budget=st.floats(0.5, 50.0), words=st.integers(1, 30), stop=st.booleans())
def test_budget_pace_gives_each_decision_left_an_equal_share(budget, words, stop):
    clock = FakeClock()
    pace = BudgetPace(clock.now + budget, stop_is_a_decision=stop, clock=clock)
    decisions = words + (1 if stop else 0)
    share = budget / decisions
    clock.now += share * 0.999
    assert not pace.due(10, uncovered=words)
    clock.now += share * 0.002
    assert pace.due(10, uncovered=words)


def test_budget_pace_commits_every_decision_before_the_deadline():
    """Worst case, one word covered per commit: the last commit still falls inside the budget."""
    clock = FakeClock()
    deadline = clock.now + 10.0
    pace = BudgetPace(deadline, stop_is_a_decision=True, clock=clock)
    uncovered, commits = 6, 0
    while clock.now < deadline and commits < 7:
        clock.now += 0.01
        if pace.due(1, uncovered):
            pace.committed(1)
            commits += 1
            uncovered = max(0, uncovered - 1)
    assert commits == 7  # six words and the stop
    assert clock.now <= deadline + 1e-9


def small_table() -> ParaphraseTable:
    rules = [("a", "x", 0.5), ("b", "y", 0.4), ("c", "z", 0.3), ("a b", "w", 0.2), ("d", "v", 0.6)]
    return ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in rules)


def test_faithful_profile_commits_under_a_time_budget():
    """The paper's eta = 100,000 would never commit in 0.3 s; the paced faithful search does."""
    stats = MCPGStats()
    results = generate_mcpg("a b c d".split(), small_table(), None, mode="translator", profile="faithful",
                            time_budget=0.3, stats=stats)
    assert results
    assert stats.commits >= 1
    assert stats.episodes_per_commit and max(stats.episodes_per_commit) < 100_000


def test_an_explicit_eta_overrides_the_pace():
    stats = MCPGStats()
    generate_mcpg("a b c d".split(), small_table(), None, mode="translator", profile="faithful",
                  time_budget=5.0, episodes_per_step=7, stats=stats)
    assert stats.episodes_per_commit and set(stats.episodes_per_commit) == {7}
