"""The phrase table built on Spark (our extractor per partition, counts in Spark SQL, the one writer) has the
local build's bytes: on a small corpus made here, on the demo's test verses aligned by eflomal (in one
partition and in many), on random corpora, through `data build` with a driver that refuses any job result over
1 MiB, and on a real standalone cluster on 127.0.0.1."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from parastudio.core.errors import InputFormatError
from parastudio.core.evaldata.model_stages import PIVOT_PARAMETERS
from parastudio.core.tablebuild.alignment import format_links, parse_links, symmetrized_alignments
from parastudio.core.tablebuild.phrase_pair_counter import CorpusPhraseCounts
from parastudio.core.tablebuild.phrase_table_lines import write_table
from parastudio.core.tablebuild.pivot import pivot_table
from parastudio.core.tablebuild.spark_phrase_table import build_phrase_table_spark, corpus_from_files, corpus_from_lines
from tests.conftest import ROOT
from tests.spark_fixtures import spark_failure

spark_test = pytest.mark.spark

# Repeated phrases with several alignments (ties and majorities), unaligned words at edges and inside,
# one-to-many links, a non-ASCII word that sorts after ASCII, a word spelled NULL, an empty sentence pair.
SMALL_CORPUS = [
    ("la casa verde", "the green house", [(0, 0), (1, 2), (2, 1)]),
    ("la casa", "the house", [(0, 0), (1, 1)]),
    ("la casa", "the house", [(0, 0), (0, 1), (1, 1)]),
    ("la casa", "the house", [(1, 0), (1, 1)]),
    ("el niño come", "the child eats now", [(0, 0), (1, 1), (2, 2)]),
    ("come la manzana", "eats the apple .", [(0, 0), (1, 1), (2, 2)]),
    ("ñu NULL come", "gnu eats", [(0, 0), (2, 1)]),
    ("", "", []),
    ("la verde casa come", "the green house eats", [(0, 0), (1, 1), (2, 2), (3, 3), (2, 1)]),
]


def local_table(corpus, max_length, path):
    counts = CorpusPhraseCounts(max_length)
    for source, target, links in corpus:
        counts.add_sentence(source.split(), target.split(), links)
    write_table(counts.moses_lines(), path)
    return path.read_bytes()


def spark_table(spark, corpus, max_length, path, partitions=3):
    rows = corpus_from_lines(spark, [c[0] for c in corpus], [c[1] for c in corpus], [c[2] for c in corpus],
                             partitions=partitions)
    build_phrase_table_spark(spark, rows, path, max_length=max_length)
    return path.read_bytes()


def write_corpus_files(folder, corpus):
    paths = folder / "corpus.src", folder / "corpus.tgt", folder / "corpus.align.gz"
    paths[0].write_text("".join(source + "\n" for source, _, _ in corpus), encoding="utf-8")
    paths[1].write_text("".join(target + "\n" for _, target, _ in corpus), encoding="utf-8")
    with gzip.open(paths[2], "wt", encoding="utf-8") as handle:
        handle.writelines(format_links(links) + "\n" for _, _, links in corpus)
    return paths


@spark_test
def test_small_corpus_from_files_has_the_local_bytes(spark, tmp_path):
    expected = local_table(SMALL_CORPUS, 7, tmp_path / "local.txt")
    corpus = corpus_from_files(spark, *write_corpus_files(tmp_path, SMALL_CORPUS))
    stats = build_phrase_table_spark(spark, corpus, tmp_path / "spark.txt", max_length=7)
    assert (tmp_path / "spark.txt").read_bytes() == expected
    assert stats["phrase_pairs"] == expected.count(b"\n")
    # The corpus exercises what the test claims: a pair with several alignments and a NULL-word line.
    assert b"la casa ||| the house ||| " in expected and b"\xc3\xb1u" in expected


@pytest.fixture(scope="module")
def demo_verses_aligned():
    """The first of the demo's 100 WEB test verses and their RV1909 text: a real slice of the demo corpus,
    aligned once by eflomal."""
    english = (ROOT / "evaldata" / "demo" / "test.en").read_text(encoding="utf-8").splitlines()[:15]
    spanish = (ROOT / "evaldata" / "demo" / "test.es").read_text(encoding="utf-8").splitlines()[:15]
    alignments, _ = symmetrized_alignments(english, spanish, seed=0)
    return list(zip(english, spanish, alignments))


@contextmanager
def output_partitions(spark, count: int | None):
    """The query's ORDER BY split into ``count`` ranges (so as many ordered part files), none merged by
    adaptive execution; the shared session's settings come back afterwards. None: leave them."""
    keys = ("spark.sql.shuffle.partitions", "spark.sql.adaptive.coalescePartitions.enabled")
    before = {key: spark.conf.get(key) for key in keys}
    try:
        if count is not None:
            spark.conf.set(keys[0], str(count))
            spark.conf.set(keys[1], "false")
        yield
    finally:
        for key, value in before.items():
            spark.conf.set(key, value)


