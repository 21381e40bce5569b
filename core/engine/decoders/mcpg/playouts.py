"""MCPG's playouts: how an episode completes from the first state not yet in the tree (seed 003 §3).

* ``uniform`` (the seeds'): actions drawn uniformly at random until stop is
  drawn; stop is one action among the ``m`` available ones plus itself, so
  each draw stops with probability ``1/(m+1)``.
* ``greedy``: the available actions best prior first, each one whose prior is
  positive taken with probability ``playout_take``.
* ``context``: randomised first-improvement hill climbing with gains scored
  in the sentence built so far, adjacent rewrites re-scored after each take,
  and losing neighbours tried in pairs (:meth:`Playouts.context`).

In translator mode identities fill whatever is left uncovered, so the final
state tiles the sentence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from parastudio.core.engine.decoders.mcpg.actions import STOP, ActionSpace
from parastudio.core.engine.decoders.mcpg.counter_random import CounterRandom
from parastudio.core.engine.decoders.mcpg.options import SearchInputs

if TYPE_CHECKING:
    from parastudio.core.engine.decoders.mcpg.search import Node


class Playouts:
    """The playout policy of one search, drawing from its counter-based random stream (``seed``, episode, draw).

    The tree search calls ``rng.start(episode)`` before each episode (:mod:`~core.engine.decoders.mcpg.counter_random`).
    """

    def __init__(self, inputs: SearchInputs, space: ActionSpace):
        self.space = space
        self.options = inputs.options
        self.translator = inputs.translator
        self.rng = CounterRandom(inputs.seed)

    def run(self, node: Node, last: int | None = None) -> list[int]:
        """The actions the playout applies from ``node``; ``last``: the tree action that led to it."""
        playout = self.options.playout
        if playout == "context":
            return self.context(node, last)
        return self.greedy(node) if playout == "greedy" else self.uniform(node)

    def _fill_identities(self, taken: list[int], covered: int) -> None:
        if self.translator:
            for i, a in enumerate(self.space.identity_action):
                if not covered >> i & 1:
                    taken.append(a)

    def uniform(self, node: Node) -> list[int]:
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
        masks = self.space.masks
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

    def greedy(self, node: Node) -> list[int]:
        """Best prior first, each action with a positive prior taken with probability ``playout_take``."""
        take = self.options.playout_take
        rng_random = self.rng.random
        space = self.space
        masks, prior, identity = space.masks, space.prior, space.identity
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
        self._fill_identities(taken, covered)
        return taken

    def context(self, node: Node, last: int | None = None) -> list[int]:
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
        options, space = self.options, self.space
        take, floor, budget = options.playout_take, -options.context_margin, options.context_candidates
        rng_random = self.rng.random
        masks, prior, identity, terms = space.masks, space.prior, space.identity, space.terms
        starts, ends = space.starts, space.ends
        by_prior = options.action_order == "prior"
        lm_score, rewrite, shift = space.lm_score, space.rewrite, space.shift
        covered = node.covered
        sentence = list(space.sentence(node.applied))
        current = lm_score(sentence)
        offset = space.offsets(node.applied)
        taken: list[int] = []

        def gain(a: int) -> tuple[float, list[str], float]:
            candidate = rewrite(sentence, offset, a)
            score = lm_score(candidate)
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
                    side = space.starting_at.get(ends[b], ()) if rightwards else space.ending_at.get(starts[b], ())
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
                        further = space.starting_at.get(ends[c], ()) if rightwards else \
                            space.ending_at.get(starts[c], ())
                        checked = 0
                        for d in further:
                            if checked >= pair_neighbours or budget <= 0:
                                break
                            if masks[d] & (covered | masks[c]):
                                continue
                            checked += 1
                            budget -= 1
                            both = rewrite(after_c, offset_c, d)
                            score_d = lm_score(both)
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
        self._fill_identities(taken, covered)
        return taken
