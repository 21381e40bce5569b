"""MCPG's settings: the seeds' algorithm (``FAITHFUL``) and the departures that make it usable (``TUNED``).

Notation (seed 003 §3-4.3) -> names here, once for the whole package:

* ``eta`` -> ``episodes_per_step``: episodes run before the best root action
  is committed (seed 000 §4.2 used 100,000; seed 003 §4.3 1,000,000).
* ``k`` -> ``exploration``: the RAVE equivalence parameter that "balances the
  exploration/exploitation compromise" (seed 003 §4.3: 1,000).
* ``s_1, a_1, ..., s_T`` -> one episode (:meth:`~core.engine.decoders.mcpg.search.TreeSearch.episode`);
  ``R`` -> ``reward`` (:mod:`core.engine.decoders.mcpg.finals`).

Profiles. ``"faithful"`` is the algorithm as the seeds describe it.
``"tuned"`` (the default) switches on the changes below, each one a field of
:class:`MCPGOptions`, so any mix can be measured (``benchmarks/bench_mcpg.py``
prints both profiles side by side; the figures are in
``evaldata/results/mcpg-profiles.md``):

* ``option_limit`` (tuned 20): at most 20 rules per source span, ranked and
  limited by :mod:`core.engine.model.translation_options` like the beam decoder's
  (Moses ``ttable-limit``). The true score still uses the whole table.
* ``action_order="prior"``: untried actions are tried best *prior* first
  instead of most probable rule first. The prior of action ``a`` is its
  one-step gain at the root, ``delta(a) = log10 Z(s with a applied) - log10
  P_LM(s)`` (one LM call per action, once per sentence).
* ``widening=(c, alpha)`` (tuned ``(1, 0.5)``): progressive widening. A state
  visited ``n`` times offers only its first ``ceil(c (n+1)^alpha)`` actions;
  the faithful search tries every one of the hundreds of actions of a
  30-word sentence once before exploiting anything.
* ``reward="log"``: ``R = clip(1/2 + (log10 Z - log10 P_LM(s)) / (2 L), 0, 1)``
  with ``L = reward_scale`` (tuned 10) instead of ``min(Z/P_LM(s), 1)``,
  whose values (1e-1 to 1e-3 for good paraphrases) are lost under the
  UCB1-tuned bonus and cannot tell apart outputs better than the source.
* ``playout="greedy"``: walk the available actions best prior first, take each
  one whose prior is positive with probability ``playout_take``.
* ``playout="context"`` (tuned, ``playout_take`` 0.8): the same walk, but an
  action is taken only if its gain *in the sentence built so far* is
  positive, adjacent actions are re-scored after each take
  (``context_neighbours``), and losing neighbours are tried in pairs
  (``context_pairs``): :mod:`core.engine.decoders.mcpg.playouts`.
* ``rerank_on_commit``: after each commit the priors become one-step gains in
  the new root's sentence.
* ``true_score_dp="forward"``: :func:`core.engine.model.truescore.best_rules_log10_forward`
  instead of the backward score-only DP (same maximum, touches only reachable cells).
* ``restart_until_budget``: a search that commits stop before ``max_episodes``
  episodes were run starts again from the source, keeping its finals.
* ``max_episodes`` (tuned 10,000): the episode budget of the
  restarts; the faithful profile has none (one descent, as in the seeds).
* ``polish`` (tuned on) and the ``polish_*`` fields: once the tree search
  ends, hill climbing on the best finals to a local optimum
  (:mod:`core.engine.decoders.mcpg.polish`).

Eta is a count, never a clock (``episodes_per_step``; see
``DEFAULT_EPISODES_PER_STEP`` for the value and why): the same inputs and seed
give the same bytes on an idle machine and beside a CPU hog. A caller's time
budget is only a cap (:func:`core.engine.decoders.mcpg.generate_mcpg`), and a search it
cuts says so.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal, Protocol, Sequence

from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.option_values import check_fields, real, whole

Mode = Literal["true-score", "translator"]
TranslatorReward = Literal["channel", "seed003"]


class SentenceReward(Protocol):
    """A reward read from the whole final sentence (issue 24, item 5): ``R(candidate, source)`` in [0, 1].

    Seed 003 §3 scores only final states, so its reward may be any function of the finished sentence, a
    feature no left-to-right beam can score before the sentence is complete (e.g. the judgment predictor's
    probability that judges accept it: :class:`core.engine.model.judgment_model.PredictorReward`). A value outside
    [0, 1] is refused (UCB1-tuned assumes bounded rewards), never clipped.
    """

    def __call__(self, candidate: Sequence[str], source: Sequence[str]) -> float: ...

# Eta, the episodes before each root decision (a count: the search never reads a clock to decide).
# Seed 000 §4.2 used 100,000 (seed 003 §4.3 1,000,000) with no time limit. Our Python search runs
# about 8,900 faithful true-score and 11,300 translator episodes/s on an idle core
# (evaldata/results/mcpg-vs-beam.md, load 1.0; measured again for issue 23 on the demo's first 10
# verses at load 8.5 on 2 cores: faithful 1,359/s, tuned 1,747/s). A search makes up to one decision
# per source word plus stop (D of about 30 on those verses), so the seed's eta would take about
# 100,000 x 30 / 8,900 = 340 s per verse. Eta = 1,000 is the seed's value over 100: a faithful
# true-score search commits stop after about 5 decisions (0.6 s idle), a translator search covers
# the verse in about 23 (2 s idle), the time the former 2-second paced runs took, with about the eta
# they reached at load 1 (608 to 833 for the first decision, about 708 on average). Unlike those runs
# it does not depend on the load. ``--episodes-per-step 100000`` runs the seed's setting.
DEFAULT_EPISODES_PER_STEP = 1_000
SEED_EPISODES_PER_STEP = 100_000  # seed 000 §4.2
DEFAULT_EXPLORATION = 1_000.0  # k, seed 003 §4.3


@dataclass(frozen=True)
class MCPGOptions:
    """Switchable departures from the seeds' MCPG (module docstring); the defaults are the seeds' algorithm."""

    option_limit: int | None = whole(None, minimum=1)  # rules per source span; None = all (faithful)
    action_order: Literal["probability", "prior"] = "probability"
    # (c, alpha): ceil(c (n+1)^alpha) actions offered; bounded so the count stays a float (never an OverflowError)
    widening: tuple[float, float] | None = real(None, items=((0, 1e6), (0, 1)))
    reward: Literal["ratio", "log"] = "ratio"
    reward_scale: float = real(10.0, above=0)  # L of the log reward, in log10 units
    playout: Literal["uniform", "greedy", "context"] = "uniform"
    playout_take: float = real(0.5, minimum=0, maximum=1)  # a probability
    episodes_per_step: int = whole(DEFAULT_EPISODES_PER_STEP, minimum=1)  # eta when the caller gives none
    # episodes of the whole search (restarts included); None: no limit
    max_episodes: int | None = whole(None, minimum=1)
    rerank_on_commit: bool = False  # re-score priors in the new root's sentence after each commit
    restart_until_budget: bool = False  # when stop is committed before max_episodes, search again from the source
    true_score_dp: Literal["backward", "forward"] = "backward"
    # context playout: candidates with prior > -margin (log10); a margin of Infinity lets every one through
    context_margin: float = real(1.0, minimum=0, no_limit=True)
    context_candidates: int = 64  # context playout: at most this many candidates re-scored per playout
    context_neighbours: int = 0  # context playout: after a take, re-score this many adjacent actions per side
    neighbour_margin: float = real(4.0, minimum=0, no_limit=True)  # ... those with prior > -neighbour_margin (log10)
    context_pairs: int = 0  # ... then try this many losing ones (gain > -pair_margin) with their own next one
    neighbours_of_pairs: int = 4  # ... among its first this many free neighbours
    pair_margin: float = real(2.0, minimum=0, no_limit=True)
    polish: bool = False  # after the search, hill climbing on the best finals to a local optimum
    polish_finals: int = 1  # ... on this many of them, best first
    polish_pairs: int = 0  # ... also inserting an action with one of its first this many right neighbours
    polish_triples: int = 0  # ... then extending this many of the best losing pairs by a third neighbour
    # ... pairs at most this far below the current final (log10)
    polish_margin: float = real(1.0, minimum=0, no_limit=True)
    # skip the true-score DP when the channel score is this far below (log10)
    polish_slack: float | None = real(None, minimum=0, no_limit=True)

    def to_json(self) -> dict:
        return asdict(self)

    def check(self) -> None:
        """Raise ``ValueError`` (:class:`~core.option_values.OptionValueError`) naming the first field whose
        value is not of its kind or range, a choice field's included."""
        check_fields(self)

    @property
    def needs_priors(self) -> bool:
        """Whether actions need their one-step gains (the prior order or a prior-guided playout)."""
        return self.action_order == "prior" or self.playout in ("greedy", "context")


