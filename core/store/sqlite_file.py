"""Building a SQLite study file so that nobody ever opens a half-built one.

The file is made under a temporary name beside the destination (through
:func:`core.textio.staged_output`: an input named as the output is refused, a
symlink's target is written, a device or FIFO gets the bytes), left WAL
mode (its write-ahead log checkpointed into it, so it is one self-contained
file to send), flushed to disk and only then renamed over the destination.
On any error the temporary file and its ``-wal``/``-shm`` companions are
removed and the destination is left as it was; SQLite's "database or disk is
full" (or its "disk I/O error" on a full disk or past ``ulimit -f``) becomes the
``OSError`` naming the file every other writer raises (:mod:`core.out_of_space`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path
from typing import Iterator

from parastudio.core.out_of_space import out_of_space
from parastudio.core.textio import staged_output


@contextlib.contextmanager
def building_sqlite_file(destination: str | os.PathLike, *, inputs=()) -> Iterator[Path]:
    """``with building_sqlite_file(path) as temporary: open_database(temporary, create=True)...``; then renamed.
    ``inputs``: the files the command reads (the study it exports from), never written over."""
    with staged_output(destination, inputs=inputs, what="a SQLite study file") as temporary:
        try:
            with _out_of_space_named(destination, temporary):
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
def _out_of_space_named(destination, temporary: Path) -> Iterator[None]:
    try:
        yield
    except Exception as error:  # noqa: BLE001 - SQLite's, SQLAlchemy's or the OSError of opening the temporary
        named = out_of_space(error, destination, files=(temporary,))
        if named is None:
            raise
        raise named from None
