"""The pivot on Spark: DuckDB's query, Spark's ordered sum, the one writer; the DuckDB engine's bytes.

Only the loader is Spark's own. It runs our line parser (:func:`core.tablebuild.pivot.parse_phrase_table_line`)
on each partition of the text (``mapInArrow``, so it works on a classic session and on Spark Connect alike)
and computes LW = lex ** (1/|x|) there, in Python, with the C library's ``pow`` that DuckDB's ``power``
calls too, so the loaded doubles are DuckDB's. The query is :data:`core.tablebuild.pivot_sql.PIVOT_SQL`
with each sum spelt :func:`spark_ordered_sum` (ascending terms, left fold: the order DuckDB's
``list_sum(list_sort(...))`` adds in). The executors write the query's rows as ordered part files into a
work folder beside the output (:mod:`core.tablebuild.spark_ordered_parts`: no task result carries rows, so
the driver's memory stays bounded), and the driver reads them back in order, a batch at a time, into
:func:`core.tablebuild.pivot_writer.write_pivot_rows`, which turns them into lines, logs included.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Iterator

from parastudio.core.output_files import FILE, resolve_output
from parastudio.core.progress import Progress, no_progress
from parastudio.core.tablebuild.parquet_lines import write_pivot_rows_parquet
from parastudio.core.tablebuild.pivot import _EXPECTED_LINE, _remove_stale_work, parse_phrase_table_line
from parastudio.core.tablebuild.pivot_sql import PHRASE_PAIRS_TABLE, RESULT_COLUMNS, render_pivot_sql
from parastudio.core.tablebuild.pivot_writer import write_pivot_rows
from parastudio.core.tablebuild.spark_inputs import first_bad_line, local_files, read_lines
from parastudio.core.tablebuild.spark_ordered_parts import ordered_part_batches, ordered_part_files

PHRASE_PAIRS_SCHEMA = ("e string, f string, p_e_given_f double, p_f_given_e double, lw_e_given_f double, "
                       "lw_f_given_e double, bad boolean")

LOAD_STATS_SQL = f"""
SELECT count(*) AS phrase_pairs_in, count(DISTINCT e) AS phrases_e, count(DISTINCT f) AS pivot_phrases,
       (SELECT count(*) FROM (SELECT f FROM {PHRASE_PAIRS_TABLE} GROUP BY f HAVING count(*) > {{max_pivot}}) t)
           AS pivot_clusters_dropped
FROM {PHRASE_PAIRS_TABLE}
"""


def spark_ordered_sum(term: str) -> str:
    """Spark SQL: the group's terms collected, sorted ascending, then added left to right from 0.0."""
    return f"aggregate(array_sort(collect_list({term})), 0D, (total, x) -> total + x)"


def phrase_pair_rows(lines: Iterator[str], reverse: bool) -> Iterator[tuple]:
    """Rows of PHRASE_PAIRS_SCHEMA for table lines (blank lines skipped; a bad line is one row flagged ``bad``)."""
    for line in lines:
        if not line.strip():
            continue
        parsed = parse_phrase_table_line(line) if "\x00" not in line else None
        if parsed is None:  # the line itself in e: quoted when the driver cannot name its file and number
            yield (line, "", 0.0, 0.0, 0.0, 0.0, True)
            continue
        first, second, scores = parsed
        if reverse:
            e, f = second, first
            p_e_given_f, lex_e_given_f, p_f_given_e, lex_f_given_e = scores[2], scores[3], scores[0], scores[1]
        else:
            e, f = first, second
            p_e_given_f, lex_e_given_f, p_f_given_e, lex_f_given_e = scores[0], scores[1], scores[2], scores[3]
        yield (e, f, p_e_given_f, p_f_given_e, lex_e_given_f ** (1.0 / len(e.split())),
               lex_f_given_e ** (1.0 / len(f.split())), False)


def _arrow_batches(batches, reverse: bool, schema):
    import pyarrow

    names = [field.name for field in schema]
    for batch in batches:
        rows = list(phrase_pair_rows(batch.column(0).to_pylist(), reverse))
        if rows:
            yield pyarrow.RecordBatch.from_arrays([pyarrow.array(column) for column in zip(*rows)], names=names)


