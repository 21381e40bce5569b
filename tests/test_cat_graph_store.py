"""The search graph store (seed 001 §3.2.2): streamed from ours and Moses' formats, queried by coverage."""

from __future__ import annotations

import gzip
import sqlite3
from contextlib import closing

import pytest

from parastudio.core.cli import main
from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.decoders.cat.graph_store import GraphStore, best_path_from, is_graph_store, open_graph
from parastudio.core.engine.decoders.cat.translate import translate_all
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule
from parastudio.core.errors import InputFileError, InputFormatError
from tests.cat_graph_fixture import BEST, GRAPH


@pytest.fixture
def store(tmp_path):
    dump = tmp_path / "graph.txt"
    dump.write_text(GRAPH, encoding="utf-8")
    with GraphStore.build(tmp_path / "g.sqlite", [dump], sources=["a b c d e"]) as built:
        yield built


def test_rows_keep_every_attribute_and_the_best_path_follows_forward(store):
    graph = store.sentence_graph(0)
    assert graph.translation().format() == BEST
    nodes = graph.by_coverage(2, 4)
    assert [n.hyp for n in nodes] == [6, 13, 7, 14, 15]  # best score first
    recombined = graph.node(12)
    assert (recombined.back, recombined.recombined, recombined.forward, recombined.score) == (2, 3, 6, -3.5)
    assert graph.node(999) is None
    assert store.source(0) == ("a", "b", "c", "d", "e")
    assert store.sentences() == [0]


def test_moses_extended_lines_and_a_root_with_forward_load_too(tmp_path):
    extended = ('0 hyp=0 stack=0 forward=1 fscore=-2\n'
                '0 hyp=1 stack=1 back=0 score=-1 transition=-1 forward=2 fscore=-1 covered=0-0 '
                'scores="LM0= -0.5 TM0= -0.5" out="uno|one"\n'
                '0 hyp=2 stack=2 back=1 score=-2 transition=-1 forward=-1 fscore=0 covered=1-1 '
                'scores="-1" out="dos|two"\n')
    dump = tmp_path / "extended.txt.gz"
    dump.write_bytes(gzip.compress(extended.encode()))
    with GraphStore.build(tmp_path / "e.sqlite", [dump]) as built:
        assert built.sentence_graph(0).translation().format() == "one |0-0| two |1-1|"


def test_our_decoders_graph_has_its_one_best_as_best_path(tmp_path):
    table = ParaphraseTable([Rule(("a",), ("x",), 0.5), Rule(("a",), ("y", "z"), 0.4), Rule(("b", "c"), ("w",), 0.3),
                             Rule(("b",), ("v",), 0.6), Rule(("c",), ("u",), 0.9)])
    decoder = BeamDecoder(table, None, DecoderSettings(stack_size=5))
    dump = tmp_path / "ours.txt"
    with open(dump, "w", encoding="utf-8") as handle:
        translations = translate_all(decoder, [("a", "b", "c"), ("c", "a")], graph=handle)
    with GraphStore.build(tmp_path / "ours.sqlite", [dump]) as built:
        for sentence, translation in enumerate(translations):
            assert built.sentence_graph(sentence).translation() == translation


def test_a_malformed_line_names_its_file_and_line(tmp_path):
    dump = tmp_path / "bad.txt"
    dump.write_text(GRAPH + "0 hyp=20 stack=1 back=0 score=oops transition=-1 forward=3 fscore=-4 covered=0-0 out=x\n",
                    encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"bad\.txt:17: expected a number in score="):
        GraphStore.build(tmp_path / "bad.sqlite", [dump])
    assert not (tmp_path / "bad.sqlite").exists()
    assert not list(tmp_path.glob(".bad.sqlite.*"))  # nothing half-written is left


def test_a_sqlite_file_that_is_not_a_graph_store_is_refused_and_left_untouched(tmp_path):
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    before = other.read_bytes()
    with pytest.raises(InputFileError, match="search graph store"):
        GraphStore(other)
    assert other.read_bytes() == before
    assert not is_graph_store(other)


def test_a_dump_opens_through_a_cached_store(tmp_path, monkeypatch):
    monkeypatch.setenv("PARASTUDIO_CACHE", str(tmp_path / "cache"))
    dump = tmp_path / "graph.txt"
    dump.write_text(GRAPH, encoding="utf-8")
    first = open_graph(dump)
    assert is_graph_store(first.path) and first.path.parent.parent == tmp_path / "cache"
    assert open_graph(dump).path == first.path  # loaded once
    assert open_graph(first.path).sentence_graph(0).translation().format() == BEST


