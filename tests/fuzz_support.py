"""What the fuzz tests share: the example counts, a time limit per call, the CLI run in process, file defects.

Counts: 200 examples per property in the default run; the ``slow``-marked
twin of each property runs ``PARASTUDIO_FUZZ_EXAMPLES`` (2,000 unless set)
and only when asked for, with ``-m slow`` or that variable, so the default
run stays within its minute.

Time limit: every call runs under :func:`time_limit`, a ``SIGALRM`` timer
that raises :class:`Hang` in the call itself (a hang is a failure, found
without timing anything that should pass).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import signal
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

DEFAULT_EXAMPLES = 200
THOROUGH_EXAMPLES = int(os.environ.get("PARASTUDIO_FUZZ_EXAMPLES", "2000"))
CALL_SECONDS = 20


class Hang(Exception):
    """A call ran past its time limit."""


@contextlib.contextmanager
def time_limit(seconds: float = CALL_SECONDS):
    def expire(_signum, _frame):
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _settings(examples: int):
    return settings(max_examples=examples, deadline=None, database=None, derandomize=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])


def fuzz_tests(strategy, prop, fixtures: tuple[str, ...] = (), share: int = 1):
    """The default test (200 examples) and its thorough twin (marked slow) of the property
    ``prop(*fixtures, example)`` (``fixtures``: names of pytest fixtures it takes first). ``share``: one of
    that many tests that split the counts between them (rounded up)."""
    quick = _settings(-(-DEFAULT_EXAMPLES // share))(given(strategy)(prop))
    thorough_run = _settings(-(-THOROUGH_EXAMPLES // share))(given(strategy)(prop))

    @pytest.mark.slow
    def thorough(request):
        asked = "slow" in (request.config.getoption("markexpr") or "") or "PARASTUDIO_FUZZ_EXAMPLES" in os.environ
        if not asked:
            pytest.skip(f"the {THOROUGH_EXAMPLES:,}-example fuzz run: select it with -m slow "
                        "(or PARASTUDIO_FUZZ_EXAMPLES=N); the default run fuzzes 200 examples")
        thorough_run(*(request.getfixturevalue(name) for name in fixtures))

    return quick, thorough


@contextlib.contextmanager
def standard_input(data: bytes):
    """``sys.stdin`` reading ``data`` (what ``parastudio ... < file`` gives a command)."""
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.BytesIO(data)), encoding="utf-8")
    try:
        yield
    finally:
        sys.stdin = saved


def run_cli(argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    """``core.cli.main(argv)`` in this process: (exit status, stdout, stderr). Only a clear failure may escape:
    an exception other than SystemExit (argparse's usage errors) fails the test that called it."""
    from parastudio.core.cli import main

    out, err = io.StringIO(), io.StringIO()
    with time_limit(), standard_input(stdin), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else 2
    return status, out.getvalue(), err.getvalue()


def assert_clear(status: int, stderr: str) -> None:
    """A failed command said why: ``parastudio ... error: ...``, no traceback."""
    assert "Traceback" not in stderr
    if status != 0:
        assert "error" in stderr, stderr


def no_leftovers(directory: Path) -> list[str]:
    """Temporary files an interrupted or failed write would leave beside its output."""
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".part") or p.name.startswith(".pivot-"))


# Bytes a careless or unlucky user hands us: how a clean text file gets damaged.
DEFECTS = ("none", "bom", "crlf", "nul", "latin1", "truncate", "gzip", "gzip-truncated", "noise")


def damage(text: str, defect: str, where: int) -> bytes:
    """``text`` as UTF-8 with one defect applied at byte offset ``where`` (clamped)."""
    data = text.encode("utf-8")
    at = min(where, len(data))
    if defect == "bom":
        return b"\xef\xbb\xbf" + data
    if defect == "crlf":
        return data.replace(b"\n", b"\r\n")
    if defect == "nul":
        return data[:at] + b"\x00" + data[at:]
    if defect == "latin1":
        return data[:at] + b"\xe9" + data[at:]
    if defect == "truncate":
        return data[:at]
    if defect == "gzip":
        return gzip.compress(data, mtime=0)
    if defect == "gzip-truncated":
        compressed = gzip.compress(data, mtime=0)
        return compressed[: max(2, min(at, len(compressed) - 1))]
    if defect == "noise":
        return bytes((at * 37 + i * 101) % 256 for i in range(64)) + data
    return data


defects = st.sampled_from(DEFECTS)
