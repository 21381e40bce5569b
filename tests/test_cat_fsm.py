"""The FSM of partial paraphrases and its K best paths (seed 001 §3.4.3), against Yen's algorithm and brute force."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.engine.decoders.cat import fsm as fsm_module
from parastudio.core.engine.decoders.cat.fsm import (
    START,
    build_fsm,
    kbest_paths,
    kbest_paths_python,
    paths_per_end,
    transition_cost,
)
from parastudio.core.engine.decoders.cat.graph_store import GraphNode
from parastudio.core.engine.decoders.cat.partials import Partial


def partial(hyp: int, start: int, end: int, words: str = "w", score: float = -1.0) -> Partial:
    node = GraphNode(hyp, end, 0, score, -1.0, None, None, None, start, end, tuple(words.split()))
    return Partial(node, node.out)


def _machine(draw, *, longest: int, most_partials: int, values: list[float], score_counts: tuple[int, int]):
    """Partials over a random source ``[0, n)``, each transition scored from a drawn list of ``values`` in the
    order the machine asks: ``(machine, n)``."""
    n = draw(st.integers(1, longest))
    spans = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, 3)), min_size=1, max_size=most_partials))
    pieces = [partial(i + 1, s, min(n, s + length), f"w{i}") for i, (s, length) in enumerate(spans)]
    scores = draw(st.lists(st.sampled_from(values), min_size=score_counts[0], max_size=score_counts[1]))
    table = {}

    def score(source, target):
        key = (source.node.hyp if source else 0, target.node.hyp)
        if key not in table:
            table[key] = scores[len(table) % len(scores)]
        return table[key]

    return build_fsm(pieces, 0, n, score), n


@st.composite
def machines(draw):
    """Random partials over source [0, n) with random transition scores (some 0)."""
    return _machine(draw, longest=5, most_partials=9, values=[0.0, 0.1, 0.25, 0.5, 0.5, 0.9, 1.0],
                    score_counts=(200, 200))


def all_paths(fsm):
    """Brute force: every path from the start to each end state, with its cost."""
    paths = {end: [] for end in fsm.ends}

    def walk(state, cost, so_far):
        if state in paths:
            paths[state].append((cost, tuple(so_far)))
        for target, score in fsm.edges.get(state, ()):
            walk(target, cost + transition_cost(score), so_far + [target])

    walk(START, 0.0, [])
    return paths


@settings(max_examples=150, deadline=None)
@given(machines(), st.integers(1, 6))
def test_kbest_paths_are_the_n_cheapest_of_brute_force(machine, n):
    fsm, _ = machine
    expected = all_paths(fsm)
    got = kbest_paths(fsm, n)
    for end in fsm.ends:
        want = sorted(cost for cost, _ in expected[end])[:n]
        assert [cost for cost, _ in got[end]] == pytest.approx(want)
        for cost, states in got[end]:  # each path is real and its cost is its own
            assert states in {p for _, p in expected[end]}
            previous, total = START, 0.0
            for state in states:
                total += transition_cost(dict(fsm.edges[previous])[state])
                previous = state
            assert total == pytest.approx(cost)


@st.composite
def wide_machines(draw):
    """Machines as a thesis-size request makes them (many partials per span, hence states with many predecessors
    and many paths each), with scores drawn from a few values so that costs tie and the tie order decides."""
    return _machine(draw, longest=7, most_partials=40, values=[0.0, 1e-7, 0.1, 0.25, 0.5, 0.9, 1.0, 2.0],
                    score_counts=(1, 50))[0]


@pytest.mark.skipif(fsm_module._compiled is None, reason="the compiled search cores are not built")
@settings(max_examples=300, deadline=None)
@given(st.one_of(wide_machines(), machines().map(lambda machine: machine[0])), st.integers(0, 120))
def test_the_compiled_k_best_paths_are_the_python_ones_bit_for_bit(machine, n):
    """The same paths, in the same order (ties included), with costs equal to the last bit."""
    compiled = kbest_paths(machine, n)
    python = kbest_paths_python(machine, n)
    assert list(compiled) == list(python)
    for end in python:
        assert [(cost.hex(), states) for cost, states in compiled[end]] == \
            [(cost.hex(), states) for cost, states in python[end]]


def test_a_machine_with_nan_scores_or_a_huge_n_gets_the_python_paths():
    """NaN costs (an inf transition's SDSF) have no order: the Python heap's pops are the answer, whatever is built.
    An n past the compiled merge's integers runs in Python too."""
    nan = float("nan")
    pieces = [partial(i + 1, i, i + 1, f"w{i}") for i in range(3)]
    machine = fsm_module.FSM(pieces, {START: [(1, nan), (2, 1.0)], 1: [(2, 1.0)], 2: [(3, nan)]}, [3])
    got, want = kbest_paths(machine, 4), kbest_paths_python(machine, 4)
    assert [states for _, states in got[3]] == [states for _, states in want[3]] == [(1, 2, 3), (2, 3)]
    assert kbest_paths(machine, 2 ** 70)[3][0][1] == (1, 2, 3)


@pytest.mark.skipif(fsm_module._compiled is None, reason="the compiled search cores are not built")
def test_the_compiled_k_best_paths_refuse_a_state_out_of_range():
    with pytest.raises(ValueError, match="out of range"):
        fsm_module._compiled.kbest_paths(2, 3, [0], [3], [0.5], [1, 2], [2], 1e-6)
    with pytest.raises(ValueError, match="one entry per transition"):
        fsm_module._compiled.kbest_paths(2, 3, [0, 1], [1], [0.5], [1, 2], [2], 1e-6)
    with pytest.raises(ValueError, match="at least its start state"):
        fsm_module._compiled.kbest_paths(2, 0, [], [], [], [], [], 1e-6)


@settings(max_examples=80, deadline=None)
@given(machines(), st.integers(1, 5))
def test_kbest_paths_agree_with_networkx_yen(machine, n):
    fsm, _ = machine
    assume(fsm.ends)
    graph = nx.DiGraph()
    graph.add_node(START)
    for source, out in fsm.edges.items():
        for target, score in out:
            graph.add_edge(source, target, weight=transition_cost(score))
    got = kbest_paths(fsm, n)
    for end in fsm.ends:
        if end not in graph or not nx.has_path(graph, START, end):
            assert got[end] == []
            continue
        yen = [nx.path_weight(graph, path, "weight")
               for path in itertools.islice(nx.shortest_simple_paths(graph, START, end, weight="weight"), n)]
        assert [cost for cost, _ in got[end]] == pytest.approx(yen)


def test_transitions_follow_the_coverage_and_ends_close_it():
    pieces = [partial(1, 2, 3, "a"), partial(2, 2, 4, "b"), partial(3, 3, 4, "c"), partial(4, 3, 5, "outside")]
    fsm = build_fsm(pieces, 2, 4, lambda source, target: 0.5)
    by_hyp = {p.node.hyp: i for i, p in enumerate(fsm.partials, start=1)}
    assert {fsm.partials[t - 1].node.hyp for t, _ in fsm.edges[START]} == {1, 2}
    assert [fsm.partials[t - 1].node.hyp for t, _ in fsm.edges[by_hyp[1]]] == [3]
    assert {fsm.partials[e - 1].node.hyp for e in fsm.ends} == {2, 3}
    assert 4 not in by_hyp  # ends past the selection
    assert math.exp(-kbest_paths(fsm, 1)[by_hyp[2]][0][0]) == pytest.approx(0.5)


def test_paths_per_end_spends_k_over_the_end_states():
    assert paths_per_end(100, 4) == 25 and paths_per_end(100, 300) == 1 and paths_per_end(100, 0) == 100


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 7.25]), max_size=6),
                          st.sampled_from([0.0, 0.5, 1.0, 3.0])), max_size=6),
       st.integers(1, 8))
def test_the_n_cheapest_extensions_are_heapq_nsmallest_over_all_of_them(lists, n):
    """The k-best merge (a heap over each predecessor's sorted list) keeps exactly, and in the same order, what
    ``heapq.nsmallest`` keeps of every extension, ties included (equal costs are common: equal scores)."""
    import heapq

    from parastudio.core.engine.decoders.cat.fsm import _n_cheapest

    best = {source: [(cost, -1, rank) for rank, cost in enumerate(sorted(costs))]
            for source, (costs, _) in enumerate(lists, start=1)}
    incoming = [(source, step) for source, (_, step) in enumerate(lists, start=1)]
    everything = [(cost + step, source, rank) for source, step in incoming
                  for rank, (cost, _, _) in enumerate(best[source])]
    assert _n_cheapest(n, incoming, best) == heapq.nsmallest(n, everything)
