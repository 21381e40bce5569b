"""MCPG: Monte-Carlo paraphrase generation (seed 003 §2-4.3, seed 000 §4.1).

The search space (seed 003 §2). A *state* is a partly transformed sentence
with its available actions. An *action* is a rule at a place (a
:class:`~core.engine.paraphrase_table.Match`); applying it rewrites that source span
and removes every action overlapping it, because a transformed part cannot be
transformed again. A *stop* action makes a state final. Seed 003 §2: "each
state, except the root, can be a final state", so the untouched source never
stops: a paraphrase differs from its source (seed 000 §1).

One *episode* (seed 003 §3) walks from the root. In a state already in the
tree the action maximising UCB1-tuned blended with RAVE is taken (formulas
below). The first state not yet in the tree is added to it, and from there
actions are drawn uniformly at random until stop is drawn: stop is one action
among the ``m`` available ones plus itself, so each draw stops with
probability ``1/(m+1)``. The final state's reward comes from the scoring
model, and every (state, action) pair of the episode keeps the *maximum*
reward reached through it, not the mean (seed 003 §3, "our main adaptation").
After ``episodes_per_step`` episodes the root action with the best value is
applied for good and sampling restarts from the new root (its subtree is
kept). The search ends when stop is committed, the root has nothing left to
do, ``max_episodes`` episodes were run, or ``time_budget`` seconds passed;
whatever ends it, the result is the best final state seen so far (anytime).

Two modes (seed 000 §4.1):

* ``"true-score"``: any state may stop with parts unchanged. The reward is the
  exact true score ``Z*_t`` of the final sentence (:mod:`core.engine.truescore`), so
  two rule sets giving one sentence are one state: the tree is a
  transposition table keyed by the sentence. The state keeps the coverage of
  the first path that reached it. Rules whose target equals their source are
  left out (they lead back to the same state).
* ``"translator"``: rules must cover the whole sentence, unchanged words by
  identity actions (one per word, probability 1 as :mod:`core.engine.scoring`'s
  channel model has it); stop exists only once everything is covered. A state
  is its set of applied actions and the reward is the channel score of that
  derivation, ``Z_t^I = P_LM(t) prod p(s_i|t_i)``. With
  ``translator_reward="seed003"`` it is seed 003 §4.3's biased reward instead
  (each applied rule divided by ``p(s_i|s_i)``, the probability of the most
  probable paraphrase of ``s_i``), as :func:`core.engine.scoring.mcpg_reward`.

Rewards in [0, 1]. UCB1-tuned assumes bounded rewards, so a final score ``Z``
is mapped as in seed 003 §4.3 (formula reconstructed from the garbled PDF):
``R = min(Z / Z_s, 1)`` with ``Z_s = P_LM(s)``, the source's own score (all
identity rules). The seed003 translator reward is exactly
:func:`core.engine.scoring.mcpg_reward`. A final sentence equal to the source gets
``R = 0`` and is never output. Values are stored as the max log10 score, so
the commit and the output order stay exact where ``R`` is capped at 1.

Selection in a tree state ``s`` with ``n(s)`` visits, for action ``a`` with
``n(s,a)`` visits, rewards ``X_1..X_n(s,a)``:

* UCB1-tuned (Auer, Cesa-Bianchi & Fischer 2002, §4):
  ``V(s,a) = (1/n(s,a)) sum X_i^2 - Xbar^2 + sqrt(2 ln n(s) / n(s,a))`` and the
  bonus ``sqrt( ln n(s) / n(s,a) * min(1/4, V(s,a)) )``; ``Xbar`` (the mean)
  only enters the variance: the value term is MCPG's max.
* RAVE (Gelly & Silver 2007, §5): ``Q_RAVE(s,a)`` is the best reward of the
  episodes that went through ``s`` and took ``a`` at any later step (all moves
  as first), blended with ``Q(s,a)`` (the max reward through ``(s,a)``) as
  ``(1 - beta) Q(s,a) + beta Q_RAVE(s,a)``, ``beta = sqrt(k / (3 n(s) + k))``.
* Index: ``(1 - beta) Q(s,a) + beta Q_RAVE(s,a) + bonus`` (``Q_RAVE = Q``
  while ``a`` was never seen after ``s``); the highest index wins, ties to the
  earlier action. An action never taken from ``s`` has an infinite UCB index,
  so each is tried once first, in a fixed order: stop first (it evaluates the
  state's own sentence), then higher rule probability, then source position.

Notation (seed 003 §3-4.3) -> names here: ``eta`` -> ``episodes_per_step``
(seed 000 §4.2 used 100,000; seed 003 §4.3 1,000,000); ``k`` -> ``exploration``
(the RAVE equivalence parameter that "balances the exploration/exploitation
compromise", seed 003 §4.3: 1,000); ``s_1, a_1, ..., s_T`` -> one episode;
``R`` -> ``reward``.

Profiles. ``profile="faithful"`` is the algorithm above as the seeds
describe it. ``profile="tuned"`` (the default) switches on the changes below,
each one a field of :class:`MCPGOptions`, so any mix can be measured
(benchmarks/bench_mcpg.py prints both profiles side by side):

* ``option_limit`` (tuned 20): at most 20 rules per source span, ranked like
  the beam decoder ranks its translation options (Moses ``ttable-limit``):
  ``log10 p + log10 P_LM(target alone)``. The true score still uses the
  whole table.
* ``action_order="prior"``: untried actions are tried best *prior* first
  instead of most probable rule first. The prior of action ``a`` is its
  one-step gain at the root, ``delta(a) = log10 Z(s with a applied) - log10
  P_LM(s)`` (its rule's ``log10 p`` plus the LM change), computed once per
  sentence (one LM call per action).
* ``widening=(c, alpha)`` (tuned ``(1, 0.5)``): progressive widening. A state
  visited ``n`` times offers only its first ``ceil(c (n+1)^alpha)`` actions
  in the order above; the rest wait. The faithful search tries every one of
  the ~600 actions of a 30-word sentence once before exploiting anything.
* ``reward="log"``: ``R = clip(1/2 + (log10 Z - log10 P_LM(s)) / (2 L), 0, 1)``
  with ``L = reward_scale`` (tuned 10): a linear map of the log score,
  ``L`` orders of magnitude either side of the source, instead of
  ``min(Z/P_LM(s), 1)``, whose values (1e-1 to 1e-3 for good paraphrases)
  are lost under the UCB1-tuned bonus, and which cannot tell apart outputs
  better than the source.
* ``playout="greedy"``: in a new state, walk the available actions best prior
  first and take each one whose prior is positive with probability
  ``playout_take``, then stop (translator mode: identities fill the
  rest) instead of uniform draws, which apply ~m/2 random rules and score
  near nothing.
* ``playout="context"`` (tuned, ``playout_take`` 0.8): the same walk, but an
  action is taken only if its gain *in the sentence built so far* is positive
  (one LM call per candidate, at most ``context_candidates``; candidates
  down to a prior of ``-context_margin``), and after each take the adjacent
  actions are re-scored (``context_neighbours`` per side) and the best
  positive one taken: randomised hill climbing that sees interacting
  neighbours (:meth:`_Search._context_playout`). ``context_pairs`` (tuned 3,
  with ``context_candidates`` 160): the best few *losing* neighbours are also
  tried together with their own next neighbour, and the pair is taken when
  it beats every single move (a chain "with its" + "pasture lands").
* ``rerank_on_commit``: after each commit the priors become one-step gains in
  the new root's sentence, and the order follows them.
* ``true_score_dp="forward"``: the true score's DP run forward from the
  start, touching only reachable cells (same maximum, ~2x faster).
* ``restart_until_budget``: a search that commits stop while time (or
  ``max_episodes``) is left starts again from the source, keeping the finals
  it found (the random stream goes on, so the new descent differs). Without
  a limit there is no restart.
* ``polish_share`` (tuned 0.25): the search stops at 75 % of the time budget
  and the rest goes to hill climbing on its best ``polish_finals`` (tuned 3)
  finals (:meth:`_Search.polish`). A single move puts one action in and
  drops the applied ones it overlaps (or, true-score mode, drops one applied
  action); a pair move puts in an action and one of its first
  ``polish_pairs`` (tuned 8) right neighbours; a triple move extends one of
  the ``polish_triples`` (tuned 30) best pairs that lost by less than
  ``polish_margin`` (1 log10) with a third neighbour on either side. Moves
  are tried in prior order and the first improvement is kept; pairs only
  when no single move improves, triples only when no pair does; the climb
  ends at a local optimum or with the budget. ``polish_slack`` (tuned 1
  log10) skips the true-score DP of a move whose own channel score is more
  than that below the current final (the true score is at least the
  channel score, and rarely much more). MCPG commits, and a transformed
  part is never transformed again (seed 003 §2), so a committed rule that
  overlaps a better one is otherwise final; on the 100 demo test verses
  most of the remaining gap to the beam was one such swap away, the rest
  chains of two or three adjacent rewrites.
* ``episodes_per_step`` (tuned 1,000, used when the caller passes none): at
  ~2,000-4,000 episodes/s the paper's eta = 100,000 never commits within a
  few seconds, so the whole budget is spent at the root.

Measured on the real pivot table (benchmarks/bench_mcpg.py, 6 test verses
of ~30 tokens): the greedy playout left a mean gap of -0.33 log10 to the
beam 1-best at 2 s; with the context playout, neighbours, pairs and
re-ranking on commit the gap is 0 from 1 s on (on 14 verses: -0.04 at 2 s,
12 of 14 reached). On the 100 demo test verses at 2 s that search still
stayed -0.031 below the beam's 1-best (92 reached); with the polish the
mean gap is -0.028 at 0.3 s (96), -0.007 at 1 s and 2 s (99: the one
left is a verse whose beam 1-best is the source itself, which MCPG never
outputs), and every verse reaches the beam's best paraphrase.

Independently of the profile, ``start_from`` sentences (e.g. the beam
decoder's 1-best) are evaluated first and compete as known finals; off unless
given.

Speed: true scores are cached by sentence (the transposition table's other
half). They come from the same edge index as
:class:`core.engine.truescore.TrueScorer` (its cached
:class:`~core.engine.truescore.SourceRuleIndex`), through the score-only
variants of its dynamic program (:func:`core.engine.truescore.best_rules_log10`
and ``best_rules_log10_forward``): :func:`core.engine.truescore.best_derivation`
also rebuilds the derivation and breaks ties, and measured 2.3x slower here
(8,200 vs 19,500 targets/s on 30-word sentences with 590 matching rules); derivations of the
outputs come from ``TrueScorer`` itself. Statistics are numpy arrays per state,
allocated only once a state is selected from; a uniform playout walks a lazily
shuffled order of the actions (exactly the uniform draw, see ``_playout``).
A new state's free actions are filtered with numpy bit masks (sentences up
to 62 words; longer ones use the plain loop), and its action -> slot map is a
numpy array: together ~1 ms -> ~0.05 ms per state on ~1,000 actions.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import asdict, dataclass, field, fields

import numpy as np
from typing import Literal, Sequence

from core.engine.derivation import Segment
from core.engine.lm import LanguageModel
from core.engine.paraphrase_table import ParaphraseTable
from core.engine.rules import identity_rule
from core.engine.truescore import TrueScorer, best_rules_log10, best_rules_log10_forward

Mode = Literal["true-score", "translator"]
Result = tuple[tuple[str, ...], float, tuple[Segment, ...]]

DEFAULT_EPISODES_PER_STEP = 100_000  # eta, seed 000 §4.2
DEFAULT_EXPLORATION = 1_000.0  # k, seed 003 §4.3
STOP = -1
_CACHE_LIMIT = 200_000  # distinct final sentences kept before trimming
_UNSEEN = float("-inf")


@dataclass(frozen=True)
class MCPGOptions:
    """Switchable departures from the seeds' MCPG (module docstring, "Profiles")."""

    option_limit: int | None = None  # rules per source span; None = all (faithful)
    action_order: Literal["probability", "prior"] = "probability"
    widening: tuple[float, float] | None = None  # (c, alpha): ceil(c (n+1)^alpha) actions offered
    reward: Literal["ratio", "log"] = "ratio"
    reward_scale: float = 10.0  # L of the log reward, in log10 units
    playout: Literal["uniform", "greedy", "context"] = "uniform"
    playout_take: float = 0.5
    episodes_per_step: int = 100_000  # eta when the caller gives none (seed 000 §4.2)
    rerank_on_commit: bool = False  # re-score priors in the new root's sentence after each commit
    restart_until_budget: bool = False  # when stop is committed early, search again from the source
    true_score_dp: Literal["backward", "forward"] = "backward"
    context_margin: float = 1.0  # context playout: candidates with prior > -margin (log10)
    context_candidates: int = 64  # context playout: at most this many candidates re-scored per playout
    context_neighbours: int = 0  # context playout: after a take, re-score this many adjacent actions per side
    neighbour_margin: float = 4.0  # ... those with prior > -neighbour_margin (log10)
    context_pairs: int = 0  # ... then try this many losing ones (gain > -pair_margin) with their own next one
    neighbours_of_pairs: int = 4  # ... among its first this many free neighbours
    pair_margin: float = 2.0
    polish_share: float = 0.0  # share of the time budget kept for hill climbing on the best finals
    polish_finals: int = 1  # ... on this many of them, best first
    polish_pairs: int = 0  # ... also inserting an action with one of its first this many right neighbours
    polish_triples: int = 0  # ... then extending this many of the best losing pairs by a third neighbour
    polish_margin: float = 1.0  # ... pairs at most this far below the current final (log10)
    polish_slack: float | None = None  # skip the true-score DP when the channel score is this far below (log10)

    def to_json(self) -> dict:
        return asdict(self)


