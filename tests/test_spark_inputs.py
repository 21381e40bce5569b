"""Inputs Spark can split and outputs it can hand on (issue 41): a folder of part files, a glob and Parquet give
the single file's bytes, and their load runs in more than one task (Spark's status tracker says so); a Parquet
output holds the gzip's lines in the gzip's order."""

from __future__ import annotations

import gzip
import itertools

import pyarrow
import pyarrow.parquet
import pytest
from zipf_phrase_table import write_zipf_phrase_table

from parastudio.core.errors import InputFormatError
from parastudio.core.tablebuild.parquet_lines import read_parquet_lines
from parastudio.core.tablebuild.pivot import pivot_table
from parastudio.core.tablebuild.spark_pivot import pivot_table_spark

spark_test = pytest.mark.spark

RULES = 1500
PARTS = 3


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """The single gzip, its lines dealt into PARTS part files (a line's part is its number mod PARTS: not the
    file's order), and the DuckDB engine's output for it."""
    folder = tmp_path_factory.mktemp("inputs")
    single = write_zipf_phrase_table(folder / "rules.txt.gz", RULES, seed=11)
    lines = gzip.decompress(single.read_bytes()).decode().splitlines(keepends=True)
    parts = folder / "parts"
    parts.mkdir()
    for part in range(PARTS):
        with gzip.open(parts / f"part-{part:05d}.gz", "wt", encoding="utf-8") as handle:
            handle.writelines(lines[part::PARTS])
    (parts / "_SUCCESS").write_text("")  # what a Spark job leaves beside its parts: not an input
    parquet = folder / "parquet"
    parquet.mkdir()
    for part in range(PARTS):
        rows = [line.rstrip("\n") for line in lines[part::PARTS]]
        pyarrow.parquet.write_table(pyarrow.table({"line": rows}), parquet / f"part-{part:05d}.parquet")
    pivot_table(single, folder / "duckdb.txt")
    return {"single": single, "parts": parts, "parquet": parquet, "expected": (folder / "duckdb.txt").read_bytes()}


def _load_tasks(spark, run) -> int:
    """How many tasks the pivot's first job (the load and its check of every line) ran in its widest stage."""
    context = spark.sparkContext
    group = f"load-{next(_GROUPS)}"
    context.setJobGroup(group, "the load's tasks, counted by the test")
    try:
        run()
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    tracker = context.statusTracker()
    for job in sorted(tracker.getJobIdsForGroup(group)):  # Parquet's schema is read first, in a job of its own
        stages = [tracker.getStageInfo(stage) for stage in tracker.getJobInfo(job).stageIds]
        if any("spark_pivot.py" in stage.name for stage in stages):
            return max(stage.numTasks for stage in stages)
    raise AssertionError("no job of the pivot's load")


_GROUPS = itertools.count()


@spark_test
@pytest.mark.parametrize("form", ["parts", "glob", "parquet", "file-uri"])
def test_split_inputs_give_the_single_files_bytes_and_load_in_parallel(spark, table, tmp_path, form):
    source = {"parts": str(table["parts"]), "glob": str(table["parts"] / "part-*.gz"),
              "parquet": str(table["parquet"]), "file-uri": table["parts"].resolve().as_uri()}[form]
    tasks = _load_tasks(spark, lambda: pivot_table_spark(spark, source, tmp_path / "out.txt"))
    assert (tmp_path / "out.txt").read_bytes() == table["expected"]
    assert tasks == PARTS


@spark_test
def test_a_single_gzip_loads_in_one_task(spark, table, tmp_path):
    """The contrast the issue measured: gzip cannot be split."""
    tasks = _load_tasks(spark, lambda: pivot_table_spark(spark, table["single"], tmp_path / "out.txt"))
    assert (tmp_path / "out.txt").read_bytes() == table["expected"]
    assert tasks == 1


@spark_test
def test_a_parquet_output_holds_the_gzips_lines_in_order(spark, table, tmp_path):
    stats = pivot_table_spark(spark, table["parts"], tmp_path / "out.parquet", output_format="parquet")
    expected = table["expected"].decode().splitlines(keepends=True)
    assert list(read_parquet_lines(tmp_path / "out.parquet")) == expected
    assert stats["paraphrase_pairs_out"] == len(expected)
    # Several parts when the table is larger than one: still the gzip's order, read by name.
    from parastudio.core.tablebuild.parquet_lines import write_pivot_rows_parquet

    rows = [(f"a{i:03d}", f"b{i:03d}", 0.5, 0.5, 0.5, 0.5) for i in range(25)]
    write_pivot_rows_parquet([rows[:10], rows[10:]], tmp_path / "small.parquet", rows_per_part=7)
    assert len(list((tmp_path / "small.parquet").glob("part-*.parquet"))) == 4
    assert [line.split(" ||| ")[0] for line in read_parquet_lines(tmp_path / "small.parquet")] == \
        [row[0] for row in rows]


@spark_test
def test_a_bad_line_in_a_part_is_named_by_its_file_and_number(spark, tmp_path):
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "part-00000.txt").write_text("a ||| x ||| 0.5 0.5 0.5 0.5\n")
    (parts / "part-00001.txt").write_text("b ||| x ||| 0.5 0.5 0.5 0.5\nb ||| y ||| zero 0.5 0.5 0.5\n")
    with pytest.raises(InputFormatError) as refused:
        pivot_table_spark(spark, parts, tmp_path / "out.txt")
    assert str(refused.value).startswith(f"{parts / 'part-00001.txt'}:2: expected a Moses phrase-table line")
    assert not (tmp_path / "out.txt").exists()
