"""MCPG's tree search: states, selection by UCB1-tuned + RAVE, episodes, max backup, commits (seed 003 §3).

One *episode* walks from the root. In a state already in the tree the action
maximising the index below is taken. The first state not yet in the tree is
added to it, a playout (:mod:`core.engine.decoders.mcpg.playouts`) completes the
episode, and the final state's objective (:mod:`core.engine.decoders.mcpg.finals`) is
backed up: every (state, action) pair of the episode keeps the *maximum*
reward reached through it, not the mean (seed 003 §3, "our main adaptation").
After ``episodes_per_step`` episodes the root action with the best value is
applied for good and sampling restarts from the new root, whose subtree is
kept (:meth:`TreeSearch.descend`).

States. True-score mode: two rule sets giving one sentence are one state (the
tree is a transposition table keyed by the sentence; a state keeps the
coverage of the first path that reached it), and every state but the root
may stop (seed 003 §2: "each state, except the root, can be a final state").
After a commit seed 003 §3 says only that "a sampling is restarted from the
new root state"; keeping statistics across it is ours. The prune keeps the
states covering the committed coverage, so a new root first reached through
other spans leaves the tree with its children (their statistics are rebuilt
when reached again), and a committed state so pruned restarts as a new state.
Translator mode: a state is its set of applied actions, and stop exists only
once they cover the whole sentence.

Selection in a tree state ``s`` with ``n(s)`` visits, for action ``a`` with
``n(s,a)`` visits, rewards ``X_1..X_n(s,a)``:

* UCB1-tuned (Auer, Cesa-Bianchi & Fischer 2002, §4):
  ``V(s,a) = (1/n(s,a)) sum X_i^2 - Xbar^2 + sqrt(2 ln n(s) / n(s,a))`` and the
  bonus ``sqrt( ln n(s) / n(s,a) * min(1/4, V(s,a)) )``; ``Xbar`` (the mean)
  only enters the variance: the value term is MCPG's max.
* RAVE (Gelly & Silver 2007, §5): ``Q_RAVE(s,a)`` is the best reward of the
  episodes that went through ``s`` and took ``a`` at any later step (all moves
  as first), blended with ``Q(s,a)`` (the max reward through ``(s,a)``) as
  ``(1 - beta) Q(s,a) + beta Q_RAVE(s,a)``, ``beta = sqrt(k / (3 n(s) + k))`` (``k``: :mod:`~core.engine.decoders.mcpg.options`).
* Index: ``(1 - beta) Q(s,a) + beta Q_RAVE(s,a) + bonus`` (``Q_RAVE = Q``
  while ``a`` was never seen after ``s``); the highest index wins, ties to the
  earlier action. An action never taken from ``s`` has an infinite UCB index,
  so each is tried once first, in a fixed order: stop first (it evaluates the
  state's own sentence), then the action order of
  :class:`~core.engine.decoders.mcpg.actions.ActionSpace`. With progressive widening
  only the first ``ceil(c (n(s)+1)^alpha)`` actions are offered.

Statistics are numpy arrays per state, allocated only once a state is
selected from. Beside the maxima ``best`` and ``rave_best`` a state keeps
their rewards (``best_reward``, ``rave_reward``), computed once by
:meth:`~core.engine.decoders.mcpg.finals.Finals.reward` when a maximum changes: the
compiled search (``core/engine/native/mcpg_core.cpp``) computes the same
scalar ``pow``, so both index the same bits (numpy's vectorised ``power``
differs from the C library's in the last bit on some inputs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from parastudio.core.engine.decoders.mcpg.actions import STOP, ActionSpace
from parastudio.core.engine.decoders.mcpg.finals import UNSEEN, Finals
from parastudio.core.engine.decoders.mcpg.options import SearchInputs
from parastudio.core.engine.decoders.mcpg.pace import Pace
from parastudio.core.engine.decoders.mcpg.playouts import Playouts

Key = tuple  # a state's key: its sentence (true-score mode) or its applied actions (translator mode)


class Node:
    """A tree state: applied actions, coverage bit mask, available actions and their statistics.

    Statistics live in numpy arrays indexed like ``actions``, allocated when
    the state is first selected from (a leaf only keeps its RAVE maxima).
    Untried actions are always a suffix of ``actions`` (they are tried in
    order), so ``tried`` is a count.
    """

    __slots__ = ("applied", "covered", "actions", "pool", "reach", "visits", "tried", "local",
                 "count", "reward_sum", "reward_squares", "best", "rave_best", "pending_rave",
                 "best_reward", "rave_reward")

    def __init__(self, applied: tuple[int, ...], covered: int, actions: list[int], pool: list[int], reach: int):
        self.applied = applied
        self.covered = covered
        self.actions = actions  # STOP first when allowed, then the fixed order
        self.pool = pool  # the same without STOP, for playouts
        self.reach = reach  # union of the pool's masks: all blocked once covered
        self.visits = 0
        self.tried = 0
        self.local: np.ndarray | None = None
        self.pending_rave: dict[int, float] = {}

    def allocate(self, action_count: int, reward: Callable[[float], float]) -> None:
        """Create the statistics arrays (and ``local``, action -> slot) once the state is selected from."""
        size = len(self.actions)
        # local[a] = index of action a in self.actions, -1 if unavailable; STOP (-1) uses the last slot.
        self.local = np.full(action_count + 1, -1, dtype=np.int64)
        self.local[np.array(self.actions, dtype=np.int64)] = np.arange(size)
        self.count = np.zeros(size)
        self.reward_sum = np.zeros(size)
        self.reward_squares = np.zeros(size)
        self.best = np.full(size, -np.inf)  # max log10 objective through (s, a)
        self.rave_best = np.full(size, np.nan)  # max log10 objective, all moves as first
        self.best_reward = np.zeros(size)  # reward of best (-inf -> 0)
        self.rave_reward = np.full(size, np.nan)  # reward of rave_best
        for a, value in self.pending_rave.items():
            i = self.local[a]
            if i >= 0:
                self.rave_best[i] = value
                self.rave_reward[i] = reward(value)
        self.pending_rave = {}


@dataclass
class MCPGStats:
    """What one search did (for benchmarks and provenance)."""

    episodes: int = 0
    commits: int = 0
    restarts: int = 0
    tree_states: int = 0
    distinct_finals: int = 0
    seconds: float = 0.0
    polish_moves: int = 0  # sentences the polish tried
    polish_gains: int = 0  # moves it kept
    polish_seconds: float = 0.0
    committed: list[str] = field(default_factory=list)  # "start-end: rule" per committed root action
    episodes_per_commit: list[int] = field(default_factory=list)  # the episodes each decision had (eta)
    cut: bool = False  # the time cap stopped the search or the polish before its count

    def provenance(self) -> dict:
        """What a candidate records of its search: all counts, so equal for equal runs (no seconds)."""
        return {"episodes_per_decision": list(self.episodes_per_commit), "decisions": list(self.committed),
                "episodes": self.episodes, "restarts": self.restarts, "polish_moves": self.polish_moves,
                "cut": self.cut}


class TreeSearch:
    """The Monte-Carlo tree search of one sentence over its :class:`ActionSpace`."""

    def __init__(self, inputs: SearchInputs):
        self.inputs = inputs
        self.options = inputs.options
        self.translator = inputs.translator
        self.k = float(inputs.exploration)  # the RAVE equivalence parameter
        self.space = ActionSpace(inputs)
        self.finals = Finals(inputs, self.space)
        self.playouts = Playouts(inputs, self.space)
        self.stats = MCPGStats()
        self.tree: dict[Key, Node] = {}

    # -- states -------------------------------------------------------------------------------
    def state(self, applied: tuple[int, ...], covered: int, is_root: bool = False) -> Node:
        """A new tree state: its free actions in order, stop first where it may stop."""
        pool, reach = self.space.free(covered)
        if self.translator:
            actions = [STOP] if covered == self.space.full_mask else list(pool)
        else:
            actions = list(pool) if is_root else [STOP] + pool
        return Node(applied, covered, actions, pool, reach)

    def root(self) -> Node:
        return self.state((), 0, True)

    def key(self, applied: tuple[int, ...]) -> Key:
        return self.space.sentence(applied) if not self.translator else applied

    def child(self, node: Node, action: int) -> tuple[tuple[int, ...], int]:
        """The applied actions and coverage after taking ``action`` from ``node``."""
        return tuple(sorted(node.applied + (action,))), node.covered | self.space.masks[action]

    # -- selection ----------------------------------------------------------------------------
    def offered(self, node: Node) -> int:
        """How many of ``node``'s actions are open (all of them without progressive widening)."""
        widening = self.options.widening
        if widening is None:
            return len(node.actions)
        c, alpha = widening
        return min(len(node.actions), max(1, math.ceil(c * (node.visits + 1) ** alpha)))

    def select(self, node: Node) -> int:
        """Local index of the action to take from ``node`` (module docstring: the index)."""
        if node.local is None:
            node.allocate(len(self.space), self.finals.reward)
        if node.tried < self.offered(node):
            # An untried action has an infinite UCB index: try them in order.
            node.tried += 1
            return node.tried - 1
        tried = node.tried
        log_n = math.log(node.visits) if node.visits > 1 else 0.0
        beta = math.sqrt(self.k / (3.0 * node.visits + self.k))
        count = node.count[:tried]
        q = node.best_reward[:tried]
        q_rave = node.rave_reward[:tried]
        q_rave = np.where(np.isnan(q_rave), q, q_rave)
        mean = node.reward_sum[:tried] / count
        variance = node.reward_squares[:tried] / count - mean * mean + np.sqrt(2.0 * log_n / count)
        index = (1.0 - beta) * q + beta * q_rave + np.sqrt(log_n / count * np.minimum(0.25, variance))
        return int(np.argmax(index))

    # -- one episode --------------------------------------------------------------------------
    def episode(self, tree: dict[Key, Node], root_key: Key, root: Node) -> tuple[float, float]:
        """Run one episode from ``root`` and back it up; returns the final state's ``(objective, reward)``."""
        path: list[tuple[Node, int | None]] = []  # (state, local index of the action taken)
        on_path = {root_key}
        node = root
        playout: list[int] = []
        applied = root.applied
        self.playouts.rng.start(self.stats.episodes)  # draws are a function of (seed, episode, draw)
        while node.actions:
            index = self.select(node)
            path.append((node, index))
            action = node.actions[index]
            if action == STOP:
                break
            applied, covered = self.child(node, action)
            key = self.key(applied)
            child = tree.get(key)
            if child is None:
                child = tree[key] = self.state(applied, covered)
                self.stats.tree_states += 1
                playout = self.playouts.run(child, action)
                path.append((child, None))
                applied = tuple(sorted(applied + tuple(playout)))
                break
            if key in on_path:
                break  # rewrites led back to an earlier sentence: stop here
            on_path.add(key)
            node = child
            applied = child.applied
        objective, reward = self.finals.evaluate(applied)
        # Backup: max reward per (state, action); RAVE: all moves as first.
        later: list[int] = list(playout)
        for node, index in reversed(path):
            node.visits += 1
            if index is not None:
                action = node.actions[index]
                if action != STOP:
                    later.append(action)
                node.count[index] += 1.0
                node.reward_sum[index] += reward
                node.reward_squares[index] += reward * reward
                if objective > node.best[index]:
                    node.best[index] = objective
                    node.best_reward[index] = reward
            if node.local is None:
                pending = node.pending_rave
                for a in later:
                    if objective > pending.get(a, UNSEEN):
                        pending[a] = objective
            else:
                local, rave, rave_reward = node.local, node.rave_best, node.rave_reward
                for a in later:
                    i = local[a]
                    if i >= 0 and not objective <= rave[i]:  # NaN (unseen) compares False
                        rave[i] = objective
                        rave_reward[i] = reward
        self.stats.episodes += 1
        return objective, reward

    def best_root_action(self, root: Node) -> int | None:
        """The root action with the best maximum (ties: more visits, then order); None before any try."""
        if root.local is None or root.tried == 0:
            return None
        best = max(range(root.tried), key=lambda i: (root.best[i], root.count[i], -i))
        return root.actions[best]

    # -- commits ------------------------------------------------------------------------------
    def rerank(self, root: Node) -> None:
        """``rerank_on_commit``: re-score the root's free actions in its sentence and reorder its untried ones.

        States created from now on, the playouts and the root's untried
        actions use the new order (:meth:`ActionSpace.rerank`). Tried actions
        keep their statistics and places.
        """
        space = self.space
        space.rerank(root.applied, root.pool)
        rank = space.order_rank
        tried = root.tried
        head, rest = root.actions[:tried], root.actions[tried:]
        rest = sorted(rest, key=lambda a: -1 if a == STOP else rank[a])
        root.actions = head + rest
        root.pool = sorted(root.pool, key=rank.__getitem__)
        if root.local is not None:
            pending = {a: (root.rave_best[i], root.rave_reward[i]) for i, a in enumerate(root.actions[tried:], tried)
                       if not np.isnan(root.rave_best[i])}
            # Untried entries have no count/best yet; only their RAVE maxima move with them.
            root.local[:] = -1
            root.local[np.array(root.actions, dtype=np.int64)] = np.arange(len(root.actions))
            root.rave_best[tried:] = np.nan
            root.rave_reward[tried:] = np.nan
            for a, (value, value_reward) in pending.items():
                root.rave_best[root.local[a]] = value
                root.rave_reward[root.local[a]] = value_reward

    def descend(self, pace: Pace, out_of_limits: Callable[[], bool]) -> bool:
        """One MCPG run from the source: sample, commit when ``pace`` says so; True if a limit ended it.

        It also ends when stop is committed or the root has nothing left to do.
        """
        space, stats = self.space, self.stats
        root = self.root()
        root_key = self.key(())
        tree = self.tree = {root_key: root}  # self.tree: the current tree, for tests and inspection
        since_commit = 0
        while root.actions:
            self.episode(tree, root_key, root)
            since_commit += 1
            if out_of_limits():
                return True
            if pace.due(since_commit, len(space.source) - root.covered.bit_count()):
                pace.committed(since_commit)
                since_commit = 0
                action = self.best_root_action(root)
                stats.commits += 1
                if action is None or action == STOP:
                    stats.committed.append("stop")
                    return False
                stats.committed.append(f"{space.starts[action]}-{space.ends[action]}: {space.rules[action]}")
                applied, covered = self.child(root, action)
                root_key = self.key(applied)
                root = tree.get(root_key)
                if root is None:
                    # The committed state was pruned at an earlier commit: its sentence was first reached by
                    # another rule set, whose coverage did not include that commit's. It restarts as a new state.
                    root = tree[root_key] = self.state(applied, covered)
                    stats.tree_states += 1
                if self.translator and root.actions == [STOP]:
                    return False
                if self.options.rerank_on_commit and self.options.needs_priors:
                    self.rerank(root)
                # Keep only the new root's subtree (supersets of its coverage).
                tree = self.tree = {key: node for key, node in tree.items() if node.covered & covered == covered}
        return False