FAITHFUL = MCPGOptions()
TUNED = MCPGOptions(option_limit=20, action_order="prior", widening=(1.0, 0.5), reward="log", playout="context",
                    playout_take=0.8, episodes_per_step=1_000, true_score_dp="forward", context_neighbours=8,
                    context_pairs=3, context_candidates=160, rerank_on_commit=True, restart_until_budget=True,
                    polish_share=0.25, polish_finals=3, polish_pairs=8, polish_triples=30,
                    polish_slack=1.0)
PROFILES = {"faithful": FAITHFUL, "tuned": TUNED}


class _Node:
    """A tree state: applied actions, coverage bit mask, available actions and their statistics.

    Statistics live in numpy arrays indexed like ``actions``, allocated when
    the state is first selected from (a leaf only keeps its RAVE maxima).
    Untried actions are always a suffix of ``actions`` (they are tried in
    order), so ``tried`` is a count.
    """

    __slots__ = ("applied", "covered", "actions", "pool", "reach", "visits", "tried", "local",
                 "count", "reward_sum", "reward_squares", "best", "rave_best", "pending_rave")

    def __init__(self, applied: tuple[int, ...], covered: int, actions: list[int], pool: list[int], reach: int):
        self.applied = applied
        self.covered = covered
        self.actions = actions  # STOP first when allowed, then the fixed order
        self.pool = pool  # the same without STOP, for playouts
        self.reach = reach  # union of the pool's masks: all blocked once covered
        self.visits = 0
        self.tried = 0
        self.local: dict[int, int] | None = None
        self.pending_rave: dict[int, float] = {}

    def allocate(self, action_count: int) -> None:
        size = len(self.actions)
        # local[a] = index of action a in self.actions, -1 if unavailable; STOP (-1) uses the last slot.
        self.local = np.full(action_count + 1, -1, dtype=np.int64)
        self.local[np.array(self.actions, dtype=np.int64)] = np.arange(size)
        self.count = np.zeros(size)
        self.reward_sum = np.zeros(size)
        self.reward_squares = np.zeros(size)
        self.best = np.full(size, -np.inf)  # max log10 objective through (s, a)
        self.rave_best = np.full(size, np.nan)  # max log10 objective, all moves as first
        for a, value in self.pending_rave.items():
            i = self.local[a]
            if i >= 0:
                self.rave_best[i] = value
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


