"""A write that found no room, however it was met: one ``OSError`` naming the file (issue 39).

A full disk (``ENOSPC``, or ``EDQUOT`` past a quota) and a file past the size limit
of ``ulimit -f`` (``EFBIG``; RLIMIT_FSIZE) reach us as Python's ``OSError`` without
a file name (a ``write()`` does not know it), as SQLite's "database or disk is full"
or "disk I/O error" (raised directly or wrapped by SQLAlchemy), or as DuckDB's
``IOException``. :func:`out_of_space` recognises each and gives the one ``OSError``
the CLI shows as ``parastudio: error: FILE: No space left on device ...``: the file's
fault it is not, so nothing calls it damaged.

SQLite does not pass on the system's errno: its "full" or "disk I/O error" is the
file-size limit when one is set and a file being written has reached it; else its
"full" is ENOSPC, and its "disk I/O error" is ENOSPC only when the disk has (almost)
no room left (any other I/O error is not ours to name).
"""

from __future__ import annotations

import errno
import os
import signal
from pathlib import Path

OUT_OF_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
WHY = {
    errno.ENOSPC: "No space left on device (the disk is full: free some space and run again)",
    errno.EDQUOT: "Disk quota exceeded (free some space and run again)",
    errno.EFBIG: "File too large (past this process's file-size limit, `ulimit -f`)",
}
# Less free space than this, after a failed write, is a full disk (SQLite needs a page, a WAL frame, 32 KiB of -shm).
_NEARLY_FULL_BYTES = 1 << 20
_SQLITE_COMPANIONS = ("", "-wal", "-journal", "-shm")


def ignore_file_size_signal() -> None:
    """Past ``ulimit -f`` the kernel sends SIGXFSZ, which ends a process without a word; ignored, the write fails
    with EFBIG, which is said in one line. (CPython ignores it already; an embedding program may not.)"""
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def out_of_space(error: BaseException, shown: str | os.PathLike, *, files=()) -> OSError | None:
    """The ``OSError`` naming ``shown`` for ``error`` when it says the disk or the file-size limit is reached, else
    None. ``files``: the paths written for ``shown`` (a temporary beside it), looked at for the limit. An ``OSError``
    that names some other file is about that file: None."""
    written = [Path(shown), *map(Path, files)]
    named = getattr(error, "filename", None)
    if isinstance(error, OSError) and named is not None and Path(os.fsdecode(named)) not in written:
        return None
    code = _out_of_space_errno(error, written)
    if code is None:
        return None
    return OSError(code, WHY[code], os.fspath(shown))


def standard_output_is_out_of_space() -> bool:
    """Whether standard output is a file at the file-size limit or on a (nearly) full disk: the ``OSError`` of a
    ``print()`` names no file, and this says whether standard output was it."""
    import stat

    try:
        status, disk = os.fstat(1), os.fstatvfs(1)
    except OSError:
        return False
    if not stat.S_ISREG(status.st_mode):
        return False
    limit = _file_size_limit()
    return (limit is not None and status.st_size + 65536 >= limit) or \
        disk.f_bavail * disk.f_frsize < _NEARLY_FULL_BYTES


def _out_of_space_errno(error: BaseException, files: list[Path]) -> int | None:
    for cause in _causes(error):
        if isinstance(cause, OSError) and cause.errno in OUT_OF_SPACE:
            return cause.errno
        name = getattr(cause, "sqlite_errorname", None)
        if name is not None:
            return _sqlite_errno(name, files)
        if type(cause).__module__.split(".")[0] == "duckdb":
            text = str(cause)
            if "No space left on device" in text:
                return errno.ENOSPC
            if "File too large" in text:
                return errno.EFBIG
    return None


def _causes(error: BaseException):
    """``error``, what SQLAlchemy wrapped in it (``orig``), and the errors it was raised from."""
    seen: set[int] = set()
    pending = [error]
    while pending:
        cause = pending.pop(0)
        if cause is None or id(cause) in seen:
            continue
        seen.add(id(cause))
        yield cause
        pending += [getattr(cause, "orig", None), cause.__cause__, cause.__context__]


def _sqlite_errno(name: str, files: list[Path]) -> int | None:
    full, io_error = name == "SQLITE_FULL", name.startswith("SQLITE_IOERR")
    if not (full or io_error):
        return None
    limit = _file_size_limit()
    if limit is not None and _reached(files, limit):
        return errno.EFBIG
    if full or _nearly_full(files):
        return errno.ENOSPC
    return None


def _file_size_limit() -> int | None:
    try:
        import resource
    except ImportError:  # not on this system
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else soft


def _reached(files: list[Path], limit: int) -> bool:
    """Whether a file (or a SQLite companion of one) is within a write of ``limit`` bytes."""
    for path in files:
        for companion in _SQLITE_COMPANIONS:
            try:
                if os.stat(f"{path}{companion}").st_size + 65536 >= limit:
                    return True
            except OSError:
                continue
    return False


def _nearly_full(files: list[Path]) -> bool:
    for path in files:
        folder = path if path.is_dir() else path.parent
        try:
            status = os.statvfs(folder)
        except OSError:
            continue
        if status.f_bavail * status.f_frsize < _NEARLY_FULL_BYTES:
            return True
    return False
