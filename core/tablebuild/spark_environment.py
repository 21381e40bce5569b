"""The packed environment the executors' Python runs from (issue 41): our code shipped, not assumed.

Spark's own way to run Python code on a cluster is to ship it (``spark.archives``, unpacked into each
executor's working directory). This builds what conda-pack would, from the interpreter that runs the driver:
a relocatable copy of it (its binary, ``libpython`` and standard library), the installed packages the
executors import (found by importing the executors' modules in a child process: numpy, pyarrow, kenlm, ...;
not pyspark and py4j, which Spark puts on the workers' path itself), and the project's ``parastudio.core`` with
its compiled cores and the driver's code identity (so an executor's provenance is the driver's).
``bin/python`` is a launcher that points ``PYTHONHOME`` and the library path at the unpacked folder, so the
executors need neither this checkout, nor this interpreter, nor anything on their ``PATH``.

Building takes tens of seconds (about 300 MB packed at gzip level 1), so the archive is cached under the user
cache directory by a hash of what goes in: ``core``'s bytes, the code identity, and the path, size and
modification time of every shipped file of the interpreter and its packages.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path

from parastudio.core.file_fingerprint import sha256_of

# The folder the archive is unpacked into, in each executor's working directory (``spark.archives`` FILE#ALIAS).
ALIAS = "parastudio-env"
EXECUTOR_PYTHON = f"./{ALIAS}/bin/python"
CORE = Path(__file__).resolve().parents[1]
# parastudio/__init__.py: beside core/ in a checkout (its parent is the repository), above it when installed.
PACKAGE_INIT = next(path for path in (CORE.parent / "parastudio" / "__init__.py", CORE.parent / "__init__.py")
                    if path.is_file())
# What the executors import: our three Spark entry points and Spark's own Python worker.
EXECUTOR_MODULES = ("parastudio.core.tablebuild.spark_pivot", "parastudio.core.tablebuild.spark_phrase_table",
                    "parastudio.core.tablebuild.chunked_alignment", "eflomal",  # eflomal writes a chunk's input
                    "parastudio.core.spark_generation", "pyspark.daemon", "pyspark.worker", "pyspark.sql.pandas.serializers", "pyarrow")
SPARK_OWN = ("pyspark", "py4j")  # on every worker already: Spark adds its own pyspark.zip and py4j to the path
# An editable install's import hook would send the executors back to this checkout; setuptools' own hook.
NOT_SHIPPED = ("__editable__", "_distutils_hack")
# Parts of the standard library no executor uses (tests, GUI toolkits, installers): a third of its size.
STDLIB_LEFT_OUT = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "site-packages",
                   "__pycache__", "config-3.11-x86_64-linux-gnu"}
LAUNCHER = """#!/bin/sh
# Python from this unpacked folder, whatever the machine has (issue 41).
here=$(cd "$(dirname "$0")/.." && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" PYTHONHOME="$here" PYTHONNOUSERSITE=1 \\
    exec "$here/bin/python-real" "$@"
"""


class ArchiveError(RuntimeError):
    """The environment could not be packed (or a given archive is unusable); the message says why."""


def _cache_directory() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "paraphrase-studio" / "spark-env"


def _imported_packages() -> list[Path]:
    """The installed packages (folders or single-file modules) the executor modules import, found in a child
    so this process's own imports do not count."""
    probe = ("import json, sys\n"
             f"for name in {EXECUTOR_MODULES!r}: __import__(name)\n"
             "print(json.dumps([getattr(m, '__file__', None) for m in list(sys.modules.values())]))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ArchiveError(f"the executors' modules do not import here: {done.stderr.strip().splitlines()[-1:]}")
    roots = {Path(path) for path in sysconfig.get_paths().values() if "site-packages" in path}
    found: set[Path] = set()
    for file in filter(None, json.loads(done.stdout)):
        path = Path(file)
        root = next((r for r in roots if r in path.parents), None)
        if root is None:
            continue
        top = root / path.relative_to(root).parts[0]
        if top.name.split(".")[0] not in SPARK_OWN and not top.name.startswith(NOT_SHIPPED):
            found.add(top)
    # Libraries bundled beside a package by auditwheel (numpy.libs, ...).
    found |= {root / f"{top.name}.libs" for top in list(found) for root in roots if (root / f"{top.name}.libs").is_dir()}
    return sorted(found)


def _files(top: Path) -> list[Path]:
    if top.is_file():
        return [top]
    return sorted(path for path in top.rglob("*") if path.is_file() and "__pycache__" not in path.parts)


def _stdlib_files(stdlib: Path) -> list[Path]:
    return [path for entry in sorted(stdlib.iterdir()) if entry.name not in STDLIB_LEFT_OUT for path in _files(entry)]


def _core_files() -> list[Path]:
    return [path for path in _files(CORE) if path.suffix not in (".o", ".pyc") and path.name != "_build_identity.json"]


def _contents() -> dict[str, Path]:
    """Archive name -> file on this machine."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    site = f"lib/{version}/site-packages"
    contents = {f"lib/{version}/{path.relative_to(stdlib)}": path for path in _stdlib_files(stdlib)}
    library = sysconfig.get_config_var("INSTSONAME")
    libdir = Path(sysconfig.get_config_var("LIBDIR") or "")
    if sysconfig.get_config_var("Py_ENABLE_SHARED") and library and (libdir / library).is_file():
        contents[f"lib/{library}"] = (libdir / library).resolve()
    contents["bin/python-real"] = Path(sys.executable).resolve()
    for top in _imported_packages():
        for path in _files(top):
            contents[f"{site}/{path.relative_to(top.parent)}"] = path
    contents[f"{site}/parastudio/__init__.py"] = PACKAGE_INIT
    for path in _core_files():
        contents[f"{site}/parastudio/core/{path.relative_to(CORE)}"] = path
    return contents


def _key(contents: dict[str, Path], identity: dict) -> str:
    digest = hashlib.sha256(json.dumps([sys.version, identity], sort_keys=True).encode())
    for name, path in sorted(contents.items()):
        digest.update(name.encode() + b"\0")
        if name.startswith("lib/") and "/site-packages/parastudio/" in name:  # our code: by its bytes
            digest.update(bytes.fromhex(sha256_of(path)))
        else:  # installed files: by path, size and time (hashing 300 MB would cost what packing does)
            status = path.stat()
            digest.update(f"{path}:{status.st_size}:{status.st_mtime_ns}".encode())
    return digest.hexdigest()[:20]


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes, mode: int) -> None:
    import io

    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), mode
    archive.addfile(info, io.BytesIO(data))


def packed_environment(cache_directory: Path | None = None) -> Path:
    """The archive of this interpreter, the executors' packages and ``core``: from the cache when its content
    hash is there, else built (tens of seconds) and cached."""
    from parastudio.core.code_identity import code_identity

    if sys.platform != "linux":
        raise ArchiveError("packing the executors' environment needs Linux; build one and pass --spark-archive FILE")
    identity = code_identity()
    contents = _contents()
    directory = cache_directory or _cache_directory()
    archive = directory / f"{ALIAS}-{_key(contents, identity)}.tar.gz"
    if archive.is_file():
        return archive
    directory.mkdir(parents=True, exist_ok=True)
    partial = archive.with_name(f".{archive.name}.{os.getpid()}")
    try:
        with tarfile.open(partial, "w:gz", compresslevel=1) as packed:
            for name, path in sorted(contents.items()):
                packed.add(path, arcname=name, recursive=False)
            _add_bytes(packed, "bin/python", LAUNCHER.encode(), 0o755)
            site = f"lib/python{sys.version_info.major}.{sys.version_info.minor}/site-packages"
            _add_bytes(packed, f"{site}/parastudio/core/_build_identity.json", json.dumps(identity).encode(), 0o644)
        partial.replace(archive)  # whole or absent: a concurrent build writes its own partial file
    finally:
        partial.unlink(missing_ok=True)
    return archive


def archive_config(archive: Path | str) -> dict[str, str]:
    """Spark settings that ship ``archive`` (a path or a URI Spark reads: file://, hdfs://, s3a://) to every
    executor and run their Python from it."""
    text = str(archive)
    if "://" not in text:
        path = Path(text).resolve()
        if not path.is_file():
            raise ArchiveError(f"--spark-archive: no such file: {text}")
        text = path.as_uri()
    return {"spark.archives": f"{text}#{ALIAS}", "spark.pyspark.python": EXECUTOR_PYTHON}


if __name__ == "__main__":  # `python -m parastudio.core.tablebuild.spark_environment`: pack (or find) it, print its path
    print(packed_environment())