class _Search:
    def __init__(self, source, table, lm, mode, exploration, translator_reward, seed, nbest=1,
                 options: MCPGOptions = FAITHFUL):
        if mode not in ("true-score", "translator"):
            raise ValueError(f"mode must be 'true-score' or 'translator', not {mode!r}")
        if translator_reward not in ("channel", "seed003"):
            raise ValueError(f"translator_reward must be 'channel' or 'seed003', not {translator_reward!r}")
        if options.reward not in ("ratio", "log") or options.playout not in ("uniform", "greedy", "context") \
                or options.action_order not in ("probability", "prior") \
                or options.true_score_dp not in ("backward", "forward"):
            raise ValueError(f"unknown MCPG option in {options}")
        self.source = source
        self.table = table
        self.lm = lm
        self.options = options
        self.translator = mode == "translator"
        self.k = float(exploration)
        self.nbest = nbest
        self.rng = random.Random(seed)
        self.scorer = TrueScorer(table, lm)
        self.source_lm = lm.score(source) if lm is not None else 0.0
        self._true_cache: dict[tuple[str, ...], float] = {}
        self.finals: dict[tuple[str, ...], tuple[float, float, tuple[int, ...]]] = {}
        self.stats = MCPGStats()
        self._log_reward = options.reward == "log"
        self._half_over_scale = 0.5 / options.reward_scale
        self._build_actions(translator_reward)

    # -- actions -----------------------------------------------------------
    def _ranked_matches(self):
        """The source's matches, at most ``option_limit`` per span ranked as the beam decoder ranks options."""
        matches = [m for m in self.table.matches(self.source) if m.rule.prob > 0.0]
        limit = self.options.option_limit
        if limit is None:
            return matches
        by_span: dict[tuple[int, int], list] = {}
        for match in matches:
            by_span.setdefault((match.start, match.end), []).append(match)
        kept = []
        for span in sorted(by_span):
            found = by_span[span]
            if len(found) > limit:
                estimate = {id(m): m.rule.log10_prob + (self._lm_fragment(m.rule.target)) for m in found}
                found = sorted(found, key=lambda m: -estimate[id(m)])[:limit]  # stable: ties keep table order
            kept.extend(found)
        return kept

    def _lm_fragment(self, words) -> float:
        if self.lm is None or not words:
            return 0.0
        return self.lm.score(words, bos=False, eos=False)

    def _build_actions(self, translator_reward):
        starts, ends, targets, rules, log_p, terms, identity = [], [], [], [], [], [], []
        for match in self._ranked_matches():
            rule = match.rule
            if not self.translator and rule.target == rule.source:
                continue  # a no-op: same sentence, same state
            starts.append(match.start)
            ends.append(match.end)
            targets.append(rule.target)
            rules.append(rule)
            lp = rule.log10_prob
            log_p.append(lp)
            if translator_reward == "seed003":
                best = self.table.best_probability(rule.source)
                lp -= math.log10(best if best is not None else 1.0)
            terms.append(lp)
            identity.append(False)
        self.identity_action: list[int] = []
        if self.translator:
            for i, word in enumerate(self.source):
                self.identity_action.append(len(starts))
                starts.append(i)
                ends.append(i + 1)
                targets.append((word,))
                rules.append(identity_rule(word))
                log_p.append(0.0)
                terms.append(0.0)
                identity.append(True)
        self.starts, self.ends, self.targets, self.rules = starts, ends, targets, rules
        self.log_p, self.terms, self.identity = log_p, terms, identity
        self.masks = [((1 << e) - (1 << s)) for s, e in zip(starts, ends)]
        self.full_mask = (1 << len(self.source)) - 1
        self.prior = self._priors() if self._needs_priors() else [0.0] * len(starts)
        self._order_actions()
        # For the true score: TrueScorer's cached edge index of this source.
        self._index = self.scorer.source_index(self.source)
        self._rules_at_most_one = self._index.rules_at_most_one()
        self._true_dp = best_rules_log10_forward if self.options.true_score_dp == "forward" else best_rules_log10

    def _order_actions(self) -> None:
        """The order untried actions are tried in (after stop), and the indexes that follow it."""
        starts, identity = self.starts, self.identity
        if self.options.action_order == "prior":
            self.order = sorted(range(len(starts)), key=lambda a: (-self.prior[a], starts[a], a))
        else:
            self.order = sorted(range(len(starts)), key=lambda a: (-self.log_p[a], starts[a], a))
        # Adjacent actions for the context playout, best prior first: by source start / end.
        self._starting_at: dict[int, list[int]] = {}
        self._ending_at: dict[int, list[int]] = {}
        margin = -self.options.neighbour_margin
        for a in sorted(range(len(starts)), key=lambda a: (-self.prior[a], starts[a], a)):
            if not identity[a] and self.prior[a] > margin:
                self._starting_at.setdefault(starts[a], []).append(a)
                self._ending_at.setdefault(self.ends[a], []).append(a)
        # numpy copies of the order and its masks for _state (masks must fit in int64).
        self.order_rank = {a: i for i, a in enumerate(self.order)}
        # For the polish's pair and triple moves: every rewrite by source start (and end), in the order above.
        self._next_actions: dict[int, list[int]] = {}
        self._previous_actions: dict[int, list[int]] = {}  # by source end
        for a in self.order:
            if not identity[a]:
                self._next_actions.setdefault(starts[a], []).append(a)
                self._previous_actions.setdefault(self.ends[a], []).append(a)
        self._order_array = np.array(self.order, dtype=np.int64)
        self._order_masks = (np.array([self.masks[a] for a in self.order], dtype=np.int64)
                             if len(self.source) <= 62 else None)

    def rerank(self, root: _Node) -> None:
        """``rerank_on_commit``: priors become one-step gains in the new root's sentence.

        After a commit the root is no longer the source, and the gain of a rule
        next to a committed rewrite can change sign (seed 003 leaves the
        order open). Every action still free at the root is re-scored in the
        root's sentence (one LM call each); states created from now on, the
        playouts and the root's untried actions use the new order. Tried
        actions keep their statistics and places.
        """
        sentence = list(self._sentence(root.applied))
        base = self._lm_score(sentence)
        offset = self._offsets(root.applied)
        prior = list(self.prior)
        for a in root.pool:
            if not self.identity[a]:
                prior[a] = self.terms[a] + self._lm_score(self._rewrite(sentence, offset, a)) - base
        self.prior = prior
        self._order_actions()
        # The root's untried suffix in the new order (their statistics are still empty).
        rank = self.order_rank
        tried = root.tried
        head, rest = root.actions[:tried], root.actions[tried:]
        rest = sorted(rest, key=lambda a: -1 if a == STOP else rank[a])
        root.actions = head + rest
        root.pool = sorted(root.pool, key=rank.__getitem__)
        if root.local is not None:
            pending = {a: root.rave_best[i] for i, a in enumerate(root.actions[tried:], tried)
                       if not np.isnan(root.rave_best[i])}
            # Untried entries have no count/best yet; only their RAVE maxima move with them.
            root.local[:] = -1
            root.local[np.array(root.actions, dtype=np.int64)] = np.arange(len(root.actions))
            root.rave_best[tried:] = np.nan
            for a, value in pending.items():
                root.rave_best[root.local[a]] = value

    def restore_priors(self, prior: list[float]) -> None:
        """Back to ``prior`` (the source's, before any :meth:`rerank`) and the order that follows it."""
        if self.prior != prior:
            self.prior = list(prior)
            self._order_actions()

    # Incremental sentences: a sentence reached by ``applied`` is kept with
    # ``offset[i]``, where source word ``i`` sits in it (meaningful for words
    # no applied action covers), so applying one more action is a splice, not
    # a rebuild. Tests check it against _sentence.
    def _offsets(self, applied) -> list[int]:
        offset = list(range(len(self.source) + 1))
        for a in applied:
            self._shift(offset, a)
        return offset

    def _shift(self, offset: list[int], a: int) -> None:
        """Update ``offset`` in place once action ``a`` is applied."""
        change = len(self.targets[a]) - (self.ends[a] - self.starts[a])
        if change:
            for i in range(self.ends[a], len(offset)):
                offset[i] += change

    def _rewrite(self, sentence: list[str], offset: list[int], a: int) -> list[str]:
        """``sentence`` with free action ``a`` applied (a new list)."""
        where = offset[self.starts[a]]
        return sentence[:where] + list(self.targets[a]) + sentence[where + self.ends[a] - self.starts[a]:]

    def _needs_priors(self) -> bool:
        return self.options.action_order == "prior" or self.options.playout in ("greedy", "context")

    def _priors(self) -> list[float]:
        """``delta(a)``: the objective's change when ``a`` alone is applied to the source (0 for identities)."""
        prior = []
        source, lm_source = self.source, self.source_lm
        for a in range(len(self.starts)):
            if self.identity[a]:
                prior.append(0.0)
                continue
            sentence = source[: self.starts[a]] + self.targets[a] + source[self.ends[a]:]
            lm_part = self.lm.score(sentence) if self.lm is not None else 0.0
            prior.append(self.terms[a] + lm_part - lm_source)
        return prior

    def _state(self, applied: tuple[int, ...], covered: int, is_root: bool) -> _Node:
        if self._order_masks is not None:
            # The same filter vectorised: ~50x faster on ~1,000 actions.
            free = (self._order_masks & covered) == 0
            pool = self._order_array[free].tolist()
            reach = int(np.bitwise_or.reduce(self._order_masks[free])) if pool else 0
        else:
            masks = self.masks
            pool = [a for a in self.order if not masks[a] & covered]
            reach = 0
            for a in pool:
                reach |= masks[a]
        if self.translator:
            actions = [STOP] if covered == self.full_mask else list(pool)
        else:
            actions = list(pool) if is_root else [STOP] + pool
        return _Node(applied, covered, actions, pool, reach)

    def _key(self, applied: tuple[int, ...]):
        return self._sentence(applied) if not self.translator else applied

    def _sentence(self, applied: Sequence[int]) -> tuple[str, ...]:
        out: list[str] = []
        position = 0
        source, starts, ends, targets = self.source, self.starts, self.ends, self.targets
        for a in sorted(applied, key=starts.__getitem__):
            out.extend(source[position : starts[a]])
            out.extend(targets[a])
            position = ends[a]
        out.extend(source[position:])
        return tuple(out)

    # -- rewards -----------------------------------------------------------
    def _lm_score(self, sentence: tuple[str, ...]) -> float:
        return self.lm.score(sentence) if self.lm is not None else 0.0  # LanguageModel keeps an LRU cache

    def _true_rules_log10(self, target: tuple[str, ...]) -> float:
        """Best ``sum log10 p`` over rule sets turning the source into ``target`` (-inf if none).

        A score-only variant of :func:`core.engine.truescore.best_derivation`
        (``true_score_dp`` picks which) on TrueScorer's cached index of this source.
        """
        return self._true_dp(target, self._index)

    def _evaluate(self, applied: tuple[int, ...]) -> tuple[float, float]:
        """(log10 objective, reward R) of the final state reached by ``applied``."""
        sentence = self._sentence(applied)
        if sentence == self.source:
            return _UNSEEN, 0.0
        if self.translator:
            lm_part = self._lm_score(sentence)
            objective = lm_part + sum(self.terms[a] for a in applied)
            model = lm_part + sum(self.log_p[a] for a in applied)
        else:
            objective = self._true_cache.get(sentence)
            if objective is None:
                if len(self._true_cache) >= _CACHE_LIMIT:
                    self._true_cache.clear()  # bounded memory on long runs; it only saves time
                objective = self._true_rules_log10(sentence) + self._lm_score(sentence)
                self._true_cache[sentence] = objective
            model = objective
        known = self.finals.get(sentence)
        if known is None or objective > known[0]:
            self.finals[sentence] = (objective, model, tuple(sorted(applied)))
            if len(self.finals) >= _CACHE_LIMIT:
                self._keep_best_finals()
        return objective, self._reward_of(objective)

    def add_known_final(self, sentence: Sequence[str]) -> None:
        """Score a given sentence (e.g. the beam's 1-best) as a candidate output (true-score mode)."""
        sentence = tuple(sentence)
        if self.translator or sentence == self.source:
            return
        objective = self._true_rules_log10(sentence)
        if objective == _UNSEEN:
            return
        objective += self._lm_score(sentence)
        known = self.finals.get(sentence)
        if known is None or objective > known[0]:
            self.finals[sentence] = (objective, objective, ())

    def best_finals(self, count: int) -> list[tuple[int, ...]]:
        """The applied actions of the ``count`` best finals the search reached (given sentences left out)."""
        found = sorted(((objective, sentence, applied) for sentence, (objective, _, applied) in self.finals.items()
                        if applied and objective != _UNSEEN), key=lambda item: (-item[0], item[1]))
        return [applied for _, _, applied in found[:count]]

    def _keep_best_finals(self) -> None:
        kept = sorted(self.finals.items(), key=lambda item: (-item[1][0], -item[1][1], item[0]))
        self.finals = dict(kept[: max(1000, 10 * self.nbest)])

    def _reward_of(self, log_value: float) -> float:
        gap = log_value - self.source_lm
        if self._log_reward:
            return min(1.0, max(0.0, 0.5 + gap * self._half_over_scale))
        return 1.0 if gap >= 0.0 else 10.0**gap

    def _rewards_of(self, log_values: np.ndarray) -> np.ndarray:
        gap = log_values - self.source_lm
        if self._log_reward:
            return np.clip(0.5 + gap * self._half_over_scale, 0.0, 1.0)  # -inf -> 0, NaN stays NaN
        return np.minimum(np.power(10.0, gap), 1.0)

    # -- selection -----------------------------------------------------------
    def _offered(self, node: _Node) -> int:
        """How many of ``node``'s actions are open (all of them without progressive widening)."""
        widening = self.options.widening
        if widening is None:
            return len(node.actions)
        c, alpha = widening
        return min(len(node.actions), max(1, math.ceil(c * (node.visits + 1) ** alpha)))

    def _select(self, node: _Node) -> int:
        """Local index of the action to take from ``node``."""
        if node.local is None:
            node.allocate(len(self.starts))
        if node.tried < self._offered(node):
            # An untried action has an infinite UCB index: try them in order.
            node.tried += 1
            return node.tried - 1
        tried = node.tried
        log_n = math.log(node.visits) if node.visits > 1 else 0.0
        beta = math.sqrt(self.k / (3.0 * node.visits + self.k))
        count = node.count[:tried]
        q = self._rewards_of(node.best[:tried])
        q_rave = self._rewards_of(node.rave_best[:tried])
        q_rave = np.where(np.isnan(q_rave), q, q_rave)
        mean = node.reward_sum[:tried] / count
        variance = node.reward_squares[:tried] / count - mean * mean + np.sqrt(2.0 * log_n / count)
        index = (1.0 - beta) * q + beta * q_rave + np.sqrt(log_n / count * np.minimum(0.25, variance))
        return int(np.argmax(index))

    # -- one episode -----------------------------------------------------------
    def _child(self, node: _Node, action: int) -> tuple[tuple[int, ...], int]:
        return tuple(sorted(node.applied + (action,))), node.covered | self.masks[action]

    def _playout(self, node: _Node, last: int | None = None) -> list[int]:
        """The random completion from a new state; ``last``: the tree action that led to it."""
        if self.options.playout == "context":
            return self._context_playout(node, last)
        return self._greedy_playout(node) if self.options.playout == "greedy" else self._uniform_playout(node)

    def _context_playout(self, node: _Node, last: int | None = None) -> list[int]:
        """Randomised first-improvement hill climbing, with gains scored in the current sentence.

        Walks the state's actions best prior first while the prior exceeds
        ``-context_margin``; each one still applicable is considered with
        probability ``playout_take`` and, when considered, taken if its gain
        *in the sentence built so far* is positive: ``log10 p`` (or the
        translator reward's term) plus the change of ``log10 P_LM`` of the
        whole current sentence. At most ``context_candidates`` gains are
        computed (one LM call each). Unlike the greedy playout, whose priors
        are one-step gains at the source, this sees how adjacent rewrites
        interact. With ``context_neighbours`` > 0, after each take (and first
        of all after ``last``, the tree action that led here) the actions that
        start where it ends, and those that end where it starts, are re-scored
        (the first ``context_neighbours`` free ones per side with prior above
        ``-neighbour_margin``) and the best positive one is taken, and so on
        from it: a rule that loses alone but wins next to another one ("; for"
        then "we have sinned against yahweh .", real data) is found. With
        ``context_pairs`` > 0 the best few neighbours that lose (by less than
        ``pair_margin``) are tried with each of their own first
        ``neighbours_of_pairs`` free neighbours on the same side, and a pair
        is taken when its total gain beats every single move there.
        Translator mode: identities fill the rest.
        """
        options = self.options
        take, floor, budget = options.playout_take, -options.context_margin, options.context_candidates
        rng_random = self.rng.random
        masks, prior, identity, terms = self.masks, self.prior, self.identity, self.terms
        starts, ends = self.starts, self.ends
        by_prior = options.action_order == "prior"
        covered = node.covered
        sentence = list(self._sentence(node.applied))
        current = self._lm_score(sentence)
        offset = self._offsets(node.applied)
        taken: list[int] = []

        rewrite, shift = self._rewrite, self._shift

        def gain(a: int) -> tuple[float, list[str], float]:
            candidate = rewrite(sentence, offset, a)
            score = self._lm_score(candidate)
            return terms[a] + score - current, candidate, score

        def apply(a: int, scored: tuple[float, list[str], float]) -> None:
            nonlocal sentence, current, covered
            taken.append(a)
            covered |= masks[a]
            sentence, current = scored[1], scored[2]
            shift(offset, a)

        def try_action(a: int) -> bool:
            scored = gain(a)
            if scored[0] <= 0.0:
                return False
            apply(a, scored)
            return True

        neighbours = options.context_neighbours
        pairs, pair_neighbours, pair_margin = options.context_pairs, options.neighbours_of_pairs, options.pair_margin

        def scan_neighbours(a: int) -> None:
            # Rewrites right next to a taken one: their gain in this context can
            # differ most from their prior (the pair "; for" + "we have sinned").
            nonlocal budget
            frontier = [a]
            while frontier and budget > 0:
                b = frontier.pop()
                for rightwards in (True, False):
                    side = self._starting_at.get(ends[b], ()) if rightwards else self._ending_at.get(starts[b], ())
                    # Best improvement among the side's first ``neighbours`` free actions ...
                    best, best_gain, tried, losers = None, 0.0, 0, []
                    for c in side:
                        if tried >= neighbours or budget <= 0:
                            break
                        if masks[c] & covered:
                            continue
                        tried += 1
                        budget -= 1
                        scored = gain(c)
                        if scored[0] > best_gain:
                            best, best_gain = [(c, scored)], scored[0]
                        elif scored[0] > -pair_margin:
                            losers.append((scored[0], c, scored))
                    # ... or a pair: a small loss followed by its own next neighbour.
                    losers.sort(key=lambda item: -item[0])
                    for first_gain, c, scored in losers[:pairs]:
                        after_c, score_c = scored[1], scored[2]
                        offset_c = offset[:]
                        shift(offset_c, c)
                        further = self._starting_at.get(ends[c], ()) if rightwards else \
                            self._ending_at.get(starts[c], ())
                        checked = 0
                        for d in further:
                            if checked >= pair_neighbours or budget <= 0:
                                break
                            if masks[d] & (covered | masks[c]):
                                continue
                            checked += 1
                            budget -= 1
                            both = rewrite(after_c, offset_c, d)
                            score_d = self._lm_score(both)
                            total = first_gain + terms[d] + score_d - score_c
                            if total > best_gain:
                                best, best_gain = [(c, scored), (d, (total - first_gain, both, score_d))], total
                    if best is not None:
                        for c, scored in best:
                            apply(c, scored)
                            frontier.append(c)

        if neighbours and last is not None and last != STOP and not identity[last]:
            scan_neighbours(last)
        for a in node.pool:
            if budget <= 0:
                break
            if prior[a] <= floor:
                if by_prior:
                    break
                continue
            if identity[a] or masks[a] & covered or rng_random() >= take:
                continue
            budget -= 1
            if try_action(a) and neighbours:
                scan_neighbours(a)
        if self.translator:
            for i, a in enumerate(self.identity_action):
                if not covered >> i & 1:
                    taken.append(a)
        return taken

    def _uniform_playout(self, node: _Node) -> list[int]:
        """Uniform random actions from ``node`` until stop (translator: until covered).

        Drawing uniformly among the available actions and stop at every step
        is the same as walking a uniformly random order of all the state's
        actions and stop, taking each action not blocked by an earlier one,
        until stop comes up: stop's place is uniform in ``0..m`` and the order
        is built lazily (Fisher-Yates), so a playout costs the draws it makes.
        """
        pool = node.pool[:]
        m = len(pool)
        rng_random = self.rng.random
        limit = m if self.translator else int(rng_random() * (m + 1))
        masks = self.masks
        covered = node.covered
        reach = node.reach
        taken: list[int] = []
        for i in range(limit):
            if covered & reach == reach:
                break  # every remaining action is blocked
            j = i + int(rng_random() * (m - i))
            a = pool[j]
            pool[j] = pool[i]
            if not masks[a] & covered:
                taken.append(a)
                covered |= masks[a]
        return taken

    def _greedy_playout(self, node: _Node) -> list[int]:
        """Best prior first, each action with a positive prior taken with probability ``playout_take``."""
        take = self.options.playout_take
        rng_random = self.rng.random
        masks, prior, identity = self.masks, self.prior, self.identity
        covered = node.covered
        taken: list[int] = []
        for a in node.pool:  # in prior order when action_order="prior"
            if prior[a] <= 0.0:
                if self.options.action_order == "prior":
                    break
                continue
            if identity[a] or masks[a] & covered:
                continue
            if rng_random() < take:
                taken.append(a)
                covered |= masks[a]
        if self.translator:
            for i, a in enumerate(self.identity_action):
                if not covered >> i & 1:
                    taken.append(a)
        return taken

    def episode(self, tree: dict, root_key, root: _Node) -> None:
        path: list[tuple[_Node, int | None]] = []  # (state, local index of the action taken)
        on_path = {root_key}
        node = root
        playout: list[int] = []
        applied = root.applied
        while node.actions:
            index = self._select(node)
            path.append((node, index))
            action = node.actions[index]
            if action == STOP:
                break
            applied, covered = self._child(node, action)
            key = self._key(applied)
            child = tree.get(key)
            if child is None:
                child = tree[key] = self._state(applied, covered, False)
                self.stats.tree_states += 1
                playout = self._playout(child, action)
                path.append((child, None))
                applied = tuple(sorted(applied + tuple(playout)))
                break
            if key in on_path:
                break  # rewrites led back to an earlier sentence: stop here
            on_path.add(key)
            node = child
            applied = child.applied
        objective, reward = self._evaluate(applied)
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
            if node.local is None:
                pending = node.pending_rave
                for a in later:
                    if objective > pending.get(a, _UNSEEN):
                        pending[a] = objective
            else:
                local, rave = node.local, node.rave_best
                for a in later:
                    i = local[a]
                    if i >= 0 and not objective <= rave[i]:  # NaN (unseen) compares False
                        rave[i] = objective
        self.stats.episodes += 1

    def best_root_action(self, root: _Node) -> int | None:
        """The root action with the best maximum (ties: more visits, then order)."""
        if root.local is None or root.tried == 0:
            return None
        best = max(range(root.tried), key=lambda i: (root.best[i], root.count[i], -i))
        return root.actions[best]

    # -- polish ------------------------------------------------------------
    def _insert(self, applied: frozenset[int], a: int) -> frozenset[int]:
        """``applied`` with ``a`` put in and the actions it overlaps dropped (translator: gaps filled by identities)."""
        mask, masks = self.masks[a], self.masks
        kept = [b for b in applied if not masks[b] & mask]
        if self.translator:
            dropped = 0
            for b in applied:
                if masks[b] & mask:
                    dropped |= masks[b]
            gaps = dropped & ~mask
            kept.extend(self.identity_action[i] for i in range(len(self.source)) if gaps >> i & 1)
        kept.append(a)
        return frozenset(kept)

    def _polish_value(self, applied: frozenset[int], floor: float) -> float:
        """The log10 objective of ``applied`` (recorded as a final), or -inf when it cannot beat ``floor``.

        True-score mode skips the dynamic program when the LM score alone
        (an upper bound while rule probabilities are at most 1) is at most
        ``floor``, and, with ``polish_slack``, when the channel score of
        ``applied`` itself (a lower bound) is more than the slack below it.
        """
        sentence = self._sentence(tuple(applied))
        if sentence == self.source:
            return _UNSEEN
        if not self.translator and sentence not in self._true_cache:
            lm_part = self._lm_score(sentence)
            if self._rules_at_most_one and lm_part <= floor:
                return _UNSEEN
            slack = self.options.polish_slack
            if slack is not None:
                log_p = self.log_p
                if lm_part + sum(log_p[a] for a in applied) + slack <= floor:
                    return _UNSEEN
        return self._evaluate(tuple(sorted(applied)))[0]

    def polish(self, applied: Sequence[int], out_of_time) -> None:
        """``polish_share``: first-improvement hill climbing from the final ``applied``.

        Moves, in prior order: put in one action (dropping the applied ones it
        overlaps), drop one applied action (true-score mode; in translator
        mode putting in an identity does that); when no single move
        improves, put in an action together with one of its first
        ``polish_pairs`` right neighbours; when no pair improves either,
        extend the ``polish_triples`` best pairs that lost by less than
        ``polish_margin`` with a third neighbour. Every sentence tried is a final
        like any other (:meth:`_evaluate`), so the output is the best of the
        search and the climb. Stops at a local optimum or when
        ``out_of_time()``.
        """
        current = frozenset(applied)
        best = self._polish_value(current, _UNSEEN)
        identity, pairs = self.identity, self.options.polish_pairs
        triples, margin = self.options.polish_triples, self.options.polish_margin
        singles = [a for a in self.order if not identity[a]] + (self.identity_action if self.translator else [])

        # The generators read ``current`` as it is when each move is built, so a kept move counts at once.
        def single_moves():
            # (candidate, source start, source end of the rewrites put in); the span matters for pairs only.
            for a in singles:
                if a not in current:
                    yield self._insert(current, a), self.starts[a], self.ends[a]
            if not self.translator:
                for r in sorted(current, key=self.order_rank.__getitem__):
                    if r in current:
                        yield current - {r}, self.starts[r], self.starts[r]

        def pair_moves():
            for a in singles:
                if not identity[a]:
                    for b in self._next_actions.get(self.ends[a], ())[:pairs]:
                        if a not in current or b not in current:
                            yield self._insert(self._insert(current, a), b), self.starts[a], self.ends[b]

        def triple_moves(near):
            # A losing pair and a third rewrite on either side: a chain whose parts all lose alone.
            for _, pair, start, end in near:
                for c in self._next_actions.get(end, ())[:pairs]:
                    yield self._insert(pair, c), start, self.ends[c]
                for c in self._previous_actions.get(start, ())[:pairs]:
                    yield self._insert(pair, c), self.starts[c], end

        def climb(moves, near=None) -> bool | None:
            """Whether a move was kept; None when the time ran out. ``near`` collects close losers."""
            nonlocal current, best
            improved = False
            for candidate, start, end in moves:
                if out_of_time():
                    return None
                self.stats.polish_moves += 1
                value = self._polish_value(candidate, best - margin if near is not None else best)
                if value > best:
                    best, current, improved = value, candidate, True
                    self.stats.polish_gains += 1
                elif near is not None and value > best - margin:
                    near.append((value, candidate, start, end))
            return improved

        while True:
            improved = climb(single_moves())
            if improved is None:
                return
            if improved:
                continue
            near = [] if triples else None
            improved = climb(pair_moves(), near)
            if improved is None:
                return
            if improved:
                continue
            if not near:
                return
            near.sort(key=lambda item: -item[0])
            if not climb(triple_moves(near[:triples])):
                return

    # -- results -----------------------------------------------------------
    def segments(self, sentence: tuple[str, ...], applied: tuple[int, ...]) -> tuple[Segment, ...]:
        if not self.translator:
            return self.scorer.score(self.source, sentence).derivation
        segments, position = [], 0
        for a in sorted(applied, key=self.starts.__getitem__):
            length = len(self.targets[a])
            segments.append(
                Segment(self.starts[a], self.ends[a], position, position + length, self.rules[a], self.identity[a])
            )
            position += length
        return tuple(segments)


