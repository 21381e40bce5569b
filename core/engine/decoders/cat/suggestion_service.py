"""Seed 001's paraphraser as a service: new sentences decoded on request, suggestions for their spans.

Seed 001's service sits inside a CAT tool: the translator's sentence is decoded by the MT system, its search
graph kept, and each span the translator selects gets paraphrases drawn from that graph. Here:

* :meth:`SuggestionService.translate` decodes a sentence with the beam decoder (our Moses) on the table and LM
  the service was started with and keeps its graph in :class:`~core.engine.decoders.cat.recent_graphs.RecentGraphs`
  (least recently used out); it answers the 1-best with its segmentation and the sentence's key;
* :meth:`SuggestionService.answer` suggests paraphrases of a span of a sentence named by that key, by its source
  text, or by its index into the graph file loaded at start, and answers as ``parastudio suggest --json`` does.

One engine for every door: the HTTP transport (``parastudio serve``: :mod:`core.service`) hands each request's
JSON object to :meth:`~SuggestionService.answer` and sends back what it returns; ``parastudio suggest`` and the
app's Translator screen (:class:`core.inspection.translator_session.TranslatorSession`) build the same checked
request and call :meth:`~SuggestionService.suggest`, so what the screen shows is what a CAT tool receives. Nothing
here knows about HTTP or Qt. The fields are checked by
:mod:`core.engine.decoders.cat.service_requests`; a bad request raises its :class:`BadRequest`, naming the field.
Both methods may run at once in several threads: each thread reads the loaded graphs through its own SQLite
connection, decoding (whose option cache is the decoder's own) takes turns, and decoded graphs are read-only.
"""

from __future__ import annotations

import collections
import threading
import time
from dataclasses import dataclass, field
from typing import Mapping

from parastudio.core.engine.decoders.beam_decoder import BeamDecoder
from parastudio.core.engine.decoders.cat.approaches import Approach
from parastudio.core.engine.decoders.cat.decoded_graph import DecodedGraph
from parastudio.core.engine.decoders.cat.graph_store import GraphStore, SentenceGraph
from parastudio.core.engine.decoders.cat.paraphraser import REQUESTS, SuggestResult, suggest
from parastudio.core.engine.decoders.cat.recent_graphs import RecentGraphs, sentence_key
from parastudio.core.engine.decoders.cat.service_requests import (
    MAX_EDITED_SELECTION,
    MAX_SOURCE_TOKENS,
    MAX_TEXT_TOKENS,
    MAX_TOP,
    BadRequest,
    SuggestRequest,
    check_edited_selection,
    suggest_request,
    translate_request,
)

__all__ = ["BadRequest", "SuggestionService", "Suggested", "SuggestRequest", "DEFAULT_GRAPHS"]

DEFAULT_GRAPHS = 200  # decoded sentences kept (a 30-token sentence's graph: ~2,000 hypotheses, ~0.5 MB)
# Sentences of the loaded graphs each thread keeps with the rows it read (one translator's sentence each; a
# thesis-size sentence's rows read for a few spans: about a megabyte).
RECENT_SENTENCES = 16
_GOLD_TRACE = threading.Lock()  # the gold trace keeps a module-level cache of its answers


@dataclass(frozen=True)
class Suggested:
    """One request's suggestions: the request, the paraphraser's result, the sentence's graph and key (None for
    a sentence of the loaded graphs, named by its index)."""

    request: SuggestRequest
    result: SuggestResult
    graph: SentenceGraph
    key: str | None


