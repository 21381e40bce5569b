"""Seed 002's log-linear pivot score, per pivot, straight from a bilingual phrase table (seed 002 §3.3, Eq. 3).

    score(e2|e1) = Σ_c exp[λ1 h1 + λ2 h2 + λ3 h3 + λ4 h4]
                 = Σ_c p(c|e1)^λ1 · p(e2|c)^λ2 · LW(c|e1)^λ3 · LW(e2|c)^λ4

with, per pivot phrase c, h1 = ln p(c|e1), h2 = ln p(e2|c) (Eq. 4), h3 = ln LW(c|e1), h4 = ln LW(e2|c) (Eq. 5:
the log lexical weight over |c|, i.e. LW(x|y) = lex(x|y)^(1/|x|), as :mod:`core.tablebuild.pivot` defines it).
A pair is kept when its score exceeds the threshold T; T is compared with ``ln score`` (the extracted Eq. 3
is garbled; T = -10.002 and the MLE model's T' = -5.1 in seed 002 §4 can only be log values). With λ = (1, 1,
0, 0) the score is Bannard and Callison-Burch's p(e2|e1) (Eq. 1).

:func:`pivot_features` gives the per-pivot feature vectors of chosen pairs (what ``tune --system pivot``
tunes λ and T on); :func:`loglinear_pivot_table` writes the table re-scored by Eq. 3 and re-thresholded, in
the phrase pivot table's format ``e1 ||| e2 ||| score h1 h2 h3 h4`` (the h columns marginalised over pivots as
:mod:`core.tablebuild.pivot` writes them, so the output can be tuned again). Pivot clusters larger than τ
(``max_pivot``) are dropped first, as in :mod:`core.tablebuild.pivot`; the query is the same portable SQL
(POWER, EXP, LN and SUM).
"""

from __future__ import annotations

import contextlib
import math
import shutil
import tempfile
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from parastudio.core.tablebuild.pivot import (
    _BAD_ROWS_SQL,
    _PHRASE_PAIRS_SQL,
    PHRASE_PAIRS_TABLE,
    SEPARATOR,
    _default_memory_limit,
    _load_sql,
    _refuse_input,
)
from parastudio.core.textio import atomic_output, missing_input, require_regular_file

_KEPT = """
WITH kept_pivots AS (
    SELECT f FROM phrase_pairs GROUP BY f HAVING COUNT(*) <= {max_pivot}
),
kept_pairs AS (
    SELECT p.e, p.f, p.p_e_given_f, p.p_f_given_e, p.lw_e_given_f, p.lw_f_given_e
    FROM phrase_pairs p INNER JOIN kept_pivots k ON p.f = k.f
)"""

FEATURES_SQL = _KEPT + """
SELECT a.e AS e1, b.e AS e2, a.f AS c,
       LN(a.p_f_given_e) AS h1, LN(b.p_e_given_f) AS h2, LN(a.lw_f_given_e) AS h3, LN(b.lw_e_given_f) AS h4
FROM kept_pairs a
INNER JOIN kept_pairs b ON a.f = b.f AND a.e <> b.e
INNER JOIN wanted w ON w.e1 = a.e AND w.e2 = b.e
ORDER BY e1, e2, c
"""

LOGLINEAR_SQL = _KEPT + """,
scored AS (
    SELECT a.e AS e1, b.e AS e2,
           SUM(POWER(a.p_f_given_e, {l1}) * POWER(b.p_e_given_f, {l2})
               * POWER(a.lw_f_given_e, {l3}) * POWER(b.lw_e_given_f, {l4})) AS score,
           SUM(a.p_f_given_e * b.p_e_given_f) AS prob,
           SUM(b.p_f_given_e * a.p_e_given_f) AS prob_back,
           SUM(a.lw_f_given_e * b.lw_e_given_f) AS lw_forth,
           SUM(b.lw_f_given_e * a.lw_e_given_f) AS lw_back
    FROM kept_pairs a
    INNER JOIN kept_pairs b ON a.f = b.f AND a.e <> b.e
    GROUP BY a.e, b.e
)
SELECT e1, e2, score, LN(prob) AS h1, LN(prob_back) AS h2, LN(lw_forth) AS h3, LN(lw_back) AS h4
FROM scored
WHERE score > 0 AND LN(score) > {threshold}
ORDER BY e1 ASC, score DESC, e2 ASC
"""


