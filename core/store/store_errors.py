"""The study store's failures that are not the file's fault, each as one sentence that says what to do.

SQLite's ``SQLITE_BUSY``/``SQLITE_LOCKED`` after the busy timeout (another
program holds the study), ``SQLITE_READONLY`` (a study opened for reading, in a
read-only folder or a read-only file), and a PostgreSQL server that refuses or
never answers the connection, or refuses a statement to a member's own login (issue 38), and any other
I/O error of SQLite's (issue 39: a full disk is :mod:`core.out_of_space`'s, never "damaged"): raised directly or
wrapped by SQLAlchemy, each becomes a :class:`core.errors.StudyUnavailableError` naming the study; any
other error is left as it is (None). :func:`study_error` adds the file's own fault, SQLite's "damaged".
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

from parastudio.core.errors import InputFileError, StudyUnavailableError
from parastudio.core.out_of_space import out_of_space

LOCKED = "another program holds the study (locked): retry or close it"
# psycopg 3 ("connection failed: ..."), psycopg2 ("could not connect to server", "connection to server at ... failed")
_UNREACHABLE = re.compile(r"connection failed|could not connect|connection to server .* failed|"
                          r"could not translate host name|failed to resolve host|timeout expired", re.IGNORECASE)


# PostgreSQL's SQLSTATE for a privilege or a row-level security policy that refuses the statement.
INSUFFICIENT_PRIVILEGE = "42501"

READ_ONLY_HINT = "it opens for reading only (report, agreement, export-*): copy it to a writable folder to judge or import"


def read_only_reason(path: Path) -> str | None:
    """Why this process cannot write the SQLite study at ``path`` (None: it can): a write needs the file
    and, for SQLite's ``-wal`` and ``-shm`` companions, its folder."""
    folder = path.parent
    if not os.access(folder, os.W_OK):
        return f"the study's folder is read-only: {folder}"
    if path.exists() and not os.access(path, os.W_OK):
        return f"the study file is read-only: {path}"
    return None


def unavailable_study_error(shown: str, error: BaseException) -> StudyUnavailableError | None:
    """The :class:`StudyUnavailableError` for ``error`` met on the study ``shown`` (a path or a URL without its
    password), or None when ``error`` is none of the module docstring's cases."""
    cause = getattr(error, "orig", None) or error
    if isinstance(cause, sqlite3.Error):
        name = getattr(cause, "sqlite_errorname", "")
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            return StudyUnavailableError(shown, LOCKED)
        if name.startswith("SQLITE_CANTOPEN"):
            path = Path(shown)
            if path.exists() and not os.access(path, os.R_OK):
                return StudyUnavailableError(shown, "the study file cannot be read (permission denied)")
            return StudyUnavailableError(shown, f"the study file cannot be opened ({cause})")
        if name.startswith("SQLITE_READONLY"):
            path = Path(shown)
            reason = read_only_reason(path) or f"the study's folder is read-only: {path.parent} ({cause})"
            return StudyUnavailableError(shown, f"{reason}; {READ_ONLY_HINT}")
        if name.startswith("SQLITE_IOERR"):  # the disk's fault, not the file's: the study is left as it was
            return StudyUnavailableError(shown, f"the disk failed to read or write the study ({cause}; {name}); "
                                                "it was left as it was: check the disk and run again")
        return None
    module = type(cause).__module__ or ""
    if module.startswith(("psycopg", "psycopg2")) and getattr(cause, "sqlstate", None) == INSUFFICIENT_PRIVILEGE:
        return StudyUnavailableError(shown, f"the server refused this to your login ({_first_line(str(cause))}): a "
                                            "judge's or an adjudicator's login reads and writes only what the role "
                                            "allows (docs/ANNOTATION.md); the study's researcher can do the rest")
    if module.startswith(("psycopg", "psycopg2")) and _UNREACHABLE.search(str(cause)):
        return StudyUnavailableError(shown, f"cannot reach the database server at {_server(shown)}: "
                                            f"{_first_line(str(cause))}")
    return None


def study_error(shown: str, error: BaseException) -> Exception | None:
    """The clear error for ``error`` met on the study ``shown``: out of space (an ``OSError``,
    :mod:`core.out_of_space`), damaged (:func:`damaged_database_error`), locked, read-only, out of reach or any other
    disk error (:func:`unavailable_study_error`); None for any other error."""
    return (out_of_space(error, shown) or damaged_database_error(shown, error)
            or unavailable_study_error(shown, error))


def damaged_database_error(shown: str, error: BaseException) -> InputFileError | None:
    """The InputFileError naming ``shown`` for SQLite's "file is damaged" (SQLITE_CORRUPT, SQLITE_NOTADB), raised
    directly or wrapped by SQLAlchemy; None for any other error. Also used by the CLI for damage found after
    opening (a page of a table only a later query reads)."""
    cause = getattr(error, "orig", error)
    name = getattr(cause, "sqlite_errorname", "")
    damaged = name.startswith("SQLITE_CORRUPT") or name == "SQLITE_NOTADB"
    if not isinstance(cause, sqlite3.DatabaseError) or not damaged:
        return None
    return InputFileError(shown, "a Paraphrase Studio study database",
                          f"a damaged SQLite file ({cause}); restore it from a backup or an export")


def _server(shown: str) -> str:
    from sqlalchemy import make_url

    try:
        url = make_url(shown)
    except Exception:  # noqa: BLE001 - a URL SQLAlchemy cannot parse: it reached the driver, so show it whole
        return shown
    return f"{url.host or 'localhost'}:{url.port or 5432}"


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), text)
