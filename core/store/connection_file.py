"""A member's connection file: the URL of their own login and the study it is for (issue 38).

``parastudio study invite ... -o FILE`` writes it, mode 0600, as TOML::

    url = "postgresql+psycopg://NAME:PASSWORD@HOST:PORT/DB"
    study = "..."

and ``parastudio app --study FILE`` (and every command that takes a study) opens it. The password is read
from the file only: it is never shown, logged or put on a command line, and an error about the file names
the file, never its contents.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from parastudio.core.errors import InputFileError, InputFormatError
from parastudio.core.structured_text import read_toml
from parastudio.core.textio import atomic_output

SUFFIX = ".toml"
EXPECTED = 'a study connection file (TOML: url = "postgresql+psycopg://NAME:PASSWORD@HOST/DB", study = "...")'


@dataclass(frozen=True)
class StudyConnection:
    url: str
    study: str | None


def is_connection_file(target: str | os.PathLike | None) -> bool:
    """Whether ``target`` names a connection file (a ``.toml`` path) rather than a study database."""
    return target is not None and "://" not in str(target) and str(target).endswith(SUFFIX)


def read_connection_file(path: str | os.PathLike) -> StudyConnection:
    """The URL and study of a connection file; InputFileError or InputFormatError naming the file."""
    try:
        table = read_toml(path, EXPECTED)
    except InputFormatError as error:  # TOML's message may quote the line, and the line may hold the password
        raise InputFormatError(error.path, error.line_number, EXPECTED, "not TOML") from None
    url, study = table.get("url"), table.get("study")
    if not isinstance(url, str) or "://" not in url:
        raise InputFileError(path, EXPECTED, "no url" if url is None else "a url that is not a database URL")
    if study is not None and not isinstance(study, str):
        raise InputFileError(path, EXPECTED, "a study that is not a string")
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if mode & 0o077:
        raise InputFileError(path, "a connection file only its owner may read (chmod 600 it: it holds a password)",
                             f"mode {mode:o}")
    return StudyConnection(url, study)


def write_connection_file(path: str | os.PathLike, url: str, study: str) -> Path:
    """Write the connection file at ``path``, mode 0600 from the first byte on disk (atomically)."""
    with atomic_output(path, file_mode=0o600) as handle:
        handle.write(f"url = {toml_string(url)}\nstudy = {toml_string(study)}\n")
    return Path(path)


def toml_string(value: str) -> str:
    """``value`` as a TOML basic string: quote, backslash and control characters escaped."""
    escaped = "".join(f"\\u{ord(ch):04x}" if ord(ch) < 0x20 or ord(ch) == 0x7F or ch in '"\\' else ch
                      for ch in value)
    return f'"{escaped}"'
