"""Study files as a careless or unlucky user hands them over: written by a newer version, or damaged on disk."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

FUTURE_REVISION = "9999_from_the_future"


def make_newer(path: Path) -> Path:
    """Mark an existing study file as written by a newer version (a schema revision this program does not know)."""
    connection = sqlite3.connect(path)
    connection.execute("UPDATE alembic_version SET version_num = ?", (FUTURE_REVISION,))
    connection.commit()
    connection.close()
    return path


def damage(path: Path, table: str = "alembic_version", pages: int = 2) -> Path:
    """Overwrite ``pages`` pages of an existing study file from ``table``'s root page with noise (by default
    pages 2 and 3, the version table's root and index: opening finds it; the study table's root: a later
    query does)."""
    connection = sqlite3.connect(path)
    page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    connection.close()
    data = bytearray(path.read_bytes())
    noise = random.Random(18)
    for index in range((root - 1) * page_size, (root - 1 + pages) * page_size):
        data[index] = noise.randrange(256)
    path.write_bytes(bytes(data))
    return path
