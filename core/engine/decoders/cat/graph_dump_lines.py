"""A search graph dump's lines read as the graph store's rows, and the loaded scores checked to be numbers."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path
from typing import Iterator

from parastudio.core.engine.decoders.search_graph import parse_line
from parastudio.core.errors import InputFormatError
from parastudio.core.textio import open_text_maybe_gzip

# Moses' traditional line, fields in the order ``OutputSearchNode`` writes them. Numbers stay text: the
# table's INTEGER/REAL column affinity converts them, several times faster than int()/float() here.
_TRADITIONAL = re.compile(r"(\d+) hyp=(\d+) stack=(\d+) back=(\d+) score=(\S+) transition=(\S+)"
                          r"(?: recombined=(\d+))? forward=(-?\d+) fscore=(\S+) covered=(\d+)-(\d+) out=(.*)")
_ROOT = re.compile(r"(\d+) hyp=(\d+) stack=0")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf")


def graph_rows(path: str | os.PathLike, shown: str | os.PathLike | None = None) -> Iterator[tuple]:
    """Every hypothesis line of a dump as the table's columns; a bad line raises ``file:line: expected ...``
    (``shown``: the file's name in messages, when ``path`` is a copy of it)."""
    shown = str(shown or path)
    with open_text_maybe_gzip(path) as handle:
        for number, text in enumerate(handle, start=1):
            text = text.rstrip("\n")
            match = _TRADITIONAL.fullmatch(text)
            if match is not None:  # its three scores are checked once loaded (_check_numbers)
                yield match.groups()
                continue
            match = _ROOT.fullmatch(text)
            if match is not None:
                yield (match.group(1), match.group(2), 0, None, None, None, None, None, None, None, None, None)
                continue
            if not text.strip():
                continue
            line = parse_line(text, shown, number)  # raises with the line's defect, or reads the extended format
            yield (line.sentence_id, line.hyp, line.stack, line.back, line.score, line.transition,
                   line.recombined, line.forward, line.fscore,
                   line.covered[0] if line.covered else None, line.covered[1] if line.covered else None,
                   " ".join(line.out) if line.back is not None else None)


_SCORE_COLUMNS = {"score": 5, "transition": 6, "fscore": 9}  # column -> its group in _TRADITIONAL


def check_numbers(connection: sqlite3.Connection, path: Path, first_rowid: int, shown=None) -> None:
    """The scores of the rows loaded from ``path`` (rowid > ``first_rowid``) are numbers, or stop at the first bad line.

    The fast path hands SQLite the scores as text and lets the REAL affinity convert them (several times faster
    than float() in Python); text that is not a number stays text, which one query finds. ``inf`` is converted
    here (SQLite's affinity does not read it)."""
    for column in _SCORE_COLUMNS:
        connection.execute(f"UPDATE hypothesis SET {column} = CASE WHEN {column} LIKE '-%' THEN -1e999 ELSE 1e999 END "
                           f"WHERE rowid > ? AND typeof({column}) = 'text' AND lower(ltrim({column}, '+-')) = 'inf'",
                           (first_rowid,))
    bad = connection.execute(
        "SELECT 1 FROM hypothesis WHERE rowid > ? AND (" +
        " OR ".join(f"typeof({c}) = 'text'" for c in _SCORE_COLUMNS) + ") LIMIT 1", (first_rowid,)).fetchone()
    if bad is None:
        return
    with open_text_maybe_gzip(path) as handle:
        for number, text in enumerate(handle, start=1):
            match = _TRADITIONAL.fullmatch(text.rstrip("\n"))
            if match is None:
                continue
            for column, group in _SCORE_COLUMNS.items():
                if not _NUMBER.fullmatch(match.group(group)):
                    raise InputFormatError(str(shown or path), number, f"a number in {column}=", match.group(group))
