"""`parastudio pivot --engine spark` writes the DuckDB engine's bytes: in local mode on a Zipfian table and on
a table full of ties, and through the command line on a real standalone cluster and a Spark Connect server on
127.0.0.1."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest
from zipf_phrase_table import write_zipf_phrase_table

from parastudio.core.errors import InputFormatError
from parastudio.core.tablebuild.pivot import pivot_table
from parastudio.core.tablebuild.spark_pivot import pivot_table_spark
from tests.conftest import ROOT

spark_test = pytest.mark.spark

ZIPF_RULES = 1500

# Equal probabilities (the κ cut and the row order fall to e2 by code point), several pivots per pair
# (sums of three or more terms, whose order matters), one- to three-word phrases (LW's exponent).
TIED_TABLE = """\
a ||| x ||| 0.5 0.25 0.5 0.5 ||| 0-0 ||| 1 1 1
b ||| x ||| 0.5 0.25 0.5 0.5 ||| 0-0 ||| 1 1 1
é ||| x ||| 0.5 0.25 0.5 0.5 ||| 0-0 ||| 1 1 1
c d ||| x ||| 0.5 0.25 0.5 0.5 ||| 0-0 ||| 1 1 1
a ||| y ||| 0.1 0.3 0.7 0.9 ||| 0-0 ||| 1 1 1
c d ||| y ||| 0.2 0.3 0.1 0.3 ||| 0-0 ||| 1 1 1
a ||| z w ||| 0.3 0.6 0.2 0.7 ||| 0-0 ||| 1 1 1
c d ||| z w ||| 0.3 0.6 0.2 0.7 ||| 0-0 ||| 1 1 1
a b c ||| z w ||| 0.1 0.2 0.3 0.4 ||| 0-0 ||| 1 1 1
a b c ||| y ||| 0.9 0.8 0.7 0.6 ||| 0-0 ||| 1 1 1
a b c ||| x ||| 0.4 0.4 0.4 0.4 ||| 0-0 ||| 1 1 1
"""


@pytest.fixture(scope="module")
def zipf_table(tmp_path_factory):
    return write_zipf_phrase_table(tmp_path_factory.mktemp("zipf") / "rules.txt.gz", ZIPF_RULES, seed=5)


@spark_test
@pytest.mark.parametrize("options", [{}, {"top": 2, "reverse": True, "features": False, "min_prob": 0.01}])
def test_spark_local_writes_the_duckdb_bytes(spark, zipf_table, tmp_path, options):
    duckdb_stats = pivot_table(zipf_table, tmp_path / "duckdb.txt", threads=1, **options)
    spark_stats = pivot_table_spark(spark, zipf_table, tmp_path / "spark.txt", **options)
    expected = (tmp_path / "duckdb.txt").read_bytes()
    assert expected.count(b"\n") > 50
    assert (tmp_path / "spark.txt").read_bytes() == expected
    for key in ("phrase_pairs_in", "phrases_e", "pivot_phrases", "pivot_clusters_dropped", "paraphrase_pairs_out",
                "source_phrases_out"):
        assert spark_stats[key] == duckdb_stats[key], key


@spark_test
def test_ties_and_many_pivots_give_the_duckdb_bytes(spark, tmp_path):
    table = tmp_path / "tied.txt"
    table.write_text(TIED_TABLE, encoding="utf-8")
    pivot_table(table, tmp_path / "duckdb.txt", threads=2, top=2)
    pivot_table_spark(spark, table, tmp_path / "spark.txt", top=2)
    expected = (tmp_path / "duckdb.txt").read_bytes()
    # b's paraphrases a, c d and é tie at 0.25: the cut at top=2 keeps the first two by code point.
    assert b"b ||| a ||| 0.25 " in expected and b"b ||| c d ||| 0.25 " in expected
    assert "b ||| é ||| ".encode() not in expected
    assert (tmp_path / "spark.txt").read_bytes() == expected


@spark_test
@pytest.mark.parametrize("scores", ["0.5 zero 0.5 0.5", "0.5 0.5_0 0.5 0.5", "0.5 0.5\u00a0 0.5 0.5",
                                    "0.5 \uff10.5 0.5 0.5"])
def test_a_bad_line_is_named_as_the_duckdb_engine_names_it(spark, tmp_path, scores):
    table = tmp_path / "bad.txt"
    table.write_text(TIED_TABLE + f"a ||| q ||| {scores}\n" + TIED_TABLE, encoding="utf-8")
    with pytest.raises(InputFormatError) as from_duckdb:
        pivot_table(table, tmp_path / "duckdb.txt", threads=1)
    with pytest.raises(InputFormatError) as from_spark:
        pivot_table_spark(spark, table, tmp_path / "spark.txt")
    assert str(from_spark.value) == str(from_duckdb.value)
    assert str(from_spark.value).startswith(f"{table}:12: expected a Moses phrase-table line")
    assert not (tmp_path / "spark.txt").exists()


def run_cli(*arguments, environment=None):
    environment = {**os.environ, **(environment or {}),
                   "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
    # The timeout only stops a hung run; nothing is asserted about time.
    return subprocess.run([sys.executable, "-m", "parastudio", *arguments], env=environment, capture_output=True,
                          text=True, timeout=900)


# Spark's own floor for spark.driver.maxResultSize ("at least 1M"): far below the pivot's output here, above
# what a bounded job returns: write statistics, and the range partitioner's sample of sort keys (60 keys per
# shuffle partition, bounded by their number, not by the data: 4 partitions here).
DRIVER_RESULT_LIMIT = "1m"
SPARK_DEFAULTS = f"spark.driver.maxResultSize {DRIVER_RESULT_LIMIT}\nspark.sql.shuffle.partitions 4\n"
BOUNDED_RULES = 8000


@spark_test
def test_pivot_command_on_a_standalone_cluster_writes_the_duckdb_bytes(spark_cluster, tmp_path):
    """On the cluster, with the driver refusing any job result over 1 MB: the output (about 3 MB) never
    travels to the driver as task results (issue 25: the driver's memory stays bounded), and the bytes are
    DuckDB's. --executor-memory reaches the cluster (the master lists the application's executor memory)."""
    table = write_zipf_phrase_table(tmp_path / "rules.txt.gz", BOUNDED_RULES, seed=7)
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text(SPARK_DEFAULTS)
    before = spark_cluster.application_names()
    on_cluster = run_cli("pivot", str(table), "-o", str(tmp_path / "cluster.txt.gz"), "--engine", "spark",
                         "--master", spark_cluster.master, "--driver-memory", "768m", "--executor-memory", "512m",
                         "--json", environment={"SPARK_CONF_DIR": str(conf)})
    assert on_cluster.returncode == 0, on_cluster.stderr[-3000:]
    assert spark_cluster.application_names() == sorted(before + ["parastudio-pivot"])
    status = spark_cluster.status()
    application = next(app for app in status["activeapps"] + status["completedapps"]
                       if app["name"] == "parastudio-pivot")
    assert application.get("memoryperexecutor", application.get("memoryperslave")) == 512
    on_duckdb = run_cli("pivot", str(table), "-o", str(tmp_path / "duckdb.txt.gz"), "--json")
    assert on_duckdb.returncode == 0, on_duckdb.stderr[-3000:]
    expected = gzip.decompress((tmp_path / "duckdb.txt.gz").read_bytes())
    assert len(expected) > 2 * 2**20  # twice the driver's result limit
    assert gzip.decompress((tmp_path / "cluster.txt.gz").read_bytes()) == expected
    assert json.loads(on_cluster.stdout)["engine"] == "spark"
    assert not list(tmp_path.glob(".pivot-*"))  # the part files are removed


@spark_test
def test_pivot_command_through_spark_connect_writes_the_duckdb_bytes(spark_connect_server, zipf_table, tmp_path):
    remote = run_cli("pivot", str(zipf_table), "-o", str(tmp_path / "remote.txt"), "--engine", "spark",
                     "--remote", spark_connect_server, "--top", "5")
    assert remote.returncode == 0, remote.stderr[-3000:]
    local = run_cli("pivot", str(zipf_table), "-o", str(tmp_path / "duckdb.txt"), "--top", "5")
    assert local.returncode == 0, local.stderr[-3000:]
    assert (tmp_path / "remote.txt").read_bytes() == (tmp_path / "duckdb.txt").read_bytes()


@pytest.mark.parametrize("arguments, message", [
    (["--engine", "spark", "--remote", "http://127.0.0.1:15002"], "--remote expects sc://HOST:PORT"),
    (["--engine", "spark", "--master", "local[2]", "--remote", "sc://127.0.0.1:15002"], "give exactly one of"),
    (["--remote", "sc://127.0.0.1:15002"], "--master and --remote need --engine spark"),
    (["--driver-memory", "2g"], "--driver-memory and --executor-memory need --engine spark"),
    (["--engine", "spark", "--driver-memory", "2 GB"], "--driver-memory expects a size such as 512m or 4g"),
    (["--engine", "spark", "--remote", "sc://127.0.0.1:15002", "--executor-memory", "2g"],
     "--executor-memory needs --master: a Spark Connect server sets its own memory"),
])
def test_pivot_refuses_spark_settings_it_cannot_use(tmp_path, arguments, message):
    table = tmp_path / "tied.txt"
    table.write_text(TIED_TABLE, encoding="utf-8")
    result = run_cli("pivot", str(table), "-o", str(tmp_path / "out.txt"), *arguments)
    assert result.returncode == 2
    assert f"parastudio pivot: error: {message}" in result.stderr
    assert not (tmp_path / "out.txt").exists()
