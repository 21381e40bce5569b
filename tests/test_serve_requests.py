"""Every kind of bad request to a running ``parastudio serve`` gets one JSON error with its status and field, and
the next good request succeeds (issue 45, item 4): bad JSON, wrong types, unknown keys, sizes the aligner or
the search cannot take (the 620-token selection that crashed the aligner, and its family), an evicted
sentence, a body of a million spans, a malformed request line, headers too long."""

from __future__ import annotations

import http.client
import json

import pytest
from serve_support import WAIT, answer_of, post, raw_exchange, request, running_server

from parastudio.core.engine.decoders.cat.service_requests import (
    MAX_EDITED_SELECTION,
    MAX_SOURCE_TOKENS,
    MAX_TEXT_TOKENS,
    MAX_TOP,
)

GOOD = {"sentence": 0, "span": [0, 2]}
SENTENCES = ["and he said unto them , go ye into the city .",
             "the people of the land went up to the house of the lord .",
             "and they came to the place which god had told him of ."]


@pytest.fixture(scope="module")
def server():
    with running_server("--graphs", "2") as address:
        yield address


def assert_alive(server) -> None:
    status, answer = post(server, "/suggest", GOOD)
    assert status == 200 and answer["error"] is None and answer["suggestions"], answer


def _translation_tokens(server, sentence: int = 0) -> list[str]:
    status, answer = post(server, "/suggest", {"sentence": sentence, "span": [0, 1]})
    assert status == 200
    return [token for token in answer["translation"].split() if not token.startswith("|")]


BAD_REQUESTS = [
    ("/suggest", b"{not json", 400, "body", "body: expected a JSON object in UTF-8"),
    ("/suggest", b"\xff\xfe", 400, "body", "body: expected a JSON object in UTF-8"),
    ("/suggest", b"", 400, "body", "body: expected a JSON object"),
    ("/suggest", b"[" * 100_000 + b"]" * 100_000, 400, "body", "body: expected a JSON object"),
    ("/suggest", b"[1, 2]", 400, None, "expected a JSON object"),
    ("/suggest", b'"text"', 400, None, "expected a JSON object"),
    ("/suggest", b'{"sentence": 0}', 400, "span", "span: expected [I, J]"),
    ("/suggest", b'{"sentence": "0", "span": [0, 1]}', 400, "sentence", "sentence: expected an integer"),
    ("/suggest", b'{"sentence": true, "span": [0, 1]}', 400, "sentence", "sentence: expected an integer"),
    ("/suggest", b'{"sentence": 0, "span": ["0", 1]}', 400, "span", "span: expected [I, J]"),
    ("/suggest", b'{"sentence": 0, "span": [0, 1, 2]}', 400, "span", "span: expected [I, J]"),
    ("/suggest", b'{"sentence": 0, "span": [0, 1], "top": 0}', 400, "top",
     f"top: expected an integer from 1 to {MAX_TOP}"),
    ("/suggest", b'{"sentence": 0, "span": [0, 1], "top": 2.5}', 400, "top", "top: expected an integer"),
    ("/suggest", b'{"sentence": 0, "span": [0, 1], "top": NaN}', 400, "top", "top: expected an integer"),
    ("/suggest", b'{"sentence": 0, "span": [0, 1], "text": 5}', 400, "text", "text: expected a string"),
    ("/suggest", b'{"sentence": 0, "span": [0, 1], "approach": 5}', 400, "approach", "approach: expected a string"),
    ("/suggest", b'{"sentence": 0, "span": [0, 1], "request": "sing"}', 400, "request", "request: expected one of"),
    ("/suggest", b'{"sentence": 0, "span": [0, 1], "colour": 1}', 400, "colour", "unknown field(s) ['colour']"),
    ("/suggest", b'{"sentence": 0, "span": [5, 1]}', 400, "span", "span: expected 0 <= I < J"),
    ("/suggest", b'{"sentence": 0, "span": [0, 99999]}', 400, "span", "span: expected 0 <= I < J"),
    ("/suggest", b'{"sentence": 0, "span": [0, 1], "approach": "approach-99"}', 400, "approach", "no approach"),
    ("/suggest", b'{"span": [0, 1]}', 400, "sentence", "expected exactly one of sentence ("),
    ("/suggest", b'{"sentence": 0, "key": "s-1", "span": [0, 1]}', 400, "key", "expected exactly one of"),
    ("/suggest", b'{"key": 7, "span": [0, 1]}', 400, "key", "key: expected a string"),
    ("/suggest", b'{"sentence": 123456789, "span": [0, 1]}', 404, "sentence", "no sentence 123456789"),
    ("/suggest", b'{"key": "s-000000000000000000000000", "span": [0, 1]}', 404, "key", "send it again"),
    ("/suggest", b'{"source": "never sent here", "span": [0, 1]}', 404, "source", "send it again"),
    ("/translate", b'{}', 400, "source", "source: expected the sentence"),
    ("/translate", b'{"source": ""}', 400, "source", "not an empty string"),
    ("/translate", b'{"source": ["a"]}', 400, "source", "source: expected a string"),
    ("/translate", b'{"source": "a b", "id": [1]}', 400, "id", "id: expected a string or an integer"),
    ("/translate", b'{"source": "a b", "lang": "en"}', 400, "lang", "unknown field(s) ['lang']"),
    ("/translate", json.dumps({"source": "a " * (MAX_SOURCE_TOKENS + 1)}).encode(), 422, "source",
     f"at most {MAX_SOURCE_TOKENS} tokens"),
    ("/suggest", json.dumps({"sentence": 0, "span": [0, 1], "text": "a " * (MAX_TEXT_TOKENS + 1)}).encode(), 422,
     "text", f"at most {MAX_TEXT_TOKENS} tokens"),
    ("/suggest", json.dumps({"sentence": 0, "span": [0, 1], "feedback": "a " * (MAX_TEXT_TOKENS + 1)}).encode(), 422,
     "feedback", f"at most {MAX_TEXT_TOKENS} tokens"),
]


