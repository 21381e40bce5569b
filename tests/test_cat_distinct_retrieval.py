"""Retrieving only the best hypothesis of each span and output (issue 45: thesis-size graphs hold thousands of
hypotheses per span and about a hundred outputs) changes nothing a first partial filter keeping the best of each
output keeps; the spans followed by ``forward`` are the ones every hypothesis's link gives; a graph decoded on
request answers these queries as a graph store does."""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.cat.aligner import align_exact
from parastudio.core.engine.decoders.cat.approaches import APPROACHES
from parastudio.core.engine.decoders.cat.autoeval import read_cases
from parastudio.core.engine.decoders.cat.decoded_graph import DecodedGraph
from parastudio.core.engine.decoders.cat.graph_store import INDEXES, OUTPUT_INDEX, GraphStore, SentenceGraph, open_graph
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


def _without_output_index(path, into):
    """A copy of the store at ``path`` as a store made before the output index reads (the index dropped)."""
    shutil.copyfile(path, into)
    with contextlib.closing(sqlite3.connect(into)) as connection:
        connection.execute(f"DROP INDEX IF EXISTS {OUTPUT_INDEX}")
        connection.commit()
    return into


def _with_output_index(path, into):
    shutil.copyfile(path, into)
    with contextlib.closing(sqlite3.connect(into)) as connection:
        connection.execute(next(sql for sql in INDEXES if OUTPUT_INDEX in sql).replace("INDEX", "INDEX IF NOT EXISTS", 1))
        connection.commit()
    return into


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from(["a", "b", "a b", "", "c d e"]),
                               st.sampled_from([-1.5, -2.0, -2.25, -7.0])), min_size=1, max_size=60))
def test_the_best_of_each_output_is_the_same_walked_in_the_index_or_ranked_by_a_window(tmp_path_factory, rows):
    """Spans of a few outputs with tied scores (the lowest id wins a tie), the empty output among them: the
    index walk a new store uses answers what the window query of a store made before it answers."""
    folder = tmp_path_factory.mktemp("outputs")
    lines = ["0 hyp=0 stack=0 forward=-1 fscore=0"]
    for hyp, (start, width, out, score) in enumerate(rows, start=1):
        lines.append(f"0 hyp={hyp} stack=1 back=0 score={score} transition={score} forward=-1 fscore=0 "
                     f"covered={start}-{start + width} out={out}")
    graph = folder / "made.graph"
    graph.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with GraphStore.build(folder / "indexed.sqlite", [graph]) as indexed, \
            GraphStore(_without_output_index(folder / "indexed.sqlite", folder / "older.sqlite")) as older:
        assert indexed._by_output and not older._by_output
        for start, end in {(start, start + width + 1) for start, width, _, _ in rows}:
            walked = indexed._distinct_by_coverage(0, start, end)
            assert walked == older._distinct_by_coverage(0, start, end)
            assert len(walked) == len({out for s, w, out, _ in rows if (s, s + w + 1) == (start, end)})


def test_the_bundled_graphs_give_the_same_best_of_each_output_either_way(store, tmp_path):
    indexed = GraphStore(_with_output_index(store.path, tmp_path / "indexed.sqlite"))
    older = GraphStore(_without_output_index(store.path, tmp_path / "older.sqlite"))
    with indexed, older, contextlib.closing(sqlite3.connect(f"file:{store.path}?mode=ro", uri=True)) as reading:
        assert indexed._by_output and not older._by_output
        spans = reading.execute("SELECT DISTINCT sentence, covered_start, covered_end FROM hypothesis "
                                "WHERE sentence < 60 AND covered_start IS NOT NULL").fetchall()
        assert len(spans) > 1000
        for sentence, start, last in spans:
            assert indexed._distinct_by_coverage(sentence, start, last + 1) == \
                older._distinct_by_coverage(sentence, start, last + 1)
