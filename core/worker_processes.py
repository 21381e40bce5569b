"""Work spread over forked worker processes that Ctrl+C and SIGTERM end at once (issue 39).

``multiprocessing.Pool`` ends its workers through handler threads and queue locks: a
worker killed while it held the task queue's lock leaves ``Pool.terminate`` waiting on
that lock for ever, and an interrupted ``generate --processes 2`` then never exits.
:func:`ordered_map` keeps no shared lock and no thread: each worker has its own pipe,
the parent alone decides what it is sent, and on any way out other than the end of the
work (Ctrl+C, SIGTERM, an error, the caller dropping the iterator) the parent sends each
worker SIGKILL and reaps it. Workers ignore Ctrl+C (:func:`core.interruption.worker_ignores_interrupts`:
the terminal signals the whole process group, and the parent decides), so no worker prints
a traceback.

Workers are forked, so ``function`` and what it reads (KenLM models, which do not pickle)
are inherited; items and results travel pickled.
"""

from __future__ import annotations

import collections
import pickle
import traceback
from typing import Callable, Iterable, Iterator, TypeVar

from parastudio.core.interruption import worker_ignores_interrupts

Item = TypeVar("Item")
Result = TypeVar("Result")
# Tasks sent ahead to each worker: one being worked on, one waiting, so a worker never idles on the parent; the
# waiting one only while the worker's tasks fit in the pipe together. A second task that does not fit would block
# the parent's send while the worker blocks sending its answer, which the parent is not reading: both wait for
# ever (a data build's 860 KB chunks did). One task at a time is always read: the worker is waiting for it.
_AHEAD = 2
_AHEAD_BYTES = 32 * 1024  # well under a socket pair's buffer (208 KiB on Linux)


def _takes(held: "collections.deque[int]", size: int) -> bool:
    """Whether a worker holding tasks of sizes ``held`` may be sent one more of ``size`` bytes now."""
    return not held or (len(held) < _AHEAD and sum(held) + size <= _AHEAD_BYTES)


class WorkerDied(RuntimeError):
    """A worker process ended without an answer (killed by the system, out of memory)."""


def ordered_map(function: Callable[[Item], Result], items: Iterable[Item], workers: int) -> Iterator[Result]:
    """``function(item)`` for every item, in the order of ``items``, computed in ``workers`` forked processes.

    An exception raised by ``function`` is raised here (its worker's traceback as a note); the workers are then
    killed, as they are when the caller stops iterating or a signal interrupts it."""
    import multiprocessing
    from multiprocessing.connection import wait
    from multiprocessing.reduction import ForkingPickler

    context = multiprocessing.get_context("fork")
    team: dict = {}  # the parent's end of each worker's pipe -> its process
    held: dict = {}  # the same ends -> the sizes of the tasks the worker holds, oldest first
    results: dict[int, Result] = {}
    tasks = enumerate(items)
    sent = following = 0
    waiting: bytes | None = None  # the next task, pickled, that no worker could take yet
    finished = False
    try:
        for _ in range(max(1, workers)):
            ours, theirs = context.Pipe()
            # The parent's ends go to the child too: it closes them, so that a parent that dies is an end of file.
            process = context.Process(target=_serve, args=(theirs, [*team, ours], function), daemon=True,
                                      name="parastudio-worker")
            process.start()
            theirs.close()
            team[ours], held[ours] = process, collections.deque()
        exhausted = False
        while True:
            for end in team:  # keep every worker fed
                while not exhausted:
                    if waiting is None:
                        task = next(tasks, None)
                        if task is None:
                            exhausted = True
                            break
                        waiting = ForkingPickler.dumps(task)
                    if not _takes(held[end], len(waiting)):
                        break
                    end.send_bytes(waiting)
                    held[end].append(len(waiting))
                    waiting = None
                    sent += 1
            while following in results:
                yield results.pop(following)
                following += 1
            if exhausted and following == sent:
                break
            for end in wait([end for end in team if held[end]]):
                index, failure, value = _answer(end, team[end])
                held[end].popleft()
                if failure is not None:
                    raise _raised(failure)
                results[index] = value
        for end in team:
            end.send(None)  # no more work: the worker returns
        for process in team.values():
            process.join()
        finished = True
    finally:
        if not finished:
            _kill(team.values())
        for end in team:
            end.close()


class BackgroundCall:
    """``function(item)`` computed in one forked process while the caller does other work; :meth:`result` waits
    for it. Used as a context manager: leaving it before the result was taken (Ctrl+C, SIGTERM, an error in the
    caller's own work) kills the process at once, as :func:`ordered_map` does its workers."""

    def __init__(self, function: Callable[[Item], Result], item: Item) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self._end, theirs = context.Pipe()
        self._process = context.Process(target=_serve, args=(theirs, [self._end], function), daemon=True,
                                        name="parastudio-worker")
        self._process.start()
        theirs.close()
        self._end.send((0, item))
        self._finished = False

    def result(self) -> Result:
        _, failure, value = _answer(self._end, self._process)
        if failure is not None:
            raise _raised(failure)
        self._end.send(None)
        self._process.join()
        self._finished = True
        return value

    def __enter__(self) -> "BackgroundCall":
        return self

    def __exit__(self, *exc_info) -> None:
        if not self._finished:
            _kill([self._process])
        self._end.close()


def _answer(end, process) -> tuple[int, tuple | None, object]:
    try:
        return end.recv()
    except (EOFError, OSError):
        process.join()
        raise WorkerDied(f"a worker process ended without an answer (exit status {process.exitcode}): killed by "
                         "the system? (out of memory)") from None


def _kill(processes) -> None:
    """SIGKILL every worker and reap it: no lock, queue or thread of theirs is waited on."""
    for process in processes:
        if process.pid is not None and process.exitcode is None:
            process.kill()
    for process in processes:
        if process.pid is not None:
            process.join()


def _serve(end, parents_ends, function) -> None:
    """A worker: answer each ``(index, item)`` with ``(index, failure, result)`` until told to stop."""
    worker_ignores_interrupts()
    for other in parents_ends:
        other.close()
    while True:
        try:
            task = end.recv()
        except (EOFError, OSError):  # the parent is gone
            return
        if task is None:
            return
        index, item = task
        try:
            answer = (index, None, function(item))
        except Exception as error:  # noqa: BLE001 - raised again in the parent
            answer = (index, _failure(error), None)
        try:
            end.send(answer)
        except (pickle.PicklingError, TypeError, AttributeError) as error:  # a result that does not pickle
            end.send((index, _failure(error), None))


def _failure(error: Exception) -> tuple:
    """``error`` as it crosses the pipe: its class, arguments and attributes, not its constructor's call (our
    errors take several arguments and keep one message, so pickle's ``cls(*args)`` would fail), and its trace."""
    trace = "".join(traceback.format_exception(error))
    failure = (type(error), error.args, dict(vars(error)), trace)
    try:
        pickle.dumps(failure)
    except Exception:  # noqa: BLE001 - a class or an attribute that does not pickle
        failure = (RuntimeError, (f"{type(error).__name__}: {error}",), {}, trace)
    return failure


def _raised(failure: tuple) -> BaseException:
    kind, arguments, attributes, trace = failure
    try:
        error = kind.__new__(kind)
        error.args = arguments
        error.__dict__.update(attributes)
    except Exception:  # noqa: BLE001 - a class that cannot be made this way: its name and message say it
        error = RuntimeError(f"{kind.__name__}: {arguments[0] if arguments else ''}")
    error.add_note(f"in a worker process:\n{trace}")
    return error