def pivot_table_spark(spark, phrase_table: str | Path, output: Path, *, min_prob: float = 1e-5,
                      max_pivot: int = 200, top: int = 20, reverse: bool = False, features: bool = True,
                      compresslevel: int = 6, exclude: set[tuple[str, str]] | None = None,
                      progress: Progress = no_progress, inputs=(), temp_directory: Path | None = None,
                      output_format: str = "text") -> dict:
    """:func:`core.tablebuild.pivot.pivot_table` on ``spark``: the same arguments (but DuckDB's), the same bytes.

    ``phrase_table``: a file, a folder or glob of part files, or Parquet, local or a URI Spark reads
    (:mod:`core.tablebuild.spark_inputs`); the executors read it in parallel.
    ``temp_directory``: where the ordered part files go (default: beside the output); the executors write
    there and the driver reads, so on a cluster it must be a shared filesystem.
    ``output_format``: ``text`` (the table, gzip if the name ends in .gz) or ``parquet`` (a folder of part
    files of one column ``line``: the same lines in the same order, :mod:`core.tablebuild.parquet_lines`).
    """
    from pyspark.sql.types import StructType

    source = str(phrase_table)
    files = local_files(source)  # FileNotFoundError for a local source that names no file
    inputs = [*(files or []), *inputs]
    if output_format not in ("text", "parquet"):
        raise ValueError(f"output_format expects text or parquet; got {output_format!r}")
    # An output that is an input: refused before Spark starts work.
    target = resolve_output(output, inputs, folder=output_format == "parquet")
    output = Path(output)
    query = render_pivot_sql(min_prob=min_prob, max_pivot=max_pivot, top=top, ordered_sum=spark_ordered_sum)
    stats: dict = {"phrase_table": source, "output": str(output), "min_prob": float(min_prob),
                   "max_pivot": int(max_pivot), "top": int(top), "reverse": bool(reverse),
                   "features": bool(features), "engine": "spark"}
    timings: dict[str, float] = {}
    started = time.perf_counter()
    progress(0, None, "load")
    schema = StructType.fromDDL(PHRASE_PAIRS_SCHEMA)
    loaded = read_lines(spark, source).mapInArrow(lambda batches: _arrow_batches(batches, reverse, schema), schema)
    loaded = loaded.persist()
    try:
        # One job, one task per input split (a part file, a Parquet row group): the load runs in parallel
        # (issue 41), where limit(1) would read partition after partition; min: the same line quoted each run.
        bad = loaded.filter("bad").agg({"e": "min"}).collect()[0][0]
        if bad is not None:
            raise first_bad_line(source, files, bad, _EXPECTED_LINE)
        loaded.filter("NOT bad").drop("bad").createOrReplaceTempView(PHRASE_PAIRS_TABLE)
        counts = spark.sql(LOAD_STATS_SQL.format(max_pivot=int(max_pivot))).collect()[0]
        stats.update(counts.asDict())
        timings["load_seconds"] = time.perf_counter() - started
        progress(stats["phrase_pairs_in"], stats["phrase_pairs_in"], "load")

        started = time.perf_counter()
        progress(0, None, "pivot")
        work_parent = Path(temp_directory or (target.path.parent if target.kind == FILE else tempfile.gettempdir()))
        work_parent.mkdir(parents=True, exist_ok=True)
        _remove_stale_work(work_parent)
        with ordered_part_files(spark.sql(query), work_parent, prefix=".pivot-") as parts:
            timings["pivot_seconds"] = time.perf_counter() - started
            started = time.perf_counter()
            write = write_pivot_rows if output_format == "text" else write_pivot_rows_parquet
            stats.update(write(ordered_part_batches(parts, RESULT_COLUMNS), output, features=features,
                               exclude=exclude, compresslevel=compresslevel, progress=progress, inputs=inputs))
            timings["write_seconds"] = time.perf_counter() - started
    finally:
        spark.catalog.dropTempView(PHRASE_PAIRS_TABLE)
        loaded.unpersist()
    stats["timings"] = timings
    stats["seconds"] = sum(timings.values())
    return stats
