"""A search graph is checked as it loads (issue 22): each defect is ``file:line: expected ...``, never a hang.

Hand-made graphs, each the consistent graph of ``cat_graph_fixture`` with one line
changed: a forward pointer that loops back, a back-pointer to a higher stack or
to no hypothesis, a forward pointer to no hypothesis, a hypothesis id given twice.
``graph load`` and ``suggest`` (which loads a dump itself) both refuse it with the
changed line's number; the consistent graph still loads.
"""

from __future__ import annotations

import pytest

from parastudio.core.cli import main
from tests.cat_graph_fixture import GRAPH

LINES = GRAPH.splitlines()


def _changed(number: int, old: str, new: str) -> str:
    """GRAPH with ``old`` replaced by ``new`` on line ``number`` (1-based)."""
    lines = list(LINES)
    assert old in lines[number - 1]
    lines[number - 1] = lines[number - 1].replace(old, new)
    return "\n".join(lines) + "\n"


# name -> (graph text, the line named, what the message expects)
DEFECTS = {
    # hyp 9 (stack 5, the last word) points forward to hyp 6 (stack 4), whose forward is 9: a loop.
    "forward loop": (_changed(15, "forward=-1", "forward=6"), 15, "forward= to name a hypothesis of a higher stack"),
    "back to a higher stack": (_changed(4, "back=1 ", "back=6 "), 4, "back= to name a hypothesis of a lower stack"),
    "dangling back": (_changed(8, "back=3 ", "back=99 "), 8, "back= to name a hypothesis of the same sentence"),
    "dangling forward": (_changed(2, "forward=3 ", "forward=77 "), 2, "forward= to name a hypothesis of the same"),
    "dangling recombined": (_changed(7, "recombined=3", "recombined=55"), 7, "recombined= to name a hypothesis"),
    "id given twice": (_changed(10, "hyp=13 ", "hyp=7 "), 10, "a hypothesis id not used before in its sentence"),
}


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PARASTUDIO_CACHE", str(tmp_path / "cache"))


@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_a_defective_graph_is_refused_at_load_with_its_line(tmp_path, capsys, defect):
    text, line, expected = DEFECTS[defect]
    graph = tmp_path / "graph.txt"
    graph.write_text(text, encoding="utf-8")
    store = tmp_path / "store.sqlite"
    assert main(["graph", "load", str(graph), "-o", str(store)]) == 2
    err = capsys.readouterr().err
    assert f"{graph}:{line}: expected {expected}" in err, err
    assert not store.exists() and [p.name for p in tmp_path.iterdir()] == ["graph.txt"]  # nothing half-built
    # suggest loads the dump itself: the same refusal, not a walk round the loop.
    assert main(["suggest", "--graph", str(graph), "--sentence", "0", "--span", "1", "2", "--lm",
                 str(tmp_path / "no-lm-needed.arpa")]) == 2
    assert f"{graph}:{line}: expected {expected}" in capsys.readouterr().err


def test_the_consistent_graph_loads_and_two_dumps_of_one_sentence_are_refused(tmp_path, capsys):
    graph = tmp_path / "graph.txt"
    graph.write_text(GRAPH, encoding="utf-8")
    assert main(["graph", "load", str(graph), "-o", str(tmp_path / "store.sqlite")]) == 0
    assert "16 hypotheses of 1 sentences" in capsys.readouterr().out
    again = tmp_path / "again.txt"
    again.write_text(GRAPH, encoding="utf-8")  # sentence 0 once more: every id a second time
    assert main(["graph", "load", str(graph), str(again), "-o", str(tmp_path / "two.sqlite")]) == 2
    assert f"{again}:1: expected a hypothesis id not used before in its sentence" in capsys.readouterr().err