def _descend(search: _Search, episodes_per_step: int, out_of_limits) -> bool:
    """One MCPG run from the source: sample, commit every ``episodes_per_step``; True if a limit ended it."""
    options = search.options
    root = search._state((), 0, True)
    root_key = search._key(())
    tree = {root_key: root}
    since_commit = 0
    while root.actions:
        search.episode(tree, root_key, root)
        since_commit += 1
        if out_of_limits():
            return True
        if since_commit >= episodes_per_step:
            since_commit = 0
            action = search.best_root_action(root)
            search.stats.commits += 1
            if action is None or action == STOP:
                search.stats.committed.append("stop")
                return False
            search.stats.committed.append(f"{search.starts[action]}-{search.ends[action]}: {search.rules[action]}")
            applied, covered = search._child(root, action)
            root_key = search._key(applied)
            root = tree[root_key]
            if search.translator and root.actions == [STOP]:
                return False
            if options.rerank_on_commit and search._needs_priors():
                search.rerank(root)
            # Keep only the new root's subtree (supersets of its coverage).
            tree = {key: node for key, node in tree.items() if node.covered & covered == covered}
    return False


def resolve_profile(profile: str | MCPGOptions) -> MCPGOptions:
    if isinstance(profile, MCPGOptions):
        return profile
    try:
        return PROFILES[profile]
    except KeyError:
        raise ValueError(f"profile must be one of {sorted(PROFILES)} or MCPGOptions, not {profile!r}") from None


