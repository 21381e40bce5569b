"""A command started with standard input, output or error closed (``cmd <&-``, ``cmd >&-``, ``cmd 2>&-``): said in
one line, never an ``AttributeError`` traceback and never output silently lost (issue 39).

Python sets ``sys.stdin``/``sys.stdout``/``sys.stderr`` to None when its descriptor is closed. :func:`stand_in_for_closed_streams`
first holds each closed descriptor open on ``/dev/null``, so that no file the command opens becomes descriptor 0,
1 or 2 (where a child process, or C code printing, would write into it); then it puts a stand-in in place of
``sys.stdin`` and ``sys.stdout`` whose first read or write raises :class:`ClosedStreamError` ("standard output is
closed"), which the CLI says in one line, exit 2. A command that never reads or writes there is not stopped. A
closed standard error takes the messages to ``/dev/null``: there is nowhere to say them, and the exit status still
tells.
"""

from __future__ import annotations

import io
import os
import sys

# The descriptor, the name of its sys attribute and how it is opened on /dev/null.
_STREAMS = ((0, "stdin", os.O_RDONLY), (1, "stdout", os.O_WRONLY), (2, "stderr", os.O_WRONLY))
_NAMES = {"stdin": "standard input", "stdout": "standard output"}
_HOW = {"stdin": "the command was started with <&-; give it input, or name a file",
        "stdout": "the command was started with >&-; let it write there, or name a file with -o where it has one"}


class ClosedStreamError(ValueError):
    """A read from a closed standard input or a write to a closed standard output (the CLI exits 2)."""

    def __init__(self, attribute: str):
        super().__init__(f"{_NAMES[attribute]} is closed ({_HOW[attribute]})")


class _ClosedStream(io.TextIOBase):
    """``sys.stdin`` or ``sys.stdout`` of a process started with it closed: using it raises, asking about it
    does not (``isatty``, ``flush``)."""

    def __init__(self, attribute: str):
        super().__init__()
        self._attribute = attribute

    def _closed(self, *_args, **_kwargs):
        raise ClosedStreamError(self._attribute)

    read = readline = readlines = write = writelines = fileno = _closed

    @property
    def buffer(self):
        self._closed()

    def readable(self) -> bool:
        return self._attribute == "stdin"

    def writable(self) -> bool:
        return self._attribute == "stdout"

    def isatty(self) -> bool:
        return False

    def flush(self) -> None:  # nothing was ever written: the interpreter's flush at exit must not fail
        return None

    def __iter__(self):
        self._closed()


def stand_in_for_closed_streams() -> None:
    """See the module docstring; only a stream whose descriptor is closed is replaced (a test's capture is not)."""
    for descriptor, attribute, flags in _STREAMS:
        if getattr(sys, attribute) is not None or _is_open(descriptor):
            continue
        held = os.open(os.devnull, flags)
        if held != descriptor:  # the lowest free descriptor is taken, which is this one unless a lower one was too
            os.dup2(held, descriptor)
            os.close(held)
        if attribute == "stderr":
            sys.stderr = open(descriptor, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
        else:
            setattr(sys, attribute, _ClosedStream(attribute))


def refuse_closed(stream) -> None:
    """Raise :class:`ClosedStreamError` now if ``stream`` is a closed one's stand-in: a command whose output goes
    there says so before its work (and before any note that work prints), not after it."""
    if isinstance(stream, _ClosedStream):
        stream._closed()


def _is_open(descriptor: int) -> bool:
    try:
        os.fstat(descriptor)
    except OSError:
        return False
    return True
