"""The one writer of pivot paraphrase tables: sums in, ``e1 ||| e2 ||| p(e2|e1) h1 h2 h3 h4`` lines out.

Every pivot engine (DuckDB today, Spark later: issue 25) returns the rows of
:data:`core.tablebuild.pivot_sql.RESULT_COLUMNS` in the query's total order, and this module turns them
into lines. Everything derived from the sums is computed here, once, in Python: h1..h4 are ``math.log``
of the four sums (Zhao et al.'s features, seed 002 eq. 3-6, as :mod:`core.tablebuild.pivot` documents),
numbers are written with ``repr`` (the shortest text that reads back as the same double). An engine's own
logarithm or number formatting would differ in the last bit from one engine to another (Java's
``Math.log`` against libm's), so no engine computes them.

The writer also checks the order it is given (e1 ascending, then p(e2|e1) descending, then e2 ascending,
no repeated pair): an engine that broke the total order would otherwise change the bytes silently.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable, Sequence

from parastudio.core.textio import WriteBehind, atomic_output

SEPARATOR = " ||| "


def format_pivot_row(row: Sequence, features: bool) -> str:
    """One output line from ``(e1, e2, prob, prob_back, lw_forth, lw_back)``."""
    e1, e2, prob, prob_back, lw_forth, lw_back = row
    if features:
        scores = (prob, math.log(prob), math.log(prob_back), math.log(lw_forth), math.log(lw_back))
    else:
        scores = (prob,)
    return f"{e1}{SEPARATOR}{e2}{SEPARATOR}{' '.join(repr(float(value)) for value in scores)}\n"


def _order_key(row: Sequence) -> tuple:
    return row[0], -row[2], row[1]


def write_pivot_rows(batches: Iterable[Sequence[Sequence]], output: str | Path, *, features: bool = True,
                     exclude: set[tuple[str, str]] | None = None, compresslevel: int = 6,
                     progress=None, inputs=()) -> dict:
    """Write the rows of ``batches`` (lists of result rows, in the query's order) to ``output`` atomically.

    ``exclude``: (e1, e2) pairs left out (a prune list from rule blame). Returns the counts
    ``paraphrase_pairs_out``, ``pairs_pruned`` and ``source_phrases_out``. Raises RuntimeError if the rows
    are out of order (the engine broke its contract; nothing is written).
    """
    with atomic_output(output, compresslevel=compresslevel, inputs=inputs) as handle, WriteBehind(handle) as writer:
        return write_pivot_lines(batches, writer.write, features=features, exclude=exclude, progress=progress)


def write_pivot_lines(batches: Iterable[Sequence[Sequence]], write, *, features: bool = True,
                      exclude: set[tuple[str, str]] | None = None, progress=None) -> dict:
    """The lines of ``batches``' rows handed to ``write`` (a text, one or more lines, per call), the order
    checked; the counts :func:`write_pivot_rows` returns."""
    pairs_out = sources_out = pruned = 0
    previous = previous_e1 = None
    for rows in batches:
        for row in rows:
            if previous is not None and not _order_key(previous) < _order_key(row):
                raise RuntimeError(f"pivot rows out of the total order (e1, -p(e2|e1), e2): "
                                   f"{tuple(previous[:3])} then {tuple(row[:3])}")
            previous = row
        if exclude:
            kept = [row for row in rows if (row[0], row[1]) not in exclude]
            pruned += len(rows) - len(kept)
            rows = kept
        for row in rows:
            if row[0] != previous_e1:
                sources_out += 1
                previous_e1 = row[0]
        write("".join(format_pivot_row(row, features) for row in rows))
        pairs_out += len(rows)
        if progress is not None:
            progress(pairs_out, None, "write")
    return {"paraphrase_pairs_out": pairs_out, "pairs_pruned": pruned, "source_phrases_out": sources_out}
