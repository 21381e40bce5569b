"""The k best paths of a decoder's lattice, lazily (Huang & Chiang 2005, "Better k-best parsing", Algorithm 3).

The lattice of :mod:`core.engine.decoders.beam_decoder`: its nodes are the hypotheses
that won recombination (``Hypothesis.winner is None``); the edges into node
``v`` are ``v`` itself (from ``v.back``) and each recombined loser in
``v.arcs`` (from the loser's ``back``), weighted by their ``transition``; a
goal node takes an edge of weight 0 from every hypothesis of the final stack.
It is a DAG (every edge covers at least one more source word), and each
node's best incoming path is known: ``v.score`` through the edge ``v``
itself, since recombination kept the best.

Algorithm 3 on this graph, whose edges all have one tail: ``D(v)`` is the
list of the best derivations of ``v`` found so far (a derivation ``<e, j>``
is edge ``e`` after the ``j``-th best derivation of its tail), ``cand(v)`` a
heap of candidates. The ``k``-th derivation of ``v`` is popped from
``cand(v)`` once the successor ``<e, j+1>`` of the ``(k-1)``-th has been
pushed, which asks the tail for one more derivation, and so on down the
path: extracting one more path at the goal adds at most one derivation and
two candidates per node along one path. Each node's incoming edges enter
``cand(v)`` lazily, best first (the next one when the previous is popped),
so a node with many tied arcs costs nothing until its arcs are needed. So
``k`` paths of a sentence of ``n`` words store ``O(k n)`` entries whatever
the ties (:attr:`KBestPaths.entries` counts them), where a best-first search
over partial paths can push exponentially many on tied arcs.

Paths come out in non-increasing score order; among equal scores, in the
order their candidates were pushed.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from parastudio.core.engine.decoders.decoder_types import Hypothesis

# An edge: (tail node, weight, the hypothesis it is, or None for an edge into the goal).
_Edge = tuple[object, float, "Hypothesis | None"]


class _Node:
    """``D(v)`` as ``(score, edge index, j)`` triples, ``cand(v)`` and the lazily sorted incoming edges."""

    __slots__ = ("derivations", "candidates", "edges", "next_edge", "successor", "exhausted")

    def __init__(self, derivations: list, edges: list[_Edge], next_edge: int, successor):
        self.derivations = derivations
        self.candidates: list = []
        self.edges = edges
        self.next_edge = next_edge  # the first edge not yet in ``candidates``
        self.successor = successor  # (edge index, j) whose <e, j+1> is still to be pushed
        self.exhausted = False


class KBestPaths:
    """The best paths from the root to the final stack, extracted lazily: ``path(k)`` is the ``k``-th (0-based)."""

    def __init__(self, root: Hypothesis, final: Iterable[Hypothesis]):
        self.root = root
        self.entries = 0  # derivations stored plus candidates pushed, for every node
        self._tie = 0
        self._nodes: dict[int, _Node] = {}
        finals = sorted(((h, 0.0, None) for h in final), key=lambda edge: -edge[0].score)
        self._goal = _Node([], finals, 0, None)
        self._push_next_edge(self._goal)

    # -- the lattice ------------------------------------------------------------------------------
    def _node(self, hypothesis: Hypothesis) -> _Node:
        """A hypothesis' node, created with its best derivation ``<hypothesis, 0>`` when first reached."""
        node = self._nodes.get(id(hypothesis))
        if node is None:
            if hypothesis is self.root:
                node = _Node([(0.0, -1, 0)], [], 0, None)
                node.exhausted = True
            else:
                arcs = sorted(hypothesis.arcs, key=lambda arc: -(arc.back.score + arc.transition))
                edges = [(hypothesis.back, hypothesis.transition, hypothesis)]
                edges += [(arc.back, arc.transition, arc) for arc in arcs]
                node = _Node([(hypothesis.score, 0, 0)], edges, 1, (0, 0))
                self._push_next_edge(node)
            self.entries += 1
            self._nodes[id(hypothesis)] = node
        return node

    def _tail(self, edge: _Edge) -> _Node:
        return self._node(edge[0])

    def _tail_score(self, edge: _Edge, j: int) -> float:
        tail = edge[0]
        if j == 0:
            return tail.score  # the tail's best derivation, known without visiting it
        return self._nodes[id(tail)].derivations[j][0]

    def _push(self, node: _Node, index: int, j: int) -> None:
        edge = node.edges[index]
        self._tie += 1
        heapq.heappush(node.candidates, (-(self._tail_score(edge, j) + edge[1]), self._tie, index, j))
        self.entries += 1

    def _push_next_edge(self, node: _Node) -> None:
        if node.next_edge < len(node.edges):
            self._push(node, node.next_edge, 0)
            node.next_edge += 1

    # -- Algorithm 3 ------------------------------------------------------------------------------
    def _ensure(self, start: _Node, wanted: int) -> None:
        """Make ``start.derivations`` hold ``wanted`` derivations, or as many as there are (no recursion)."""
        frames = [(start, wanted)]
        while frames:
            node, count = frames[-1]
            if len(node.derivations) >= count or node.exhausted:
                frames.pop()
                continue
            if node.successor is not None:  # LazyNext: <e, j+1> after the last derivation <e, j>
                index, j = node.successor
                tail = self._tail(node.edges[index])
                if len(tail.derivations) <= j + 1 and not tail.exhausted:
                    frames.append((tail, j + 2))
                    continue
                if len(tail.derivations) > j + 1:
                    self._push(node, index, j + 1)
                node.successor = None
            if not node.candidates:
                node.exhausted = True
                frames.pop()
                continue
            negative, _, index, j = heapq.heappop(node.candidates)
            node.derivations.append((-negative, index, j))
            self.entries += 1
            node.successor = (index, j)
            if j == 0:
                self._push_next_edge(node)

    def path(self, k: int) -> tuple[float, tuple[Hypothesis, ...]] | None:
        """``(score, edges from the first phrase to the last)`` of the ``k``-th best path, or None."""
        self._ensure(self._goal, k + 1)
        if len(self._goal.derivations) <= k:
            return None
        score, index, j = self._goal.derivations[k]
        node = self._goal.edges[index][0]
        edges: list[Hypothesis] = []
        while node is not self.root:
            if j == 0:  # the node's best derivation: the edge it is itself, after its tail's best
                hypothesis, node = node, node.back
            else:
                entry = self._nodes[id(node)]
                _, index, j = entry.derivations[j]
                node, _, hypothesis = entry.edges[index]
            edges.append(hypothesis)
        edges.reverse()
        return score, tuple(edges)
