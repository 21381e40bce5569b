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
from parastudio.core.tablebuild.alignment import format_links, symmetrized_alignments
from parastudio.core.tablebuild.phrase_pair_counter import CorpusPhraseCounts
from parastudio.core.tablebuild.phrase_table_lines import write_table
from parastudio.core.textio import atomic_output


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
) -> dict:
    """Write ``output`` (plain or .gz, gzip level ``compresslevel``) and return statistics and timings.

    ``spark``: a SparkSession (:mod:`core.tablebuild.spark_session`) that extracts and scores instead of
    this process; the alignment is still computed here (eflomal).
    """
    if len(source_lines) != len(target_lines):
        raise ValueError(f"{len(source_lines)} source lines but {len(target_lines)} target lines")
    timings: dict[str, float] = {}

    started = time.perf_counter()
    progress(0, len(source_lines), "align")
    alignments, eflomal = symmetrized_alignments(source_lines, target_lines, seed=seed)
    timings["align_seconds"] = time.perf_counter() - started
    if alignment_output is not None:
        with atomic_output(alignment_output) as handle:
            handle.writelines(format_links(links) + "\n" for links in alignments)

    if spark is not None:
        from parastudio.core.tablebuild.spark_phrase_table import build_phrase_table_spark, corpus_from_lines

        started = time.perf_counter()
        progress(0, len(source_lines), "extract and score on Spark")
        corpus = corpus_from_lines(spark, source_lines, target_lines, alignments)
        totals = build_phrase_table_spark(spark, corpus, output, max_length=max_length, compresslevel=compresslevel)
        timings["spark_extract_score_and_write_seconds"] = time.perf_counter() - started
    else:
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
        totals = {"phrase_pair_occurrences": counts.occurrence_total, "phrase_pairs": counts.pair_total,
                  "source_phrases": counts.source_total, "target_phrases": counts.target_total}
    return {
        "sentence_pairs": len(source_lines),
        "alignment_links": sum(len(links) for links in alignments),
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
