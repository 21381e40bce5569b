"""Input files by content: ``{"path", "sha256", "bytes"}``, the sha256 computed once per file version.

A path alone does not identify a table (a rebuilt or moved table looks the
same), so a candidate names each input by its sha256. Hashing a 1 GB table
takes seconds, so the digest is kept in a small cache file,
``$XDG_CACHE_HOME/paraphrase-studio/sha256.json`` (``~/.cache/...`` by default), keyed by
``(real path, size, mtime_ns, inode)``: a file rewritten in place or replaced by a
rename gets a new key and is hashed again. The cache is written atomically
(:func:`core.textio.atomic_output`); two processes writing it at once lose at most one
entry, which is recomputed the next time. A cache that cannot be read or written
costs only the time of hashing again. The same cache keeps the outcome of other whole-file checks
(:func:`checked_before`, :func:`remember_check`: a binary table's CRC-32) per file version.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from parastudio.core.textio import atomic_output, require_regular_file

CACHE_ENTRIES = 4096  # the most recent entries kept
_CHUNK = 1 << 20


def cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "paraphrase-studio" / "sha256.json"


def _key(path: Path) -> tuple[str, str, int]:
    """(cache key, real path, size) of an existing file."""
    real = os.path.realpath(path)
    status = os.stat(real)
    return f"{real}\0{status.st_size}\0{status.st_mtime_ns}\0{status.st_ino}", real, status.st_size


def _read_cache(path: Path) -> dict[str, str]:
    with contextlib.suppress(OSError, ValueError):
        entries = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(entries, dict):
            return {k: v for k, v in entries.items() if isinstance(v, str)}
    return {}


def sha256_of(path: str | os.PathLike) -> str:
    """The sha256 (hex) of the file's bytes, from the cache when this version of the file was hashed before."""
    key, real, _ = _key(Path(path))
    cache = cache_path()
    entries = _read_cache(cache)
    if key in entries:
        return entries[key]
    digest = hashlib.sha256()
    with open(real, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    value = digest.hexdigest()
    if _key(Path(path))[0] == key:  # not rewritten while we read it
        entries[key] = value
        kept = dict(list(entries.items())[-CACHE_ENTRIES:])
        with contextlib.suppress(OSError):
            with atomic_output(cache) as handle:
                json.dump(kept, handle)
    return value


def _check_key(path: Path) -> str:
    """The key of a file version for a check kept in the cache: :func:`_key` plus the inode's change time, which
    any write moves and no one can set back (``touch -d`` can set the mtime back, not the ctime)."""
    real = os.path.realpath(path)
    status = os.stat(real)
    return f"{real}\0{status.st_size}\0{status.st_mtime_ns}\0{status.st_ino}\0{status.st_ctime_ns}"


def checked_before(path: str | os.PathLike, check: str) -> tuple[str, str | None]:
    """(this file version's key, the value ``check`` gave on it when it ran on this very version, else None).

    For checks that read a whole file (a binary table's CRC-32) and need not run again on bytes that have not
    changed; pass the key back to :func:`remember_check` once the check has passed."""
    key = _check_key(Path(path))
    return key, _read_cache(cache_path()).get(f"{check}\0{key}")


def remember_check(path: str | os.PathLike, key: str, check: str, value: str) -> None:
    """Record that ``check`` gave ``value`` on the file version ``key``, unless the file changed meanwhile."""
    with contextlib.suppress(OSError):
        if _check_key(Path(path)) != key:
            return
        cache = cache_path()
        entries = _read_cache(cache)
        entries[f"{check}\0{key}"] = value
        kept = dict(list(entries.items())[-CACHE_ENTRIES:])
        with atomic_output(cache) as handle:
            json.dump(kept, handle)


def fingerprint(path: str | os.PathLike | None) -> dict | None:
    """``{"path", "sha256", "bytes"}`` of an input file (its absolute path, symbolic links kept, so a run can be
    reproduced from another folder); ``None`` for no file."""
    if path is None:
        return None
    require_regular_file(path)  # hashed here, read again by its loader: a pipe would give its bytes once
    _, _, size = _key(Path(path))
    return {"path": os.path.abspath(path), "sha256": sha256_of(path), "bytes": size}


def mismatch(recorded: dict) -> str | None:
    """Why the file a recorded fingerprint names is not the one that was used, or None when it is."""
    path = recorded.get("path")
    if not path:
        return "no file was recorded (the input was built in memory)"
    if not recorded.get("sha256"):
        return f"{path}: no sha256 was recorded"
    if not Path(path).is_file():
        return f"{path}: file not found"
    now = fingerprint(path)
    if now["sha256"] != recorded["sha256"]:
        return (f"{path}: sha256 {now['sha256'][:16]}... ({now['bytes']} bytes) differs from the recorded "
                f"{recorded['sha256'][:16]}... ({recorded.get('bytes')} bytes)")
    return None
