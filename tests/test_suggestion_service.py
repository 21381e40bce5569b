"""``parastudio serve``: seed 001's paraphraser over HTTP answers as ``parastudio suggest --json`` does (the bad
requests, connections and contract: tests/test_serve_*.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from serve_support import post, request, running_server

from parastudio.core.cli import main as cli_main
from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.cat.approaches import APPROACHES
from parastudio.core.engine.decoders.cat.autoeval import read_cases
from parastudio.core.engine.decoders.cat.filters import FILTERS
from parastudio.core.engine.decoders.cat.graph_store import open_graph
from parastudio.core.engine.decoders.cat.paraphraser import normalized, suggest


@pytest.fixture(scope="module")
def server():
    with running_server() as address:
        yield address


def _without_time(answer: dict) -> dict:
    return {key: value for key, value in answer.items() if key not in ("milliseconds", "key")}


@pytest.mark.parametrize("approach", ["approach-1", "approach-10"])
def test_the_service_answers_as_the_suggest_command(server, approach, capsys):
    for case in read_cases(demo_files().roundtrip_cases)[:6]:
        status, answer = post(server, "/suggest", {"sentence": case.sentence_id, "span": list(case.span),
                                                   "approach": approach, "gold": " ".join(case.gold)})
        assert status == 200
        assert cli_main(["suggest", "--sentence", str(case.sentence_id), "--span", *map(str, case.span),
                         "--approach", approach, "--gold", " ".join(case.gold), "--json"]) == 0
        expected = json.loads(capsys.readouterr().out)
        assert _without_time(answer) == _without_time(expected)


def test_the_description_names_the_graph_and_its_approaches(server):
    status, _, described = request(server, "GET", "/")
    assert status == 200
    assert described["sentences"] == len(open_graph(demo_files().roundtrip_graph).sentences())
    assert set(described["approaches"]) == set(APPROACHES) and described["translates"]


def _fate_by_scanning(result, words) -> str:
    """Seed 001's fate of a candidate, read off the stages one by one (the definition the index must keep)."""
    key = normalized(words)
    if not any(normalized(s.words) == key for s in result.candidates):
        return "not a candidate"
    for stage, kept in result.stages:
        if stage in FILTERS and not any(normalized(s.words) == key for s in kept):
            return f"dropped by {stage}"
    for rank, suggestion in enumerate(result.ranked, start=1):
        if normalized(suggestion.words) == key:
            return f"shown {rank}" if rank <= result.top else f"ranked {rank}"
    return "dropped"


def test_every_candidates_fate_equals_the_stage_by_stage_definition():
    store = open_graph(demo_files().roundtrip_graph)
    compared = 0
    for case in read_cases(demo_files().roundtrip_cases)[:40]:
        graph = store.sentence_graph(case.sentence_id)
        for name in ("approach-1", "approach-10", "approach-4"):
            result = suggest(graph, *case.span, APPROACHES[name])
            for candidate in [*result.candidates, *[s for _, kept in result.stages for s in kept]]:
                assert result.fate(candidate.words) == _fate_by_scanning(result, candidate.words)
                compared += 1
            assert result.fate(["no", "such", "words", "anywhere"]) == "not a candidate"
    assert compared > 1000


def test_the_request_time_starts_after_scipy_is_imported():
    program = """
import sys
from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.cat import paraphraser
from parastudio.core.engine.decoders.cat.approaches import APPROACHES
from parastudio.core.engine.decoders.cat.graph_store import open_graph
real = paraphraser.time.perf_counter
seen = []
class Clock:
    @staticmethod
    def perf_counter():
        seen.append("scipy.cluster.vq" in sys.modules)
        return real()
paraphraser.time = Clock
assert "scipy.cluster.vq" not in sys.modules
graph = open_graph(demo_files().roundtrip_graph).sentence_graph(0)
paraphraser.suggest(graph, 0, 3, APPROACHES["approach-10"])
print(seen[0])
"""
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300)
    assert result.stdout.strip() == "True", result.stderr
