"""Temporaries beside an output, named after their writer, and removed once that writer is dead (issue 39).

A writer builds its output under ``.NAME.HOST-PID.RANDOM.part`` beside ``NAME``
(:func:`temporary_sibling`; :func:`core.textio.atomic_output`'s ``mkstemp`` uses
the same :func:`temporary_prefix`), then renames it over ``NAME``. Ctrl+C and
SIGTERM remove it on the way out; a SIGKILL cannot, so the next writer of the same
``NAME`` removes it (:func:`remove_stale_temporaries`): only a name of exactly that
shape for exactly that ``NAME``, written by a process of this machine that no longer
runs. A live writer's temporary (its pid runs), another machine's (a shared folder)
and another output's are never touched.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from pathlib import Path

# What mkstemp and uuid4().hex put between the writer's tag and ".part".
_RANDOM = r"[A-Za-z0-9_]+"
# A SQLite file built under a temporary name has these beside it.
_SQLITE_COMPANIONS = r"(?:-wal|-shm|-journal)?"


def owner_tag() -> str:
    """``HOST-PID`` of this process, put in temporary names so a later run knows whether their writer died."""
    import socket  # here: a command that writes to standard output never needs it (start-up time)

    return f"{socket.gethostname()}-{os.getpid()}"


def owner_is_gone(tag: str) -> bool:
    """Whether ``tag`` (:func:`owner_tag`) names a process of this machine that no longer runs."""
    import socket

    host, _, pid = tag.rpartition("-")
    return host == socket.gethostname() and pid.isdigit() and not _process_exists(int(pid))


def temporary_prefix(destination: Path) -> str:
    """``.NAME.HOST-PID.``: what every temporary of ``destination`` written by this process starts with."""
    return f".{destination.name}.{owner_tag()}."


def temporary_sibling(destination: str | os.PathLike) -> Path:
    """A new name for a temporary file beside ``destination``: ``.NAME.HOST-PID.RANDOM.part``."""
    import uuid  # here, as socket above

    destination = Path(destination)
    return destination.with_name(f"{temporary_prefix(destination)}{uuid.uuid4().hex}.part")


def remove_stale_temporaries(destination: str | os.PathLike) -> None:
    """Remove the temporaries a killed writer of ``destination`` left (module docstring): files, SQLite's
    companions of one, and work folders (lmplz's, a dev-set folder being built)."""
    import socket

    destination = Path(destination)
    ours = re.compile(rf"\.{re.escape(destination.name)}\.{re.escape(socket.gethostname())}-(\d+)\.{_RANDOM}"
                      rf"(?:-work)?\.part{_SQLITE_COMPANIONS}")
    try:
        entries = list(os.scandir(destination.parent))
    except OSError:
        return
    for entry in entries:
        match = ours.fullmatch(entry.name)
        if match is None or _process_exists(int(match.group(1))):
            continue
        with contextlib.suppress(OSError):  # another run removing it at the same moment
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    except OverflowError:  # no such pid can exist
        return False
    return True
