"""Input files by content: ``{"path", "sha256", "bytes"}``, the sha256 computed once per file version.

A path alone does not identify a table (a rebuilt or moved table looks the
same), so a candidate names each input by its sha256. Hashing a 1 GB table
takes seconds, so the digest is kept in a small cache file,
``$XDG_CACHE_HOME/paraphrase-studio/sha256.json`` (``~/.cache/...`` by default), keyed by
``(real path, size, mtime_ns, inode)``: a file rewritten in place or replaced by a
rename gets a new key and is hashed again. The cache is written atomically
(:func:`core.textio.atomic_output`); two processes writing it at once lose at most one
entry, which is recomputed the next time. A cache that cannot be read or written
costs only the time of hashing again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from core.textio import atomic_output

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


def fingerprint(path: str | os.PathLike | None) -> dict | None:
    """``{"path", "sha256", "bytes"}`` of an input file (its absolute path, symbolic links kept, so a run can be
    reproduced from another folder); ``None`` for no file."""
    if path is None:
        return None
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
