"""Ctrl+C and SIGTERM end a command cleanly (issue 39): one line, exit 130 or 143, no worker's traceback, no
temporary left behind.

SIGTERM is turned into :class:`Terminated`, a KeyboardInterrupt, so every ``except BaseException`` cleanup on the
way out (the temporaries of :func:`core.textio.atomic_output`) runs for it as for Ctrl+C. Worker processes ignore
both: the terminal sends Ctrl+C to the whole process group, and a worker's own KeyboardInterrupt traceback is
noise; the parent ends its pool, which stops them.
"""

from __future__ import annotations

import os
import signal
import threading


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
