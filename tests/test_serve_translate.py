"""A new sentence sent to ``POST /translate`` gets suggestions from its own search graph (issue 45, item 2): the
same as ``parastudio suggest`` gives on the graph ``generate --search-graph`` writes for it, feedback included;
the graphs kept are the most recently used ones."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from serve_support import post, running_server

from parastudio.core.cli import main as cli_main
from parastudio.core.demo import demo_files
from parastudio.core.engine.candidates.generation_options import options_for
from parastudio.core.engine.candidates.generation_resources import load_resources
from parastudio.core.engine.decoders.beam_decoder import BeamDecoder
from parastudio.core.engine.decoders.cat.approaches import APPROACHES
from parastudio.core.engine.decoders.cat.decoded_graph import DecodedGraph, _row, graph_rows
from parastudio.core.engine.decoders.cat.graph_store import GraphStore, SentenceGraph
from parastudio.core.engine.decoders.cat.paraphraser import suggest
from parastudio.core.engine.decoders.cat.recent_graphs import RecentGraphs, sentence_key
from parastudio.core.engine.decoders.search_graph import forward_scores, search_graph_lines

NEW = "and the king said unto his servants , go and bring the young man into the house of the lord ."


def _sentences(count: int) -> list[tuple[str, ...]]:
    with open(demo_files().test_sentences, encoding="utf-8") as handle:
        return [tuple(line.split()) for line, _ in zip(handle, range(count))]


@pytest.fixture(scope="module")
def decoded(tmp_path_factory):
    """Six demo sentences decoded once: each as a DecodedGraph and, through its graph file, in a GraphStore."""
    options = options_for("beam")
    resources = load_resources(options, [demo_files().table], demo_files().lm)
    decoder = BeamDecoder(resources.tables[0], resources.lm, options.decoder)
    results = [decoder.decode(sentence) for sentence in _sentences(6)]
    graph = tmp_path_factory.mktemp("graphs") / "decoded.graph"
    graph.write_text("".join(line + "\n" for number, result in enumerate(results)
                             for line in search_graph_lines(number, result)), encoding="utf-8")
    store = GraphStore.build(graph.with_suffix(".sqlite"), [graph])
    yield [DecodedGraph.from_result(f"s{number}", result) for number, result in enumerate(results)], store, \
        resources.lm
    store.close()


def test_a_decoded_graph_has_the_1_best_its_graph_file_has(decoded):
    graphs, store, _ = decoded
    for number, graph in enumerate(graphs):
        assert SentenceGraph(graph, 0).translation() == store.sentence_graph(number).translation()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_decoded_graph_gives_the_suggestions_its_graph_file_gives(decoded, data):
    graphs, store, lm = decoded
    number = data.draw(st.integers(0, len(graphs) - 1))
    length = len(SentenceGraph(graphs[number], 0).translation().tokens)
    start = data.draw(st.integers(0, length - 1))
    end = data.draw(st.integers(start + 1, min(length, start + 8)))
    approach = APPROACHES[data.draw(st.sampled_from(["approach-1", "approach-4", "approach-10"]))]
    feedback = data.draw(st.sampled_from([None, ("the", "house"), ("he", "said", "to", "them")]))
    ours = suggest(SentenceGraph(graphs[number], 0), start, end, approach, lm=lm, feedback=feedback).to_json()
    theirs = suggest(store.sentence_graph(number), start, end, approach, lm=lm, feedback=feedback).to_json()
    for answer in (ours, theirs):
        del answer["milliseconds"], answer["sentence"]
    assert ours == theirs


@pytest.fixture(scope="module")
def decoders():
    """The demo's beam decoder at several stack sizes, on one loaded table and LM."""
    resources = load_resources(options_for("beam"), [demo_files().table], demo_files().lm)
    return {stack: BeamDecoder(resources.tables[0], resources.lm, options_for("beam", stack_size=stack).decoder)
            for stack in (1, 3, 10, 100)}


