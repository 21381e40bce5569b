"""RAVE in MCPG's selection (seed 003 §3: "the UCB-Tunned formula ... associated with the RAVE heuristic
(Gelly and Silver, 2007)"; the blend and beta in :mod:`core.engine.decoders.mcpg.search`'s docstring).

Two checks a broken RAVE cannot pass: the statistics it keeps (an action's best reward over every episode that
took it at any step, "all moves as first"), on a search whose episodes are fixed by hand, and the selection it
changes: with ``k = 0`` (RAVE switched off, beta = 0) the index is UCB1-tuned over Q alone.
"""

import dataclasses
import itertools
import math

import numpy as np
import pytest

from parastudio.core.engine.decoders.mcpg import FAITHFUL, SearchInputs, TreeSearch
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule

SOURCE = ("the", "dog", "runs", "after", "the", "cat")
# Three rules on disjoint spans, most probable first (FAITHFUL tries actions in that order).
RULES = [("the dog", "a beast", 0.6), ("runs", "walks", 0.5), ("cat", "kitten", 0.4)]
# Playouts that take nothing: every episode's final is exactly the actions its tree path took.
NO_PLAYOUT = dataclasses.replace(FAITHFUL, playout="greedy", playout_take=0.0)


@pytest.fixture(scope="module")
def lm(tiny_lm):
    return LanguageModel(tiny_lm["binary"])


def table():
    return ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in RULES)


def objectives_by_rule_set(lm):
    """log10 true score (rules x LM) of the sentence each non-empty rule set gives, from the true scorer."""
    scorer = TrueScorer(table(), lm)
    found = {}
    for size in (1, 2, 3):
        for chosen in itertools.combinations(range(len(RULES)), size):
            words = list(SOURCE)
            for i in sorted(chosen, key=lambda i: -SOURCE.index(RULES[i][0].split()[0])):
                source, target, _ = RULES[i]
                start = next(s for s in range(len(words)) if tuple(words[s:s + len(source.split())]) == tuple(source.split()))
                words[start:start + len(source.split())] = target.split()
            found[frozenset(RULES[i][0] for i in chosen)] = scorer.score(SOURCE, words).log10_score
    return found


def test_rave_keeps_the_best_reward_of_every_episode_that_took_the_action_at_any_step(lm):
    search = TreeSearch(SearchInputs(SOURCE, table(), lm, options=NO_PLAYOUT, exploration=1000.0))
    space = search.space
    by_rules = objectives_by_rule_set(lm)
    assert len(set(by_rules.values())) == len(by_rules)  # an objective names its rule set
    rule_of_action = {a: " ".join(space.rules[a].source) for a in range(len(space)) if not space.identity[a]}
    root = search.root()
    tree = {search.key(()): root}
    episodes = []  # (first root action, rule sources of the final, objective)
    credited_later = 0  # checks in which an action's Q_RAVE is above its Q
    for _ in range(60):
        before = None if root.local is None else root.count.copy()
        objective, _ = search.episode(tree, search.key(()), root)
        first = root.actions[int(np.flatnonzero(root.count != (0 if before is None else before))[0])]
        rules = next(rules for rules, value in by_rules.items() if value == objective)
        episodes.append((first, rules, objective))
        for i, a in enumerate(root.actions[:root.tried]):
            q = max(value for taken, _, value in episodes if taken == a)
            q_rave = max(value for _, rules, value in episodes if rule_of_action[a] in rules)
            assert root.best[i] == q
            assert root.rave_best[i] == q_rave
            credited_later += q_rave > q
    # The root tries its three actions once each first (empty playouts): one-rule sentences, in order.
    assert [rules for _, rules, _ in episodes[:3]] == [frozenset([r[0]]) for r in RULES]
    # The case RAVE exists for: an action credited with an episode that took it at a later step.
    assert credited_later >= 1


