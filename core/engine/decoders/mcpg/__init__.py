"""MCPG: Monte-Carlo paraphrase generation (seed 003 §2-4.3, seed 000 §4.1).

The search space (seed 003 §2). A *state* is a partly transformed sentence
with its available actions. An *action* is a rule at a place; applying it
rewrites that source span and removes every action overlapping it, because a
transformed part cannot be transformed again. A *stop* action makes a state
final. Seed 003 §2: "each state, except the root, can be a final state", so
the untouched source never stops: a paraphrase differs from its source (seed
000 §1). Episodes of a Monte-Carlo tree search sample final states; every
``episodes_per_step`` episodes (eta, a count: :mod:`~core.engine.decoders.mcpg.pace`)
the best root action is committed. The search ends when stop is committed, the
root has nothing left to do, or ``max_episodes`` episodes were run: the result
depends only on the inputs and the seed. ``time_budget`` is only a cap: if it
runs out first, the search stops there with the best final state seen so far
(anytime) and its statistics say it was cut (``MCPGStats.cut``).

Two modes (seed 000 §4.1):

* ``"true-score"``: any state may stop with parts unchanged. The reward is the
  exact true score ``Z*_t`` of the final sentence (:mod:`core.engine.model.truescore`).
* ``"translator"``: rules must cover the whole sentence, unchanged words by
  identity actions (probability 1 as :mod:`core.engine.model.scoring`'s channel model
  has it); the reward is the channel score of the derivation,
  ``Z_t^I = P_LM(t) prod p(s_i|t_i)``, or with ``translator_reward="seed003"``
  seed 003 §4.3's biased reward (:func:`core.engine.model.scoring.mcpg_reward`).

The package, one idea per module:

* :mod:`~core.engine.decoders.mcpg.options`: :class:`MCPGOptions`, the ``"faithful"`` and
  ``"tuned"`` profiles, and the one map from the papers' notation to our names;
* :mod:`~core.engine.decoders.mcpg.actions`: the action space of a sentence, its priors and order;
* :mod:`~core.engine.decoders.mcpg.search`: tree states, selection (UCB1-tuned + RAVE),
  episodes, max backup, commits;
* :mod:`~core.engine.decoders.mcpg.playouts`: uniform, greedy and context playouts;
* :mod:`~core.engine.decoders.mcpg.finals`: objective and reward of a final state, the best finals;
* :mod:`~core.engine.decoders.mcpg.polish`: hill climbing on the best finals;
* :mod:`~core.engine.decoders.mcpg.counter_random`: the random numbers, a function of (seed, episode, draw);
* :mod:`~core.engine.decoders.mcpg.native`: the same tree search compiled (``core="native"``, issue 24).

Measured figures (episodes/s, quality against time, the profiles compared)
are in ``evaldata/results/mcpg-profiles.md`` and ``mcpg-vs-beam.md``.
"""

from __future__ import annotations

import time
from dataclasses import fields
from typing import TYPE_CHECKING, Sequence

from parastudio.core.engine.decoders.mcpg.options import (
    DEFAULT_EPISODES_PER_STEP,
    DEFAULT_EXPLORATION,
    FAITHFUL,
    PROFILES,
    TUNED,
    MCPGOptions,
    Mode,
    SearchInputs,
    SentenceReward,
    TranslatorReward,
    resolve_profile,
)
from parastudio.core.engine.decoders.mcpg.pace import FixedPace
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.derivation import Segment
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable

if TYPE_CHECKING:
    from parastudio.core.engine.decoders.mcpg.search import MCPGStats

Result = tuple[tuple[str, ...], float, tuple[Segment, ...]]

__all__ = [
    "DEFAULT_EPISODES_PER_STEP", "DEFAULT_EXPLORATION", "FAITHFUL", "PROFILES", "STOP", "TUNED", "ActionSpace",
    "Finals", "MCPGOptions", "MCPGStats", "Mode", "Node", "Playouts", "Polish", "Result", "SearchInputs",
    "SentenceReward", "TranslatorReward", "TreeSearch", "generate_mcpg", "resolve_profile",
]


