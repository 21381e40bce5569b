"""Worker processes and a bounded queue before them: full, a request is turned away at once.

The event loop must never decode or search (one long request would hold every connection), and in one process
the interpreter's lock let only one request compute at a time, whatever the cores. So each request's work runs
in a worker process (:mod:`core.service.worker_process`), forked once the service is loaded: the binary table
and KenLM's binary LM are memory-mapped once and shared by every worker. A request goes to an idle worker, or
waits in the queue for the first to be free; one that would wait behind ``capacity`` others gets :class:`Busy`
(the application answers 503 with ``Retry-After``), so a burst costs the clients a retry, not the server its
memory and every client its latency.

A sentence decoded by ``/translate`` in one worker is sent to every other, so any worker answers ``/suggest``
for it; the parent alone decides which graphs are kept (:class:`KeptGraphs`: at most ``--graphs``, the least
recently used out, each worker told to forget it) and holds each graph's bytes, so that a worker that dies
(killed, out of memory) is forked again with them: the request it was answering gets 500, the others go on.
"""

from __future__ import annotations

import asyncio
import collections
import multiprocessing
import pickle
import socket
import sys
from dataclasses import dataclass, field

from parastudio.core.service.worker_process import LENGTH, frame, run_worker


class Busy(Exception):
    """Every worker is busy and the queue is full."""


class WorkerEnded(Exception):
    """The worker answering a request ended before its answer (the service started another)."""


class KeptGraphs:
    """The decoded sentences the workers hold, by key, each graph's bytes; at most ``capacity``, the least
    recently used out."""

    def __init__(self, capacity: int):
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, not {capacity}")
        self.capacity = capacity
        self.evicted = 0
        self.graphs: collections.OrderedDict[str, bytes] = collections.OrderedDict()

    def put(self, key: str, graph: bytes) -> list[str]:
        """Keep ``graph``; the keys let go to make room."""
        self.graphs[key] = graph
        self.graphs.move_to_end(key)
        out = []
        while len(self.graphs) > self.capacity:
            out.append(self.graphs.popitem(last=False)[0])
            self.evicted += 1
        return out

    def touch(self, key: str) -> None:
        if key in self.graphs:
            self.graphs.move_to_end(key)

    def describe(self) -> dict:
        return {"kept": len(self.graphs), "capacity": self.capacity, "evicted": self.evicted}


@dataclass
class _Job:
    what: str
    body: bytes
    answer: asyncio.Future


@dataclass
class _Worker:
    process: multiprocessing.Process
    channel: socket.socket  # the parent's end
    writer: asyncio.StreamWriter | None = None
    job: _Job | None = None
    reading: asyncio.Task | None = None
    ended: bool = False
    answered: int = 0
    pending: list[bytes] = field(default_factory=list)  # messages sent before the event loop took the channel


