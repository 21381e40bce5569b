"""MCPG's action space: the rules applicable to one sentence, their priors and order (seed 003 §2).

An *action* is a rule at a place: source span ``[starts[a], ends[a])``
rewritten into ``targets[a]``. Applying it removes every action overlapping
it, because a transformed part cannot be transformed again; so a state is a
set of disjoint actions, and an action's span is a bit mask (``masks[a]``)
over source positions. In translator mode every source word also has an
*identity action* (``identity_action[i]``, probability 1) so that a final
state covers the whole sentence; in true-score mode rules whose target equals
their source are left out (they lead back to the same sentence).

Actions are the sentence's translation options
(:mod:`core.engine.model.translation_options`, the same ones the beam decoder uses:
distinct rewrites per span, at most ``option_limit`` of them ranked by their
estimated score; the true score still uses the whole table).
Their *prior* is the one-step gain ``delta(a)`` of the objective when ``a``
alone is applied (:class:`~core.engine.decoders.mcpg.options.MCPGOptions`,
``action_order="prior"``), and ``order`` is the order untried actions are
tried in. Sentences are built incrementally: a sentence reached by some
actions is kept with ``offset[i]``, where source word ``i`` sits in it, so
applying one more action is a splice (:meth:`ActionSpace.rewrite`).
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from parastudio.core.engine.decoders.mcpg.options import SearchInputs
from parastudio.core.engine.model.derivation import Segment
from parastudio.core.engine.model.translation_options import collect_options

STOP = -1  # the stop action: makes a state final; not an index into the action lists
# Bit masks of a sentence up to this many words fit in int64 and are filtered with numpy.
_NUMPY_MASK_WORDS = 62


class ActionSpace:
    """The actions of one sentence (parallel lists indexed by action) and the order they are tried in.

    ``prior`` and ``order`` change when :meth:`rerank` re-scores them after a
    commit; everything else is fixed once built.
    """

    def __init__(self, inputs: SearchInputs):
        self.source = inputs.source
        self.table = inputs.table
        self.lm = inputs.lm
        self.options = inputs.options
        self.translator = inputs.translator
        self.source_lm = self.lm_score(self.source)
        self._build(inputs.translator_reward)

    # -- building ---------------------------------------------------------------------------
    def _build(self, translator_reward: str) -> None:
        starts, ends, targets, rules, log_p, terms, identity = [], [], [], [], [], [], []
        self.identity_action: list[int] = []
        options = collect_options(self.source, self.table, self.lm, limit=self.options.option_limit)
        for option in options.all():
            rule = option.rule
            unchanged = option.target == self.source[option.start:option.end]
            if not self.translator and unchanged:
                continue  # a no-op in true-score mode: same sentence, same state
            if unchanged and option.end == option.start + 1:
                # A word's identity option (a table's pass-through rule of it is the same option).
                self.identity_action.append(len(starts))
            starts.append(option.start)
            ends.append(option.end)
            targets.append(option.target)
            rules.append(rule)
            lp = 0.0 if option.identity else rule.log10_prob
            log_p.append(lp)
            if translator_reward == "seed003" and not option.identity:
                best = self.table.best_probability(rule.source)
                lp -= math.log10(best if best is not None else 1.0)
            terms.append(lp)
            identity.append(option.identity)
        self.starts: list[int] = starts
        self.ends: list[int] = ends
        self.targets: list[tuple[str, ...]] = targets
        self.rules = rules
        self.log_p: list[float] = log_p  # log10 p of the rule (0 for identities)
        self.terms: list[float] = terms  # what the objective adds for the rule: log10 p, or seed 003's ratio
        self.identity: list[bool] = identity
        self.masks: list[int] = [((1 << e) - (1 << s)) for s, e in zip(starts, ends)]
        self.full_mask = (1 << len(self.source)) - 1
        self.prior: list[float] = self.source_gains() if self.options.needs_priors else [0.0] * len(starts)
        self._order()

    def __len__(self) -> int:
        return len(self.starts)

    def source_gains(self) -> list[float]:
        """``delta(a)``: the objective's change when ``a`` alone is applied to the source (0 for identities)."""
        prior = []
        source, lm_source = self.source, self.source_lm
        for a in range(len(self.starts)):
            if self.identity[a]:
                prior.append(0.0)
                continue
            sentence = source[: self.starts[a]] + self.targets[a] + source[self.ends[a]:]
            prior.append(self.terms[a] + self.lm_score(sentence) - lm_source)
        return prior

    def _order(self) -> None:
        """The order untried actions are tried in (after stop), and the indexes that follow it."""
        starts, identity, prior = self.starts, self.identity, self.prior
        if self.options.action_order == "prior":
            self.order = sorted(range(len(starts)), key=lambda a: (-prior[a], starts[a], a))
        else:
            self.order = sorted(range(len(starts)), key=lambda a: (-self.log_p[a], starts[a], a))
        self.order_rank = {a: i for i, a in enumerate(self.order)}
        # Adjacent rewrites for the context playout, best prior first, by source start / end.
        self.starting_at: dict[int, list[int]] = {}
        self.ending_at: dict[int, list[int]] = {}
        margin = -self.options.neighbour_margin
        for a in sorted(range(len(starts)), key=lambda a: (-prior[a], starts[a], a)):
            if not identity[a] and prior[a] > margin:
                self.starting_at.setdefault(starts[a], []).append(a)
                self.ending_at.setdefault(self.ends[a], []).append(a)
        # Every rewrite by source start (and end), in ``order``: the polish's pair and triple moves.
        self.next_actions: dict[int, list[int]] = {}
        self.previous_actions: dict[int, list[int]] = {}
        for a in self.order:
            if not identity[a]:
                self.next_actions.setdefault(starts[a], []).append(a)
                self.previous_actions.setdefault(self.ends[a], []).append(a)
        # numpy copies of the order and its masks for :meth:`free` (masks must fit in int64).
        self._order_array = np.array(self.order, dtype=np.int64)
        self.order_masks = (np.array([self.masks[a] for a in self.order], dtype=np.int64)
                            if len(self.source) <= _NUMPY_MASK_WORDS else None)

    # -- priors -----------------------------------------------------------------------------
    def rerank(self, applied: Sequence[int], free: Iterable[int]) -> None:
        """``rerank_on_commit``: priors of the ``free`` actions become one-step gains in ``applied``'s sentence.

        After a commit the root is no longer the source, and the gain of a
        rule next to a committed rewrite can change sign (seed 003 leaves the
        order open). One LM call per action; ``order`` follows the new priors.
        """
        sentence = list(self.sentence(applied))
        base = self.lm_score(sentence)
        offset = self.offsets(applied)
        prior = list(self.prior)
        for a in free:
            if not self.identity[a]:
                prior[a] = self.terms[a] + self.lm_score(self.rewrite(sentence, offset, a)) - base
        self.prior = prior
        self._order()

    def restore_priors(self, prior: list[float]) -> None:
        """Back to ``prior`` (the source's, before any :meth:`rerank`) and the order that follows it."""
        if self.prior != prior:
            self.prior = list(prior)
            self._order()

    # -- states -----------------------------------------------------------------------------
    def free(self, covered: int) -> tuple[list[int], int]:
        """The actions disjoint from ``covered``, in ``order``, and the union of their masks."""
        if self.order_masks is not None:
            # The same filter vectorised (benchmarks/bench_mcpg.py times both).
            free = (self.order_masks & covered) == 0
            pool = self._order_array[free].tolist()
            reach = int(np.bitwise_or.reduce(self.order_masks[free])) if pool else 0
            return pool, reach
        masks = self.masks
        pool = [a for a in self.order if not masks[a] & covered]
        reach = 0
        for a in pool:
            reach |= masks[a]
        return pool, reach

    def insert(self, applied: Iterable[int], a: int) -> frozenset[int]:
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

    # -- sentences --------------------------------------------------------------------------
    def sentence(self, applied: Iterable[int]) -> tuple[str, ...]:
        """The source with the disjoint actions ``applied`` applied."""
        out: list[str] = []
        position = 0
        source, starts, ends, targets = self.source, self.starts, self.ends, self.targets
        for a in sorted(applied, key=starts.__getitem__):
            out.extend(source[position : starts[a]])
            out.extend(targets[a])
            position = ends[a]
        out.extend(source[position:])
        return tuple(out)

    def offsets(self, applied: Iterable[int]) -> list[int]:
        """``offset[i]``: where source word ``i`` sits in ``applied``'s sentence (for words none of them covers)."""
        offset = list(range(len(self.source) + 1))
        for a in applied:
            self.shift(offset, a)
        return offset

    def shift(self, offset: list[int], a: int) -> None:
        """Update ``offset`` in place once action ``a`` is applied."""
        change = len(self.targets[a]) - (self.ends[a] - self.starts[a])
        if change:
            for i in range(self.ends[a], len(offset)):
                offset[i] += change

    def rewrite(self, sentence: list[str], offset: list[int], a: int) -> list[str]:
        """``sentence`` with free action ``a`` applied (a new list)."""
        where = offset[self.starts[a]]
        return sentence[:where] + list(self.targets[a]) + sentence[where + self.ends[a] - self.starts[a]:]

    def lm_score(self, sentence: Sequence[str]) -> float:
        """``log10 P_LM`` of a whole sentence (0 without an LM); :class:`LanguageModel` keeps an LRU cache."""
        return self.lm.score(sentence) if self.lm is not None else 0.0

    def segments(self, applied: Iterable[int]) -> tuple[Segment, ...]:
        """The derivation the actions ``applied`` form, left to right (translator mode: they tile the source)."""
        segments, position = [], 0
        for a in sorted(applied, key=self.starts.__getitem__):
            length = len(self.targets[a])
            segments.append(
                Segment(self.starts[a], self.ends[a], position, position + length, self.rules[a], self.identity[a])
            )
            position += length
        return tuple(segments)
