"""JSON and TOML parsed with every defect as ``file:line: expected ...`` (issue 22).

Python's parsers recurse once per level of nesting: a file of 100,000 ``[``
raises ``RecursionError``, which is no user's idea of an answer. Here it is
the line where the nesting passes :data:`NESTING_SHOWN` levels, named as a
defect of the file; a syntax error is the line the parser names; TOML is read
through :class:`core.textio.CheckedText`, so a file that is not UTF-8 is a
line too.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from parastudio.core.errors import InputFormatError
from parastudio.core.textio import open_text_maybe_gzip

NESTING_SHOWN = 500  # no file of ours nests beyond a handful of levels; Python stops near 1,000
_TOML_LINE = re.compile(r"\(at line (\d+)")


def nesting_line(text: str, limit: int = NESTING_SHOWN) -> int:
    """The 1-based line of ``text`` where brackets and braces first nest more than ``limit`` deep (quoted
    strings skipped), or 1."""
    depth, line, quote, escaped = 0, 1, None, False
    for character in text:
        if character == "\n":
            line += 1
        if quote is not None:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == quote:
                quote = None
        elif character in "\"'":
            quote = character
        elif character in "[{":
            depth += 1
            if depth > limit:
                return line
        elif character in "]}":
            depth -= 1
    return 1


def too_deep(path: str | os.PathLike, text: str, expected: str, first_line: int = 1) -> InputFormatError:
    """The error for ``text`` (starting at line ``first_line`` of ``path``) that a parser could not recurse into."""
    return InputFormatError(str(path), first_line + nesting_line(text) - 1,
                            f"{expected} nested at most {NESTING_SHOWN} levels deep",
                            f"brackets nested more than {NESTING_SHOWN} deep")


def parse_json(text: str, path: str | os.PathLike, expected: str, *, first_line: int = 1, **options) -> Any:
    """``json.loads(text, **options)``; a syntax error or a nesting Python cannot parse is an
    :class:`InputFormatError` at its line of ``path`` (``text`` begins at line ``first_line``)."""
    try:
        return json.loads(text, **options)
    except json.JSONDecodeError as error:
        raise InputFormatError(str(path), first_line + error.lineno - 1, expected, error.msg) from None
    except RecursionError:
        raise too_deep(path, text, expected, first_line) from None


def read_toml(path: str | os.PathLike, expected: str) -> dict:
    """A TOML file read through the checked text reader (UTF-8, no NUL), every defect a line of it."""
    return parse_toml(read_text(path), path, expected)


def read_text(path: str | os.PathLike) -> str:
    """A whole text file through the checked text reader (UTF-8, no NUL, lines of a sane length)."""
    with open_text_maybe_gzip(path) as handle:
        return handle.read()


def parse_toml(text: str, path: str | os.PathLike, expected: str) -> dict:
    """``tomllib.loads(text)``; a syntax error or a nesting Python cannot parse is an :class:`InputFormatError` at
    its line of ``path``."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = _TOML_LINE.search(str(error))
        raise InputFormatError(str(path), int(found.group(1)) if found else 1, expected, str(error)) from None
    except RecursionError:
        raise too_deep(path, text, expected) from None
