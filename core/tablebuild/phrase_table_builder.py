"""A Moses phrase table from tokenized parallel text: align, extract, score, write.

Steps (Koehn et al. 2003 as Moses runs them): eflomal in both directions
(:mod:`core.tablebuild.alignment`), grow-diag-final-and, phrase pairs up to
``max_length`` consistent with the alignment (:mod:`core.tablebuild.phrase_extraction`),
the four Moses scores (:mod:`core.tablebuild.phrase_scoring`), both run by the fast
equivalent in :mod:`core.tablebuild.phrase_pair_counter`. The source lines are
the table's first field. Given a Spark session, extraction and scoring run on
Spark instead (:mod:`core.tablebuild.spark_phrase_table`), with the same bytes.
"""

from __future__ import annotations

import time
from pathlib import Path

from parastudio.core.progress import Progress, no_progress
from parastudio.core.tablebuild.alignment import format_links
from parastudio.core.tablebuild.chunked_alignment import align_in_chunks, aligned_rows_spark
from parastudio.core.tablebuild.eflomal_program import eflomal_program
from parastudio.core.tablebuild.phrase_pair_counter import CorpusPhraseCounts
from parastudio.core.tablebuild.phrase_table_lines import write_table
from parastudio.core.textio import atomic_output, open_text_maybe_gzip


def build_phrase_table(
    source_lines: list[str],
    target_lines: list[str],
    output: Path,
    *,
    max_length: int = 7,
    seed: int = 0,
    alignment_output: Path | None = None,
    progress: Progress = no_progress,
    compresslevel: int = 9,
    spark=None,
    align_chunk: int = 0,
) -> dict:
    """Write ``output`` (plain or .gz, gzip level ``compresslevel``) and return statistics and timings.

    ``spark``: a SparkSession (:mod:`core.tablebuild.spark_session`) that extracts and scores instead of
    this process. ``align_chunk``: eflomal runs on chunks of that many sentence pairs
    (:mod:`core.tablebuild.chunked_alignment`), on Spark's executors when ``spark`` is given; 0, the whole corpus
    at once, in this process.
    """
    if len(source_lines) != len(target_lines):
        raise ValueError(f"{len(source_lines)} source lines but {len(target_lines)} target lines")
    timings: dict[str, float] = {}

    if spark is not None and align_chunk:
        progress(0, len(source_lines), "align, extract and score on Spark")
        corpus = _aligned_on_spark(spark, source_lines, target_lines, align_chunk, seed)
        links_total, totals, eflomal = _table_of_aligned_corpus(spark, corpus, output, alignment_output,
                                                                max_length=max_length, compresslevel=compresslevel,
                                                                timings=timings)
    else:
        started = time.perf_counter()
        progress(0, len(source_lines), "align")
        alignments, eflomal = align_in_chunks(source_lines, target_lines, chunk_pairs=align_chunk, seed=seed)
        timings["align_seconds"] = time.perf_counter() - started
        links_total = sum(len(links) for links in alignments)
        if alignment_output is not None:
            with atomic_output(alignment_output) as handle:
                handle.writelines(format_links(links) + "\n" for links in alignments)
        totals = _extract_and_score(source_lines, target_lines, alignments, output, max_length=max_length,
                                    compresslevel=compresslevel, progress=progress, spark=spark, timings=timings)
    return _statistics(len(source_lines), links_total, totals, eflomal, output, timings, seed=seed,
                       max_length=max_length, align_chunk=align_chunk, spark=spark)


def build_phrase_table_from_files(source: Path, target: Path, output: Path, *, max_length: int = 7, seed: int = 0,
                                  alignment_output: Path | None = None, progress: Progress = no_progress,
                                  compresslevel: int = 9, spark=None, align_chunk: int = 0) -> dict:
    """:func:`build_phrase_table` of two line-parallel files (plain or .gz). On Spark by chunks (``spark`` and
    ``align_chunk`` given), Spark reads the files in its own partitions and the executors align them: no line of
    the corpus passes through this process. Spark reads them as Hadoop does (a lone ``\r`` ends a line, gzip is
    known by the ``.gz`` name, bytes that are not UTF-8 become U+FFFD), so give it files written as the data
    build writes its corpus; this process's own reading checks each line. Otherwise this process reads the
    lines."""
    if spark is None or not align_chunk:
        lines = []
        for path in (source, target):
            with open_text_maybe_gzip(path) as handle:
                lines.append([line.rstrip("\n") for line in handle])
        return build_phrase_table(*lines, output, max_length=max_length, seed=seed, alignment_output=alignment_output,
                                  progress=progress, compresslevel=compresslevel, spark=spark, align_chunk=align_chunk)
    from pyspark import StorageLevel

    from parastudio.core.tablebuild.spark_phrase_table import SparkCorpus, aligned_corpus_from_files

    timings: dict[str, float] = {}
    progress(0, 1, "read, align, extract and score on Spark")
    read = aligned_corpus_from_files(spark, source, target, chunk_pairs=align_chunk, seed=seed)
    corpus = SparkCorpus(read.rows.persist(StorageLevel.MEMORY_AND_DISK), read.names)
    try:
        pairs = corpus.rows.count()
    except BaseException:
        corpus.rows.unpersist()  # the table's own step releases it once it has run
        raise
    links_total, totals, eflomal = _table_of_aligned_corpus(spark, corpus, output, alignment_output,
                                                            max_length=max_length, compresslevel=compresslevel,
                                                            timings=timings)
    return _statistics(pairs, links_total, totals, eflomal, output, timings, seed=seed, max_length=max_length,
                       align_chunk=align_chunk, spark=spark)