@pytest.mark.parametrize("path, body, status, field, words", BAD_REQUESTS,
                         ids=[f"{number}-{case[3]}-{case[2]}" for number, case in enumerate(BAD_REQUESTS)])
def test_a_bad_request_gets_its_status_and_field_and_the_service_goes_on(server, path, body, status, field, words):
    got, answer = post(server, path, body)
    assert (got, answer["field"]) == (status, field), answer
    assert words in answer["error"]
    assert_alive(server)


@pytest.mark.parametrize("selected, field, words", [
    (620, "text", f"at most {MAX_TEXT_TOKENS} tokens, not 630"),
    (1000, "text", f"at most {MAX_TEXT_TOKENS} tokens, not 1,010"),
    (MAX_TEXT_TOKENS - 10, "span",
     f"at most {MAX_EDITED_SELECTION} tokens in an edited text, not {MAX_TEXT_TOKENS - 10}"),
    (MAX_EDITED_SELECTION + 1, "span", f"at most {MAX_EDITED_SELECTION} tokens in an edited text"),
])
def test_a_long_selection_of_an_edited_text_is_refused_with_its_reason(server, selected, field, words):
    """Seed 001's 620-token selection dropped the connection (the aligner's math domain error)."""
    edited = ["edited"] + _translation_tokens(server) * 100
    status, answer = post(server, "/suggest", {"sentence": 0, "span": [0, selected],
                                               "text": " ".join(edited[:selected + 10])})
    assert (status, answer["field"]) == (422, field), answer
    assert words in answer["error"]
    assert_alive(server)


def test_the_longest_selection_allowed_is_answered(server):
    edited = ["edited"] + _translation_tokens(server) * 40
    status, answer = post(server, "/suggest", {"sentence": 0, "span": [0, MAX_EDITED_SELECTION],
                                               "text": " ".join(edited[:MAX_EDITED_SELECTION + 5])})
    assert status == 200 and answer["alignment"]["fuzzy"], answer


def test_an_evicted_sentence_is_answered_send_it_again_and_is_back_once_sent(server):
    keys = [post(server, "/translate", {"source": sentence})[1]["key"] for sentence in SENTENCES]  # --graphs 2
    status, answer = post(server, "/suggest", {"key": keys[0], "span": [0, 1]})
    assert (status, answer["field"]) == (404, "key") and "send it again with POST /translate" in answer["error"]
    for key in keys[1:]:
        assert post(server, "/suggest", {"key": key, "span": [0, 1]})[0] == 200
    again = post(server, "/translate", {"source": SENTENCES[0]})[1]
    assert again["key"] == keys[0] and again["kept"] is False
    assert post(server, "/suggest", {"source": SENTENCES[0], "span": [0, 1]})[0] == 200


