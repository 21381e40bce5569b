"""The service as an ASGI application (Starlette): routes, bodies read within a size and a time, JSON answers.

The event loop only moves bytes: each request's body is read here (at most ``max_body`` bytes, within
``body_timeout`` seconds), then parsing it, checking it and answering it run in the :class:`WorkPool`'s worker
processes, which refuse at once (503, ``Retry-After``) when they and their queue are full. Every answer is JSON, errors
as ``{"error": ..., "field": ...}``: an unknown path or method, a body too long or too slow, a fault of the
service (500, the service goes on). The contract: :mod:`core.service.contract`.
"""

from __future__ import annotations

import asyncio

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import ASGIApp

from parastudio.core import __version__
from parastudio.core.engine.decoders.cat.suggestion_service import SuggestionService
from parastudio.core.service.contract import openapi_document
from parastudio.core.service.cross_origin import CrossOrigin
from parastudio.core.service.json_answers import JSONAnswer, error, json_bytes
from parastudio.core.service.work_pool import Busy, WorkerEnded, WorkPool

MAX_BODY = 1 << 20
RETRY_AFTER_SECONDS = "1"


class _RefusedBody(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


async def _read_body(request: Request, limit: int, timeout: float) -> bytes:
    """The whole body, at most ``limit`` bytes, all of it within ``timeout`` seconds."""
    length = request.headers.get("content-length")
    if length is not None and int(length) > limit:  # h11 has checked it is a number
        raise _RefusedBody(413, f"body: expected at most {limit:,} bytes, not {int(length):,}")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    body = bytearray()
    while True:
        try:
            message = await asyncio.wait_for(request.receive(), max(0.0, deadline - loop.time()))
        except asyncio.TimeoutError:
            raise _RefusedBody(408, f"body: not complete within {timeout:g} s ({len(body):,} bytes came)") from None
        if message["type"] == "http.disconnect":
            raise _RefusedBody(400, "body: the client closed the connection before its end")
        body += message.get("body", b"")
        if len(body) > limit:
            raise _RefusedBody(413, f"body: expected at most {limit:,} bytes")
        if not message.get("more_body", False):
            return bytes(body)


def make_app(service: SuggestionService, pool: WorkPool, *, allow_origins: tuple[str, ...] = (),
             max_body: int = MAX_BODY, body_timeout: float = 10.0) -> ASGIApp:
    document = json_bytes(openapi_document(__version__))

    async def work(request: Request, what: str) -> JSONAnswer:
        try:
            body = await _read_body(request, max_body, body_timeout)
            status, answer = await pool.run(what, body)
        except _RefusedBody as refusal:
            return error(refusal.status, str(refusal), "body", close=True)
        except Busy:
            return error(503, f"busy: {pool.workers} workers and a queue of {pool.capacity - pool.workers} are "
                         "taken; retry after the Retry-After header's seconds",
                         headers={"Retry-After": RETRY_AFTER_SECONDS})
        except WorkerEnded:
            return error(500, "the service failed on this request (its worker process ended; another was started)")
        return JSONAnswer(answer, status)

    async def translate(request: Request) -> JSONAnswer:
        return await work(request, "translate")

    async def suggest(request: Request) -> JSONAnswer:
        return await work(request, "suggest")

    async def health(_request: Request) -> JSONAnswer:
        return JSONAnswer({"status": "ok", "decoded": pool.kept.describe(), "work": pool.describe()})

    async def describe(_request: Request) -> JSONAnswer:
        return JSONAnswer({**service.describe(), "decoded": pool.kept.describe()})

    async def openapi(_request: Request) -> JSONAnswer:
        return JSONAnswer(document)

    routes = [Route("/translate", translate, methods=["POST"]), Route("/suggest", suggest, methods=["POST"]),
              Route("/health", health, methods=["GET"]), Route("/", describe, methods=["GET"]),
              Route("/openapi.json", openapi, methods=["GET"])]
    paths = ", ".join(route.path for route in routes)

    async def refused(request: Request, failure: HTTPException) -> JSONAnswer:
        if failure.status_code == 404:
            return error(404, f"no such path {request.url.path[:200]!r}; the paths: {paths}")
        if failure.status_code == 405:
            return error(405, f"{request.url.path} does not take {request.method}; it takes "
                         f"{failure.headers.get('Allow', '') if failure.headers else ''}", headers=failure.headers)
        return error(failure.status_code, str(failure.detail))

    app = Starlette(routes=routes, exception_handlers={HTTPException: refused})
    app.router.redirect_slashes = False  # "/suggest/" is no path of ours: a 404 naming them, not a redirect
    methods_of = {route.path: ", ".join(sorted(route.methods - {"HEAD"}) + ["OPTIONS"]) for route in routes}
    return CrossOrigin(app, allow_origins, methods_of)
