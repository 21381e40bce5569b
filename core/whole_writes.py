"""Standard output unbuffered (``PYTHONUNBUFFERED=1``, ``python -u``) without silently lost bytes (issue 39).

Unbuffered, ``sys.stdout.buffer`` is the raw file: each ``write()`` is one system
call, which may take only part of the bytes (at ``ulimit -f``, on a disk filling
up), and Python's text layer drops the rest without a word: a truncated output
and exit status 0. :class:`WholeWrites` writes again until every byte is taken, so
the next call fails with the system's EFBIG or ENOSPC, which the CLI says.
"""

from __future__ import annotations

import io
import sys


class WholeWrites(io.RawIOBase):
    """A raw binary stream whose ``write`` takes every byte or raises; ``raw`` is not closed with it."""

    def __init__(self, raw) -> None:
        super().__init__()
        self._raw = raw

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        while view:
            written = self._raw.write(view)
            if written is None:  # a non-blocking descriptor that is full: not ours to wait on
                raise BlockingIOError("standard output would block")
            view = view[written:]
        return memoryview(data).nbytes

    def fileno(self) -> int:
        return self._raw.fileno()

    def isatty(self) -> bool:
        return self._raw.isatty()

    def flush(self) -> None:
        self._raw.flush()


def is_unbuffered(stream) -> bool:
    """Whether ``stream`` is a raw binary file (one system call per write)."""
    return isinstance(stream, io.RawIOBase) and not isinstance(stream, WholeWrites)


def whole_writes_on_standard_output() -> None:
    """Put ``sys.stdout`` over :class:`WholeWrites` when it is unbuffered; a test's capture is left alone."""
    stream = sys.stdout
    if not isinstance(stream, io.TextIOWrapper) or not is_unbuffered(getattr(stream, "buffer", None)):
        return
    stream.flush()
    sys.stdout = io.TextIOWrapper(WholeWrites(stream.buffer), encoding=stream.encoding, errors=stream.errors,
                                  line_buffering=stream.line_buffering, write_through=True)
