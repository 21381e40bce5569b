"""Calls from a browser page (CORS), and ``OPTIONS``, answered around the application.

A browser-based CAT tool (MateCat, CASMACAT: the tools seed 001 targets) calls the service from its page's
origin. The browser lets the page read an answer only when the answer names that origin
(``Access-Control-Allow-Origin``), and before a POST with a JSON body it asks first with ``OPTIONS`` (a
preflight). The origins allowed are ``parastudio serve --allow-origin`` values (``*``: any); none by default, so
no page on the web can have a translator's browser call the service on their machine. An ``OPTIONS`` that is no
preflight (a client asking what a path takes) gets 204 and ``Allow``.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from parastudio.core.service.json_answers import error

PREFLIGHT_SECONDS = "600"  # how long a browser may keep a preflight's answer


class CrossOrigin:
    """``methods_of``: each path and the methods it takes (``"GET, OPTIONS"``), as ``Allow`` says them."""

    def __init__(self, app: ASGIApp, origins: Sequence[str], methods_of: Mapping[str, str]):
        self.app = app
        self.any_origin = "*" in origins
        self.origins = frozenset(origins)
        self.methods_of = dict(methods_of)

    def allows(self, origin: str | None) -> bool:
        return origin is not None and (self.any_origin or origin in self.origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if scope["method"] == "OPTIONS":
            await self._options(scope, headers, origin)(scope, receive, send)
            return
        if not self.allows(origin):
            await self.app(scope, receive, send)
            return

        async def send_naming_the_origin(message: Message) -> None:
            if message["type"] == "http.response.start":
                self._name_origin(MutableHeaders(scope=message), origin)
            await send(message)

        await self.app(scope, receive, send_naming_the_origin)

    def _name_origin(self, headers: MutableHeaders, origin: str) -> None:
        headers["Access-Control-Allow-Origin"] = "*" if self.any_origin else origin
        if not self.any_origin:
            headers.add_vary_header("Origin")

    def _options(self, scope: Scope, headers: Headers, origin: str | None):
        methods = self.methods_of.get(scope["path"])
        if methods is None:
            return error(404, f"no such path {scope['path'][:200]!r}; the paths: {', '.join(self.methods_of)}")
        preflight = origin is not None and "access-control-request-method" in headers
        if preflight and not self.allows(origin):
            return error(403, f"the origin {origin[:200]!r} may not call this service (start it with "
                         "--allow-origin ORIGIN)", "Origin")
        answer = Response(status_code=204, headers={"Allow": methods})
        if self.allows(origin):
            self._name_origin(answer.headers, origin)
        if preflight:
            answer.headers["Access-Control-Allow-Methods"] = methods
            answer.headers["Access-Control-Allow-Headers"] = "Content-Type"
            answer.headers["Access-Control-Max-Age"] = PREFLIGHT_SECONDS
        return answer
