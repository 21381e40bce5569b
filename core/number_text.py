"""Numbers in text files as table tools write them (issue 22).

Python's ``float()`` also takes ``"0.1_5"``, Arabic-Indic and full-width digits (``"٠.٥"``, ``"０.５"``) and
``"0x1p-3"`` is one ``float.fromhex`` away; Moses and every other reader of a phrase table read none of them,
so a score written so is a defect of its line, not a number.
"""

from __future__ import annotations

import re

# Also the pattern a SQL engine checks a column with (RE2, as DuckDB's regexp_full_match reads it, with 'i').
DECIMAL_PATTERN = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf|infinity)"
_DECIMAL = re.compile(DECIMAL_PATTERN, re.ASCII | re.IGNORECASE)


_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
# White space a table tool writes around a number: ASCII only. str.strip() and float() would also take a
# no-break space or an ideographic space, which no such tool reads as one.
ASCII_SPACE = " \t\r\n\f\v"
_ASCII_RUNS = re.compile("[ \t\r\n\f\v]+")


def ascii_words(text: str) -> list[str]:
    """``text`` cut at runs of ASCII white space (what str.split() does, without its Unicode spaces)."""
    return [word for word in _ASCII_RUNS.split(text) if word]


def is_decimal(text: str) -> bool:
    """Whether ``text`` is a number as table tools write it (ASCII digits, no underscore, no hex, ASCII white
    space around it at most); NaN and infinity pass here, for the caller's own finiteness check to name them."""
    return _DECIMAL.fullmatch(text.strip(ASCII_SPACE)) is not None


def parse_decimal(text: str) -> float:
    """``text`` as a float when :func:`is_decimal` (``1_0``, ``٠.٥``, a no-break space: ValueError)."""
    if not is_decimal(text):
        raise ValueError(f"not a decimal number as table tools write it: {text!r}")
    return float(text.strip(ASCII_SPACE))


def parse_integer(text: str) -> int:
    """``text`` as an int when it is ASCII digits with an optional sign (``1_0``, ``１０``: ValueError)."""
    stripped = text.strip(ASCII_SPACE)
    if _INTEGER.fullmatch(stripped) is None:
        raise ValueError(f"not a whole number as table tools write it: {text!r}")
    return int(stripped)
