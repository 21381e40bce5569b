"""The one shape of progress reporting in the core: ``progress(done, total, message)``.

Long work calls it as it goes; ``total`` is ``None`` while unknown. The CLI
passes a tqdm adapter, the GUI a worker signal. A caller cancels by raising
:class:`Cancelled` from inside the callback: the work stops at its next
report and leaves nothing half-written (every writer goes through
:func:`core.textio.atomic_output` or one transaction).
"""

from __future__ import annotations

from typing import Iterable, Iterator, Protocol, TypeVar

T = TypeVar("T")


class Progress(Protocol):
    def __call__(self, done: int, total: int | None, message: str = "") -> None: ...


class Cancelled(Exception):
    """Raised by a progress callback to stop the work that reports to it."""


def no_progress(done: int, total: int | None, message: str = "") -> None:
    """The default callback: says nothing."""


def scaled(progress: Progress, start: int, end: int, total: int = 100) -> Progress:
    """A callback for a sub-task that reports ``done/total`` of its own, mapped onto ``[start, end]`` of ``total``."""

    def report(done: int, sub_total: int | None, message: str = "") -> None:
        share = done / sub_total if sub_total else 0.0
        progress(start + int((end - start) * min(1.0, share)), total, message)

    return report


def tracked(items: Iterable[T], progress: Progress, total: int | None = None, message: str = "") -> Iterator[T]:
    """Yield ``items``, reporting after each one."""
    for done, item in enumerate(items, start=1):
        yield item
        progress(done, total, message)