@spark_test
@pytest.mark.parametrize("input_partitions, ordered_parts", [(1, 1), (4, None), (15, 24)],
                         ids=["one partition", "the session's", "many small partitions"])
def test_demo_test_verses_aligned_by_eflomal_have_the_local_bytes(spark, demo_verses_aligned, tmp_path,
                                                                   input_partitions, ordered_parts):
    """Extraction over 1, 4 or 15 partitions of sentence pairs, the rows written as 1, the session's 3 or 24
    ordered part files and joined by the one writer: the local bytes each time."""
    expected = local_table(demo_verses_aligned, 7, tmp_path / "local.txt")
    assert expected.count(b"\n") > 300
    with output_partitions(spark, ordered_parts):
        built = spark_table(spark, demo_verses_aligned, 7, tmp_path / "spark.txt", partitions=input_partitions)
    assert built == expected


@st.composite
def aligned_corpora(draw):
    pairs = []
    for _ in range(draw(st.integers(1, 5))):
        m, n = draw(st.integers(0, 6)), draw(st.integers(0, 6))
        source = draw(st.lists(st.sampled_from(["a", "b", "c", "NULL"]), min_size=m, max_size=m))
        target = draw(st.lists(st.sampled_from(["x", "y", "é"]), min_size=n, max_size=n))
        links = sorted(draw(st.sets(st.tuples(st.integers(0, m - 1), st.integers(0, n - 1)), max_size=10))) \
            if m and n else []
        pairs.append((" ".join(source), " ".join(target), links))
    return pairs


@spark_test
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(aligned_corpora(), st.integers(1, 4))
def test_random_aligned_corpora_have_the_local_bytes(spark, tmp_path_factory, corpus, max_length):
    assume(any(links for _, _, links in corpus))
    folder = tmp_path_factory.mktemp("random")
    expected = local_table(corpus, max_length, folder / "local.txt")
    assert spark_table(spark, corpus, max_length, folder / "spark.txt", partitions=2) == expected


@spark_test
def test_a_bad_alignment_line_is_named_by_file_and_line(spark, tmp_path):
    corpus = [("a b", "x y", [(0, 0)]), ("a", "x", [(0, 0)]), ("b", "y", [(0, 0)])]
    source, target, alignment = write_corpus_files(tmp_path, corpus)
    with gzip.open(alignment, "wt", encoding="utf-8") as handle:
        # Lines 2 and 3 are bad (a word outside the sentence, not a link): the first is named.
        handle.write("0-0 1-1\n0-5\nzero-0\n")
    with pytest.raises(InputFormatError) as error:
        build_phrase_table_spark(spark, corpus_from_files(spark, source, target, alignment), tmp_path / "out.txt")
    assert str(error.value).startswith(f"{alignment}:2: expected links 'i-j'")
    assert not (tmp_path / "out.txt").exists()


@spark_test
def test_a_short_target_file_is_named_with_the_missing_line(spark, tmp_path):
    source, target, alignment = write_corpus_files(tmp_path, SMALL_CORPUS[:3])
    target.write_text("the green house\nthe house\n", encoding="utf-8")
    with pytest.raises(InputFormatError) as error:
        build_phrase_table_spark(spark, corpus_from_files(spark, source, target, alignment), tmp_path / "out.txt")
    assert str(error.value).startswith(f"{target}:3: expected a line for line 3 of {source}")


