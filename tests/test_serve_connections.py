"""No client of ``parastudio serve`` can hold the others (issue 45, items 1 and 4): an idle keep-alive connection,
a half-sent request line or body, do not delay another client's answer; a request line or body that never
completes is timed out (408) and the others served; a full queue answers 503 with Retry-After. Nothing here
measures time: each test waits on answers (generously) and checks what the held connections can still do."""

from __future__ import annotations

import asyncio
import http.client
import json
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
from parastudio.core.service.work_pool import Busy, WorkPool

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


def test_the_pool_admits_its_workers_and_queue_and_turns_the_next_away():
    release = threading.Event()

    async def scenario():
        pool = WorkPool(workers=1, queue=1)
        running = asyncio.ensure_future(pool.run(release.wait))
        waiting = asyncio.ensure_future(pool.run(lambda: "second"))
        await asyncio.sleep(0)  # both admitted: one runs, one waits
        with pytest.raises(Busy):
            await pool.run(lambda: "third")
        release.set()
        assert (await running, await waiting) == (True, "second")
        assert (await pool.run(lambda: "after"), pool.admitted, pool.refused) == ("after", 0, 1)
        pool.close()

    asyncio.run(scenario())


def test_a_full_queue_answers_503_with_retry_after_and_the_service_goes_on():
    store = open_graph(demo_files().roundtrip_graph)
    service = SuggestionService(store, APPROACHES)
    entered, release = threading.Event(), threading.Event()
    answer = service.answer

    def held_answer(data):  # the first request holds the only worker until released
        if not release.is_set():
            entered.set()
            release.wait(WAIT)
        return answer(data)

    service.answer = held_answer
    pool = WorkPool(workers=1, queue=0)
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