class WorkPool:
    """``workers`` processes answering ``worker.handle(what, body)``; at most ``workers + queue`` requests admitted
    (running or waiting) at a time. ``worker`` is what each process runs (a
    :class:`~core.service.worker_process.ServiceWorker`); the processes are forked here, before any serving.

    Only the event loop's thread calls :meth:`run`; a job leaves the count when its worker is done with it, even
    when the request that sent it was cancelled meanwhile."""

    def __init__(self, worker, workers: int, queue: int, *, graphs: int):
        if workers < 1 or queue < 0:
            raise ValueError(f"workers must be at least 1 and queue at least 0, not {workers} and {queue}")
        self.worker = worker
        self.workers = workers
        self.capacity = workers + queue
        self.admitted = 0
        self.refused = 0
        self.restarted = 0
        self.kept = KeptGraphs(graphs)
        self._waiting: collections.deque[_Job] = collections.deque()
        self._context = multiprocessing.get_context("fork")
        worker.before_fork()
        self._team: list[_Worker] = [self._fork() for _ in range(workers)]
        self._attached: asyncio.Task | None = None

    # -- the processes -------------------------------------------------------------------------------
    def _fork(self) -> _Worker:
        ours, theirs = socket.socketpair()
        process = self._context.Process(target=run_worker, args=(self.worker, theirs), daemon=True,
                                        name="parastudio-serve-worker")
        process.start()
        theirs.close()
        return _Worker(process, ours)

    async def _attach(self, member: _Worker) -> None:
        reader, member.writer = await asyncio.open_unix_connection(sock=member.channel)
        for message in member.pending:
            member.writer.write(message)
        member.pending.clear()
        member.reading = asyncio.ensure_future(self._read(member, reader))

    async def _attach_all(self) -> None:
        for member in self._team:
            await self._attach(member)

    def _send(self, member: _Worker, message: bytes) -> None:
        if member.writer is None:
            member.pending.append(message)
        else:
            member.writer.write(message)  # buffered by the transport: the event loop never waits on a worker

    async def _read(self, member: _Worker, reader: asyncio.StreamReader) -> None:
        while True:
            try:
                head = await reader.readexactly(LENGTH.size)
                answer = pickle.loads(await reader.readexactly(LENGTH.unpack(head)[0]))
            except (asyncio.IncompleteReadError, ConnectionError, OSError):
                if not member.ended:
                    await self._replace(member)
                return
            self._answered(member, answer)

    async def _replace(self, member: _Worker) -> None:
        """A worker that ended: its request gets 500, another is forked with the kept graphs (unless it ended
        by an error of its own before answering anything: another would end the same way)."""
        member.ended = True
        member.process.join(1)
        code = member.process.exitcode
        again = member.answered > 0 or code is None or code < 0
        print(f"parastudio serve: a worker process ended ({'signal ' + str(-code) if code and code < 0 else code})"
              f"; {'another is started' if again else 'none replaces it'}", file=sys.stderr, flush=True)
        job, member.job = member.job, None
        if job is not None:
            self.admitted -= 1
            if not job.answer.done():
                job.answer.set_exception(WorkerEnded())
        member.writer.close()
        if not again:
            self._dispatch()
            return
        fresh = self._fork()
        self.restarted += 1
        self._team[self._team.index(member)] = fresh
        for graph in self.kept.graphs.values():
            self._send(fresh, frame(("keep", graph)))
        await self._attach(fresh)
        self._dispatch()

    # -- requests ------------------------------------------------------------------------------------
    async def run(self, what: str, body: bytes) -> tuple[int, bytes]:
        """``(status, JSON bytes)`` of the request, answered by a worker; :class:`Busy` when the queue is full."""
        if self.admitted >= self.capacity:
            self.refused += 1
            raise Busy()
        if self._attached is None:
            self._attached = asyncio.ensure_future(self._attach_all())
        self.admitted += 1
        job = _Job(what, body, asyncio.get_running_loop().create_future())
        self._waiting.append(job)
        self._dispatch()
        return await job.answer

    def _dispatch(self) -> None:
        if all(member.ended for member in self._team):  # none left to answer: said, not waited for
            while self._waiting:
                job = self._waiting.popleft()
                self.admitted -= 1
                if not job.answer.done():
                    job.answer.set_exception(WorkerEnded())
            return
        for member in self._team:
            if member.job is not None or member.ended:
                continue
            while self._waiting and member.job is None:
                job = self._waiting.popleft()
                if job.answer.done():  # its request was cancelled while it waited
                    self.admitted -= 1
                    continue
                member.job = job
                self._send(member, frame(("job", job.what, job.body)))
            if not self._waiting:
                return

    def _answered(self, member: _Worker, answer: tuple) -> None:
        status, body, key, graph = answer
        job, member.job = member.job, None
        member.answered += 1
        self.admitted -= 1
        if graph is not None:
            # Sent to the others before the client has its key: any request naming it comes after.
            for other in self._team:
                if other is not member:
                    self._send(other, frame(("keep", graph)))
            for out in self.kept.put(key, graph):
                for each in self._team:
                    self._send(each, frame(("forget", out)))
        elif key is not None:
            self.kept.touch(key)
        if job is not None and not job.answer.done():
            job.answer.set_result((status, body))
        self._dispatch()

    def describe(self) -> dict:
        return {"workers": self.workers, "capacity": self.capacity, "admitted": self.admitted,
                "refused": self.refused, "restarted": self.restarted}

    def close(self) -> None:
        """Every worker ended: its channel closed (it exits at the end of its request), then killed if it lingers."""
        for member in self._team:
            member.ended = True
            if member.reading is not None and not member.reading.done():
                try:
                    member.reading.cancel()
                except RuntimeError:  # its event loop has ended
                    pass
            member.channel.close()
        for member in self._team:
            member.process.join(5)
            if member.process.is_alive():
                member.process.kill()
                member.process.join()
