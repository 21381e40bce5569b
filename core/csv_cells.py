"""CSV cells a spreadsheet will not run as formulas (issue 22; OWASP's "CSV Injection").

A cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
is read by Excel, LibreOffice and Google Sheets as a formula
(``=HYPERLINK(...)``, ``+cmd|' /C calc'!A0``, ``@SUM(...)``): a candidate or
a judge's comment from someone else's file would run when the export is
opened. OWASP's advice: prefix such a cell with a single quote, which the
spreadsheet shows as text. A cell that reads as a number (``-3.5``, ``+2``,
``-inf``) is a number and stays as it is. Every CSV writer of ours passes its
rows through :func:`safe_row` unless the user asks for ``--raw``, and writes
through :func:`line_feed_rows`, so a cell holding a carriage return is quoted
(a bare one would start a new row in a spreadsheet, or a formula there).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralize(value: Any) -> Any:
    """``value`` with a single quote before it when it is text a spreadsheet would run (module docstring)."""
    if not isinstance(value, str) or not value.startswith(FORMULA_STARTS):
        return value
    try:
        float(value)
    except ValueError:
        return "'" + value
    return value


def safe_row(row: Sequence[Any] | Mapping[str, Any], raw: bool = False):
    """A CSV row (a list, or a dict for ``csv.DictWriter``) with each cell :func:`neutralize`-d; as it is when
    ``raw``."""
    if raw:
        return row
    if isinstance(row, Mapping):
        return {key: neutralize(value) for key, value in row.items()}
    return [neutralize(value) for value in row]


def restore(value: str) -> str:
    """A cell as it was before :func:`neutralize` (the quote it added dropped), so an export reads back the same."""
    if value.startswith("'") and neutralize(value[1:]) == value:
        return value[1:]
    return value


class line_feed_rows:  # noqa: N801 - used as a function: csv.writer(line_feed_rows(handle), lineterminator="\r\n")
    """A text stream for a csv writer told ``lineterminator="\r\n"``: each row's CRLF is written as LF.

    Python 3.11's csv quotes a cell only for the characters of its line terminator (with ``"\n"`` alone, a
    cell holding a carriage return went out bare); told CRLF it quotes both, and the writer writes each row
    with one ``write``, whose final CRLF becomes the LF our exports end their rows with."""

    def __init__(self, handle):
        self._handle = handle

    def write(self, text: str) -> int:
        if text.endswith("\r\n"):
            text = text[:-2] + "\n"
        return self._handle.write(text)
