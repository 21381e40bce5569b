"""Whether the write-ahead log this process writes is still the study's, and starting afresh when it is not.

SQLite keeps a committed transaction in ``S-wal`` until a checkpoint copies it into ``S``. If something in
this process opens and closes one of the study's files (a file dialog reading its type, a header check), the
process loses its POSIX locks on it (SQLite's "How to corrupt your database", section 2.2); another program
that then opens and closes the study believes it is the last one, checkpoints, and deletes ``S-wal``. This
process goes on appending to the deleted file: every commit succeeds and none reaches the study.

:func:`wal_replaced` sees that from outside SQLite, without opening anything: a descriptor of this process
that names ``S-wal`` (``/proc/self/fd``) whose inode is not the one at that path any more. On systems without
``/proc`` it answers False (the first defence, never opening a study's files, still holds there).
:func:`reopen_if_wal_replaced` then closes the process's connections so the next one starts on the files on
disk; what was written into the deleted log must be written again by the caller, once (judgments carry a
``uid`` for that). :func:`held_study_files` names the files a file chosen by the user must not be.
"""

from __future__ import annotations

import os
from pathlib import Path

from parastudio.core.store.database import Database

PROC_FDS = Path("/proc/self/fd")


def wal_replaced(db: Database) -> bool:
    """True when a log this process has open for ``db``'s SQLite file is not the ``-wal`` file at its path."""
    if not db.is_sqlite or not db.engine.url.database or not PROC_FDS.is_dir():
        return False
    wal = f"{db.engine.url.database}-wal"
    try:
        on_disk = os.stat(wal)
        current = (on_disk.st_dev, on_disk.st_ino)
    except FileNotFoundError:
        current = None
    for descriptor in os.scandir(PROC_FDS):
        try:
            target = os.readlink(descriptor.path)
            if target not in (wal, f"{wal} (deleted)"):
                continue
            held = os.stat(descriptor.path)  # follows the link to the open file itself: nothing is opened
        except OSError:  # closed meanwhile (another thread's connection)
            continue
        if (held.st_dev, held.st_ino) != current:
            return True
    return False


def held_study_files() -> set[tuple[int, int]]:
    """``(device, inode)`` of each SQLite database this process has open in WAL mode, and of its ``-wal`` and
    ``-shm``: the files nothing but SQLite may open here (an app reading one as a table would drop its locks)."""
    if not PROC_FDS.is_dir():
        return set()
    open_files: dict[str, tuple[int, int]] = {}
    for descriptor in os.scandir(PROC_FDS):
        try:
            target = os.readlink(descriptor.path).removesuffix(" (deleted)")
            held = os.stat(descriptor.path)
        except OSError:
            continue
        open_files[target] = (held.st_dev, held.st_ino)
    found = set()
    for path, file in open_files.items():
        companions = [open_files[f"{path}{suffix}"] for suffix in ("-wal", "-shm") if f"{path}{suffix}" in open_files]
        if companions:
            found |= {file, *companions}
    return found


def reopen_if_wal_replaced(db: Database) -> bool:
    """Close ``db``'s connections when its log was replaced (:func:`wal_replaced`): True if it was."""
    if not wal_replaced(db):
        return False
    db.reopen()
    return True
