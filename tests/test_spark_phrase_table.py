"""The phrase table built on Spark (our extractor per partition, counts in Spark SQL, the one writer) has the
local build's bytes: on a small corpus made here, on the demo's test verses aligned by eflomal, on random
corpora, and on a real standalone cluster on 127.0.0.1."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from core.errors import InputFormatError
from core.evaldata.model_stages import PIVOT_PARAMETERS
from core.tablebuild.pivot import pivot_table
from core.tablebuild.alignment import format_links, parse_links, symmetrized_alignments
from core.tablebuild.phrase_pair_counter import CorpusPhraseCounts
from core.tablebuild.phrase_table_lines import write_table
from core.tablebuild.spark_phrase_table import build_phrase_table_spark, corpus_from_files, corpus_from_lines
from tests.conftest import ROOT

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


@spark_test
def test_demo_test_verses_aligned_by_eflomal_have_the_local_bytes(spark, tmp_path):
    """The demo's 100 WEB test verses and their RV1909 text: a real slice of the demo corpus, aligned once."""
    english = (ROOT / "evaldata" / "demo" / "test.en").read_text(encoding="utf-8").splitlines()[:15]
    spanish = (ROOT / "evaldata" / "demo" / "test.es").read_text(encoding="utf-8").splitlines()[:15]
    alignments, _ = symmetrized_alignments(english, spanish, seed=0)
    corpus = list(zip(english, spanish, alignments))
    expected = local_table(corpus, 7, tmp_path / "local.txt")
    assert expected.count(b"\n") > 300
    assert spark_table(spark, corpus, 7, tmp_path / "spark.txt", partitions=4) == expected


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


def run_cli(*arguments):
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))}
    # The timeout only stops a hung run; nothing is asserted about time.
    return subprocess.run([sys.executable, "-m", "core", *arguments], env=environment, capture_output=True,
                          text=True, timeout=900)


@spark_test
def test_data_build_on_a_standalone_cluster_writes_the_local_tables(spark_cluster, tmp_path):
    """`parastudio data build --stages phrase-table pivot --engine spark --master spark://127.0.0.1:PORT` on real
    daemons: corpus -> bilingual table -> paraphrase table, each the local engine's bytes."""
    out = tmp_path / "evaldata"
    corpus = out / "build" / "corpus"
    corpus.mkdir(parents=True)
    english = (ROOT / "evaldata" / "demo" / "test.en").read_text(encoding="utf-8").splitlines()[:20]
    spanish = (ROOT / "evaldata" / "demo" / "test.es").read_text(encoding="utf-8").splitlines()[:20]
    (corpus / "train.web").write_text("\n".join(english) + "\n", encoding="utf-8")
    (corpus / "train.rv").write_text("\n".join(spanish) + "\n", encoding="utf-8")
    before = spark_cluster.application_names()
    result = run_cli("data", "build", "--out", str(out), "--stages", "phrase-table", "pivot", "--no-install",
                     "--engine", "spark", "--master", spark_cluster.master)
    assert result.returncode == 0, result.stderr[-3000:]
    assert spark_cluster.application_names() == sorted(before + ["parastudio-data-build"])
    # The local build of the alignment the stage wrote (eflomal ran once, in the stage).
    with gzip.open(out / "build" / "alignment" / "web-rv.align.gz", "rt", encoding="utf-8") as handle:
        alignments = [parse_links(line) for line in handle]
    expected = local_table(list(zip(english, spanish, alignments)), 7, tmp_path / "local.txt")
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


@pytest.mark.parametrize("arguments, message", [
    (["--engine", "spark", "--master", "yarn"], "--master expects local, local[N], local[*] or spark://HOST:PORT"),
    (["--master", "local[2]"], "--master needs --engine spark"),
])
def test_data_build_refuses_a_master_it_cannot_use(tmp_path, arguments, message):
    result = run_cli("data", "build", "--out", str(tmp_path), "--stages", "phrase-table", "--no-install", *arguments)
    assert result.returncode == 2
    assert f"parastudio: error: {message}" in result.stderr
