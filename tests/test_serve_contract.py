"""``parastudio serve``'s contract (issue 45, item 3): ``/openapi.json``, the running service and docs/CLI.md
describe the same fields, paths and errors; CORS as ``--allow-origin`` says; any JSON body at all gets an answer
or an error the contract lists; the example client in docs/ works against the real service."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from serve_support import ROOT, WAIT, post, request, running_server

from parastudio.core import __version__
from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.cat.approaches import APPROACHES
from parastudio.core.engine.decoders.cat.graph_store import open_graph
from parastudio.core.engine.decoders.cat.service_requests import SUGGEST_FIELDS, TRANSLATE_FIELDS
from parastudio.core.engine.decoders.cat.suggestion_service import BadRequest, SuggestionService
from parastudio.core.service.contract import ERRORS, SCHEMAS, openapi_document

ORIGIN = "https://cat.example.org"
DOCUMENT = openapi_document(__version__)


@pytest.fixture(scope="module")
def server():
    with running_server("--allow-origin", ORIGIN) as address:
        yield address


def _section() -> str:
    text = (ROOT / "docs" / "CLI.md").read_text(encoding="utf-8")
    start = text.index("## `parastudio serve`: seed 001's service for a CAT tool")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else len(text)]


def test_the_service_serves_the_contract():
    with running_server() as server:
        status, _, served = request(server, "GET", "/openapi.json")
    assert status == 200 and served == DOCUMENT


def test_the_requests_in_the_contract_are_the_fields_the_service_reads():
    assert set(SCHEMAS["TranslateRequest"]["properties"]) == set(TRANSLATE_FIELDS)
    assert set(SCHEMAS["SuggestRequest"]["properties"]) == set(SUGGEST_FIELDS)


def test_docs_cli_md_states_every_path_field_and_error_of_the_contract():
    section = _section()
    for path in DOCUMENT["paths"]:
        assert f"`{'GET' if 'get' in DOCUMENT['paths'][path] else 'POST'} {path}`" in section, path
    for field in (*TRANSLATE_FIELDS, *SUGGEST_FIELDS):
        assert f"`{field}`" in section, field
    documented = {int(status): words.replace("`", "")
                  for status, words in re.findall(r"^\| (\d{3}) \| (.*) \|$", section, flags=re.MULTILINE)}
    assert documented == ERRORS


def test_every_documented_path_and_method_is_served_and_no_other(server):
    for path, operations in DOCUMENT["paths"].items():
        for method in operations:
            body = {"source": "a b"} if path == "/translate" else {"sentence": 0, "span": [0, 1]}
            status, _, _ = request(server, method.upper(), path, body if method == "post" else None)
            assert status == 200, (method, path, status)
            status, headers, _ = request(server, "OPTIONS", path)
            assert status == 204 and method.upper() in headers["allow"]
    assert request(server, "GET", "/docs")[0] == 404


def test_a_page_of_an_allowed_origin_may_call_and_another_may_not(server):
    preflight = {"Origin": ORIGIN, "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type"}
    status, headers, _ = request(server, "OPTIONS", "/suggest", headers=preflight)
    assert status == 204 and headers["access-control-allow-origin"] == ORIGIN
    assert "POST" in headers["access-control-allow-methods"]
    assert headers["access-control-allow-headers"] == "Content-Type"
    elsewhere = {**preflight, "Origin": "https://elsewhere.org"}
    status, _, refused = request(server, "OPTIONS", "/suggest", headers=elsewhere)
    assert (status, refused["field"]) == (403, "Origin") and "--allow-origin" in refused["error"]
    body = b'{"sentence": 0, "span": [0, 2]}'
    status, headers, _ = request(server, "POST", "/suggest", body, headers={"Origin": ORIGIN})
    assert status == 200 and headers["access-control-allow-origin"] == ORIGIN and "Origin" in headers["vary"]
    status, headers, _ = request(server, "POST", "/suggest", body, headers={"Origin": "https://elsewhere.org"})
    assert status == 200 and "access-control-allow-origin" not in headers
    status, headers, _ = request(server, "POST", "/nothing", body, headers={"Origin": ORIGIN})
    assert status == 404 and headers["access-control-allow-origin"] == ORIGIN  # a browser may read the error too


def test_the_example_client_in_docs_works_against_the_service(server):
    source = "and he said unto them , go ye into the city ."
    result = subprocess.run([sys.executable, str(ROOT / "docs" / "serve_client.py"), "--url",
                             f"http://{server[0]}:{server[1]}", "--feedback", "go into", source, "2", "4"],
                            capture_output=True, text=True, timeout=WAIT)
    assert result.returncode == 0, result.stderr
    translation = post(server, "/translate", {"source": source})[1]["translation"]
    assert result.stdout.startswith(f"translation: {translation}\nselection:   {' '.join(translation.split()[2:4])}\n")


@pytest.fixture(scope="module")
def service():
    built = SuggestionService(open_graph(demo_files().roundtrip_graph), APPROACHES)
    yield built
    built.close()


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10, 10 ** 6) | st.floats() | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12)
FIELDS = st.sampled_from([*SUGGEST_FIELDS, *TRANSLATE_FIELDS, "colour"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(JSON, st.dictionaries(FIELDS, JSON | st.lists(st.integers(-3, 60), min_size=2, max_size=2),
                                       max_size=6)))
def test_any_json_body_gets_an_answer_or_an_error_the_contract_lists(service, body):
    for method, operation in ((service.answer, ("/suggest", "post")), (service.translate, ("/translate", "post"))):
        try:
            answer = method(body)
        except BadRequest as refusal:
            assert str(refusal.status) in DOCUMENT["paths"][operation[0]][operation[1]]["responses"], refusal.status
            assert refusal.field is None or isinstance(refusal.field, str)
            continue
        assert isinstance(answer, dict) and set(SCHEMAS["SuggestAnswer"]["required"]) <= set(answer)


def test_a_thread_keeps_the_recent_sentences_it_answered_with_the_rows_they_read():
    """Several translators in turn (a worker answers them all): each sentence's graph is read once while it is
    among the RECENT_SENTENCES last asked, its answers unchanged; past them the least recently asked is read
    again."""
    from parastudio.core.engine.decoders.cat import suggestion_service

    built = SuggestionService(open_graph(demo_files().roundtrip_graph), APPROACHES)
    try:
        sentences = built.store.sentences()[:suggestion_service.RECENT_SENTENCES + 1]
        def answers():  # each answer but the time it took
            return [{key: value for key, value in built.answer({"sentence": sentence, "span": [0, 2]}).items()
                     if key != "milliseconds"} for sentence in sentences[:-1]]

        first = answers()
        graph = built._loaded_graph(sentences[0])
        queries = graph.queries
        again = answers()
        assert again == first and graph.queries == queries  # every one still kept: nothing read again
        assert built._loaded_graph(sentences[0]) is graph  # now the most recently used
        second = built._connections.graphs[sentences[1]]
        built.answer({"sentence": sentences[-1], "span": [0, 2]})  # one more: the least recently used goes
        assert built._loaded_graph(sentences[0]) is graph
        assert built._loaded_graph(sentences[1]) is not second  # read again
    finally:
        built.close()
