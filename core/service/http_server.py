"""uvicorn, set up so that no client can hold the others: deadlines per connection, limits, JSON refusals.

uvicorn serves every connection at once on one event loop, and closes a keep-alive connection left idle for
``keep_alive`` seconds. Two things it does not do are added by :class:`DeadlineH11Protocol`, its h11 protocol
with a deadline: a request line and headers must arrive within ``request_timeout`` seconds of the connection
(or of the first byte after a keep-alive wait), else 408 and the connection is closed (a client that sends
half a request line held a slot forever); and a malformed request line or headers get JSON, not uvicorn's
plain text. The body has its own deadline in the application (:mod:`core.service.http_app`). Headers are
limited to ``MAX_HEAD`` bytes (h11's limit, then 400).
"""

from __future__ import annotations

import asyncio
import gc
import socket
from typing import Callable

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from parastudio.core.errors import OptionsError
from parastudio.core.service.json_answers import raw_error
from parastudio.core.service.worker_process import YOUNG_THRESHOLD

MAX_HEAD = 16 * 1024
SHUTDOWN_SECONDS = 5  # Ctrl+C or SIGTERM: requests under way get this long to finish


class LingeringTransport:
    """A connection whose closing waits for the client to stop sending, when it has not sent all (nginx's
    lingering close): closed at once with unread bytes, a socket sends a reset, and the client loses the answer
    (a 413 for the body it is still sending). The answer is followed by the end of our side; what the client
    still sends is dropped, until it closes its side or ``seconds`` pass."""

    def __init__(self, transport: asyncio.Transport, seconds: float, unread: Callable[[], bool]):
        self._transport = transport
        self._seconds = seconds
        self._unread = unread
        self.lingering = False

    def __getattr__(self, name: str):
        return getattr(self._transport, name)

    def is_closing(self) -> bool:
        return self.lingering or self._transport.is_closing()

    def close(self) -> None:
        if self.lingering or self._transport.is_closing():
            return
        if not self._unread() or not self._transport.can_write_eof():
            self._transport.close()
            return
        self.lingering = True
        self._transport.write_eof()
        self._transport.resume_reading()
        asyncio.get_running_loop().call_later(self._seconds, self._transport.close)

    def close_at_once(self) -> None:
        self._transport.close()


class DeadlineH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's line and headers (module docstring)."""

    request_timeout = 10.0

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(LingeringTransport(transport, self.request_timeout, self._request_unread))
        self._start_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_deadline()
        super().connection_lost(exc)

    def shutdown(self) -> None:
        if self._waiting_for_head():
            self.transport.close_at_once()  # the server is stopping: an idle connection does not linger
        super().shutdown()

    def data_received(self, data: bytes) -> None:
        if self.transport.lingering:
            return  # the answer is sent and the connection ending: what the client still sends is dropped
        cycle = self.cycle
        super().data_received(data)
        if self.cycle is not cycle:
            self._stop_deadline()  # a request's head has come: the application has it, and its body a deadline
        elif self._waiting_for_head():
            self._start_deadline()  # the first bytes after a keep-alive wait: the deadline starts now

    def on_response_complete(self) -> None:
        self._stop_deadline()  # the keep-alive wait that follows has uvicorn's own timeout
        super().on_response_complete()

    def send_400_response(self, msg: str) -> None:
        self.transport.write(raw_error(400, "a malformed HTTP/1.1 request line or headers (or headers over "
                                       f"{MAX_HEAD:,} bytes)", "request"))
        self.transport.close()

    def _request_unread(self) -> bool:
        """Whether the client may still be sending a request we answered without reading it all."""
        return self.conn.their_state not in (h11.IDLE, h11.DONE, h11.CLOSED, h11.MUST_CLOSE)

    def _waiting_for_head(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _start_deadline(self) -> None:
        if self._deadline is None and not self.transport.is_closing():
            self._deadline = self.loop.call_later(self.request_timeout, self._head_timed_out)

    def _stop_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _head_timed_out(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or not self._waiting_for_head():
            return
        self.transport.write(raw_error(408, f"request: the request line and headers did not come within "
                                       f"{self.request_timeout:g} s", "request"))
        self.transport.close()


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (port 0: a free one), or one line saying why not."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                              flags=socket.AI_PASSIVE)[0]
        # The protocol named, not 0: asyncio turns Nagle's algorithm off only on a socket that says it is TCP, and
        # with it on, an answer's second write waited for the client's delayed ACK (40 ms on every keep-alive request).
        listener = socket.socket(family, kind, proto)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
    except OSError as failure:
        raise OptionsError(f"--host/--port: cannot listen on {host}:{port} ({failure.strerror or failure})") from None
    listener.set_inheritable(True)
    return listener


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, on_listening: Callable[[str, int], None]):
        super().__init__(config)
        self.on_listening = on_listening

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets)
        if self.started:
            host, port = self.servers[0].sockets[0].getsockname()[:2]
            self.on_listening(host, port)


def make_server(app, *, request_timeout: float, keep_alive: float,
                on_listening: Callable[[str, int], None]) -> uvicorn.Server:
    """uvicorn for ``app`` with the deadlines and limits of the module docstring; ``run(sockets=[...])`` serves."""
    protocol = type("DeadlineH11Protocol", (DeadlineH11Protocol,), {"request_timeout": request_timeout})
    config = uvicorn.Config(app, http=protocol, loop="asyncio", lifespan="off", ws="none", interface="asgi3",
                            timeout_keep_alive=keep_alive, h11_max_incomplete_event_size=MAX_HEAD,
                            timeout_graceful_shutdown=SHUTDOWN_SECONDS, log_level="warning", access_log=False,
                            server_header=False)
    return _Server(config, on_listening)


def serve(app, listener: socket.socket, **settings) -> None:
    """Serve ``app`` on ``listener`` until Ctrl+C or SIGTERM (uvicorn raises the signal again once stopped).

    What was loaded before (table, LM, graphs, SciPy) is frozen out of the garbage collector's passes, and its
    youngest generation is collected less often, here as in each worker process
    (:func:`core.service.worker_process.settle_collector`). Nothing is kept longer than it would be."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(thresholds[0], YOUNG_THRESHOLD), *thresholds[1:])
    try:
        make_server(app, **settings).run(sockets=[listener])
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