def test_a_body_of_a_million_spans_is_refused_by_its_length(server):
    """Refused on its Content-Length, before it is read: a client that waits for "100 Continue" (curl does, for a
    large body) sends none of it (one that sends it at once has its connection closed under it)."""
    body = json.dumps({"sentence": 0, "span": list(range(1_000_000))}).encode()
    head = (f"POST /suggest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\n\r\n").encode()
    status, answer = answer_of(raw_exchange(server, head))
    assert (status, answer["field"]) == (413, "body") and "at most 1,048,576 bytes" in answer["error"]
    assert_alive(server)


def test_a_chunked_body_too_long_is_refused_while_it_is_read(server):
    connection = http.client.HTTPConnection(*server, timeout=WAIT)
    spans = (b"[0, 1], " * 1000 for _ in range(200))  # 1.6 MB, no Content-Length
    connection.request("POST", "/suggest", spans, {"Content-Type": "application/json"}, encode_chunked=True)
    response = connection.getresponse()
    assert response.status == 413 and json.loads(response.read())["field"] == "body"
    connection.close()
    assert_alive(server)


def test_a_body_announced_too_long_is_refused_before_it_is_sent(server):
    connection = http.client.HTTPConnection(*server, timeout=WAIT)
    connection.putrequest("POST", "/suggest")
    connection.putheader("Content-Length", str(10 ** 9))
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 413 and response.getheader("Connection") == "close"
    connection.close()
    assert_alive(server)


@pytest.mark.parametrize("data", [
    b"GARBAGE\r\n\r\n",
    b"POST /suggest HTTP/1.1\r\nHost: x\r\nContent-Length: twelve\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 1_000_000 + b"\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + bytes(200),  # a TLS hello to the plain-HTTP port
], ids=["garbage", "bad-length", "long-header", "tls"])
def test_a_malformed_request_line_or_header_gets_json_and_the_connection_closes(server, data):
    status, answer = answer_of(raw_exchange(server, data))
    assert (status, answer["field"]) == (400, "request") and "malformed" in answer["error"]
    assert_alive(server)


def test_unknown_paths_and_methods_are_json_and_options_is_answered(server):
    status, _, answer = request(server, "GET", "/suggest/")
    assert status == 404 and "/translate, /suggest" in answer["error"]
    status, headers, answer = request(server, "GET", "/suggest")
    assert status == 405 and "it takes POST" in answer["error"] and headers["allow"] == "POST"
    status, headers, answer = request(server, "OPTIONS", "/translate")
    assert (status, headers["allow"], answer) == (204, "POST, OPTIONS", None)
    status, _, answer = request(server, "GET", "/health")
    assert status == 200 and answer["status"] == "ok"


EDITED = ("then abraham hurried to the tent to sarah , and said , \" quickly disponer three seah of fine flour , amasan "
          "and bread .")


@pytest.mark.parametrize("flags, fields", [
    ([], {}),
    (["--approach", "approach-1", "--top", "8", "--gold", "ran to the tent"], {"approach": "approach-1", "top": 8,
                                                                                "gold": "ran to the tent"}),
    (["--text", EDITED, "--feedback", "hurried to the screen"], {"text": EDITED, "feedback": "hurried to the screen"}),
], ids=["plain", "approach-top-gold", "edited-feedback"])
def test_parastudio_suggest_prints_what_the_service_answers(server, capsys, flags, fields):
    """One engine for ``parastudio suggest`` and ``parastudio serve`` (issue 45, item 6): the command's JSON is the
    service's answer to the same request, the request's own time aside."""
    from parastudio.core.cli import main

    assert main(["suggest", "--sentence", "2", "--span", "3", "5", "--json", *flags]) == 0
    printed = json.loads(capsys.readouterr().out)
    status, served = post(server, "/suggest", {"sentence": 2, "span": [3, 5], **fields})
    assert status == 200 and served["suggestions"]
    assert {**printed, "milliseconds": None} == {**served, "milliseconds": None}
