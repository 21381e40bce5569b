"""What seed 001's service accepts: each request's fields checked, within the sizes the engine can take.

A request is a JSON object (``parastudio serve``'s ``POST /translate`` and ``POST /suggest``; the contract is
``core/service/contract.py`` and docs/CLI.md). A field of the wrong type, an unknown field or a value out of
range raises :class:`BadRequest` with status 400 and the field's name; a size the aligner or the search cannot
take raises it with status 422 and the reason, before any work starts: the fuzzy aligner's HMM has a
transition for every pair of selected words and walks them for every word of the translation, so a selection
of 620 words in an edited text took seconds (and, before its probabilities were taken in logs, crashed).
"""

from __future__ import annotations

from dataclasses import dataclass

from parastudio.core.engine.decoders.cat.paraphraser import REQUESTS

MAX_TOP = 100
MAX_SOURCE_TOKENS = 200  # a sentence to decode: its graph (kept in memory) grows with it
MAX_TEXT_TOKENS = 400  # an edited translation, a feedback or a gold suggestion
MAX_EDITED_SELECTION = 128  # tokens selected in an edited text: the fuzzy aligner's work grows with its square
MAX_ID_CHARACTERS = 200

TRANSLATE_FIELDS = ("source", "id")
SUGGEST_FIELDS = ("sentence", "key", "source", "span", "text", "approach", "top", "feedback", "request", "gold")
SENTENCE_FIELDS = ("sentence", "key", "source")  # a suggestion request names its sentence by exactly one


class BadRequest(ValueError):
    """A request the service cannot answer; its message says what was expected, ``field`` names the field."""

    def __init__(self, message: str, status: int = 400, field: str | None = None):
        super().__init__(message)
        self.status = status
        self.field = field

    def to_json(self) -> dict:
        return {"error": str(self), "field": self.field}


@dataclass(frozen=True)
class TranslateRequest:
    source: tuple[str, ...]
    id: str | int | None = None


@dataclass(frozen=True)
class SuggestRequest:
    span: tuple[int, int]
    sentence: int | None = None
    key: str | None = None
    source: tuple[str, ...] | None = None
    text: tuple[str, ...] | None = None
    approach: str | None = None
    top: int = 5
    feedback: tuple[str, ...] | None = None
    request: str = "paraphrase"
    gold: tuple[str, ...] | None = None


def translate_request(data: object) -> TranslateRequest:
    _known_fields(data, TRANSLATE_FIELDS)
    if "source" not in data:
        raise BadRequest("source: expected the sentence to translate (tokens separated by spaces)", field="source")
    ident = data.get("id")
    if ident is not None and not (type(ident) is int or isinstance(ident, str)):
        raise BadRequest("id: expected a string or an integer (your own name for the sentence)", field="id")
    if isinstance(ident, str) and len(ident) > MAX_ID_CHARACTERS:
        raise BadRequest(f"id: expected at most {MAX_ID_CHARACTERS} characters", field="id")
    return TranslateRequest(_source(data), ident)


def suggest_request(data: object) -> SuggestRequest:
    _known_fields(data, SUGGEST_FIELDS)
    named = [name for name in SENTENCE_FIELDS if name in data]
    if len(named) != 1:
        raise BadRequest("expected exactly one of sentence (an index into the loaded graphs), key (from POST "
                         f"/translate) or source (a sentence sent to POST /translate); got {len(named)}",
                         field=named[1] if len(named) > 1 else "sentence")
    sentence = data.get("sentence")
    if "sentence" in data and type(sentence) is not int:
        raise BadRequest("sentence: expected an integer", field="sentence")
    key = data.get("key")
    if "key" in data and not isinstance(key, str):
        raise BadRequest("key: expected a string (the key POST /translate answered)", field="key")
    span = data.get("span")
    if not (isinstance(span, list) and len(span) == 2 and all(type(i) is int for i in span)):
        raise BadRequest("span: expected [I, J], two integers", field="span")
    top = data.get("top", 5)
    if type(top) is not int or not 1 <= top <= MAX_TOP:
        raise BadRequest(f"top: expected an integer from 1 to {MAX_TOP}", field="top")
    kind = _text(data, "request")
    if kind is not None and kind not in REQUESTS:
        raise BadRequest(f"request: expected one of {', '.join(REQUESTS)}", field="request")
    return SuggestRequest(
        span=(span[0], span[1]), sentence=sentence, key=key,
        source=_source(data) if "source" in data else None,
        text=_tokens(data, "text", MAX_TEXT_TOKENS, "an edited translation"),
        approach=_text(data, "approach"), top=top,
        feedback=_tokens(data, "feedback", MAX_TEXT_TOKENS, "a suggestion to move towards"),
        request=kind or "paraphrase",
        gold=_tokens(data, "gold", MAX_TEXT_TOKENS, "a gold paraphrase"))


def check_edited_selection(request: SuggestRequest, translation_tokens: tuple[str, ...]) -> None:
    """Refuse a selection of an edited text longer than the fuzzy aligner takes (exact alignments have no limit:
    their selection lies inside the decoder's own translation)."""
    start, end = request.span
    if request.text is not None and request.text != translation_tokens and end - start > MAX_EDITED_SELECTION:
        raise BadRequest(f"span: a selection of at most {MAX_EDITED_SELECTION} tokens in an edited text, not "
                         f"{end - start} (the fuzzy aligner's work grows with the square of the selection); "
                         "select less, or send the edited sentence to POST /translate", status=422, field="span")


def _known_fields(data: object, fields: tuple[str, ...]) -> None:
    if not isinstance(data, dict):
        raise BadRequest("expected a JSON object")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        shown = [name[:50] for name in unknown[:5]]
        raise BadRequest(f"unknown field(s) {shown}; expected some of {', '.join(fields)}",
                         field=unknown[0][:100])


def _source(data: dict) -> tuple[str, ...]:
    tokens = _tokens(data, "source", MAX_SOURCE_TOKENS, "a sentence to decode")
    if not tokens:
        raise BadRequest("source: expected a sentence (tokens separated by spaces), not an empty string",
                         field="source")
    return tokens


def _text(data: dict, field: str) -> str | None:
    value = data.get(field)
    if value is not None and not isinstance(value, str):
        raise BadRequest(f"{field}: expected a string", field=field)
    return value


def _tokens(data: dict, field: str, limit: int, what: str) -> tuple[str, ...] | None:
    text = _text(data, field)
    if text is None:
        return None
    tokens = tuple(text.split())
    if len(tokens) > limit:
        raise BadRequest(f"{field}: expected {what} of at most {limit} tokens, not {len(tokens):,}", status=422,
                         field=field)
    return tokens
