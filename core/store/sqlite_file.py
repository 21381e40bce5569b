"""Building a SQLite study file so that nobody ever opens a half-built one.

The file is made under a temporary name beside the destination, left WAL
mode (its write-ahead log checkpointed into it, so it is one self-contained
file to send), flushed to disk and only then renamed over the destination.
On any error the temporary file and its ``-wal``/``-shm`` companions are
removed and the destination is left as it was.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import uuid
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def building_sqlite_file(destination: str | os.PathLike) -> Iterator[Path]:
    """``with building_sqlite_file(path) as temporary: open_database(temporary, create=True)...``; then renamed."""
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    temporary = destination.with_name(f".{destination.name}.{uuid.uuid4().hex}.part")
    try:
        yield temporary
        raw = sqlite3.connect(temporary)
        try:
            raw.execute("PRAGMA journal_mode=DELETE")
        finally:
            raw.close()
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, destination)
    finally:
        for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm")):
            leftover.unlink(missing_ok=True)
