"""The service's contract as an OpenAPI 3.1 document: what ``GET /openapi.json`` serves and docs/CLI.md restates.

Fields and limits are read from the code that checks them (:mod:`core.engine.decoders.cat.service_requests`),
never retyped here; ``tests/test_serve_contract.py`` holds this document, the running application and the
section of docs/CLI.md to one another.
"""

from __future__ import annotations

from parastudio.core.engine.decoders.cat.paraphraser import REQUESTS
from parastudio.core.engine.decoders.cat.service_requests import (
    MAX_EDITED_SELECTION,
    MAX_ID_CHARACTERS,
    MAX_SOURCE_TOKENS,
    MAX_TEXT_TOKENS,
    MAX_TOP,
)

# Every error status the service answers, and when (the same words in docs/CLI.md).
ERRORS: dict[int, str] = {
    400: "a body that is not a JSON object, a field of the wrong type, an unknown field, a value out of range, "
         "a malformed request line or headers (then the connection is closed)",
    403: "a CORS preflight from an origin not given with --allow-origin",
    404: "an unknown path; a sentence index not in the loaded graphs; a key or source not kept (never translated "
         "here, or evicted): send it again with POST /translate",
    405: "a method the path does not take",
    408: "a request line, headers or body not complete within --request-timeout seconds (the connection is closed)",
    413: "a body longer than --max-body bytes (the connection is closed; a client that sends Expect: 100-continue "
         "sends none of it)",
    422: "a size the decoder or the aligner cannot take: a source over the token limit, an edited text, feedback "
         "or gold over its limit, a selection of an edited text over its limit",
    500: "a fault of the service itself (reported with its reason; the service goes on)",
    501: "POST /translate on a service started without a decoder",
    503: "every worker busy and the queue full: retry after the Retry-After header's seconds",
}
ERROR_STATUSES_OF: dict[tuple[str, str], tuple[int, ...]] = {
    ("/translate", "post"): (400, 408, 413, 422, 501, 503),
    ("/suggest", "post"): (400, 404, 408, 413, 422, 503),
    ("/health", "get"): (),
    ("/", "get"): (),
    ("/openapi.json", "get"): (),
}


def _string(description: str, **more) -> dict:
    return {"type": "string", "description": description, **more}


def _integer(description: str, **more) -> dict:
    return {"type": "integer", "description": description, **more}


def _span(description: str) -> dict:
    return {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2, "description": description}


def _object(properties: dict, required: tuple[str, ...] = (), *, closed: bool = False, description: str = "") -> dict:
    schema = {"type": "object", "properties": properties, "required": list(required)}
    if closed:
        schema["additionalProperties"] = False
    if description:
        schema["description"] = description
    return schema


TRANSLATE_REQUEST = _object({
    "source": _string(f"the sentence, tokenized as the table is (tokens separated by spaces), at most "
                      f"{MAX_SOURCE_TOKENS} tokens"),
    "id": {"type": ["string", "integer"], "maxLength": MAX_ID_CHARACTERS,
           "description": "your own name for the sentence, given back as it is"},
}, ("source",), closed=True)

SUGGEST_REQUEST = _object({
    "sentence": _integer("the sentence's index into the graph file loaded at start (one of sentence, key, source)"),
    "key": _string("the key POST /translate answered for the sentence"),
    "source": _string("the sentence as sent to POST /translate (looked up by its key)"),
    "span": _span("[I, J]: the selected tokens I to J-1 of the translation (or of text)"),
    "text": _string(f"the translation as the translator edited it (at most {MAX_TEXT_TOKENS} tokens); the selection "
                    f"is aligned to the machine translation by the fuzzy aligner (at most {MAX_EDITED_SELECTION} "
                    "tokens selected)"),
    "approach": _string("one of seed 001's approaches (GET / lists them; default: the service's --approach)"),
    "top": _integer("how many suggestions", minimum=1, maximum=MAX_TOP, default=5),
    "feedback": _string("a suggestion to move towards (seed 001's \"more like this\": UFBS orders the list)"),
    "request": _string("what is asked", enum=list(REQUESTS), default="paraphrase"),
    "gold": _string("a paraphrase whose fate to explain, stage by stage"),
}, ("span",), closed=True, description="names its sentence by exactly one of sentence, key, source")

ERROR = _object({"error": _string("what was expected, in one line"),
                 "field": {"type": ["string", "null"], "description": "the request field (or header) at fault"}},
                ("error", "field"))