def _node_with(search, best, rave, visits=10):
    """The root with every action tried ``visits / len`` times and equal reward moments, so the UCB1-tuned
    bonus is the same for each and only Q and Q_RAVE tell them apart."""
    root = search.root()
    root.allocate(len(search.space), search.finals.reward)
    n = len(root.actions)
    root.tried, root.visits = n, visits
    root.count[:] = visits / n
    root.reward_sum[:] = 0.3 * visits / n
    root.reward_squares[:] = 0.1 * visits / n
    root.best[:] = best
    root.rave_best[:] = rave
    reward = search.finals.reward
    root.best_reward[:] = [reward(value) for value in root.best]
    root.rave_reward[:] = [np.nan if np.isnan(value) else reward(value) for value in root.rave_best]
    return root


@pytest.mark.parametrize("k, unseen, expected", [(0.0, 0.0, 0), (1000.0, 0.0, 1), (1.0, 0.0, 0), (30.0, 0.0, 1),
                                                  (1000.0, 0.65, 2)])
def test_switching_rave_off_selects_on_q_alone(lm, k, unseen, expected):
    """Index = (1 - beta) Q + beta Q_RAVE + bonus, beta = sqrt(k / (3 n(s) + k)); k = 0 switches RAVE off.

    Log reward R = 1/2 + (objective - log10 P_LM(source)) / (2 L), L = 10, so the numbers are by hand:
    action 0 has Q = 0.4 and Q_RAVE = Q; action 1 has Q = 0.2 and Q_RAVE = 0.6. With n(s) = 10:
    k = 0 -> beta 0, 0.4 against 0.2; k = 1000 -> beta 0.985, 0.4 against 0.594; k = 1 -> beta 0.180,
    0.4 against 0.272; k = 30 -> beta 0.707, 0.4 against 0.483. Action 2 was never taken at a later step, so
    its Q_RAVE is its Q (``unseen``): at 0 it loses; at 0.65 it beats 0.594 under any beta."""
    options = dataclasses.replace(NO_PLAYOUT, reward="log", reward_scale=10.0)
    search = TreeSearch(SearchInputs(SOURCE, table(), lm, options=options, exploration=k))
    base = search.space.source_lm
    n = len(search.root().actions)
    assert n == 3
    # objective = base + 20 (R - 1/2)
    objective = {reward: base + 20.0 * (reward - 0.5) for reward in (0.4, 0.2, 0.6, unseen)}
    root = _node_with(search, [objective[0.4], objective[0.2], objective[unseen]],
                      [objective[0.4], objective[0.6], np.nan])
    beta = math.sqrt(k / (3 * root.visits + k))
    blend = [(1 - beta) * 0.4 + beta * 0.4, (1 - beta) * 0.2 + beta * 0.6, unseen]
    assert int(np.argmax(blend)) == expected  # the hand computation agrees with the expectation
    assert search.select(root) == expected


def test_rave_of_every_state_with_random_playouts(lm):
    """The same rule for every state of the tree, with the seed's random playouts: a state's Q_RAVE(a) is the best
    objective of the episodes that went through it and applied ``a`` at any later step (in the tree or in the
    playout). A leaf keeps its maxima until it is first selected from, then they move into its statistics."""
    search = TreeSearch(SearchInputs(SOURCE, table(), lm, options=FAITHFUL, exploration=1000.0, seed=4))
    space = search.space
    by_rules = objectives_by_rule_set(lm)
    rule_of_action = {a: " ".join(space.rules[a].source) for a in range(len(space)) if not space.identity[a]}
    root = search.root()
    tree = {search.key(()): root}
    through: dict = {}  # state key -> objectives and rule sets of the episodes through it
    checked_leaves = 0
    for _ in range(80):
        visits = {key: node.visits for key, node in tree.items()}
        objective, _ = search.episode(tree, search.key(()), root)
        rules = next(rules for rules, value in by_rules.items() if value == objective)
        for key, node in tree.items():
            if node.visits > visits.get(key, 0):
                through.setdefault(key, []).append((rules, objective))
        for key, node in tree.items():
            if node.local is None:
                continue
            for i, a in enumerate(node.actions):
                if a not in rule_of_action:
                    continue  # stop
                seen = [value for rules, value in through[key] if rule_of_action[a] in rules]
                if seen:
                    assert node.rave_best[i] == max(seen)
                    checked_leaves += key != search.key(()) and i >= node.tried
                else:
                    assert np.isnan(node.rave_best[i])
    assert checked_leaves > 0  # untried actions of inner states: maxima that came from playouts only
