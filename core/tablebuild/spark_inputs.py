"""Phrase-table inputs Spark can split (issue 41): one file, a folder or glob of part files, Parquet, any URI.

A single ``.gz`` is one partition (gzip cannot be split), so its load is one serial task. A folder or a glob of
part files is read one part (or more) per task, and Parquet by row groups, in parallel. Paths go through
Spark's own file systems: a local path, ``file://``, ``hdfs://``, ``s3a://`` (the last two need the cluster's
Hadoop configuration). Parquet inputs hold one string column, ``line``: one phrase-table line per row (what
``--output-format parquet`` writes). The pivot's result does not depend on the rows' order, so every form of
the same lines gives the same bytes.

The driver checks local inputs itself (they exist; a bad line is named ``file:line``); an input on another
file system is Spark's to find, and a bad line in it is quoted with the input's name.
"""

from __future__ import annotations

import glob
from pathlib import Path

from parastudio.core.errors import InputFileError

LINE_COLUMN = "line"
_GLOB_CHARACTERS = "*?["


def is_uri(source: str) -> bool:
    return "://" in source


def local_path(source: str) -> Path | None:
    """The local path of ``source`` (a path or a ``file://`` URI), None for another file system."""
    if source.startswith("file://"):
        return Path(source[len("file://"):])
    if source.startswith("file:") and not is_uri(source):
        return Path(source[len("file:"):])
    return None if is_uri(source) else Path(source)


def local_files(source: str) -> list[Path] | None:
    """The files a local ``source`` names, sorted (a file; a folder's files but hidden ones and Spark's
    ``_SUCCESS``-style markers; a glob's matches); None for another file system. Raises FileNotFoundError when
    a local source names no file."""
    path = local_path(source)
    if path is None:
        return None
    if any(character in str(path) for character in _GLOB_CHARACTERS):
        found = sorted(Path(match) for match in glob.glob(str(path)) if Path(match).is_file())
    elif path.is_dir():
        found = sorted(child for child in path.iterdir()
                       if child.is_file() and not child.name.startswith(("_", ".")))
    else:
        found = [path] if path.is_file() else []
    if not found:
        raise FileNotFoundError(f"phrase table not found: {source}")
    return found


def is_parquet(source: str) -> bool:
    """Whether ``source`` is Parquet: its name ends in ``.parquet``, or it is a local folder of ``.parquet``
    parts."""
    if source.rstrip("/").endswith(".parquet"):
        return True
    path = local_path(source)
    return path is not None and path.is_dir() and any(path.glob("*.parquet"))


def spark_source(source: str) -> str:
    """``source`` as Spark reads it: local paths absolute (the executors' working directory is not ours)."""
    path = local_path(source)
    return str(path.resolve()) if path is not None else source


def read_lines(spark, source: str):
    """A DataFrame of one string column (``value``), the phrase-table lines of ``source``."""
    if is_parquet(source):
        return spark.read.parquet(spark_source(source)).select(LINE_COLUMN).withColumnRenamed(LINE_COLUMN, "value")
    return spark.read.text(spark_source(source))


def first_bad_line(source: str, files: list[Path] | None, spark_bad_line: str, expected: str):
    """The error for a bad line found by Spark: ``file:line`` when the driver can read the text files, else
    the source and the line quoted."""
    from parastudio.core.tablebuild.pivot import _first_bad_line

    if files is not None and not is_parquet(source):
        for file in files:
            found = _first_bad_line(file)
            if found is not None:
                return found
    return InputFileError(source, expected, f"a row holds {spark_bad_line[:200]!r}")
