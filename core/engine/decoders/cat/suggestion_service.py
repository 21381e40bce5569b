"""Seed 001's paraphraser as a service: graphs, LM and approaches loaded once, one request answered at a time.

The transport (``parastudio serve``, :mod:`core.cli.serve_cmd`) hands each request's JSON object to
:meth:`SuggestionService.answer` and sends back what it returns; nothing here knows about HTTP. A request::

    {"sentence": 12, "span": [3, 5], "text": "optional edited translation", "approach": "approach-10",
     "top": 5, "feedback": "optional suggestion to move towards", "request": "paraphrase", "gold": "optional"}

gets the same object as ``parastudio suggest --json`` (suggestions, alignment, stages, ``milliseconds``: the
paraphraser's own time for this request, nothing loaded before it). A bad request raises :class:`BadRequest`
with a message naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from core.engine.decoders.cat.approaches import Approach
from core.engine.decoders.cat.graph_store import GraphStore
from core.engine.decoders.cat.paraphraser import REQUESTS, suggest

MAX_TOP = 100


class BadRequest(ValueError):
    """A request the service cannot answer; its message says which field and what was expected."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class SuggestionService:
    store: GraphStore
    approaches: Mapping[str, Approach]
    lm: object | None = None
    default_approach: str = "approach-10"

    def describe(self) -> dict:
        sentences = self.store.sentences()
        return {"graph": str(self.store.path), "sentences": len(sentences),
                "first_sentence": sentences[0] if sentences else None,
                "last_sentence": sentences[-1] if sentences else None,
                "approaches": sorted(self.approaches), "default_approach": self.default_approach,
                "requests": list(REQUESTS)}

    def answer(self, request: object) -> dict:
        if not isinstance(request, dict):
            raise BadRequest("expected a JSON object")
        unknown = set(request) - {"sentence", "span", "text", "approach", "top", "feedback", "request", "gold"}
        if unknown:
            raise BadRequest(f"unknown field(s) {sorted(unknown)}")
        sentence = _integer(request, "sentence")
        span = request.get("span")
        if not (isinstance(span, list) and len(span) == 2 and all(type(i) is int for i in span)):
            raise BadRequest("span: expected [I, J], two integers")
        start, end = span
        name = _text(request, "approach") or self.default_approach
        if name not in self.approaches:
            raise BadRequest(f"approach: no approach {name!r}; known: {', '.join(sorted(self.approaches))}")
        top = request.get("top", 5)
        if type(top) is not int or not 1 <= top <= MAX_TOP:
            raise BadRequest(f"top: expected an integer from 1 to {MAX_TOP}")
        kind = _text(request, "request") or "paraphrase"
        if kind not in REQUESTS:
            raise BadRequest(f"request: expected one of {', '.join(REQUESTS)}")
        text, feedback, gold = _text(request, "text"), _text(request, "feedback"), _text(request, "gold")
        if sentence not in self._sentences():
            raise BadRequest(f"sentence: no sentence {sentence} in {self.store.path}", status=404)
        graph = self.store.sentence_graph(sentence)
        tokens = text.split() if text is not None else graph.translation().tokens
        if not 0 <= start < end <= len(tokens):
            raise BadRequest(f"span: expected 0 <= I < J <= {len(tokens)} (the translation's tokens)")
        result = suggest(graph, start, end, self.approaches[name], lm=self.lm, top=top,
                         tokens=text.split() if text is not None else None,
                         feedback=feedback.split() if feedback else None, request=kind)
        out = result.to_json()
        out["translation"] = graph.translation().format()
        if gold:
            out["gold"] = result.explain(gold.split()) if result.alignment else {"fate": "not aligned"}
        return out

    def _sentences(self) -> set[int]:
        if not hasattr(self, "_known"):
            self._known = set(self.store.sentences())
        return self._known


def _integer(request: dict, field: str) -> int:
    value = request.get(field)
    if type(value) is not int:
        raise BadRequest(f"{field}: expected an integer")
    return value


def _text(request: dict, field: str) -> str | None:
    value = request.get(field)
    if value is not None and not isinstance(value, str):
        raise BadRequest(f"{field}: expected a string")
    return value
