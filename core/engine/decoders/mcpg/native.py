"""MCPG's tree search run by the compiled core (``core/engine/native/mcpg_core.cpp``, issue 24).

The action space, its order and the true score's rule index are built in
Python (:class:`~core.engine.decoders.mcpg.actions.ActionSpace`,
:class:`~core.engine.decoders.mcpg.finals.Finals`); the C++ core then runs
:meth:`~core.engine.decoders.mcpg.search.TreeSearch.descend` (and the restarts of
:func:`~core.engine.decoders.mcpg.generate_mcpg`) operation for operation: selection by
UCB1-tuned + RAVE, expansion, the uniform playout, the true-score objective with
KenLM's C++ model, max backup, stop, eta episodes per decision. With the
counter-based random stream (:mod:`~core.engine.decoders.mcpg.counter_random`) it builds
the same tree and finds the same finals as the Python search
(``tests/test_mcpg_native.py``). The Python search stays as the reference.

The core covers the seeds' search (the ``faithful`` profile) and the options
that only change numbers it already uses (``widening``, ``reward``,
``action_order``, ``restart_until_budget``), in both modes (translator mode
with either reward, ``channel`` or ``seed003``: the terms per action come from
the action space); :func:`unsupported` names what it does not run (the greedy
and context playouts, re-ranking on commit, the polish, the forward true-score
DP, sentences over 64 words).
"""

from __future__ import annotations

import functools
import sys
from typing import Sequence

from parastudio.core.engine.decoders.mcpg.counter_random import MASK
from parastudio.core.engine.decoders.mcpg.options import MCPGOptions, Mode
from parastudio.core.engine.lm.native_model import native_model

INTERFACE = 2  # the version of mcpg_core.cpp's Python interface this module speaks
MAX_WORDS = 64  # coverage is one 64-bit mask

try:
    from parastudio.core.engine._search_cores import mcpg as _mcpg_core
except ImportError:  # not built: the Python search runs
    _mcpg_core = None


def available() -> bool:
    """Whether the compiled MCPG core is built and as new as this module."""
    return _mcpg_core is not None and getattr(_mcpg_core, "INTERFACE", 0) == INTERFACE


@functools.lru_cache(maxsize=1)
def say_the_python_search_runs() -> None:
    """The one warning of a run that wanted the compiled core and has none."""
    why = "not built" if _mcpg_core is None else "older than this checkout"
    print(f"parastudio: warning: the compiled MCPG core is {why}; the Python search runs (same results, many "
          "times slower). Reinstall with a C++ compiler to build it (README, Set-up).", file=sys.stderr)


def unsupported(options: MCPGOptions, mode: Mode) -> str | None:
    """Why the compiled core cannot run these settings, or None when it can."""
    reasons = []
    if options.playout != "uniform":
        reasons.append(f"the {options.playout} playout")
    if options.rerank_on_commit and options.needs_priors:
        reasons.append("rerank_on_commit")
    if options.polish:
        reasons.append("the polish")
    if options.true_score_dp != "backward":
        reasons.append(f"the {options.true_score_dp} true-score DP")
    if not reasons:
        return None
    return ("the compiled MCPG core runs the search with the uniform playout (the faithful profile, both modes), "
            f"not {', '.join(reasons)}")


class NativeSearch:
    """One sentence's search in C++ over a :class:`~core.engine.decoders.mcpg.search.TreeSearch`'s space and finals."""

    def __init__(self, search, eta: int, limit: int | None):
        if not available():
            raise RuntimeError("the compiled MCPG core is not built (or older than this checkout)")
        inputs, space, finals = search.inputs, search.space, search.finals
        why = unsupported(inputs.options, inputs.mode)
        if why is not None:
            raise ValueError(why)
        self.search = search
        self.words: list[str] = []
        self.ids: dict[str, int] = {}
        index = finals._index
        targets = list(index.by_target.items())
        for phrase in [space.source, *space.targets, *(target for target, _ in targets), *finals.by_sentence]:
            self.to_ids(phrase)
        target_words, target_offsets = [], [0]
        for target in space.targets:
            target_words.extend(self.ids[w] for w in target)
            target_offsets.append(len(target_words))
        rule_words, rule_offsets, rule_group, rule_start, rule_end, rule_log_p = [], [0], [], [], [], []
        for group, (target, hits) in enumerate(targets):
            rule_words.extend(self.ids[w] for w in target)
            rule_offsets.append(len(rule_words))
            for start, end, log_p, _ in hits:
                rule_group.append(group)
                rule_start.append(start)
                rule_end.append(end)
                rule_log_p.append(log_p)
        options = inputs.options
        model = native_model(inputs.lm) if inputs.lm is not None else None
        self.core = _mcpg_core.Search(
            model, self.words, self.to_ids(space.source), space.starts, space.ends, target_words, target_offsets,
            space.order, rule_words, rule_offsets, rule_group, rule_start, rule_end, rule_log_p, space.source_lm,
            eta, -1 if limit is None else limit, float(inputs.exploration), options.widening,
            options.reward == "log", 0.5 / options.reward_scale, options.restart_until_budget, inputs.nbest,
            inputs.seed & MASK, inputs.translator, space.terms, space.log_p)

    def to_ids(self, words: Sequence[str]) -> list[int]:
        ids = self.ids
        for word in words:
            if word not in ids:
                ids[word] = len(self.words)
                self.words.append(word)
        return [ids[w] for w in words]

    def sentence(self, ids: Sequence[int]) -> tuple[str, ...]:
        return tuple(self.words[i] for i in ids)

    def run(self, time_budget: float | None) -> list[int]:
        """Search (the finals given so far compete); the etas. The Python search's finals get the ``nbest``
        best, its stats the counts; ``distinct_finals`` is how many finals the search recorded."""
        search, core = self.search, self.core
        finals, stats, space = search.finals, search.stats, search.space
        for sentence, (objective, _, _) in finals.by_sentence.items():
            core.add_known(self.to_ids(sentence), objective)
        core.run(-1.0 if time_budget is None else max(0.0, time_budget))
        # Only the finals that are output come back (ranked() orders them again, the same way).
        finals.by_sentence = {self.sentence(ids): (objective, model, tuple(applied))
                              for ids, objective, model, applied in core.best_finals(search.inputs.nbest)}
        self.distinct_finals = core.final_count
        stats.episodes, stats.commits, stats.restarts = core.episodes, core.commits, core.restarts
        stats.tree_states, stats.cut = core.tree_states, core.cut
        stats.committed = ["stop" if a < 0 else f"{space.starts[a]}-{space.ends[a]}: {space.rules[a]}"
                           for a in core.committed]
        return list(core.etas)