@dataclass
class SuggestionService:
    store: GraphStore
    approaches: Mapping[str, Approach]
    lm: object | None = None  # shared by the threads: give it no sentence cache (LanguageModel(..., cache_size=0))
    default_approach: str = "approach-10"
    decoder: BeamDecoder | None = None  # None: POST /translate is refused
    graphs: RecentGraphs = field(default_factory=lambda: RecentGraphs(DEFAULT_GRAPHS))
    decoder_description: dict | None = None  # what describe() says of the decoder (its options and files)

    def __post_init__(self) -> None:
        self._known = set(self.store.sentences())
        self._opened_in = threading.get_ident()
        self._connections = threading.local()
        self._decoding = threading.Lock()

    def describe(self) -> dict:
        sentences = sorted(self._known)
        return {"graph": str(self.store.path), "sentences": len(sentences),
                "first_sentence": sentences[0] if sentences else None,
                "last_sentence": sentences[-1] if sentences else None,
                "approaches": sorted(self.approaches), "default_approach": self.default_approach,
                "requests": list(REQUESTS), "translates": self.decoder is not None,
                "decoder": self.decoder_description, "decoded": self.graphs.describe(),
                "limits": {"source_tokens": MAX_SOURCE_TOKENS, "text_tokens": MAX_TEXT_TOKENS,
                           "edited_selection_tokens": MAX_EDITED_SELECTION, "top": MAX_TOP}}

    # -- POST /translate ---------------------------------------------------------------------------
    def translate(self, data: object) -> dict:
        request = translate_request(data)
        if self.decoder is None:
            raise BadRequest("this service was started without a decoder: it answers for its loaded graphs only",
                             status=501)
        started = time.perf_counter()
        key = sentence_key(request.source)
        graph = self.graphs.get(key)
        kept = graph is not None
        if graph is None:
            with self._decoding:
                result = self.decoder.decode(request.source)
            if result.best() is None:  # no final hypothesis (asked without making every hypothesis an object)
                raise BadRequest("source: the decoder found no translation of this sentence", status=422,
                                 field="source")
            graph = DecodedGraph.from_result(key, result)
            self.graphs.put(graph)
        translation = SentenceGraph(graph, 0).translation()
        return {"key": key, "id": request.id, "source": " ".join(request.source),
                "translation": " ".join(translation.tokens), "segmentation": translation.format(),
                "phrases": [{"span": [p.start, p.end], "source_span": [p.source_start, p.source_end]}
                            for p in translation.phrases],
                "hypotheses": len(graph), "kept": kept,
                "milliseconds": round(1000 * (time.perf_counter() - started), 2)}

    # -- POST /suggest -----------------------------------------------------------------------------
    def answer(self, data: object) -> dict:
        """``POST /suggest``: the request's JSON object answered as ``parastudio suggest --json`` prints it, plus
        the sentence's key."""
        return self.answer_of(self.suggest(suggest_request(data)))

    def suggest(self, request: SuggestRequest) -> Suggested:
        """The suggestions for a checked request: what the HTTP service, ``parastudio suggest`` and the app's
        Translator screen all ask (one engine for the three); :class:`BadRequest` for one it cannot answer."""
        name = request.approach or self.default_approach
        if name not in self.approaches:
            raise BadRequest(f"approach: no approach {name!r}; known: {', '.join(sorted(self.approaches))}",
                             field="approach")
        graph, key = self._graph_of(request)
        translation = graph.translation()
        tokens = request.text if request.text is not None else translation.tokens
        start, end = request.span
        if not 0 <= start < end <= len(tokens):
            raise BadRequest(f"span: expected 0 <= I < J <= {len(tokens)} (the translation's tokens)", field="span")
        check_edited_selection(request, translation.tokens)
        result = suggest(graph, start, end, self.approaches[name], lm=self.lm, top=request.top,
                         tokens=request.text, feedback=request.feedback, request=request.request)
        return Suggested(request, result, graph, key)

    @staticmethod
    def answer_of(suggested: Suggested) -> dict:
        """A request's suggestions as JSON (the service's answer)."""
        request, result = suggested.request, suggested.result
        out = result.to_json()
        out["sentence"], out["key"] = request.sentence, suggested.key
        out["translation"] = suggested.graph.translation().format()
        if request.gold:
            with _GOLD_TRACE:
                out["gold"] = result.explain(request.gold) if result.alignment else {"fate": "not aligned"}
        return out

    def _graph_of(self, request: SuggestRequest) -> tuple[SentenceGraph, str | None]:
        if request.sentence is not None:
            if request.sentence not in self._known:
                raise BadRequest(f"sentence: no sentence {request.sentence} in {self.store.path}", status=404,
                                 field="sentence")
            return self._loaded_graph(request.sentence), None
        key = request.key if request.key is not None else sentence_key(request.source)
        decoded = self.graphs.get(key)
        if decoded is None:
            named = "key" if request.key is not None else "source"
            raise BadRequest(f"{named}: the sentence {key} is not kept (never translated here, or out of the "
                             f"{self.graphs.capacity} most recent): send it again with POST /translate",
                             status=404, field=named)
        return SentenceGraph(decoded, 0), key

    def _loaded_graph(self, sentence: int) -> SentenceGraph:
        """Sentence ``sentence`` of the loaded graphs. The ``RECENT_SENTENCES`` last asked in this thread are kept
        with the rows they read: a translator selects span after span of the sentence in front of them, and a
        worker answers several translators in turn (keeping only the last sentence, each turn read its root,
        1-best and translation again: about a third of a request's time on thesis-size graphs)."""
        local = self._connections
        recent = getattr(local, "graphs", None)
        if recent is None:
            recent = local.graphs = collections.OrderedDict()
        graph = recent.get(sentence)
        if graph is None:
            graph = recent[sentence] = self._loaded_store().sentence_graph(sentence)
            while len(recent) > RECENT_SENTENCES:
                recent.popitem(last=False)
        recent.move_to_end(sentence)
        return graph

    def _loaded_store(self) -> GraphStore:
        """The loaded graphs through this thread's own connection (one SQLite connection is not shared)."""
        if threading.get_ident() == self._opened_in:
            return self.store
        store = getattr(self._connections, "store", None)
        if store is None:
            store = self._connections.store = GraphStore(self.store.path)
        return store

    def reopen(self) -> None:
        """The loaded graphs opened again by this process (a forked worker: a SQLite connection never crosses a
        fork, so the parent closes its own before forking and each worker opens one)."""
        self.store = GraphStore(self.store.path)
        self._opened_in = threading.get_ident()
        self._connections = threading.local()

    def close(self) -> None:
        self.store.close()
