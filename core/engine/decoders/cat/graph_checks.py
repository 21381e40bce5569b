"""A search graph is checked as it is loaded (issue 22): ids, pointers, no loops, each defect at its line.

A graph whose forward pointers loop would load and then make ``suggest`` walk
the loop forever; a back-pointer to no hypothesis, or one id given twice, would
load and give wrong paths. :func:`check_graph` runs over the rows a
:class:`core.engine.decoders.cat.graph_store.GraphStore` holds, with SQL, before the
store is published, and names the first bad line as ``file:line: expected ...``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from parastudio.core.errors import InputFormatError
from parastudio.core.textio import open_text_maybe_gzip

HYPOTHESIS_ID_INDEX = "CREATE UNIQUE INDEX hypothesis_id ON hypothesis (sentence, hyp)"

# Each check: a query for the first row that breaks a rule (rowid, what it holds), what the rule expects.
# Stacks prove the graph acyclic: a hypothesis covers more source words than its back-pointer and fewer than
# its forward pointer, so following either pointer can never come back (Moses' and our dumps hold to it).
_POINTER_CHECKS = (
    ("SELECT h.rowid, h.back FROM hypothesis h WHERE h.back IS NOT NULL AND NOT EXISTS "
     "(SELECT 1 FROM hypothesis p WHERE p.sentence = h.sentence AND p.hyp = h.back) ORDER BY h.rowid LIMIT 1",
     "back= to name a hypothesis of the same sentence", "back={}, which no line of the sentence defines"),
    ("SELECT h.rowid, h.back, p.stack, h.stack FROM hypothesis h JOIN hypothesis p "
     "ON p.sentence = h.sentence AND p.hyp = h.back WHERE p.stack >= h.stack ORDER BY h.rowid LIMIT 1",
     "back= to name a hypothesis of a lower stack (back-pointers never loop)", "back={} on stack {}, from stack {}"),
    ("SELECT h.rowid, h.forward FROM hypothesis h WHERE h.forward >= 0 AND NOT EXISTS "
     "(SELECT 1 FROM hypothesis p WHERE p.sentence = h.sentence AND p.hyp = h.forward) ORDER BY h.rowid LIMIT 1",
     "forward= to name a hypothesis of the same sentence (or -1)", "forward={}, which no line of the sentence defines"),
    ("SELECT h.rowid, h.forward, p.stack, h.stack FROM hypothesis h JOIN hypothesis p "
     "ON p.sentence = h.sentence AND p.hyp = h.forward WHERE p.stack <= h.stack ORDER BY h.rowid LIMIT 1",
     "forward= to name a hypothesis of a higher stack (forward pointers never loop)",
     "forward={} on stack {}, from stack {}"),
    ("SELECT h.rowid, h.recombined FROM hypothesis h WHERE h.recombined IS NOT NULL AND NOT EXISTS "
     "(SELECT 1 FROM hypothesis p WHERE p.sentence = h.sentence AND p.hyp = h.recombined) ORDER BY h.rowid LIMIT 1",
     "recombined= to name a hypothesis of the same sentence", "recombined={}, which no line of the sentence defines"),
)


def check_graph(connection: sqlite3.Connection, loaded: list[tuple[int, int, Path, str]]) -> None:
    """The loaded hypotheses form a search graph, or ``file:line: expected ...`` at the first that does not:
    no hypothesis id twice in a sentence, every back/forward/recombined pointer resolves, no pointer loops.
    ``loaded``: ``(first rowid before, last rowid, file read, name shown)`` of each graph. Leaves the
    hypothesis id index built."""
    twice = connection.execute("SELECT sentence, hyp, min(rowid), max(rowid) FROM hypothesis GROUP BY sentence, hyp "
                               "HAVING count(*) > 1 ORDER BY 4 LIMIT 1").fetchone()
    if twice is not None:
        sentence, hyp, first, again = twice
        shown, line = _line_of(loaded, first)
        raise _graph_error(loaded, again, "a hypothesis id not used before in its sentence",
                           f"hyp={hyp} of sentence {sentence} again (first on {shown}:{line})")
    connection.execute(HYPOTHESIS_ID_INDEX)
    for query, expected, got in _POINTER_CHECKS:
        found = connection.execute(query).fetchone()
        if found is not None:
            raise _graph_error(loaded, found[0], expected, got.format(*found[1:]))


def _graph_error(loaded, rowid: int, expected: str, got: str) -> InputFormatError:
    shown, line = _line_of(loaded, rowid)
    return InputFormatError(shown, line, expected, got)


def _line_of(loaded, rowid: int) -> tuple[str, int]:
    """The file and line of the hypothesis stored as ``rowid`` (rows are stored in file order, blank lines skipped)."""
    for first, last, path, shown in loaded:
        if first < rowid <= last:
            wanted = rowid - first
            with open_text_maybe_gzip(path) as handle:
                for number, text in enumerate(handle, start=1):
                    wanted -= bool(text.strip())
                    if wanted == 0:
                        return str(shown), number
    raise AssertionError(f"row {rowid} of no graph")
