"""A SQLite study file before SQLite writes to it, and a new one that could not be made (issue 39).

:func:`check_sqlite_file` says whether a path is one of our studies, a file to make
one in (none there, or empty), or something to refuse without a byte written:
another program's SQLite database, a file that is not SQLite, a damaged study. Only
SQLite's own "damaged" (SQLITE_CORRUPT, SQLITE_NOTADB) calls a study damaged: a full
disk (:mod:`core.out_of_space`), a lock, a read-only folder or any other I/O error is
said as what it is, since the study is intact.

:func:`discard_new_study` removes a study file this process made when making it
failed (a full disk, Ctrl+C, a name refused), so no empty study is left to be
mistaken for one: a file that was not there is removed, an empty one is left empty.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import urllib.parse
from pathlib import Path

from parastudio.core.errors import InputFileError, StudyUnavailableError
from parastudio.core.out_of_space import out_of_space
from parastudio.core.store.store_errors import damaged_database_error, unavailable_study_error
from parastudio.core.textio import file_kind

APPLICATION_ID = 0x50535455  # "PSTU": Paraphrase Studio study, in the SQLite header
SQLITE_MAGIC = b"SQLite format 3\x00"
OUR_TABLES = {"alembic_version", "study", "judgment", "assignment"}
_COMPANIONS = ("-wal", "-shm", "-journal")


def read_only_uri(path: Path) -> str:
    """SQLite's URI opening ``path`` for reading: ``immutable=1`` for a study in a folder this process cannot
    write and without its ``-wal`` (see :func:`core.store.database.create_database_engine`), else ``mode=ro``."""
    writable = os.access(path.parent, os.W_OK)
    mode = "mode=ro" if writable or Path(f"{path}-wal").exists() else "immutable=1"
    return f"file:{urllib.parse.quote(str(path))}?{mode}"


def check_sqlite_file(path: Path, create: bool) -> bool:
    """Whether the file must be made (it does not exist, or is empty); raise if it is not ours."""
    empty = path.is_file() and path.stat().st_size == 0
    if not path.exists() or empty:
        if not create:
            raise InputFileError(path, "a study database (make one with `parastudio study create NAME --db "
                                 f"{path}`, or open the app with --create)",
                                 "an empty file, not a study database" if empty else "no such file")
        return True
    if not path.is_file():  # a folder, a pipe, a device: said as what it is
        raise InputFileError(path, "a study database file", file_kind(path.stat().st_mode))
    # Read-only: another program's database must not be touched, not even its journal mode. Only SQLite opens
    # the file: this process may hold the study already (the app opening it again), and closing a descriptor
    # of our own would drop SQLite's locks on it (SQLite's "How to corrupt your database", section 2.2).
    connection = None
    try:
        connection = sqlite3.connect(read_only_uri(path), uri=True)
        application_id = connection.execute("PRAGMA application_id").fetchone()[0]
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as error:
        raise _unreadable(path, error) from None
    finally:
        if connection is not None:
            connection.close()
    if application_id == APPLICATION_ID or (application_id == 0 and OUR_TABLES <= tables):
        return False
    if application_id == 0 and not tables and create:
        return True
    shown = ", ".join(sorted(tables)[:6]) + (" ..." if len(tables) > 6 else "")
    raise InputFileError(path, "a Paraphrase Studio study database", "another program's SQLite database "
                         f"(application id {application_id}, tables: {shown or 'none'}); it was left untouched")


def _unreadable(path: Path, error: sqlite3.DatabaseError) -> Exception:
    """Why SQLite could not read the study at ``path``, each cause in its own words."""
    known = out_of_space(error, path) or unavailable_study_error(str(path), error)
    if known is not None:
        return known
    if getattr(error, "sqlite_errorname", None) == "SQLITE_NOTADB" and not _has_sqlite_magic(path):
        return InputFileError(path, "a Paraphrase Studio study database (SQLite)", "a file that is not SQLite")
    damaged = damaged_database_error(str(path), error)
    if damaged is not None:
        return damaged
    return StudyUnavailableError(path, f"SQLite could not read the study file ({error}; "
                                       f"{getattr(error, 'sqlite_errorname', type(error).__name__)}): the file was "
                                       "left as it is; check the disk it is on and run again")


def _has_sqlite_magic(path: Path) -> bool:
    """Read only once SQLite has refused the file as not a database: no SQLite connection holds such a file."""
    with open(path, "rb") as handle:
        return handle.read(16) == SQLITE_MAGIC


def discard_new_study(path: Path, was_empty: bool) -> None:
    """Remove what making a study at ``path`` wrote (module docstring): its companions, and the file itself, or
    its bytes when it was an empty file already there."""
    for companion in _COMPANIONS:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{companion}")
    with contextlib.suppress(FileNotFoundError):
        if was_empty:
            os.truncate(path, 0)
        else:
            os.unlink(path)