def test_graph_load_command(tmp_path, capsys):
    dump = tmp_path / "graph.txt"
    dump.write_text(GRAPH, encoding="utf-8")
    assert main(["graph", "load", str(dump), "-o", str(tmp_path / "cli.sqlite")]) == 0
    assert "16 hypotheses of 1 sentences" in capsys.readouterr().out
    assert main(["graph", "load", str(tmp_path / "missing.txt"), "-o", str(tmp_path / "x.sqlite")]) == 1


def test_the_decoders_own_segmentation_is_preferred_and_checked(tmp_path, capsys):
    dump = tmp_path / "graph.txt"
    dump.write_text(GRAPH, encoding="utf-8")
    printed = "indiana |0-0| became the |1-1| first |2-2| state |3-3| . |4-4|"  # another tiling of the same words
    (tmp_path / "seg.txt").write_text(printed + "\n", encoding="utf-8")
    assert main(["graph", "load", str(dump), "-o", str(tmp_path / "t.sqlite"), "--translations",
                 str(tmp_path / "seg.txt")]) == 0
    with GraphStore(tmp_path / "t.sqlite") as store:
        assert store.sentence_graph(0).translation().format() == printed
    (tmp_path / "bad.txt").write_text("indiana |0-0| became the\n", encoding="utf-8")
    assert main(["graph", "load", str(dump), "-o", str(tmp_path / "u.sqlite"), "--translations",
                 str(tmp_path / "bad.txt")]) == 2
    assert "bad.txt:1: expected every phrase followed by its source span" in capsys.readouterr().err
    assert not (tmp_path / "u.sqlite").exists()


def _best_path_one_by_one(store: GraphStore, sentence: int) -> list:
    """The 1-best walked a hypothesis at a time, as the store read it before its recursive query."""
    root = store._root(sentence)
    starts = [] if root.forward is not None else store._starting_at(sentence, 0)
    return best_path_from(root, starts, lambda hyp: store._by_id(sentence, hyp) if hyp is not None and hyp >= 0
                          else None)


def test_the_best_path_read_in_one_query_is_the_walk_a_hypothesis_at_a_time(tmp_path):
    """Every sentence of the bundled round-trip graphs (roots with ``forward``), and a chain cut by a ``forward``
    naming no hypothesis: the same nodes in the same order, read by one query."""
    from parastudio.core.demo import demo_files

    with open_graph(demo_files().roundtrip_graph) as bundled:
        sentences = bundled.sentences()
        assert len(sentences) > 50
        for sentence in sentences:
            graph = bundled.sentence_graph(sentence)
            path = graph.best_path()
            assert path and path == _best_path_one_by_one(bundled, sentence)
            assert graph.queries == 1  # root and first steps are the store's own queries; the chain one
    cut = tmp_path / "cut.sqlite"
    with open_graph(demo_files().roundtrip_graph) as bundled:
        bundled._connection.execute(f"VACUUM INTO '{cut}'")
        sentence = bundled.sentences()[0]
        whole = bundled.sentence_graph(sentence).best_path()
    with closing(sqlite3.connect(cut)) as connection, connection:  # the third step's forward now names nothing
        connection.execute("UPDATE hypothesis SET forward = 99999999 WHERE sentence = ? AND hyp = ?",
                           (sentence, whole[2].hyp))
    with GraphStore(cut) as edited:
        path = edited.sentence_graph(sentence).best_path()
        assert [node.hyp for node in path] == [node.hyp for node in whole[:3]]
        assert path == _best_path_one_by_one(edited, sentence)


def test_a_store_opened_as_given_whose_1_best_loops_is_refused(tmp_path):
    """A store we did not write is opened without our checks: forward links that loop back are refused naming the
    file, where walking them never ended."""
    from parastudio.core.demo import demo_files

    edited = tmp_path / "edited.sqlite"
    with open_graph(demo_files().roundtrip_graph) as bundled:
        bundled._connection.execute(f"VACUUM INTO '{edited}'")
        sentence = bundled.sentences()[0]
        whole = bundled.sentence_graph(sentence).best_path()
    with closing(sqlite3.connect(edited)) as connection, connection:
        connection.execute("UPDATE hypothesis SET forward = ? WHERE sentence = ? AND hyp = ?",
                           (whole[0].hyp, sentence, whole[2].hyp))
    with GraphStore(edited) as store, pytest.raises(InputFileError, match="edited.sqlite: expected .*they loop"):
        store.sentence_graph(sentence).best_path()