def generate_mcpg(
    source_tokens: Sequence[str],
    table: ParaphraseTable,
    lm: LanguageModel | None,
    *,
    mode: Mode = "true-score",
    nbest: int = 1,
    episodes_per_step: int | None = None,
    exploration: float = DEFAULT_EXPLORATION,
    time_budget: float | None = None,
    max_episodes: int | None = None,
    seed: int = 0,
    translator_reward: Literal["channel", "seed003"] = "channel",
    profile: str | MCPGOptions = "tuned",
    start_from: Sequence[Sequence[str]] = (),
    stats: MCPGStats | None = None,
) -> list[Result]:
    """Paraphrase ``source_tokens`` with MCPG; the ``nbest`` best distinct outputs, best first.

    Each result is ``(tokens, model_score, segments)``: ``model_score`` is the
    log10 true score (true-score mode) or the log10 channel score of the
    derivation found (translator mode). ``episodes_per_step`` defaults to
    the profile's (faithful: 100,000). ``profile`` is ``"tuned"`` (default),
    ``"faithful"`` (the seeds' algorithm) or an :class:`MCPGOptions`.
    ``start_from`` sentences (true-score mode) are scored up front and compete
    with what the search finds. At least one episode runs whatever the budget;
    an empty list means no paraphrase was reachable. Results depend only on
    the inputs and ``seed``, except where ``time_budget`` cuts the search.
    """
    options = resolve_profile(profile)
    if episodes_per_step is None:
        episodes_per_step = options.episodes_per_step
    if episodes_per_step < 1:
        raise ValueError("episodes_per_step must be at least 1")
    source = tuple(source_tokens)
    started = time.perf_counter()
    search = _Search(source, table, lm, mode, exploration, translator_reward, seed, nbest, options)
    for sentence in start_from:
        search.add_known_final(sentence)
    if source and not all(search.identity):  # translator mode with only identity actions: nothing to do
        polishing = options.polish_share > 0.0
        search_budget = time_budget * (1.0 - options.polish_share) if time_budget is not None and polishing \
            else time_budget

        def out_of_limits() -> bool:
            return ((max_episodes is not None and search.stats.episodes >= max_episodes)
                    or (search_budget is not None and time.perf_counter() - started >= search_budget))

        source_prior = list(search.prior)
        while not _descend(search, episodes_per_step, out_of_limits):
            # The descent committed stop with budget left (restart_until_budget).
            if not options.restart_until_budget or (time_budget is None and max_episodes is None):
                break
            search.stats.restarts += 1
            search.restore_priors(source_prior)
        if polishing:
            def out_of_time() -> bool:
                return time_budget is not None and time.perf_counter() - started >= time_budget

            search.restore_priors(source_prior)  # polish moves in the source's prior order
            polish_started = time.perf_counter()
            for start in search.best_finals(options.polish_finals):
                search.polish(start, out_of_time)
            search.stats.polish_seconds = time.perf_counter() - polish_started
    ranked = sorted(
        ((objective, model, sentence, applied) for sentence, (objective, model, applied) in search.finals.items()
         if objective != _UNSEEN),
        key=lambda item: (-item[0], -item[1], item[2]),
    )
    results = [(sentence, model, search.segments(sentence, applied)) for _, model, sentence, applied in ranked[:nbest]]
    if stats is not None:
        search.stats.distinct_finals = len(search.finals)
        search.stats.seconds = time.perf_counter() - started
        for name in (f.name for f in fields(MCPGStats)):
            setattr(stats, name, getattr(search.stats, name))
    return results
