"""Where an output goes (issue 22): one decision for every writer, made before a byte is written.

:func:`resolve_output` looks at the path a user named and says how it is written; the writers in
:mod:`core.textio` (``atomic_output``, ``staged_output``) act on its answer, so every command gets
the same rules by writing through them:

* an output that is one of the command's inputs is refused (:class:`core.errors.OutputFileError`):
  the same path, a symlink or a hard link to it (the same ``st_dev``/``st_ino``), a SQLite input's
  ``-wal``/``-shm``/``-journal`` companion, a file inside an input folder;
* ``-`` is standard output; ``/dev/stdout``, ``/dev/fd/N`` and ``/proc/self/fd/N`` are the
  descriptor this process already holds (reopening it would truncate a file opened with ``>>``);
* a device, FIFO or socket is opened and written directly: a rename would put a regular file in its place;
* a symlink to a file (or a dangling one) is followed: its target is replaced atomically, the link stays;
* a regular file, or a new name, is replaced atomically by a temporary written beside it;
* a directory is refused, unless the writer writes a folder.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from parastudio.core.errors import OutputFileError

# What each kind of target is: "file" (temporary beside ``path``, renamed over it), "stream" (a device or FIFO
# at ``path``, written in place), "descriptor" (an open descriptor of this process), "stdout" (sys.stdout).
FILE, STREAM, DESCRIPTOR, STDOUT = "file", "stream", "descriptor", "stdout"
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")
_OPEN_DESCRIPTOR = re.compile(r"^/(?:dev/fd|proc/(self|thread-self|\d+)/fd)/(\d+)$")
_SYMLINK_HOPS = 40  # the kernel's own limit on a chain of links


@dataclass(frozen=True)
class OutputTarget:
    """How an output named ``shown`` is written: see the module docstring for each ``kind``."""

    shown: str
    kind: str
    path: Path | None = None
    descriptor: int | None = None

    @property
    def is_standard_output(self) -> bool:
        return self.kind == STDOUT or (self.kind == DESCRIPTOR and self.descriptor == 1)


def resolve_output(path: str | os.PathLike, inputs=(), *, folder: bool = False) -> OutputTarget:
    """How to write ``path``, or :class:`OutputFileError` when it must not be written.

    ``inputs``: every file (or SQLite URL) the command reads; ``None`` entries are skipped.
    ``folder``: the writer writes a folder, so an existing directory is its output, not a mistake.
    """
    shown = os.fspath(path)
    if shown == "-":
        target = OutputTarget(shown, STDOUT)
        _refuse_inputs(target, _stdout_stat(), None, inputs)
        return target
    descriptor = _open_descriptor(shown)
    if descriptor is not None:
        try:
            status = os.fstat(descriptor)
        except OSError:
            raise OutputFileError(shown, "names a descriptor this process does not hold") from None
        target = OutputTarget(shown, DESCRIPTOR, descriptor=descriptor)
        _refuse_inputs(target, status, None, inputs)
        return target
    try:
        status = os.stat(shown)
    except FileNotFoundError:
        status = None
    except OSError as error:  # a symlink loop, a path through a file
        raise OutputFileError(shown, f"cannot be written ({error.strerror})") from None
    real = os.path.realpath(shown)
    if status is None or stat.S_ISREG(status.st_mode):
        target = OutputTarget(shown, FILE, Path(real if os.path.islink(shown) else shown))
    elif stat.S_ISDIR(status.st_mode):
        if not folder:
            raise OutputFileError(shown, "is a directory; name a file to write")
        target = OutputTarget(shown, FILE, Path(real if os.path.islink(shown) else shown))
    else:
        target = OutputTarget(shown, STREAM, Path(shown))
    _refuse_inputs(target, status, real, inputs)
    return target


def writes_to_standard_output(path: str | os.PathLike | None) -> bool:
    """Whether ``path`` names standard output (``-``, ``/dev/stdout``): a command's summary then goes to stderr."""
    return path is not None and (os.fspath(path) == "-" or _open_descriptor(os.fspath(path)) == 1)


def _open_descriptor(shown: str) -> int | None:
    """The descriptor ``shown`` names (``/dev/stdout`` -> 1), following the links that lead to one."""
    current = os.path.abspath(shown)
    for _ in range(_SYMLINK_HOPS):
        match = _OPEN_DESCRIPTOR.match(current)
        if match and match.group(1) in (None, "self", "thread-self", str(os.getpid())):
            return int(match.group(2))
        if not os.path.islink(current):
            return None
        current = os.path.normpath(os.path.join(os.path.dirname(current), os.readlink(current)))
    return None


def _stdout_stat():
    try:
        return os.fstat(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # a stream without a descriptor (a caller in process)
        return None


def input_path(given) -> str | None:
    """The file an input names: the path itself, the file of a ``sqlite:///`` URL; None for a server's URL."""
    text = os.fspath(given)
    if "://" not in text:
        return text
    scheme, _, rest = text.partition("://")
    if not scheme.split("+")[0] == "sqlite" or not rest.startswith("/"):
        return None
    return rest[1:].split("?")[0] or None


def _refuse_inputs(target: OutputTarget, status, real: str | None, inputs) -> None:
    for given in inputs:
        if given is None:
            continue
        path = input_path(given)
        if path is None or path == "-":
            continue
        try:
            input_status = os.stat(path)
        except OSError:
            input_status = None
        if status is not None and input_status is not None and \
                (status.st_dev, status.st_ino) == (input_status.st_dev, input_status.st_ino):
            raise OutputFileError(target.shown, f"is also an input of this command ({path}); choose another output")
        if real is None:
            continue
        input_real = os.path.realpath(path)
        if real == input_real:
            raise OutputFileError(target.shown, f"is also an input of this command ({path}); choose another output")
        for companion in SQLITE_COMPANIONS:
            # Named, not opened: opening a study file while SQLite holds it would drop SQLite's locks.
            if real == input_real + companion:
                raise OutputFileError(target.shown, f"is the {companion} file of an input of this command ({path}); "
                                      "choose another output")
        if input_status is not None and stat.S_ISDIR(input_status.st_mode) and \
                real.startswith(input_real.rstrip(os.sep) + os.sep):
            raise OutputFileError(target.shown, f"is inside an input folder of this command ({path}); "
                                  "choose another output")


def take_mode(temporary: str, destination: Path, file_mode: int | None) -> None:
    """The mode a temporary gets before it replaces ``destination`` (:func:`core.textio.atomic_output`): the
    replaced file's mode (and owner and group, where this process may set them), ``file_mode`` for a credential,
    else what a plain open() gives."""
    try:
        replaced = os.stat(destination)
    except OSError:
        replaced = None
    if file_mode is not None:
        os.chmod(temporary, file_mode)
    elif replaced is not None:
        os.chmod(temporary, stat.S_IMODE(replaced.st_mode))
        with contextlib.suppress(OSError):  # only root, or the owner keeping its own uid, may
            os.chown(temporary, replaced.st_uid, replaced.st_gid)
    else:  # mkstemp makes the file 0600; give it the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