# The tuned search's episodes, restarts included: its former time budget (1.5 s of search, then the
# polish) at the tuned profile's idle rate (about 1.3 times the faithful one in the measurement above,
# so about 11,000 episodes/s) ran about 16,000; 10,000 keeps a verse near one second on an idle core.
TUNED_MAX_EPISODES = 10_000
FAITHFUL = MCPGOptions()
TUNED = MCPGOptions(option_limit=20, action_order="prior", widening=(1.0, 0.5), reward="log", playout="context",
                    playout_take=0.8, episodes_per_step=1_000, max_episodes=TUNED_MAX_EPISODES,
                    true_score_dp="forward", context_neighbours=8, context_pairs=3, context_candidates=160,
                    rerank_on_commit=True, restart_until_budget=True, polish=True, polish_finals=3, polish_pairs=8,
                    polish_triples=30, polish_slack=1.0)
PROFILES = {"faithful": FAITHFUL, "tuned": TUNED}


def resolve_profile(profile: str | MCPGOptions) -> MCPGOptions:
    """A profile name (``"faithful"``, ``"tuned"``) or an :class:`MCPGOptions` as options."""
    if isinstance(profile, MCPGOptions):
        return profile
    try:
        return PROFILES[profile]
    except KeyError:
        raise ValueError(f"profile must be one of {sorted(PROFILES)} or MCPGOptions, not {profile!r}") from None


