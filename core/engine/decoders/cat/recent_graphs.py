"""The graphs of the sentences decoded on request, the least recently used out past a fixed number.

A CAT tool sends each new sentence once (``POST /translate``) and then asks about its spans; the service keeps
the last ``capacity`` graphs (``parastudio serve --graphs N``). A sentence is known by its key, made from its
tokens, so the same sentence sent again finds its graph, and a key whose graph went out is answered "send it
again" rather than with another sentence's suggestions. Safe to share between the service's worker threads.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Sequence

from parastudio.core.engine.decoders.cat.decoded_graph import DecodedGraph

KEY_PREFIX = "s-"


def sentence_key(tokens: Sequence[str]) -> str:
    """The key of a tokenized source sentence (whitespace between tokens does not matter)."""
    return KEY_PREFIX + hashlib.sha256(" ".join(tokens).encode("utf-8")).hexdigest()[:24]


class RecentGraphs:
    """At most ``capacity`` decoded graphs by key; reading one makes it the most recently used."""

    def __init__(self, capacity: int):
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, not {capacity}")
        self.capacity = capacity
        self.evicted = 0
        self._graphs: OrderedDict[str, DecodedGraph] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> DecodedGraph | None:
        with self._lock:
            graph = self._graphs.get(key)
            if graph is not None:
                self._graphs.move_to_end(key)
            return graph

    def put(self, graph: DecodedGraph) -> None:
        with self._lock:
            self._graphs[graph.key] = graph
            self._graphs.move_to_end(graph.key)
            while len(self._graphs) > self.capacity:
                self._graphs.popitem(last=False)
                self.evicted += 1

    def forget(self, key: str) -> None:
        """``key``'s graph out now (the service's worker processes: the parent decides what is kept)."""
        with self._lock:
            self._graphs.pop(key, None)

    def __len__(self) -> int:
        return len(self._graphs)

    def describe(self) -> dict:
        with self._lock:
            return {"kept": len(self._graphs), "capacity": self.capacity, "evicted": self.evicted}
