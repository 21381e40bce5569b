"""Servers that cannot be reached or named (issue 39): one line naming the server and the cause, never a
traceback, never a hang, never a password."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def progress(url: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "parastudio", "study", "progress", "--db", url], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("url, said", [
    ("postgresql+psycopg://u:secretpw@localhost:99999/db", "port 99999"),
    ("postgresql+psycopg://u:se@cretpw@localhost/db", "'@' in the user or the password"),
    ("postgresql+psycopg://u:secretpw@localhost:notaport/db", "does not parse"),
    ("postgresql+psycopg://u:secretpw@localhost:0/db", "port 0"),
    ("postgresql+psycopg://u:secretpw@127.0.0.1:1/db", "cannot reach the database server at 127.0.0.1:1"),
    # .invalid never resolves (RFC 6761): the name-lookup failure is psycopg's own words, not a refusal
    ("postgresql+psycopg://u:secretpw@no-such-host.invalid/db", "cannot reach the database server at no-such-host"),
])
def test_a_bad_or_unreachable_server_is_one_line_without_the_password(url, said):
    done = progress(url)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert said in done.stderr and len(done.stderr.strip().splitlines()) == 1
    for secret in ("secretpw", "cretpw"):
        assert secret not in done.stderr


def test_a_server_that_accepts_and_never_answers_is_given_up_on():
    """A TCP port that accepts a connection and never says a word: the connect timeout ends the wait."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    held = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])  # kept open, never answered
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        done = progress(f"postgresql+psycopg://u:secretpw@127.0.0.1:{port}/db")
    finally:
        stop.set()
        thread.join()
        for connection in held:
            connection.close()
        listener.close()
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"127.0.0.1:{port}" in done.stderr and "secretpw" not in done.stderr
