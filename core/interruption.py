"""Ctrl+C and SIGTERM end a command cleanly (issue 39): one line, exit 130 or 143, no worker's traceback, no
temporary left behind.

SIGTERM is turned into :class:`Terminated`, a KeyboardInterrupt, so every ``except BaseException`` cleanup on the
way out (the temporaries of :func:`core.textio.atomic_output`) runs for it as for Ctrl+C. Worker processes ignore
both: the terminal sends Ctrl+C to the whole process group, and a worker's own KeyboardInterrupt traceback is
noise; the parent kills them (:mod:`core.worker_processes`). A library that catches the signal itself and raises
its own error (DuckDB's ``RuntimeError: Query interrupted``) is run inside :func:`signals_noted`, which turns that
error back into the interruption it was.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from typing import Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM received (exit status 143, as a shell reports it)."""


_COMMAND_PID: list[int] = []  # the process that installed the handler


def _raise_terminated(_signum, _frame) -> None:
    if _COMMAND_PID and os.getpid() != _COMMAND_PID[0]:
        os._exit(143)  # a forked worker that has not yet run its initializer: end quietly, as SIG_DFL would
    raise Terminated()


def end_cleanly_on_sigterm() -> None:
    """In the main thread: SIGTERM raises :class:`Terminated` (elsewhere Python cannot install the handler)."""
    if threading.current_thread() is threading.main_thread():
        _COMMAND_PID[:] = [os.getpid()]
        signal.signal(signal.SIGTERM, _raise_terminated)


def worker_ignores_interrupts() -> None:
    """A pool's initializer: Ctrl+C is the parent's to handle; SIGTERM (the pool's end) ends the worker quietly."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def signals_noted() -> Iterator[None]:
    """Inside: Ctrl+C and SIGTERM are noted as they arrive (then handled as before); an error that leaves the block
    after one arrived is raised as :class:`KeyboardInterrupt` or :class:`Terminated`, whatever the library made of
    the signal. Outside the main thread (where no handler can be set) the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    previous = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}

    def note(number, frame):
        noted.append(number)
        handler = previous[number]
        if callable(handler):
            handler(number, frame)
        elif number == signal.SIGINT and handler != signal.SIG_IGN:
            raise KeyboardInterrupt()
        elif number == signal.SIGTERM and handler != signal.SIG_IGN:
            raise Terminated()

    for number in previous:
        signal.signal(number, note)
    try:
        yield
    except Exception:
        if not noted:
            raise
        raise (Terminated() if noted[0] == signal.SIGTERM else KeyboardInterrupt()) from None
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
