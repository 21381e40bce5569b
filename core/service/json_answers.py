"""Every answer of the service is JSON, its errors ``{"error": ..., "field": ...}`` with their status.

The application answers through :class:`JSONAnswer`; the connection layer, which answers before there is a
request to hand the application (a malformed request line, headers that never complete), writes the whole
HTTP/1.1 response itself with :func:`raw_error`.
"""

from __future__ import annotations

import json
from http import HTTPStatus

from starlette.responses import Response


def json_bytes(payload: object) -> bytes:
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")


class JSONAnswer(Response):
    media_type = "application/json"

    def render(self, content: object) -> bytes:
        return content if isinstance(content, bytes) else json_bytes(content)


def error(status: int, message: str, field: str | None = None, *, close: bool = False,
          headers: dict[str, str] | None = None) -> JSONAnswer:
    """An error answer; ``close``: the connection ends after it (its request was not read to the end)."""
    headers = dict(headers or {})
    if close:
        headers["Connection"] = "close"
    return JSONAnswer({"error": message, "field": field}, status, headers)


def raw_error(status: int, message: str, field: str | None = None) -> bytes:
    """A whole HTTP/1.1 error response that closes the connection, for the connection layer to write."""
    body = json_bytes({"error": message, "field": field})
    head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n")
    return head.encode("ascii") + body
