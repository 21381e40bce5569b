"""``parastudio serve``: seed 001's paraphraser over HTTP answers as ``parastudio suggest --json`` does."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import threading
from argparse import Namespace

import pytest

from core.cli import main as cli_main
from core.cli.serve_cmd import build_service, make_server
from core.demo import demo_files
from core.engine.decoders.cat.approaches import APPROACHES
from core.engine.decoders.cat.autoeval import read_cases
from core.engine.decoders.cat.filters import FILTERS
from core.engine.decoders.cat.graph_store import open_graph
from core.engine.decoders.cat.paraphraser import normalized, suggest


@pytest.fixture(scope="module")
def server():
    service = build_service(Namespace(approaches=None, approach="approach-10", graph=None, lm=None))
    httpd = make_server(service, "127.0.0.1", 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address
    httpd.shutdown()
    httpd.server_close()
    service.store.close()


def _post(address, body: bytes, headers=None):
    connection = http.client.HTTPConnection(*address, timeout=60)
    connection.request("POST", "/suggest", body, headers or {"Content-Type": "application/json"})
    response = connection.getresponse()
    payload = json.loads(response.read())
    connection.close()
    return response.status, payload


def _without_time(answer: dict) -> dict:
    return {key: value for key, value in answer.items() if key != "milliseconds"}


@pytest.mark.parametrize("approach", ["approach-1", "approach-10"])
def test_the_service_answers_as_the_suggest_command(server, approach, capsys):
    for case in read_cases(demo_files().roundtrip_cases)[:6]:
        status, answer = _post(server, json.dumps({"sentence": case.sentence_id, "span": list(case.span),
                                                   "approach": approach, "gold": " ".join(case.gold)}).encode())
        assert status == 200
        assert cli_main(["suggest", "--sentence", str(case.sentence_id), "--span", *map(str, case.span),
                         "--approach", approach, "--gold", " ".join(case.gold), "--json"]) == 0
        expected = json.loads(capsys.readouterr().out)
        assert _without_time(answer) == _without_time(expected)


@pytest.mark.parametrize("body, status, words", [
    (b'{"sentence": 0}', 400, "span: expected [I, J]"),
    (b'{"sentence": "0", "span": [0, 1]}', 400, "sentence: expected an integer"),
    (b'{"sentence": 0, "span": [0, 1], "top": 0}', 400, "top: expected an integer from 1"),
    (b'{"sentence": 0, "span": [0, 1], "colour": 1}', 400, "unknown field(s) ['colour']"),
    (b'{"sentence": 0, "span": [5, 1]}', 400, "span: expected 0 <= I < J"),
    (b'{"sentence": 0, "span": [0, 1], "approach": "approach-99"}', 400, "no approach 'approach-99'"),
    (b'{"sentence": 123456789, "span": [0, 1]}', 404, "no sentence 123456789"),
    (b"[1, 2]", 400, "expected a JSON object"),
    (b"{not json", 400, "body: expected a JSON object"),
    (b"\xff\xfe", 400, "body: expected a JSON object in UTF-8"),
    (b"[" * 100000 + b"]" * 100000, 400, "body: expected a JSON object"),
])
def test_a_bad_request_gets_a_status_and_a_message_naming_the_field(server, body, status, words):
    got, payload = _post(server, body)
    assert got == status
    assert words in payload["error"]


def test_a_body_too_long_or_unannounced_is_refused_and_the_service_goes_on(server):
    connection = http.client.HTTPConnection(*server, timeout=60)
    connection.putrequest("POST", "/suggest")
    connection.putheader("Content-Length", str(10 ** 9))
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 413
    connection.close()
    connection = http.client.HTTPConnection(*server, timeout=60)
    connection.putrequest("POST", "/suggest")
    connection.endheaders()
    assert connection.getresponse().status == 411
    connection.close()
    assert _post(server, b'{"sentence": 0, "span": [0, 2]}')[0] == 200


def test_the_description_names_the_graph_and_its_approaches(server):
    connection = http.client.HTTPConnection(*server, timeout=60)
    connection.request("GET", "/")
    described = json.loads(connection.getresponse().read())
    assert described["sentences"] == len(open_graph(demo_files().roundtrip_graph).sentences())
    assert set(described["approaches"]) == set(APPROACHES)
    connection.request("GET", "/elsewhere")
    assert connection.getresponse().status == 404


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
from core.demo import demo_files
from core.engine.decoders.cat import paraphraser
from core.engine.decoders.cat.approaches import APPROACHES
from core.engine.decoders.cat.graph_store import open_graph
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