TRANSLATE_ANSWER = _object({
    "key": _string("the sentence's key: name it in POST /suggest"),
    "id": {"type": ["string", "integer", "null"], "description": "the request's id"},
    "source": _string("the source tokens"),
    "translation": _string("the 1-best (the search graph's best path)"),
    "segmentation": _string("the 1-best as Moses -report-segmentation prints it: each phrase and its source span"),
    "phrases": {"type": "array", "items": _object({"span": _span("target tokens [start, end)"),
                                                   "source_span": _span("source tokens [start, end)")})},
    "hypotheses": _integer("hypotheses in the kept search graph"),
    "kept": {"type": "boolean", "description": "the graph was already kept (not decoded again)"},
    "milliseconds": {"type": "number", "description": "the service's own time for this request"},
}, ("key", "id", "source", "translation", "segmentation", "phrases", "hypotheses", "kept", "milliseconds"))

SUGGEST_ANSWER = _object({
    "sentence": {"type": ["integer", "null"], "description": "the request's sentence index"},
    "key": {"type": ["string", "null"], "description": "the sentence's key (null for an index)"},
    "approach": _string("the approach that ranked the suggestions"), "signature": _string("its stages and settings"),
    "translation": _string("the machine translation with its segmentation"),
    "alignment": {"type": ["object", "null"], "description": "the selection aligned: span, coverage (source), "
                  "requested, fuzzy"},
    "error": {"type": ["string", "null"], "description": "why the selection could not be aligned (no suggestions)"},
    "suggestions": {"type": "array", "items": _object({"rank": {"type": "integer"}, "text": {"type": "string"},
                                                       "fsm_score": {"type": "number"},
                                                       "lm_score": {"type": ["number", "null"]}})},
    "partials": {"type": "object", "description": "partials retrieved, and kept after each partial filter"},
    "fsm": {"type": ["object", "null"], "description": "states, transitions, end_states"},
    "candidates": {"type": "array", "description": "every candidate and its fate (shown N, ranked N, dropped by F)"},
    "gold": {"type": "object", "description": "with gold: where it was lost"},
    "milliseconds": {"type": "number", "description": "the paraphraser's own time for this request"},
}, ("sentence", "key", "approach", "signature", "translation", "alignment", "error", "suggestions", "milliseconds"))

HEALTH = _object({"status": _string("ok"), "decoded": {"type": "object", "description": "kept, capacity, evicted"},
                  "work": {"type": "object", "description": "workers, capacity, admitted, refused, restarted"}},
                 ("status", "decoded", "work"))

SCHEMAS = {"TranslateRequest": TRANSLATE_REQUEST, "TranslateAnswer": TRANSLATE_ANSWER,
           "SuggestRequest": SUGGEST_REQUEST, "SuggestAnswer": SUGGEST_ANSWER, "Error": ERROR, "Health": HEALTH}


def _reference(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _answers(path: str, method: str, answer: str, summary: str, request: str | None = None) -> dict:
    responses = {"200": {"description": "the answer", "content": {"application/json": {"schema": _reference(answer)}}}}
    for status in ERROR_STATUSES_OF[(path, method)]:
        responses[str(status)] = {"description": ERRORS[status],
                                  "content": {"application/json": {"schema": _reference("Error")}}}
    operation = {"summary": summary, "responses": responses}
    if request is not None:
        operation["requestBody"] = {"required": True,
                                    "content": {"application/json": {"schema": _reference(request)}}}
    return operation


def openapi_document(version: str) -> dict:
    return {
        "openapi": "3.1.0",
        "info": {"title": "Paraphrase Studio: seed 001's paraphrasing service", "version": version,
                 "description": "Decode a sentence, then ask for paraphrases of any span of its translation, drawn "
                                "from its own search graph. Every error is JSON {\"error\", \"field\"} with its "
                                "status; every path answers OPTIONS (CORS preflight with --allow-origin)."},
        "paths": {
            "/translate": {"post": _answers("/translate", "post", "TranslateAnswer",
                                            "decode a sentence and keep its search graph", "TranslateRequest")},
            "/suggest": {"post": _answers("/suggest", "post", "SuggestAnswer",
                                          "paraphrases of a span of a kept or loaded sentence", "SuggestRequest")},
            "/health": {"get": _answers("/health", "get", "Health", "alive, and how full")},
            "/": {"get": {"summary": "the loaded graph, approaches, decoder and limits",
                          "responses": {"200": {"description": "the description",
                                                "content": {"application/json": {"schema": {"type": "object"}}}}}}},
            "/openapi.json": {"get": {"summary": "this document",
                                      "responses": {"200": {"description": "OpenAPI 3.1",
                                                            "content": {"application/json": {}}}}}},
        },
        "components": {"schemas": SCHEMAS},
    }
