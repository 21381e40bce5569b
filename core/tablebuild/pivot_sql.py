"""The pivot's query: sums of p(e2|f) p(f|e1) over pivots f, in a fixed order (seed 000 §3.1, seed 002 §3.3).

What every engine must return (the contract that makes the output the same bytes on any number of threads,
with or without spilling, and later on Spark):

* One row per kept pair ``(e1, e2, prob, prob_back, lw_forth, lw_back)``: the four sums of
  :data:`SUMMED_TERMS` over the pairs' common pivots (τ-pruned), with ``prob >= E`` and ``e2`` among the κ
  first of ``e1``. No logarithm, no formatting: derived values are computed once, in
  :mod:`core.tablebuild.pivot_writer`, so an engine's own ``LN`` (libm's, Java's ``Math.log``) never shows.
* **Fixed summation order.** Each sum adds its terms left to right, starting from 0.0, in ascending order of
  the term's value: ``functools.reduce(operator.add, sorted(terms), 0.0)``. The order is a function of the
  multiset of terms alone, so it does not depend on how rows reach the aggregate (threads, morsels, spilled
  partitions) nor on how pivot phrases collate; equal terms are interchangeable. A plain ``SUM`` adds in
  arrival order and differs in the last bits between runs once a pair has three or more pivots. Ascending
  order is also the accurate one for positive terms (small terms are added before they are swamped).
* **Total row order.** ``ORDER BY e1, prob DESC, e2``: (e1, e2) is the group key, so no two rows tie, and
  the κ cut (``ROW_NUMBER() OVER (PARTITION BY e1 ORDER BY prob DESC, e2)``) keeps the same rows on every
  run. Strings compare by code point (UTF-8 bytes: DuckDB's and Spark's default, and Python's).

The query text is portable SQL (CTEs, inner joins, GROUP BY/HAVING, ROW_NUMBER() OVER); the one
engine-specific piece is how an ordered sum is spelt, passed to :func:`render_pivot_sql` as ``ordered_sum``.
DuckDB's is :func:`duckdb_ordered_sum`; Spark's will be
``aggregate(array_sort(collect_list(term)), 0D, (acc, x) -> acc + x)`` (issue 25, Deliver 2). The terms are
products of the loaded columns (IEEE multiplication: the same double on any engine), but LW = lex ** (1/|x|)
is computed by the loader: a second engine must load the same doubles (its ``pow`` may differ from libm's in
the last bit for |x| > 1), or take them from the first.
"""

from __future__ import annotations

import math
import re
from typing import Callable

# Table read by PIVOT_SQL: one row per (E phrase, pivot phrase) pair.
#   e, f               the E phrase and the pivot phrase
#   p_e_given_f        p(e|f)          p_f_given_e   p(f|e)
#   lw_e_given_f       LW(e|f) = lex(e|f) ** (1/|e|)
#   lw_f_given_e       LW(f|e) = lex(f|e) ** (1/|f|)
PHRASE_PAIRS_TABLE = "phrase_pairs"

# The term summed over pivots f for each output column; ``a`` is e1's row, ``b`` is e2's (same f).
SUMMED_TERMS = {
    "prob": "a.p_f_given_e * b.p_e_given_f",       # p(f|e1) p(e2|f)
    "prob_back": "b.p_f_given_e * a.p_e_given_f",  # p(f|e2) p(e1|f)
    "lw_forth": "a.lw_f_given_e * b.lw_e_given_f",  # LW(f|e1) LW(e2|f)
    "lw_back": "b.lw_f_given_e * a.lw_e_given_f",   # LW(f|e2) LW(e1|f)
}

# Columns every engine returns, in this order (the writer's input).
RESULT_COLUMNS = ("e1", "e2", *SUMMED_TERMS)

# {prob} etc. are the ordered sums; {max_pivot}, {min_prob} and {top} numeric literals.
PIVOT_SQL = """
WITH kept_pivots AS (
    SELECT f
    FROM phrase_pairs
    GROUP BY f
    HAVING COUNT(*) <= {max_pivot}
),
kept_pairs AS (
    SELECT p.e, p.f, p.p_e_given_f, p.p_f_given_e, p.lw_e_given_f, p.lw_f_given_e
    FROM phrase_pairs p
    INNER JOIN kept_pivots k ON p.f = k.f
),
paraphrases AS (
    SELECT a.e AS e1,
           b.e AS e2,
           {prob} AS prob,
           {prob_back} AS prob_back,
           {lw_forth} AS lw_forth,
           {lw_back} AS lw_back
    FROM kept_pairs a
    INNER JOIN kept_pairs b ON a.f = b.f AND a.e <> b.e
    GROUP BY a.e, b.e
),
ranked AS (
    SELECT e1, e2, prob, prob_back, lw_forth, lw_back,
           ROW_NUMBER() OVER (PARTITION BY e1 ORDER BY prob DESC, e2 ASC) AS rank_in_e1
    FROM paraphrases
    WHERE prob >= {min_prob}
)
SELECT e1, e2, prob, prob_back, lw_forth, lw_back
FROM ranked
WHERE rank_in_e1 <= {top}
ORDER BY e1 ASC, prob DESC, e2 ASC
"""


def duckdb_ordered_sum(term: str) -> str:
    """DuckDB: the group's terms collected, sorted ascending, then summed left to right.

    ``list_sum`` folds a list in its order (``tests/test_pivot_deterministic.py`` checks it against Python's
    left fold); it gives the same values as the ordered aggregate ``SUM(term ORDER BY term)`` (the same
    sha256 on a 1M-rule table) in about the same time, and needs no lambda (DuckDB 1.0 runs it). The sort
    direction is spelt out: ``list_sort``'s default follows the ``default_order`` setting.
    """
    return f"list_sum(list_sort(list({term}), 'ASC', 'NULLS LAST'))"


def render_pivot_sql(*, min_prob: float, max_pivot: int, top: int,
                     ordered_sum: Callable[[str], str] = duckdb_ordered_sum) -> str:
    """PIVOT_SQL with the pruning parameters as numeric literals and each sum spelt by ``ordered_sum``."""
    if not (isinstance(min_prob, (int, float)) and math.isfinite(min_prob) and min_prob >= 0):
        raise ValueError(f"min_prob must be a finite number >= 0; got {min_prob!r}")
    for name, value in (("max_pivot", max_pivot), ("top", top)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
    sums = {column: ordered_sum(term) for column, term in SUMMED_TERMS.items()}
    return PIVOT_SQL.format(min_prob=repr(float(min_prob)), max_pivot=int(max_pivot), top=int(top), **sums)


# Functions PIVOT_SQL itself calls: all are ANSI/Spark SQL (and SQLite, DuckDB).
PORTABLE_SQL_FUNCTIONS = frozenset({"COUNT", "ROW_NUMBER"})


def sql_function_names(sql: str) -> set[str]:
    """Upper-cased names called as ``name(`` in ``sql`` (for the portability test)."""
    keywords = {"AS", "IN", "ON", "AND", "OR", "NOT", "OVER", "FROM", "SELECT", "WHERE", "JOIN"}
    return {name.upper() for name in re.findall(r"\b([A-Za-z_][A-Za-z_0-9]*)\s*\(", sql)} - keywords
