"""One worker process of the service: it answers the requests the parent hands it, one at a time.

The parent (:mod:`core.service.work_pool`) forks its workers once the service is loaded, so every worker reads
the same memory-mapped binary table and KenLM binary LM, the approaches and SciPy without loading them again;
each opens its own connection to the loaded graph store (a SQLite connection never crosses a fork). A worker
reads messages from its end of a socket pair and writes one answer per request, each message a pickled tuple
behind its length:

* ``("job", what, body)``: a request's body to answer (``what``: ``translate`` or ``suggest``); the answer is
  ``(status, JSON bytes, key, graph)``: the sentence key the request used (the parent keeps its graphs least
  recently used first) and, when ``/translate`` decoded a new sentence, its graph pickled for the other workers;
* ``("keep", graph)``: a graph another worker decoded, kept here too, so any worker answers ``/suggest`` for it;
* ``("forget", key)``: the parent let that sentence's graph go (it keeps at most ``--graphs`` of them).

Nothing here knows HTTP; what a request means is :class:`~core.engine.decoders.cat.suggestion_service.SuggestionService`'s.
"""

from __future__ import annotations

import gc
import json
import os
import pickle
import signal
import socket
import stat
import struct
import sys
from typing import Callable

from parastudio.core.engine.decoders.cat.decoded_graph import DecodedGraph
from parastudio.core.engine.decoders.cat.recent_graphs import RecentGraphs
from parastudio.core.engine.decoders.cat.suggestion_service import BadRequest, SuggestionService
from parastudio.core.service.json_answers import json_bytes

LENGTH = struct.Struct("!I")
YOUNG_THRESHOLD = 5_000  # allocations between two young-generation passes (CPython: 700)
Answer = tuple  # (status, JSON bytes, key or None, pickled graph or None)


def frame(message: tuple) -> bytes:
    """A message as it travels: its pickle's length, then the pickle."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return LENGTH.pack(len(data)) + data


def settle_collector() -> None:
    """What was loaded is frozen out of the garbage collector's passes, and its youngest generation is collected
    less often: each decoding leaves thousands of hypotheses in cycles, and the full passes they set off scanned
    the whole process (a /translate's CPU time p95 90 ms against a p50 of 9 ms; 22 ms so). Cycles are still
    collected."""
    gc.freeze()
    thresholds = gc.get_threshold()
    gc.set_threshold(max(thresholds[0], YOUNG_THRESHOLD), *thresholds[1:])


def answer_json(method: Callable[[object], dict], what: str, body: bytes) -> tuple[int, dict]:
    """The body read as JSON and answered: ``(status, answer)``, an error as ``{"error", "field"}``."""
    try:
        request = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as failure:
        return 400, {"error": f"body: expected a JSON object in UTF-8 ({str(failure)[:200]})", "field": "body"}
    try:
        return 200, method(request)
    except BadRequest as refusal:
        return refusal.status, refusal.to_json()
    except Exception as fault:  # a bug of ours: said to the client and on the terminal, and the service goes on
        reason = f"{type(fault).__name__}: {str(fault)[:300]}"
        print(f"parastudio serve: {what} failed: {reason}", file=sys.stderr, flush=True)
        return 500, {"error": f"the service failed on this request ({reason})", "field": None}


class ServiceWorker:
    """The service's side of a worker: requests answered, graphs kept and let go as the parent says."""

    def __init__(self, service: SuggestionService):
        self.service = service

    def before_fork(self) -> None:
        self.service.close()  # the parent's connection to the graph store: each worker opens its own

    def start(self) -> None:
        """In the new worker, before its first message."""
        self.service.reopen()
        # The parent bounds the graphs kept and says which go: a worker keeps all it is told to, no fewer.
        self.service.graphs = RecentGraphs(sys.maxsize)

    def handle(self, what: str, body: bytes) -> Answer:
        method = self.service.translate if what == "translate" else self.service.answer
        status, answer = answer_json(method, f"POST /{what}", body)
        key = answer.get("key") if status == 200 else None
        graph = None
        if key is not None and what == "translate" and not answer["kept"]:
            decoded = self.service.graphs.get(key)
            graph = pickle.dumps((key, decoded.source(), decoded.rows()), protocol=pickle.HIGHEST_PROTOCOL)
        return status, json_bytes(answer), key, graph

    def keep(self, graph: bytes) -> None:
        key, source, rows = pickle.loads(graph)
        self.service.graphs.put(DecodedGraph(key, source, rows))

    def forget(self, key: str) -> None:
        self.service.graphs.forget(key)


def _receive_exactly(channel: socket.socket, size: int) -> bytes | None:
    data = bytearray()
    while len(data) < size:
        chunk = channel.recv(min(size - len(data), 1 << 20))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def _close_inherited_sockets(keep: socket.socket) -> None:
    """Every socket the parent had open but ``keep``: the listening socket, clients' connections (a connection the
    parent closes must end for its client), the other workers' pipes (a worker sees its parent's end only when no
    one else holds it)."""
    for name in os.listdir("/proc/self/fd"):
        descriptor = int(name)
        if descriptor <= 2 or descriptor == keep.fileno():
            continue
        try:
            if stat.S_ISSOCK(os.fstat(descriptor).st_mode):
                os.close(descriptor)
        except OSError:
            pass  # the listing's own descriptor, gone already


def run_worker(worker, channel: socket.socket) -> None:
    """A worker's life: messages read and answered until the parent closes its end (or is gone)."""
    signal.set_wakeup_fd(-1)  # the parent's event loop's, inherited
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the whole process group: the parent decides
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _close_inherited_sockets(channel)
    worker.start()
    settle_collector()
    while True:
        head = _receive_exactly(channel, LENGTH.size)
        if head is None:
            return
        data = _receive_exactly(channel, LENGTH.unpack(head)[0])
        if data is None:
            return
        kind, *rest = pickle.loads(data)
        if kind == "job":
            channel.sendall(frame(worker.handle(*rest)))
        elif kind == "keep":
            worker.keep(*rest)
        elif kind == "forget":
            worker.forget(*rest)