def _table_of_aligned_corpus(spark, corpus, output: Path, alignment_output: Path | None, *, max_length: int,
                             compresslevel: int, timings: dict) -> tuple[int, dict, dict]:
    """The links' count, the table's totals and the eflomal program of a corpus the executors align (persisted;
    released here), its alignment and table written from Spark."""
    from parastudio.core.tablebuild.spark_phrase_table import build_phrase_table_spark

    started = time.perf_counter()
    try:
        links_total = _write_alignments(corpus.rows, alignment_output)
        totals = build_phrase_table_spark(spark, corpus, output, max_length=max_length, compresslevel=compresslevel)
    finally:
        corpus.rows.unpersist()
    timings["spark_align_extract_score_and_write_seconds"] = time.perf_counter() - started
    return links_total, totals, eflomal_program().provenance()


def _statistics(pairs: int, links_total: int, totals: dict, eflomal: dict, output: Path, timings: dict, *, seed: int,
                max_length: int, align_chunk: int, spark) -> dict:
    return {
        "sentence_pairs": pairs,
        "alignment_links": links_total,
        "align_chunk": align_chunk,
        "eflomal_seeded": True,  # the program refuses to run unseeded
        "eflomal": eflomal,
        "seed": seed,
        "max_length": max_length,
        "engine": "spark" if spark is not None else "local",
        "phrase_pair_occurrences": totals["phrase_pair_occurrences"],
        "phrase_pairs": totals["phrase_pairs"],
        "source_phrases": totals["source_phrases"],
        "target_phrases": totals["target_phrases"],
        "output": str(output),
        "timings": timings,
        "seconds": sum(timings.values()),
    }


def _extract_and_score(source_lines, target_lines, alignments, output: Path, *, max_length: int, compresslevel: int,
                       progress: Progress, spark, timings: dict) -> dict:
    """The table of an aligned corpus the driver holds: on Spark, or counted here."""
    if spark is not None:
        from parastudio.core.tablebuild.spark_phrase_table import build_phrase_table_spark, corpus_from_lines

        started = time.perf_counter()
        progress(0, len(source_lines), "extract and score on Spark")
        corpus = corpus_from_lines(spark, source_lines, target_lines, alignments)
        totals = build_phrase_table_spark(spark, corpus, output, max_length=max_length, compresslevel=compresslevel)
        timings["spark_extract_score_and_write_seconds"] = time.perf_counter() - started
        return totals
    started = time.perf_counter()
    counts = CorpusPhraseCounts(max_length)
    for number, (source, target, links) in enumerate(zip(source_lines, target_lines, alignments), start=1):
        counts.add_sentence(source.split(), target.split(), links)
        if number % 2000 == 0:
            progress(number, len(source_lines), "extract")
    timings["extract_seconds"] = time.perf_counter() - started
    started = time.perf_counter()
    write_table(counts.moses_lines(), output, compresslevel=compresslevel)
    timings["score_and_write_seconds"] = time.perf_counter() - started
    return {"phrase_pair_occurrences": counts.occurrence_total, "phrase_pairs": counts.pair_total,
            "source_phrases": counts.source_total, "target_phrases": counts.target_total}


def _aligned_on_spark(spark, source_lines, target_lines, align_chunk: int, seed: int):
    """The corpus as Spark rows, word-aligned on the executors a chunk per task, kept for its two readers."""
    from pyspark import StorageLevel

    from parastudio.core.tablebuild.spark_phrase_table import SparkCorpus

    numbered = [(number, source, target)
                for number, (source, target) in enumerate(zip(source_lines, target_lines), start=1)]
    rows = spark.sparkContext.parallelize(numbered, max(1, len(numbered) // max(1, align_chunk)))
    aligned = aligned_rows_spark(rows, len(numbered), chunk_pairs=align_chunk, seed=seed)
    return SparkCorpus(aligned.persist(StorageLevel.MEMORY_AND_DISK))


def _write_alignments(rows, alignment_output: Path | None) -> int:
    """The links of every pair, in line order, to ``alignment_output`` (when given), a partition at a time on
    the driver; returns how many links there are."""
    if alignment_output is None:
        return rows.map(lambda row: len(row[3].split())).sum()
    total = 0
    with atomic_output(alignment_output) as handle:
        for _number, _source, _target, links in rows.sortBy(lambda row: row[0]).toLocalIterator():
            handle.write(links + "\n")
            total += len(links.split())
    return total
