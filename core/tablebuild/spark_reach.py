"""Reaching a Spark server (a standalone master, a Spark Connect server) in a bounded time, or saying why not.

Left to themselves neither client gives up soon: the standalone client retries its registration three times
20 s apart and then hands back a stopped SparkContext ("Cannot call methods on a stopped SparkContext" at the
first job), and the Spark Connect client retries a refused connection with a backoff that tolerates ten
minutes. So each server's first step is bounded here by the settings' ``timeout``: a TCP connection to
HOST:PORT (name lookup included), and for Spark Connect its first answer to a call. A standalone master's
registration of the application is left to Spark's own bound (three tries 20 s apart), since SparkContext()
waits for it among much work of this machine's (a JVM, a block manager) that a loaded machine slows: the
session then checks that the master did register it (core/tablebuild/spark_session.py). A step that fails or
outlasts its bound is one :class:`SparkUnreachable`, whose message names the server (without credentials) and
the cause.
"""

from __future__ import annotations

import re
import threading
from typing import Callable, TypeVar

DEFAULT_TIMEOUT_SECONDS = 30.0
TIMEOUT_ENVIRONMENT = "PARASTUDIO_SPARK_TIMEOUT"
HOW_TO_WAIT_LONGER = f"--spark-timeout SECONDS or {TIMEOUT_ENVIRONMENT} sets the wait"

_SERVER_ADDRESS = re.compile(r"(?P<scheme>spark|sc)://(?:[^@/\s]*@)?(?P<host>[^\s:/@]+):(?P<port>[0-9]+)")

Result = TypeVar("Result")


class SparkUnreachable(ConnectionError):
    """A Spark server did not answer within the bound, or refused; the message names it and the cause."""


class _NoAnswer(Exception):
    """A bounded step was still waiting when its time ran out."""


def shown_server(url: str) -> str:
    """``scheme://HOST:PORT`` of a server URL: no user name, no ``;token=...`` parameters."""
    found = _SERVER_ADDRESS.match(url)
    return f"{found['scheme']}://{found['host']}:{found['port']}" if found else url.split(";")[0]


def unreachable(kind: str, url: str, seconds: float, cause: str) -> SparkUnreachable:
    return SparkUnreachable(f"the {kind} {shown_server(url)} could not be reached within {seconds:g} s: {cause}")


def within(seconds: float, work: Callable[[], Result]) -> Result:
    """``work()``'s result, or its exception, if it ends within ``seconds``; else :class:`_NoAnswer`.

    The work runs in a daemon thread because a blocked socket or JVM call cannot be interrupted from here: when
    time runs out it is abandoned, to end with the process (a Connect client closes its channel first)."""
    finished = threading.Event()
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # noqa: BLE001 - handed to the waiting thread, which raises it
            outcome["error"] = error
        finally:
            finished.set()

    threading.Thread(target=run, name="parastudio-spark-reach", daemon=True).start()
    if not finished.wait(seconds):  # Ctrl+C and SIGTERM still reach the main thread while it waits here
        raise _NoAnswer
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def check_reachable(kind: str, url: str, seconds: float) -> None:
    """Raise :class:`SparkUnreachable` unless a TCP connection to ``url``'s HOST:PORT opens within ``seconds``."""
    import socket  # here: every command reads its Spark settings, and a local run opens no socket

    found = _SERVER_ADDRESS.match(url)
    if found is None:  # the settings' patterns admit no other form; nothing to probe
        return
    host, port = found["host"], int(found["port"])

    def connect() -> None:
        try:
            socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except socket.gaierror:
            raise unreachable(kind, url, seconds, f"no host named {host!r} is known here") from None
        try:
            socket.create_connection((host, port), timeout=seconds).close()
        except ConnectionRefusedError:
            raise unreachable(kind, url, seconds, "connection refused (nothing listens on that port)") from None
        except TimeoutError:
            raise _NoAnswer from None
        except OSError as error:  # no route to the host, the network down: the system's words
            raise unreachable(kind, url, seconds, (error.strerror or str(error)).lower()) from None

    try:
        within(seconds, connect)
    except _NoAnswer:
        raise unreachable(kind, url, seconds, f"no answer ({HOW_TO_WAIT_LONGER})") from None


def first_answer(kind: str, url: str, seconds: float, work: Callable[[], Result], *, expected: str) -> Result:
    """``work()`` (the server's first answer) within ``seconds``; else :class:`SparkUnreachable` saying that
    the server took the connection but did not answer as ``expected`` (e.g. "a Spark master")."""
    try:
        return within(seconds, work)
    except _NoAnswer:
        raise unreachable(kind, url, seconds, f"it took the connection but did not answer (is it {expected}? "
                          f"{HOW_TO_WAIT_LONGER})") from None


def connect_retry_policy(seconds: float):
    """The Spark Connect client's default retry rule (which errors, backoff x4 from 50 ms), with as many retries
    as fit in about ``seconds`` of waiting, each wait at most a quarter of it (the client's own tolerate ten
    minutes of a server gone: a job whose server died would wait that long)."""
    from pyspark.sql.connect.client.retries import DefaultPolicy

    budget = seconds * 1000
    longest = max(50.0, budget / 4)
    waited, wait, retries = 0.0, 50.0, 0
    while waited + wait <= budget:
        waited, retries, wait = waited + wait, retries + 1, min(wait * 4, longest)
    return DefaultPolicy(max_retries=retries, initial_backoff=50, backoff_multiplier=4.0, max_backoff=int(longest))


def parse_timeout(text: str, source: str) -> float:
    """Seconds above 0 from ``text`` (a flag's or the environment's value); ``ValueError`` names ``source``."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise ValueError(f"{source} expects a number of seconds above 0; got {text!r}")
    return seconds