def __getattr__(name: str):
    """The search's modules (with numpy) load on first use: the CLI's start-up and the beam decoder need none."""
    if name in ("STOP", "ActionSpace"):
        from parastudio.core.engine.decoders.mcpg import actions as module
    elif name == "Finals":
        from parastudio.core.engine.decoders.mcpg import finals as module
    elif name == "Playouts":
        from parastudio.core.engine.decoders.mcpg import playouts as module
    elif name == "Polish":
        from parastudio.core.engine.decoders.mcpg import polish as module
    elif name in ("MCPGStats", "Node", "TreeSearch"):
        from parastudio.core.engine.decoders.mcpg import search as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(module, name)


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
    translator_reward: TranslatorReward = "channel",
    profile: str | MCPGOptions = "tuned",
    start_from: Sequence[Sequence[str]] = (),
    stats: MCPGStats | None = None,
    core: str = "python",
    sentence_reward: SentenceReward | None = None,
) -> list[Result]:
    """Paraphrase ``source_tokens`` with MCPG; the ``nbest`` best distinct outputs, best first.

    Each result is ``(tokens, model_score, segments)``: ``model_score`` is the
    log10 true score (true-score mode) or the log10 channel score of the
    derivation found (translator mode). ``episodes_per_step`` (eta) and
    ``max_episodes`` (the whole search's episodes; the tuned profile restarts
    until it) default to the profile's (:mod:`~core.engine.decoders.mcpg.options`).
    ``profile`` is ``"tuned"`` (default),
    ``"faithful"`` (the seeds' algorithm) or an :class:`MCPGOptions`.
    ``start_from`` sentences (true-score mode, e.g. the beam decoder's 1-best)
    are scored up front and compete with what the search finds. At least one
    episode runs whatever the cap; an empty list means no paraphrase was
    reachable. Results depend only on the inputs and ``seed``, except when the
    cap ``time_budget`` (seconds) cuts the search: ``stats.cut`` says so.
    ``core="native"`` runs the tree search in C++ (:mod:`~core.engine.decoders.mcpg.native`:
    the same tree and results; the settings it runs are checked there).
    ``sentence_reward`` (true-score mode, Python search only) is what the search
    maximises instead of the true score: any function of the final sentence
    (:class:`~core.engine.decoders.mcpg.options.SentenceReward`); each result's
    ``model_score`` is then that reward, in [0, 1].
    """
    from parastudio.core.engine.decoders.mcpg.polish import Polish
    from parastudio.core.engine.decoders.mcpg.search import MCPGStats, TreeSearch

    options = resolve_profile(profile)
    if episodes_per_step is not None and episodes_per_step < 1:
        raise ValueError("episodes_per_step must be at least 1")
    eta = episodes_per_step if episodes_per_step is not None else options.episodes_per_step
    limit = max_episodes if max_episodes is not None else options.max_episodes
    started = time.perf_counter()
    if sentence_reward is not None and core == "native":
        raise ValueError("the compiled MCPG core takes no whole-sentence reward (a Python function); use core "
                         "\"python\"")
    inputs = SearchInputs(tuple(source_tokens), table, lm, mode=mode, exploration=exploration,
                          translator_reward=translator_reward, seed=seed, nbest=nbest, options=options,
                          sentence_reward=sentence_reward)
    search = TreeSearch(inputs)
    space, finals = search.space, search.finals
    for sentence in start_from:
        finals.add_known(sentence)
    pace = None
    distinct = None  # the compiled search's count of finals (only the best come back)

    def out_of_time() -> bool:
        if time_budget is not None and time.perf_counter() - started >= time_budget:
            search.stats.cut = True
        return search.stats.cut

    if core == "native" and len(inputs.source) > 64:
        core = "python"  # coverage masks are 64 bits in C++; the reference gives the same results
    if core == "native" and inputs.source and not all(space.identity):
        from parastudio.core.engine.decoders.mcpg.native import NativeSearch

        pace = FixedPace(eta)
        left = None if time_budget is None else time_budget - (time.perf_counter() - started)
        compiled = NativeSearch(search, eta, limit)
        pace.etas = compiled.run(left)
        distinct = compiled.distinct_finals
    elif inputs.source and not all(space.identity):  # translator mode with only identity actions: nothing to do
        pace = FixedPace(eta)

        def out_of_limits() -> bool:
            return (limit is not None and search.stats.episodes >= limit) or out_of_time()

        source_prior = list(space.prior)
        while not search.descend(pace, out_of_limits):
            # The descent committed stop with episodes left (restart_until_budget).
            if not options.restart_until_budget or limit is None:
                break
            search.stats.restarts += 1
            space.restore_priors(source_prior)
        if options.polish and not search.stats.cut:
            space.restore_priors(source_prior)  # polish moves in the source's prior order
            polish_started = time.perf_counter()
            polish = Polish(space, finals, options, search.stats)
            for start in finals.best_applied(options.polish_finals):
                polish.climb(start, out_of_time)
            search.stats.polish_seconds = time.perf_counter() - polish_started
    results = [(sentence, model, finals.segments(sentence, applied))
               for sentence, model, applied in finals.ranked()[:nbest]]
    if stats is not None:
        if pace is not None:
            search.stats.episodes_per_commit = list(pace.etas)
        search.stats.distinct_finals = len(finals.by_sentence) if distinct is None else distinct
        search.stats.seconds = time.perf_counter() - started
        for name in (f.name for f in fields(MCPGStats)):
            setattr(stats, name, getattr(search.stats, name))
    return results
