"""A fixed number of worker threads and a bounded queue before them: full, a request is turned away at once.

The event loop must never decode or search (one long request would hold every connection), so each request's
work runs here. The queue is bounded rather than growing: a request that would wait behind ``capacity`` others
gets :class:`Busy` (the application answers 503 with ``Retry-After``), so a burst costs the clients a retry, not
the server its memory and every client its latency. Threads, not processes: the decoded graphs are shared by
every request, and the loaded models are opened once (the binary table and KenLM's binary LM memory-mapped).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, TypeVar

T = TypeVar("T")


class Busy(Exception):
    """Every worker is busy and the queue is full."""


class WorkPool:
    """``workers`` threads; at most ``workers + queue`` requests admitted (running or waiting) at a time.

    Only the event loop's thread calls :meth:`run`, so the count needs no lock; a job leaves the count when its
    thread is done with it, even when the request that sent it was cancelled meanwhile."""

    def __init__(self, workers: int, queue: int):
        if workers < 1 or queue < 0:
            raise ValueError(f"workers must be at least 1 and queue at least 0, not {workers} and {queue}")
        self.workers = workers
        self.capacity = workers + queue
        self.admitted = 0
        self.refused = 0
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="parastudio-serve")

    async def run(self, work: Callable[..., T], *args) -> T:
        if self.admitted >= self.capacity:
            self.refused += 1
            raise Busy()
        loop = asyncio.get_running_loop()
        self.admitted += 1
        future = self._executor.submit(work, *args)
        future.add_done_callback(lambda _: self._release_from(loop))
        return await asyncio.wrap_future(future)

    def _release_from(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            loop.call_soon_threadsafe(self._release)
        except RuntimeError:  # the loop has ended (the server stopped): nothing is counted any more
            pass

    def _release(self) -> None:
        self.admitted -= 1

    def describe(self) -> dict:
        return {"workers": self.workers, "capacity": self.capacity, "admitted": self.admitted,
                "refused": self.refused}

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
