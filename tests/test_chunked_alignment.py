"""Word alignment by chunks (issue 41, item 4): each chunk's links depend only on its own lines, seed and index;
chunk 0 of nothing is the whole corpus as before; and Spark's executors, a chunk per task, give the local run's
links and table bytes, from lines in the driver and from files Spark reads itself."""

from __future__ import annotations

import gzip
import json
import os
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parastudio.core.cli import data_cmd, main
from parastudio.core.tablebuild import chunked_alignment
from parastudio.core.tablebuild.alignment import parse_links, symmetrized_alignments
from parastudio.core.tablebuild.chunked_alignment import (
    align_chunk,
    align_in_chunks,
    aligned_rows_spark,
    chunk_bounds,
    chunk_seed,
)
from parastudio.core.tablebuild.phrase_table_builder import build_phrase_table, build_phrase_table_from_files
from parastudio.core.tablebuild.spark_phrase_table import aligned_corpus_from_files, build_phrase_table_spark
from tests.conftest import ROOT
from tests.spark_fixtures import spark, spark_cluster  # noqa: F401 (fixtures)
from tests.test_spark_phrase_table import run_cli

ENGLISH = (ROOT / "evaldata" / "demo" / "test.en").read_text(encoding="utf-8").splitlines()
SPANISH = (ROOT / "evaldata" / "demo" / "test.es").read_text(encoding="utf-8").splitlines()
# 250 sentence pairs: the demo's 100 verses, then again in reverse, then the first 50: three chunks of 100.
SOURCES = ENGLISH + ENGLISH[::-1] + ENGLISH[:50]
TARGETS = SPANISH + SPANISH[::-1] + SPANISH[:50]


@given(st.integers(0, 5000), st.integers(1, 700))
def test_chunks_cover_every_pair_once_in_order_and_none_is_longer_than_asked(pairs, chunk_pairs):
    bounds = chunk_bounds(pairs, chunk_pairs)
    assert [start for start, _ in bounds] == list(range(0, pairs, chunk_pairs))
    assert all(0 < end - start <= chunk_pairs for start, end in bounds)
    assert [end for _, end in bounds] == [start for start, _ in bounds[1:]] + ([pairs] if pairs else [])


def test_chunk_seeds_differ_per_chunk_and_per_seed_and_are_fixed():
    seeds = {chunk_seed(seed, index) for seed in range(3) for index in range(50)}
    assert len(seeds) == 150
    assert chunk_seed(0, 0) == int.from_bytes(__import__("hashlib").sha256(b"0:align-chunk:0").digest()[:6], "big")


def test_no_chunks_is_the_whole_corpus_aligned_as_before():
    assert align_in_chunks(ENGLISH, SPANISH, chunk_pairs=0, seed=3) == symmetrized_alignments(ENGLISH, SPANISH, seed=3)


@pytest.fixture(scope="module")
def local_chunked_build(tmp_path_factory):
    """The local build by chunks of 100: its statistics, table (decompressed) and alignment file's bytes."""
    folder = tmp_path_factory.mktemp("local-chunked")
    stats = build_phrase_table(SOURCES, TARGETS, folder / "local.gz", max_length=7, align_chunk=100,
                               alignment_output=folder / "local.align")
    return stats, gzip.decompress((folder / "local.gz").read_bytes()), (folder / "local.align").read_bytes()


@pytest.fixture(scope="module")
def chunked_links(local_chunked_build):
    """The 250 pairs' links by chunks of 100, as the local build wrote them (align_in_chunks)."""
    return [parse_links(line) for line in local_chunked_build[2].decode().splitlines()]


def test_a_chunks_links_are_its_own_lines_alone_with_its_seed(chunked_links):
    assert len(chunked_links) == 250
    for index, (start, end) in enumerate(chunk_bounds(250, 100)):
        alone, _ = align_chunk(index, SOURCES[start:end], TARGETS[start:end], 0)
        assert chunked_links[start:end] == alone
    # The seed is the chunk's: the same lines as chunk 1 aligned as chunk 0 get other links.
    assert align_chunk(0, SOURCES[100:200], TARGETS[100:200], 0)[0] != chunked_links[100:200]
    # Chunks see less than the whole corpus: their links are not the whole run's.
    assert chunked_links[:100] != symmetrized_alignments(SOURCES, TARGETS, seed=0)[0][:100]


@pytest.mark.parametrize("chunk_pairs", [10, 99, -1])
def test_a_chunk_too_small_to_learn_from_is_refused(chunk_pairs):
    with pytest.raises(ValueError, match="at least 100 sentence pairs per chunk"):
        align_in_chunks(SOURCES, TARGETS, chunk_pairs=chunk_pairs)


@pytest.mark.parametrize("given_text", ["5", "99", "-100", "x", "1e3"])
def test_data_build_refuses_a_chunk_size_it_cannot_use(given_text, capsys, tmp_path):
    try:
        code = main(["data", "build", "--align-chunk", given_text, "--no-install", "--out", str(tmp_path / "out")])
    except SystemExit as exit_code:  # argparse's refusal of a value that is no whole number >= 0
        code = exit_code.code
    assert code == 2
    assert "--align-chunk" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    assert data_cmd.MIN_CHUNK_PAIRS == chunked_alignment.MIN_CHUNK_PAIRS


