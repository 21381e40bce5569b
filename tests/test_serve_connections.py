"""No client of ``parastudio serve`` can hold the others (issue 45, items 1 and 4): an idle keep-alive connection,
a half-sent request line or body, do not delay another client's answer; a request line or body that never
completes is timed out (408) and the others served; a full queue answers 503 with Retry-After. Nothing here
measures time: each test waits on answers (generously) and checks what the held connections can still do."""

from __future__ import annotations

import asyncio
import http.client
import json
import multiprocessing
import os
import pickle
import signal
import socket
import threading

import pytest
from serve_support import WAIT, answer_of, post, read_to_end, request, running_server

from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.cat.approaches import APPROACHES
from parastudio.core.engine.decoders.cat.graph_store import open_graph
from parastudio.core.engine.decoders.cat.suggestion_service import SuggestionService
from parastudio.core.service.http_app import make_app
from parastudio.core.service.http_server import listening_socket, make_server
from parastudio.core.service.work_pool import Busy, WorkerEnded, WorkPool
from parastudio.core.service.worker_process import ServiceWorker

GOOD = json.dumps({"sentence": 0, "span": [0, 2]}).encode()
HEAD = (b"POST /suggest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(GOOD))


def _open(address) -> socket.socket:
    return socket.create_connection(address, timeout=WAIT)


def test_idle_and_half_sent_connections_do_not_delay_another_clients_answer():
    with running_server("--request-timeout", "600", "--keep-alive", "600") as server:
        idle = http.client.HTTPConnection(*server, timeout=WAIT)
        assert request(server, "GET", "/health", connection=idle)[0] == 200  # then idle, kept alive
        half_body, half_line = _open(server), _open(server)
        half_body.sendall(HEAD + GOOD[:10])
        half_line.sendall(b"POST /sugg")
        # Another client, on fresh connections, is answered while the three are held open...
        assert post(server, "/suggest", GOOD)[0] == 200
        assert post(server, "/translate", {"source": "and he went up to the city ."})[0] == 200
        # ...and each held connection was still open, waiting its turn: it completes and is answered.
        half_body.sendall(GOOD[10:])
        assert _one_answer(half_body)[0] == 200
        half_line.sendall(HEAD[len(b"POST /sugg"):] + GOOD)
        assert _one_answer(half_line)[0] == 200
        assert request(server, "POST", "/suggest", GOOD, connection=idle)[0] == 200
        for held in (half_body, half_line):
            held.close()
        idle.close()


def _one_answer(raw: socket.socket) -> tuple[int, dict]:
    """One keep-alive answer, read by its Content-Length."""
    received = b""
    while b"\r\n\r\n" not in received:
        received += raw.recv(65536)
    head, _, body = received.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length")))
    while len(body) < length:
        body += raw.recv(65536)
    return answer_of(head + b"\r\n\r\n" + body)


@pytest.fixture(scope="module")
def impatient():
    with running_server("--request-timeout", "1", "--keep-alive", "1") as server:
        yield server


@pytest.mark.parametrize("sent, field", [(b"POST /sugg", "request"), (b"", "request"),
                                         (HEAD + GOOD[:10], "body")], ids=["line", "nothing", "body"])
def test_a_request_that_never_completes_is_timed_out_and_the_next_is_answered(impatient, sent, field):
    with _open(impatient) as raw:
        raw.sendall(sent)
        status, answer = answer_of(read_to_end(raw))
    assert (status, answer["field"]) == (408, field) and "within 1 s" in answer["error"]
    assert post(impatient, "/suggest", GOOD)[0] == 200


def test_an_idle_keep_alive_connection_is_closed_by_the_server(impatient):
    with _open(impatient) as raw:
        raw.sendall(HEAD + GOOD)
        assert _one_answer(raw)[0] == 200
        assert read_to_end(raw) == b""  # the server ended it: nothing more came before the close


def test_the_listening_socket_says_it_is_tcp_so_that_answers_are_not_held_back():
    """asyncio turns Nagle's algorithm off only on a socket that names TCP; with it on, every keep-alive answer
    waited for the client's delayed ACK (about 40 ms)."""
    with listening_socket("127.0.0.1", 0) as listener:
        assert listener.proto == socket.IPPROTO_TCP


class _Worker:
    """A worker process that answers by what it is asked: holds until released, "decodes" a key, says the keys it
    holds, or dies."""

    def __init__(self, release):
        self.release = release
        self.held: set[str] = set()

    def before_fork(self) -> None:
        pass

    def start(self) -> None:
        pass

    def handle(self, what: str, body: bytes):
        if what == "hold":
            self.release.wait(WAIT)
            return 200, b"held", None, None
        if what == "decode":
            key = body.decode()
            self.held.add(key)
            return 200, b"decoded", key, pickle.dumps(key)
        if what == "die":
            os.kill(os.getpid(), signal.SIGKILL)
        return 200, json.dumps(sorted(self.held)).encode(), None, None

    def keep(self, graph: bytes) -> None:
        self.held.add(pickle.loads(graph))

    def forget(self, key: str) -> None:
        self.held.discard(key)


def test_the_pool_admits_its_workers_and_queue_and_turns_the_next_away():
    release = multiprocessing.get_context("fork").Event()
    pool = WorkPool(_Worker(release), workers=1, queue=1, graphs=10)

    async def scenario():
        running = asyncio.ensure_future(pool.run("hold", b""))
        waiting = asyncio.ensure_future(pool.run("decode", b"second"))
        await asyncio.sleep(0)  # both admitted: one runs, one waits
        with pytest.raises(Busy):
            await pool.run("holding", b"")
        release.set()
        assert (await running, await waiting) == ((200, b"held"), (200, b"decoded"))
        assert (await pool.run("holding", b""), pool.admitted, pool.refused) == ((200, b'["second"]'), 0, 1)

    try:
        asyncio.run(scenario())
    finally:
        pool.close()


def test_a_graph_one_worker_decoded_is_held_by_every_worker_until_the_pool_lets_it_go():
    """Any worker answers for a sentence another decoded; the parent keeps --graphs of them, least recently used
    out, and every worker forgets what it lets go; a worker that dies is replaced, holding the kept graphs, and only
    its own request fails."""
    release = multiprocessing.get_context("fork").Event()
    pool = WorkPool(_Worker(release), workers=2, queue=8, graphs=2)

    async def holding() -> list[str]:
        return json.loads((await pool.run("holding", b""))[1])

    async def scenario():
        for key in (b"a", b"b"):
            assert await pool.run("decode", key) == (200, b"decoded")  # the first worker, idle first
        first = asyncio.ensure_future(pool.run("hold", b""))
        await asyncio.sleep(0)  # the first worker holds: the others are the second's
        assert await holding() == ["a", "b"]
        assert await pool.run("decode", b"c") == (200, b"decoded")  # "a" out: the least recently used
        assert pool.kept.describe() == {"kept": 2, "capacity": 2, "evicted": 1}
        release.set()
        await first
        assert await holding() == ["b", "c"]  # the first worker, told by the second
        with pytest.raises(WorkerEnded):
            await pool.run("die", b"")
        assert await holding() == ["b", "c"] and pool.restarted == 1
        assert await pool.run("decode", b"d") == (200, b"decoded")

    try:
        asyncio.run(scenario())
    finally:
        pool.close()
    assert all(not member.process.is_alive() for member in pool._team)


class _HeldServiceWorker(ServiceWorker):
    """The real service; its first request holds the only worker until released."""

    def __init__(self, service, entered, release):
        super().__init__(service)
        self.entered, self.release = entered, release

    def handle(self, what: str, body: bytes):
        if not self.release.is_set():
            self.entered.set()
            self.release.wait(WAIT)
        return super().handle(what, body)


def test_a_full_queue_answers_503_with_retry_after_and_the_service_goes_on():
    store = open_graph(demo_files().roundtrip_graph)
    service = SuggestionService(store, APPROACHES)
    fork = multiprocessing.get_context("fork")
    entered, release = fork.Event(), fork.Event()
    pool = WorkPool(_HeldServiceWorker(service, entered, release), workers=1, queue=0, graphs=10)
    listening = threading.Event()
    listener = listening_socket("127.0.0.1", 0)
    server = make_server(make_app(service, pool), request_timeout=WAIT, keep_alive=WAIT,
                         on_listening=lambda host, port: listening.set())
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        assert listening.wait(WAIT)
        address = listener.getsockname()[:2]
        first = {}
        holder = threading.Thread(target=lambda: first.update(answer=post(address, "/suggest", GOOD)))
        holder.start()
        assert entered.wait(WAIT)
        status, headers, refused = request(address, "POST", "/suggest", GOOD)
        assert (status, headers["retry-after"], refused["field"]) == (503, "1", None) and "busy" in refused["error"]
        release.set()
        holder.join(WAIT)
        assert first["answer"][0] == 200
        assert post(address, "/suggest", GOOD)[0] == 200
    finally:
        release.set()
        server.should_exit = True
        thread.join(WAIT)
        pool.close()
        service.close()