@contextlib.contextmanager
def _phrase_pairs(phrase_table: Path, *, reverse: bool, work_parent: Path) -> Iterator:
    """A DuckDB connection holding ``phrase_pairs`` loaded from a Moses phrase table (as pivot.py loads it)."""
    import duckdb

    if not phrase_table.exists():
        raise missing_input(phrase_table, "phrase table")
    require_regular_file(phrase_table)  # DuckDB sniffs it, then reads it
    work_parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".pivot-loglinear-", dir=work_parent))
    connection = duckdb.connect(str(work / "pivot.duckdb"))
    try:
        connection.execute(f"SET memory_limit = '{_default_memory_limit()}'")
        connection.execute(f"SET temp_directory = '{str(work / 'spill').replace(chr(39), chr(39) * 2)}'")
        connection.execute("SET threads = 1")  # reproducible sums (see pivot.py)
        try:
            connection.execute(_load_sql(phrase_table, reverse=reverse))
        except duckdb.Error as error:
            raise _refuse_input(phrase_table, error) from None
        if connection.execute(_BAD_ROWS_SQL).fetchone()[0]:  # the bad line named (never None: pivot.py's rule)
            raise _refuse_input(phrase_table, None)
        connection.execute(_PHRASE_PAIRS_SQL)
        yield connection
    finally:
        connection.close()
        shutil.rmtree(work, ignore_errors=True)


def pivot_features(phrase_table: str | Path, pairs: Iterable[tuple[str, str]], *, reverse: bool = False,
                   max_pivot: int = 200, work_parent: Path | None = None) -> dict[tuple[str, str], list[list[float]]]:
    """``(e1, e2) -> [[h1, h2, h3, h4] per pivot c]`` for the wanted pairs (pairs with no pivot are absent)."""
    phrase_table = Path(phrase_table)
    wanted = sorted(set(pairs))
    found: dict[tuple[str, str], list[list[float]]] = {}
    with _phrase_pairs(phrase_table, reverse=reverse, work_parent=work_parent or Path(tempfile.gettempdir())) as db:
        db.execute("CREATE TABLE wanted (e1 VARCHAR, e2 VARCHAR)")
        if wanted:
            db.executemany("INSERT INTO wanted VALUES (?, ?)", wanted)
        for e1, e2, _c, h1, h2, h3, h4 in db.execute(FEATURES_SQL.format(max_pivot=int(max_pivot))).fetchall():
            found.setdefault((e1, e2), []).append([h1, h2, h3, h4])
    return found


def render_loglinear_sql(lambdas: Sequence[float], threshold: float, max_pivot: int) -> str:
    values = [float(x) for x in lambdas] + [float(threshold)]
    if len(values) != 5 or not all(math.isfinite(v) for v in values):
        raise ValueError(f"four finite weights and a finite threshold are needed, not {lambdas}, {threshold}")
    l1, l2, l3, l4, t = (repr(v) for v in values)
    return LOGLINEAR_SQL.format(max_pivot=int(max_pivot), l1=l1, l2=l2, l3=l3, l4=l4, threshold=t)


def loglinear_pivot_table(phrase_table: str | Path, output: str | Path, lambdas: Sequence[float], threshold: float,
                          *, reverse: bool = False, max_pivot: int = 200) -> int:
    """Write the Eq. 3 table with the pairs scoring above ``threshold`` (atomically); returns the pair count."""
    phrase_table, output = Path(phrase_table), Path(output)
    query = render_loglinear_sql(lambdas, threshold, max_pivot)
    count = 0
    with _phrase_pairs(phrase_table, reverse=reverse, work_parent=output.parent) as db:
        cursor = db.execute(query)
        with atomic_output(output, compresslevel=6, inputs=[phrase_table]) as handle:
            while rows := cursor.fetchmany(50_000):
                for e1, e2, *scores in rows:
                    handle.write(f"{e1}{SEPARATOR}{e2}{SEPARATOR}{' '.join(repr(float(v)) for v in scores)}\n")
                count += len(rows)
    return count


__all__ = ["FEATURES_SQL", "LOGLINEAR_SQL", "PHRASE_PAIRS_TABLE", "loglinear_pivot_table", "pivot_features",
           "render_loglinear_sql"]
