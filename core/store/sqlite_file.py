"""Building a SQLite study file so that nobody ever opens a half-built one.

The file is made under a temporary name beside the destination (through
:func:`core.textio.staged_output`: an input named as the output is refused, a
symlink's target is written, a device or FIFO gets the bytes), left WAL
mode (its write-ahead log checkpointed into it, so it is one self-contained
file to send), flushed to disk and only then renamed over the destination.
On any error the temporary file and its ``-wal``/``-shm`` companions are
removed and the destination is left as it was; SQLite's "database or disk is
full" becomes the ``OSError`` (ENOSPC) every other writer raises.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
from pathlib import Path
from typing import Iterator

from sqlalchemy.exc import OperationalError

from core.textio import staged_output


@contextlib.contextmanager
def building_sqlite_file(destination: str | os.PathLike, *, inputs=()) -> Iterator[Path]:
    """``with building_sqlite_file(path) as temporary: open_database(temporary, create=True)...``; then renamed.
    ``inputs``: the files the command reads (the study it exports from), never written over."""
    with staged_output(destination, inputs=inputs, what="a SQLite study file") as temporary:
        try:
            with _disk_full_as_oserror(Path(destination)):
                yield temporary
                raw = sqlite3.connect(temporary)
                try:
                    raw.execute("PRAGMA journal_mode=DELETE")
                finally:
                    raw.close()
        finally:
            for leftover in (Path(f"{temporary}-wal"), Path(f"{temporary}-shm")):
                leftover.unlink(missing_ok=True)


@contextlib.contextmanager
def _disk_full_as_oserror(destination: Path) -> Iterator[None]:
    try:
        yield
    except (sqlite3.OperationalError, OperationalError) as error:
        if "disk is full" in str(error) or "disk I/O error" in str(error):
            raise OSError(errno.ENOSPC, f"{os.strerror(errno.ENOSPC)} while writing {destination}") from None
        raise