@settings(max_examples=40, deadline=None)
@given(sentence=st.integers(0, 99), stack=st.sampled_from([1, 3, 10, 100]), words=st.integers(1, 40))
def test_a_graph_read_from_the_lattice_has_the_rows_its_hypotheses_give(decoders, sentence, stack, words):
    """/translate builds its graph from the lines the C++ lattice gives; the rows (every connected hypothesis, its
    recombined ones after it, forward and fscore) equal those made from the Hypothesis objects, in order."""
    source = _sentences(100)[sentence][:words]
    result = decoders[stack].decode(source)
    assume(result.best() is not None)
    fast = graph_rows(result)
    forward, fscore = forward_scores(result)
    slow = [_row(h, forward, fscore) for winner in result.connected() for h in (winner, *winner.arcs)]
    assert fast == slow
    assert len(fast) > 1


@pytest.fixture(scope="module")
def server():
    with running_server() as address:
        yield address


def _without(answer: dict, *names: str) -> dict:
    return {key: value for key, value in answer.items() if key not in names}


@pytest.mark.parametrize("extra, flags", [
    ({}, []),
    ({"feedback": "the young man"}, ["--feedback", "the young man"]),
    ({"approach": "approach-1", "top": 3}, ["--approach", "approach-1", "--top", "3"]),
])
def test_a_new_sentence_is_answered_as_suggest_answers_on_its_graph_file(server, tmp_path, capsys, monkeypatch,
                                                                       extra, flags):
    status, translated = post(server, "/translate", {"source": NEW, "id": "segment-12"})
    assert status == 200 and translated["id"] == "segment-12" and translated["key"] == sentence_key(NEW.split())
    graph = tmp_path / "new.graph"
    monkeypatch.setattr("sys.stdin", io.StringIO(NEW + "\n"))
    assert cli_main(["generate", "--system", "beam", "--table", str(demo_files().table), "--lm",
                     str(demo_files().lm), "--search-graph", str(graph), "--report-segmentation"]) == 0
    assert capsys.readouterr().out.strip() == translated["segmentation"]
    tokens = translated["translation"].split()
    for span in ([0, 2], [3, 6], [len(tokens) - 4, len(tokens)]):
        status, answer = post(server, "/suggest", {"key": translated["key"], "span": span, **extra})
        assert status == 200
        assert cli_main(["suggest", "--graph", str(graph), "--sentence", "0", "--span", *map(str, span), "--json",
                         *flags]) == 0
        expected = json.loads(capsys.readouterr().out)
        assert _without(answer, "milliseconds", "sentence", "key") == _without(expected, "milliseconds", "sentence", "key")
        assert post(server, "/suggest", {"source": NEW, "span": span, **extra})[1]["suggestions"] == \
            answer["suggestions"]


def test_the_same_sentence_sent_again_is_not_decoded_again(server):
    first = post(server, "/translate", {"source": "he went  up to the   city ."})[1]
    again = post(server, "/translate", {"source": "he went up to the city .", "id": 3})[1]
    assert again["key"] == first["key"] and again["kept"] and again["id"] == 3
    assert _without(again, "kept", "id", "milliseconds") == _without(first, "kept", "id", "milliseconds")


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4), st.lists(st.tuples(st.sampled_from(["put", "get"]), st.integers(0, 6)), max_size=40))
def test_the_graphs_kept_are_the_most_recently_used(capacity, operations):
    assume(operations)
    kept = RecentGraphs(capacity)
    recent: list[int] = []  # the reference: most recent last
    for operation, number in operations:
        key = f"s-{number}"
        if operation == "put":
            kept.put(DecodedGraph(key, ("w",), []))
            recent = [n for n in recent if n != number] + [number]
        else:
            found = kept.get(key)
            assert (found is not None) == (number in recent)
            if found is not None:
                recent = [n for n in recent if n != number] + [number]
        recent = recent[-capacity:]
    assert sorted(recent) == sorted(int(key[2:]) for key in kept._graphs)
