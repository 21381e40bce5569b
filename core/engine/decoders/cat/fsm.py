"""The finite state machine over partial paraphrases and its K best paths (seed 001 §3.4.3).

States: one start state (the empty string; for the score functions it stands
for the 1-best's hypothesis just before the selection) and one state per
partial paraphrase. A transition adds a partial that continues the coverage:
from the start to every partial beginning at the selection's first source
word, from a partial ending at word ``j`` to every partial beginning at ``j``.
End states are the partials ending at the selection's last source word.
Each transition has a score in [0, 1] from the approach's score functions.

K best paths: seed 001 runs Yen's algorithm (YenKSP) for ``n`` paths to each
of the ``t`` end states, ``K = n t``, and lowers ``n`` when ``t`` grows. The
machine is acyclic (every transition moves forward in the source), so the
``n`` best paths to every state come out of one pass in topological order,
each state keeping the ``n`` best of its predecessors' lists extended by one
transition (tested against networkx's Yen implementation). A path's cost is
``-ln`` of the product of its transition scores (our reading: the paper
leaves the combination open; a product keeps a path's score in [0, 1] like
each transition's), so a path's FSM score is that product.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

from parastudio.core.engine.decoders.cat.partials import Partial

try:  # the compiled K best paths (core/engine/native/fsm_kbest.hh); without it, the Python below, the same paths
    from parastudio.core.engine._search_cores import fsm as _compiled
except ImportError:
    _compiled = None
if _compiled is not None and getattr(_compiled, "INTERFACE", 0) != 1:  # an extension left from an older checkout
    _compiled = None

_COMPILED_N_LIMIT = 2 ** 62  # the compiled merge's n is a C++ int64; any larger n runs in Python
MIN_TRANSITION_SCORE = 1e-6  # a transition scored 0 keeps a finite cost, so no path is lost outright
START = 0


@dataclass
class FSM:
    """State 0 is the start; state ``i >= 1`` is ``partials[i - 1]``."""

    partials: list[Partial]
    edges: dict[int, list[tuple[int, float]]] = field(default_factory=dict)  # state -> [(next state, score)]
    ends: list[int] = field(default_factory=list)

    def state(self, index: int) -> Partial | None:
        return None if index == START else self.partials[index - 1]

    @property
    def transitions(self) -> int:
        return sum(len(out) for out in self.edges.values())


def build_fsm(partials: Sequence[Partial], low: int, high: int,
              score: Callable[[Partial | None, Partial], float],
              score_many: Callable[[Partial | None, list[Partial]], list[float]] | None = None) -> FSM:
    """The machine over ``partials`` inside source ``[low, high)``; ``score(source, target)``, source None = start;
    ``score_many(source, targets)``, when given, scores one source's transitions at once (the same numbers)."""
    if score_many is None:
        def score_many(source, targets):
            return [score(source, target) for target in targets]

    # States in a canonical order (span, then words), so equal scores break the same way whichever decoder
    # numbered the hypotheses: K best paths that tie keep the lower state numbers.
    inside = sorted((p for p in partials if low <= p.start < p.end <= high),
                    key=lambda p: (p.start, p.end, p.words, -p.score, p.node.hyp))
    fsm = FSM(inside)
    starting_at: dict[int, list[int]] = {}
    for index, partial in enumerate(fsm.partials, start=1):
        starting_at.setdefault(partial.start, []).append(index)
    def scored(source: Partial | None, states: list[int]) -> list[tuple[int, float]]:
        return list(zip(states, score_many(source, [fsm.partials[i - 1] for i in states])))

    fsm.edges[START] = scored(None, starting_at.get(low, []))
    for index, partial in enumerate(fsm.partials, start=1):
        if partial.end == high:
            fsm.ends.append(index)
        else:
            fsm.edges[index] = scored(partial, starting_at.get(partial.end, []))
    return fsm


def transition_cost(score: float) -> float:
    return -math.log(max(score, MIN_TRANSITION_SCORE))


def topological_order(fsm: FSM) -> list[int]:
    """Start first, then partials by start position (every transition moves forward)."""
    return [START] + sorted(range(1, len(fsm.partials) + 1), key=lambda i: (fsm.partials[i - 1].start, i))


