"""A real ``parastudio serve`` on 127.0.0.1 (a free port) for the service's tests, and a plain HTTP client."""

from __future__ import annotations

import contextlib
import http.client
import json
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
WAIT = 120  # seconds: generous, for a loaded machine; nothing is asserted about time


@contextlib.contextmanager
def running_server(*flags: str) -> Iterator[tuple[str, int]]:
    """``python -m parastudio serve --port 0 FLAGS`` until the block ends; ``(host, port)`` once it listens. Its end by
    SIGTERM must be the clean one (exit 143)."""
    with tempfile.TemporaryFile("w+") as errors:
        process = subprocess.Popen([sys.executable, "-m", "parastudio", "serve", "--port", "0", *flags], cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=errors, text=True)
        try:
            line = process.stdout.readline()
            if "serving" not in line:
                process.wait(WAIT)
                errors.seek(0)
                raise AssertionError(f"the server did not start: {line!r} {errors.read()!r}")
            host, port = line.split("http://")[1].split()[0].rsplit(":", 1)
            yield host, int(port)
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            status = process.wait(WAIT)
            errors.seek(0)
            said = errors.read()
        assert status == 143, (status, said)
        assert "Traceback" not in said, said


def request(address: tuple[str, int], method: str, path: str, body: bytes | dict | None = None,
            headers: dict[str, str] | None = None, connection: http.client.HTTPConnection | None = None
            ) -> tuple[int, dict[str, str], object]:
    """``(status, headers, JSON answer)``; ``connection``: a keep-alive connection to send it on."""
    own = connection is None
    connection = connection or http.client.HTTPConnection(*address, timeout=WAIT)
    if isinstance(body, dict):
        body = json.dumps(body).encode("utf-8")
    connection.request(method, path, body, headers or {"Content-Type": "application/json"})
    response = connection.getresponse()
    data = response.read()
    answer_headers = {name.lower(): value for name, value in response.getheaders()}
    if own:
        connection.close()
    return response.status, answer_headers, json.loads(data) if data else None


def post(address, path: str, body: bytes | dict, **options) -> tuple[int, object]:
    status, _, answer = request(address, "POST", path, body, **options)
    return status, answer


def raw_exchange(address: tuple[str, int], data: bytes) -> bytes:
    """Send ``data`` as it is and read until the server closes the connection."""
    with socket.create_connection(address, timeout=WAIT) as raw:
        raw.sendall(data)
        return read_to_end(raw)


def read_to_end(raw: socket.socket) -> bytes:
    received = b""
    while chunk := raw.recv(65536):
        received += chunk
    return received


def answer_of(raw_response: bytes) -> tuple[int, dict]:
    """The status and JSON body of one raw HTTP/1.1 response."""
    head, _, body = raw_response.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)