def run_cli(*arguments, environment=None):
    environment = {**os.environ, **(environment or {}),
                   "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
    # The timeout only stops a hung run; nothing is asserted about time.
    return subprocess.run([sys.executable, "-m", "parastudio", *arguments], env=environment, capture_output=True,
                          text=True, timeout=900)


@spark_test
def test_data_build_on_a_standalone_cluster_writes_the_local_tables(spark_cluster, tmp_path):
    """`parastudio data build --stages phrase-table pivot --engine spark --master spark://127.0.0.1:PORT` on real
    daemons: corpus -> bilingual table -> paraphrase table, each the local engine's bytes."""
    out = tmp_path / "evaldata"
    english, spanish = write_build_corpus(out, 20)
    before = spark_cluster.application_names()
    result = run_cli("data", "build", "--out", str(out), "--stages", "phrase-table", "pivot", "--no-install",
                     "--engine", "spark", "--master", spark_cluster.master)
    assert result.returncode == 0, result.stderr[-3000:]
    assert spark_cluster.application_names() == sorted(before + ["parastudio-data-build"])
    expected = local_table(list(zip(english, spanish, stage_alignments(out))), 7, tmp_path / "local.txt")
    tables = out / "build" / "tables"
    with gzip.open(tables / "web-rv.phrase-table.gz", "rb") as handle:
        assert handle.read() == expected
    pivot_table(tables / "web-rv.phrase-table.gz", tmp_path / "duckdb-pivot.txt", **PIVOT_PARAMETERS, threads=1)
    with gzip.open(tables / "paraphrase-table.gz", "rb") as handle:
        assert handle.read() == (tmp_path / "duckdb-pivot.txt").read_bytes()
    report = json.loads((out / "build" / "report.json").read_text(encoding="utf-8"))
    assert report["last_run"]["engine"] == "spark"
    assert report["stages"]["phrase-table"]["stats"]["engine"] == "spark"
    assert report["stages"]["pivot"]["stats"]["engine"] == "spark"


def write_build_corpus(out, verses: int) -> tuple[list[str], list[str]]:
    """The first ``verses`` demo test verses as the data build's corpus (WEB and RV1909) under ``out``."""
    corpus = out / "build" / "corpus"
    corpus.mkdir(parents=True)
    english = (ROOT / "evaldata" / "demo" / "test.en").read_text(encoding="utf-8").splitlines()[:verses]
    spanish = (ROOT / "evaldata" / "demo" / "test.es").read_text(encoding="utf-8").splitlines()[:verses]
    (corpus / "train.web").write_text("\n".join(english) + "\n", encoding="utf-8")
    (corpus / "train.rv").write_text("\n".join(spanish) + "\n", encoding="utf-8")
    return english, spanish


def stage_alignments(out) -> list:
    """The word alignment the phrase-table stage wrote (eflomal ran once, in the stage)."""
    with gzip.open(out / "build" / "alignment" / "web-rv.align.gz", "rt", encoding="utf-8") as handle:
        return [parse_links(line) for line in handle]


# Spark's floor for spark.driver.maxResultSize ("at least 1M"), read from SPARK_CONF_DIR by the build's JVM.
DRIVER_RESULT_LIMIT = 2**20


@spark_test
def test_data_build_with_a_driver_that_refuses_job_results_over_1mb_writes_the_local_table(tmp_path):
    """Issue 25: the table's rows never reach the driver as task results (ordered part files instead). The
    driver's JVM refuses any job whose results pass 1 MiB; the table of the 100 demo test verses is larger,
    and its bytes are the local build's. --driver-memory reaches the session (the build names it)."""
    out = tmp_path / "evaldata"
    english, spanish = write_build_corpus(out, 100)
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "spark-defaults.conf").write_text(f"spark.driver.maxResultSize {DRIVER_RESULT_LIMIT}b\n")
    result = run_cli("data", "build", "--out", str(out), "--stages", "phrase-table", "--no-install",
                     "--engine", "spark", "--master", "local[2]", "--driver-memory", "512m",
                     environment={"SPARK_CONF_DIR": str(conf)})
    assert result.returncode == 0, spark_failure(result.stderr)
    assert "driver memory 512m" in result.stderr
    expected = local_table(list(zip(english, spanish, stage_alignments(out))), 7, tmp_path / "local.txt")
    assert len(expected) > 2 * DRIVER_RESULT_LIMIT
    with gzip.open(out / "build" / "tables" / "web-rv.phrase-table.gz", "rb") as handle:
        assert handle.read() == expected
    assert not list((out / "build" / "tables").glob(".*parts-*"))  # the part files are removed


@pytest.mark.parametrize("arguments, message", [
    (["--engine", "spark", "--master", "mesos://host:5050"],
     "--master expects local[N], spark://HOST:PORT, yarn or k8s://URL (what spark-submit takes)"),
    (["--executor-memory", "1g"], "--driver-memory and --executor-memory need --engine spark"),
    (["--engine", "spark", "--driver-memory", "2XB"], "--driver-memory expects a size such as 512m or 4g; got '2XB'"),
    (["--engine", "spark", "--remote", "sc://127.0.0.1:15002"],
     "--remote: the phrase-table stage runs our extractor on each partition (RDDs), which Spark Connect does not "
     "offer"),
    (["--master", "local[2]"], "--master and --remote need --engine spark"),
])
def test_data_build_refuses_spark_settings_it_cannot_use(tmp_path, arguments, message):
    result = run_cli("data", "build", "--out", str(tmp_path), "--stages", "phrase-table", "--no-install", *arguments)
    assert result.returncode == 2
    assert f"parastudio: error: {message}" in result.stderr
    assert "on Spark:" not in result.stderr and "[phrase-table]" not in result.stderr  # refused before it starts