@dataclass(frozen=True)
class SearchInputs:
    """What one MCPG search is given: the sentence, the models, the mode and the settings.

    ``mode`` and ``translator_reward`` are described in :mod:`core.engine.decoders.mcpg`,
    ``exploration`` in the module docstring; ``nbest`` bounds how many finals are worth
    keeping; ``seed`` fixes the random stream of the playouts. ``sentence_reward``
    (:class:`SentenceReward`) replaces the true score as what the search maximises.
    """

    source: tuple[str, ...]
    table: ParaphraseTable
    lm: LanguageModel | None
    mode: Mode = "true-score"
    exploration: float = DEFAULT_EXPLORATION
    translator_reward: TranslatorReward = "channel"
    seed: int = 0
    nbest: int = 1
    options: MCPGOptions = TUNED
    sentence_reward: SentenceReward | None = None  # None: the mode's own reward; else R of the final sentence

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", tuple(self.source))
        if self.mode not in ("true-score", "translator"):
            raise ValueError(f"mode must be 'true-score' or 'translator', not {self.mode!r}")
        if self.sentence_reward is not None and self.mode != "true-score":
            raise ValueError("a whole-sentence reward runs in true-score mode (any state may stop), not translator")
        if self.translator_reward not in ("channel", "seed003"):
            raise ValueError(f"translator_reward must be 'channel' or 'seed003', not {self.translator_reward!r}")
        self.options.check()

    @property
    def translator(self) -> bool:
        return self.mode == "translator"