def kbest_paths(fsm: FSM, n: int) -> dict[int, list[tuple[float, tuple[int, ...]]]]:
    """For every end state, its ``n`` cheapest paths from the start: ``(cost, states after the start)``; compiled
    when the extension is built, else :func:`kbest_paths_python` (the same paths, costs and ties)."""
    if _compiled is None or not 0 < n < _COMPILED_N_LIMIT:
        return kbest_paths_python(fsm, n)
    sources, targets, scores = [], [], []
    for source, out in fsm.edges.items():
        for target, score in out:
            sources.append(source)
            targets.append(target)
            scores.append(score)
    if any(score != score for score in scores):  # NaN (an inf transition's SDSF): costs without an order, whose
        return kbest_paths_python(fsm, n)        # heap pops in an order only the Python heap defines
    found = _compiled.kbest_paths(n, len(fsm.partials) + 1, sources, targets, scores, topological_order(fsm),
                                  fsm.ends, MIN_TRANSITION_SCORE)
    return dict(zip(fsm.ends, found))


def kbest_paths_python(fsm: FSM, n: int) -> dict[int, list[tuple[float, tuple[int, ...]]]]:
    """:func:`kbest_paths` in Python."""
    if n <= 0:
        return {end: [] for end in fsm.ends}
    incoming: dict[int, list[tuple[int, float]]] = {}
    log = math.log
    for source, out in fsm.edges.items():
        for target, score in out:  # transition_cost, inline: a thousand edges per request
            floor = MIN_TRANSITION_SCORE if MIN_TRANSITION_SCORE > score else score  # max(score, MIN), as max picks
            incoming.setdefault(target, []).append((source, -log(floor)))
    best: dict[int, list[tuple[float, int, int]]] = {START: [(0.0, -1, -1)]}  # (cost, predecessor, its rank)
    for state in topological_order(fsm)[1:]:
        best[state] = _n_cheapest(n, incoming.get(state, ()), best)
    paths: dict[int, list[tuple[float, tuple[int, ...]]]] = {}
    for end in fsm.ends:
        found = []
        for rank, (cost, _, _) in enumerate(best.get(end, ())):
            states = []
            state, at = end, rank
            while state != START:
                states.append(state)
                _, state, at = best[state][at]
            found.append((cost, tuple(reversed(states))))
        paths[end] = found
    return paths


def _n_cheapest(n: int, incoming: Sequence[tuple[int, float]], best: dict[int, list[tuple[float, int, int]]]
                ) -> list[tuple[float, int, int]]:
    """The ``n`` smallest ``(cost + step, source, rank)`` over every incoming ``(source, step)`` and every rank of
    the source's own list, in order: ``heapq.nsmallest`` over all of them, without making all of them. Each source's
    list is sorted, so its extensions by one step are too (adding the same number keeps floats in order), and
    a heap holding each source's next one yields them all in order (a state with a hundred predecessors of a
    hundred paths each made ten thousand tuples to keep a hundred)."""
    if len(incoming) == 1:  # one predecessor: its list moved by one step, in the order the heap gives it
        source, step = incoming[0]
        paths = best.get(source) or ()
        return [(paths[rank][0] + step, source, rank) for rank in range(min(n, len(paths)))]
    heap = []
    for source, step in incoming:
        paths = best.get(source)
        if paths:
            heap.append((paths[0][0] + step, source, 0, step, paths))  # (source, rank) is unique: no tie goes further
    heapq.heapify(heap)
    cheapest = []
    while heap and len(cheapest) < n:
        cost, source, rank, step, paths = heap[0]
        cheapest.append((cost, source, rank))
        if rank + 1 < len(paths):
            heapq.heapreplace(heap, (paths[rank + 1][0] + step, source, rank + 1, step, paths))
        else:
            heapq.heappop(heap)
    return cheapest


def paths_per_end(total: int, ends: int) -> int:
    """``n`` for ``t`` end states so that ``K = n t`` stays near ``total`` (at least one path each)."""
    return max(1, total // max(1, ends))
