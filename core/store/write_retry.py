"""Starting a write on a study another program is writing: wait, retry a few times, then say so.

Every write of the store starts with ``BEGIN IMMEDIATE`` (:mod:`core.store.database`), which takes the
study's write lock before anything is read or written, so a study that stays locked longer than SQLite's
busy timeout fails right there, with nothing done yet: starting again is always safe. :func:`begin_when_free`
does that, a bounded number of times with growing pauses, for every writer: the app's judgment writer, the
CLI's commands and a notebook alike. Any other error, and a lock held through every attempt, is raised.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Callable, TypeVar

T = TypeVar("T")

# Pauses between attempts; each attempt itself waits up to the busy timeout (a long import in another program
# holds the lock longer than that).
RETRY_DELAYS_S = (0.05, 0.2, 1.0, 2.0, 5.0)


def is_locked(error: BaseException) -> bool:
    """Whether ``error`` (raised by sqlite3 or wrapped by SQLAlchemy) is SQLite's "database is locked"."""
    cause = getattr(error, "orig", None) or error
    name = getattr(cause, "sqlite_errorname", "")
    return isinstance(cause, sqlite3.OperationalError) and name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))


pause = time.sleep  # between attempts (a test replaces it to release the lock at a known point)


def begin_when_free(begin: Callable[[], T]) -> T:
    """``begin()`` (which opens a write transaction and returns it), again after each of :data:`RETRY_DELAYS_S`
    while the study is locked; the "locked" error of the last attempt is raised when every one found it locked."""
    for delay in RETRY_DELAYS_S:
        try:
            return begin()
        except Exception as error:
            if not is_locked(error):
                raise
        pause(delay)
    return begin()