@pytest.mark.spark
def test_spark_aligns_a_chunk_per_task_with_the_local_links_and_table_bytes(spark, tmp_path,  # noqa: F811
                                                                           chunked_links, local_chunked_build):
    local, table, alignment = local_chunked_build
    on_spark = build_phrase_table(SOURCES, TARGETS, tmp_path / "spark.gz", align_chunk=100, spark=spark,
                                  alignment_output=tmp_path / "spark.align")
    assert table and gzip.decompress((tmp_path / "spark.gz").read_bytes()) == table
    assert (tmp_path / "spark.align").read_bytes() == alignment
    assert [parse_links(line) for line in (tmp_path / "spark.align").read_text().splitlines()] == chunked_links
    for key in ("phrase_pairs", "phrase_pair_occurrences", "alignment_links", "align_chunk"):
        assert on_spark[key] == local[key], key
    rows = spark.sparkContext.parallelize([(n + 1, s, t) for n, (s, t) in enumerate(zip(SOURCES, TARGETS))], 4)
    assert aligned_rows_spark(rows, 250, chunk_pairs=100).getNumPartitions() == 3  # one task per chunk


@pytest.mark.spark
def test_spark_reads_and_aligns_the_corpus_files_itself_with_the_local_bytes(spark, tmp_path,  # noqa: F811
                                                                            local_chunked_build):
    source, target = tmp_path / "corpus.en.gz", tmp_path / "corpus.es"
    with gzip.open(source, "wt", encoding="utf-8") as handle:
        handle.writelines(line + "\n" for line in SOURCES)
    target.write_text("".join(line + "\n" for line in TARGETS), encoding="utf-8")
    corpus = aligned_corpus_from_files(spark, source, target, chunk_pairs=100)
    build_phrase_table_spark(spark, corpus, tmp_path / "spark")
    assert (tmp_path / "spark").read_bytes() == local_chunked_build[1]
    target.write_text("".join(line + "\n" for line in TARGETS[:-1]), encoding="utf-8")  # one line short
    with pytest.raises(ValueError, match=r"corpus.es:250: expected as many lines as .*corpus.en.gz"):
        aligned_corpus_from_files(spark, source, target, chunk_pairs=100)


_OPENED_BY_THE_DRIVER: list[str] | None = None  # while set, every path this process's Python opens


def _record_opens(event, args):
    if event == "open" and _OPENED_BY_THE_DRIVER is not None and isinstance(args[0], (str, bytes, os.PathLike)):
        _OPENED_BY_THE_DRIVER.append(os.fsdecode(args[0]))


@pytest.mark.spark
def test_the_table_builder_on_spark_by_chunks_never_reads_the_corpus_in_the_driver(spark, tmp_path,  # noqa: F811
                                                                                  local_chunked_build):
    """Issue 41, item 4: on Spark by chunks, Spark reads the corpus files in its partitions; this process's Python
    opens neither (an audit hook sees every open). The table, the alignment and the counts are the local run's."""
    global _OPENED_BY_THE_DRIVER
    local, table, alignment = local_chunked_build
    source, target = tmp_path / "train.web", tmp_path / "train.rv.gz"
    source.write_text("".join(line + "\n" for line in SOURCES), encoding="utf-8")
    with gzip.open(target, "wt", encoding="utf-8") as handle:
        handle.writelines(line + "\n" for line in TARGETS)
    sys.addaudithook(_record_opens)
    _OPENED_BY_THE_DRIVER = []
    try:
        on_spark = build_phrase_table_from_files(source, target, tmp_path / "spark.gz", align_chunk=100, spark=spark,
                                                 alignment_output=tmp_path / "spark.align")
        opened = _OPENED_BY_THE_DRIVER
    finally:
        _OPENED_BY_THE_DRIVER = None
    assert str(source) not in opened and str(target) not in opened
    # The hook does see this process's opens: the alignment file's and the table's temporaries beside them.
    assert any(os.path.dirname(path) == str(tmp_path) for path in opened)
    assert gzip.decompress((tmp_path / "spark.gz").read_bytes()) == table
    assert (tmp_path / "spark.align").read_bytes() == alignment
    for key in ("sentence_pairs", "phrase_pairs", "phrase_pair_occurrences", "alignment_links", "align_chunk"):
        assert on_spark[key] == local[key], key
    # Without chunks the lines are read here, and the table is the same as from lines.
    here = build_phrase_table_from_files(source, target, tmp_path / "here.gz", align_chunk=100)
    assert gzip.decompress((tmp_path / "here.gz").read_bytes()) == table and here["sentence_pairs"] == 250


@pytest.mark.spark
def test_a_data_build_on_a_standalone_cluster_aligns_by_chunks_with_the_local_bytes(spark_cluster,  # noqa: F811
                                                                                   tmp_path, local_chunked_build):
    """The executors run in another home, with no compiler reached and no eflomal built there: the driver's
    eflomal program goes to them with the job; the chunks' links and the table are the local run's."""
    out = tmp_path / "evaldata"
    corpus = out / "build" / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "train.web").write_text("".join(line + "\n" for line in SOURCES), encoding="utf-8")
    (corpus / "train.rv").write_text("".join(line + "\n" for line in TARGETS), encoding="utf-8")
    result = run_cli("data", "build", "--out", str(out), "--stages", "phrase-table", "--no-install",
                     "--engine", "spark", "--master", spark_cluster.master, "--align-chunk", "100")
    assert result.returncode == 0, result.stderr[-3000:]
    tables = out / "build" / "tables"
    assert gzip.decompress((tables / "web-rv.phrase-table.gz").read_bytes()) == local_chunked_build[1]
    assert gzip.decompress((out / "build" / "alignment" / "web-rv.align.gz").read_bytes()) == local_chunked_build[2]
    report = json.loads((out / "build" / "report.json").read_text(encoding="utf-8"))
    assert report["stages"]["phrase-table"]["stats"]["align_chunk"] == 100
