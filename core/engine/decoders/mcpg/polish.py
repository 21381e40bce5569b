"""MCPG's polish (``MCPGOptions.polish``): hill climbing on the best finals once the tree search stops.

MCPG commits, and a transformed part is never transformed again (seed 003
§2), so a committed rule that overlaps a better one is otherwise final; on
the demo test verses most of the remaining gap to the beam decoder was one
such swap away, the rest chains of two or three adjacent rewrites. The
polish climbs from a final: a *single* move puts one action in and drops the
applied ones it overlaps (or, true-score mode, drops one applied action); a
*pair* move puts in an action and one of its first ``polish_pairs`` right
neighbours; a *triple* move extends one of the ``polish_triples`` best pairs
that lost by less than ``polish_margin`` with a third neighbour on either
side. Moves are tried in prior order and the first improvement is kept;
pairs only when no single move improves, triples only when no pair does.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

from parastudio.core.engine.decoders.mcpg.actions import ActionSpace
from parastudio.core.engine.decoders.mcpg.finals import UNSEEN, Finals
from parastudio.core.engine.decoders.mcpg.options import MCPGOptions
from parastudio.core.engine.decoders.mcpg.search import MCPGStats

# A move: (the applied actions it leads to, source start, source end of the rewrites put in).
Move = tuple[frozenset[int], int, int]


class Polish:
    """First-improvement hill climbing over the moves above, every sentence tried recorded as a final."""

    def __init__(self, space: ActionSpace, finals: Finals, options: MCPGOptions, stats: MCPGStats):
        self.space = space
        self.finals = finals
        self.options = options
        self.stats = stats

    def value(self, applied: frozenset[int], floor: float) -> float:
        """The log10 objective of ``applied`` (recorded as a final), or -inf when it cannot beat ``floor``.

        True-score mode skips the dynamic program when the LM score alone
        (an upper bound while rule probabilities are at most 1) is at most
        ``floor``, and, with ``polish_slack``, when the channel score of
        ``applied`` itself (a lower bound) is more than the slack below it.
        A whole-sentence reward has no such bounds: every move is scored.
        """
        space, finals = self.space, self.finals
        sentence = space.sentence(applied)
        if sentence == space.source:
            return UNSEEN
        if not space.translator and finals.sentence_reward is None and not finals.is_scored(sentence):
            lm_part = space.lm_score(sentence)
            if finals.rules_at_most_one and lm_part <= floor:
                return UNSEEN
            slack = self.options.polish_slack
            if slack is not None:
                log_p = space.log_p
                if lm_part + sum(log_p[a] for a in applied) + slack <= floor:
                    return UNSEEN
        return finals.evaluate(tuple(sorted(applied)))[0]

    def climb(self, applied: Iterable[int], out_of_time: Callable[[], bool]) -> None:
        """Climb from the final ``applied`` until a local optimum or ``out_of_time()``.

        The output is read from :class:`~core.engine.decoders.mcpg.finals.Finals`, where
        every sentence tried competes with what the tree search found.
        """
        space, options = self.space, self.options
        current = frozenset(applied)
        best = self.value(current, UNSEEN)
        identity, pairs = space.identity, options.polish_pairs
        triples, margin = options.polish_triples, options.polish_margin
        singles = [a for a in space.order if not identity[a]] + (space.identity_action if space.translator else [])
        starts, ends, insert = space.starts, space.ends, space.insert

        # The generators read ``current`` as it is when each move is built, so a kept move counts at once.
        def single_moves() -> Iterator[Move]:
            for a in singles:
                if a not in current:
                    yield insert(current, a), starts[a], ends[a]
            if not space.translator:
                for r in sorted(current, key=space.order_rank.__getitem__):
                    if r in current:
                        yield current - {r}, starts[r], starts[r]

        def pair_moves() -> Iterator[Move]:
            for a in singles:
                if not identity[a]:
                    for b in space.next_actions.get(ends[a], ())[:pairs]:
                        if a not in current or b not in current:
                            yield insert(insert(current, a), b), starts[a], ends[b]

        def triple_moves(near) -> Iterator[Move]:
            # A losing pair and a third rewrite on either side: a chain whose parts all lose alone.
            for _, pair, start, end in near:
                for c in space.next_actions.get(end, ())[:pairs]:
                    yield insert(pair, c), start, ends[c]
                for c in space.previous_actions.get(start, ())[:pairs]:
                    yield insert(pair, c), starts[c], end

        def try_moves(moves: Iterator[Move], near: list | None = None) -> bool | None:
            """Whether a move was kept; None when the time ran out. ``near`` collects close losers."""
            nonlocal current, best
            improved = False
            for candidate, start, end in moves:
                if out_of_time():
                    return None
                self.stats.polish_moves += 1
                value = self.value(candidate, best - margin if near is not None else best)
                if value > best:
                    best, current, improved = value, candidate, True
                    self.stats.polish_gains += 1
                elif near is not None and value > best - margin:
                    near.append((value, candidate, start, end))
            return improved

        while True:
            improved = try_moves(single_moves())
            if improved is None:
                return
            if improved:
                continue
            near = [] if triples else None
            improved = try_moves(pair_moves(), near)
            if improved is None:
                return
            if improved:
                continue
            if not near:
                return
            near.sort(key=lambda item: -item[0])
            if not try_moves(triple_moves(near[:triples])):
                return
