"""Retrieving only the best hypothesis of each span and output (issue 45: thesis-size graphs hold thousands of
hypotheses per span and about a hundred outputs) changes nothing a first partial filter keeping the best of each
output keeps; the spans followed by ``forward`` are the ones every hypothesis's link gives; a graph decoded on
request answers these queries as a graph store does."""

from __future__ import annotations

import dataclasses

import pytest

from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.cat.aligner import align_exact
from parastudio.core.engine.decoders.cat.approaches import APPROACHES
from parastudio.core.engine.decoders.cat.autoeval import read_cases
from parastudio.core.engine.decoders.cat.decoded_graph import DecodedGraph
from parastudio.core.engine.decoders.cat.graph_store import SentenceGraph, open_graph
from parastudio.core.engine.decoders.cat.paraphraser import suggest
from parastudio.core.engine.decoders.cat.partial_filters import PARTIAL_FILTERS, keeps_one_per_output
from parastudio.core.engine.decoders.cat.partials import coverage_spans, retrieve
from parastudio.core.engine.decoders.cat.stages import DEFAULT_PARAMETERS, SuggestContext


@pytest.fixture(scope="module")
def store():
    with open_graph(demo_files().roundtrip_graph) as opened:
        yield opened


@pytest.fixture(scope="module")
def cases():
    return read_cases(demo_files().roundtrip_cases)


def _decoded(store, sentence: int) -> SentenceGraph:
    """The store's sentence as a graph decoded on request holds it (rows in memory)."""
    nodes = [store._root(sentence), *store._within(sentence, 0, 10_000)]
    return SentenceGraph(DecodedGraph(f"s{sentence}", store.source(sentence) or (), [dataclasses.astuple(n)
                                                                                    for n in nodes]), 0)


def _followed_one_by_one(graph, translation, alignment) -> list[tuple[int, int]]:
    """Seed 001's spans as first written: every hypothesis of a span fetched, its ``forward`` looked up."""
    low, high = alignment.coverage
    spans = [(p.source_start, p.source_end) for p in translation.phrases
             if p.start >= alignment.start and p.end <= alignment.end and p.end > p.start]
    if high - low > DEFAULT_PARAMETERS["follow_limit"]:
        return spans
    seen, queue = set(spans), list(spans)
    while queue:
        span = queue.pop(0)
        for forward in sorted({n.forward for n in graph.by_coverage(*span) if n.forward is not None and n.forward >= 0}):
            following = graph.node(forward)
            if following is None or following.start != span[1] or following.end > high or following.span in seen:
                continue
            seen.add(following.span)
            spans.append(following.span)
            queue.append(following.span)
    return spans


def _context(graph, alignment, **parameters) -> SuggestContext:
    translation = graph.translation()
    return SuggestContext(graph=graph, translation=translation, alignment=alignment, tokens=translation.tokens,
                          lm=None, top=5, parameters={**DEFAULT_PARAMETERS, **parameters}, feedback=None,
                          before=graph.predecessor_on_best_path(alignment.source_start))


def test_the_best_of_each_output_is_what_each_first_partial_filter_keeps_of_all(store, cases):
    checked = 0
    for case in cases[::3]:
        for graph in (store.sentence_graph(case.sentence_id), _decoded(store, case.sentence_id)):
            translation = graph.translation()
            alignment = align_exact(translation, *case.span)
            assert coverage_spans(graph, translation, alignment) == _followed_one_by_one(graph, translation, alignment)
            context = _context(graph, alignment)
            for retrieval in ("forward", "all-spans"):
                every = retrieve(graph, translation, alignment, retrieval=retrieval)
                best = retrieve(graph, translation, alignment, retrieval=retrieval, distinct=True)
                assert best.count == every.count == len(every.partials) >= len(best.partials)
                for name, keep in PARTIAL_FILTERS.items():
                    assert keep(best.partials, context) == keep(every.partials, context), (case.id, retrieval, name)
                checked += len(every.partials) > len(best.partials)
    assert checked  # some spans did hold one output several times


def test_only_a_filter_keeping_the_best_of_each_output_first_gets_the_best_of_each(store, cases):
    parameters = dict(DEFAULT_PARAMETERS)
    assert keeps_one_per_output(["PTPF"], parameters) and keeps_one_per_output(["FWPF", "SDPF"], parameters)
    assert keeps_one_per_output(["SDPF"], {**parameters, "sdpf_threshold": 1})
    assert not keeps_one_per_output(["SDPF"], {**parameters, "sdpf_threshold": 0})
    assert not keeps_one_per_output([], parameters)
    # With no partial filter every hypothesis is a state of the machine: all of them are retrieved.
    unfiltered = dataclasses.replace(APPROACHES["approach-1"], name="unfiltered", partial_filters=())
    case = next(c for c in cases if c.span[1] - c.span[0] >= 2)
    graph = store.sentence_graph(case.sentence_id)
    everything = suggest(graph, *case.span, unfiltered)
    filtered = suggest(graph, *case.span, APPROACHES["approach-1"])
    assert len(everything.retrieved) == everything.retrieved_count == filtered.retrieved_count
    assert len(filtered.retrieved) <= filtered.retrieved_count
