"""A Moses phrase table from tokenized parallel text: align, extract, score, write.

Steps (Koehn et al. 2003 as Moses runs them): eflomal in both directions
(:mod:`core.tablebuild.alignment`), grow-diag-final-and, phrase pairs up to
``max_length`` consistent with the alignment (:mod:`core.tablebuild.phrase_extraction`),
the four Moses scores (:mod:`core.tablebuild.phrase_scoring`), both run by the fast
equivalent in :mod:`core.tablebuild.phrase_pair_counter`. The source lines are
the table's first field.
"""

from __future__ import annotations

import time
from pathlib import Path

from core.progress import Progress, no_progress
from core.textio import WriteBehind, atomic_output
from core.tablebuild.alignment import format_links, symmetrized_alignments
from core.tablebuild.phrase_pair_counter import CorpusPhraseCounts


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
) -> dict:
    """Write ``output`` (plain or .gz, gzip level ``compresslevel``) and return statistics and timings."""
    if len(source_lines) != len(target_lines):
        raise ValueError(f"{len(source_lines)} source lines but {len(target_lines)} target lines")
    timings: dict[str, float] = {}

    started = time.perf_counter()
    progress(0, len(source_lines), "align")
    alignments, seeded = symmetrized_alignments(source_lines, target_lines, seed=seed)
    timings["align_seconds"] = time.perf_counter() - started
    if alignment_output is not None:
        with atomic_output(alignment_output) as handle:
            handle.writelines(format_links(links) + "\n" for links in alignments)

    started = time.perf_counter()
    counts = CorpusPhraseCounts(max_length)
    for number, (source, target, links) in enumerate(zip(source_lines, target_lines, alignments), start=1):
        counts.add_sentence(source.split(), target.split(), links)
        if number % 2000 == 0:
            progress(number, len(source_lines), "extract")
    timings["extract_seconds"] = time.perf_counter() - started

    started = time.perf_counter()
    with atomic_output(output, compresslevel=compresslevel) as handle, WriteBehind(handle) as writer:
        batch: list[str] = []
        for line in counts.moses_lines():
            batch.append(line)
            if len(batch) == 50_000:
                writer.write("".join(batch))
                batch.clear()
        writer.write("".join(batch))
    timings["score_and_write_seconds"] = time.perf_counter() - started
    return {
        "sentence_pairs": len(source_lines),
        "alignment_links": sum(len(links) for links in alignments),
        "eflomal_seeded": seeded,
        "seed": seed,
        "max_length": max_length,
        "phrase_pair_occurrences": counts.occurrence_total,
        "phrase_pairs": counts.pair_total,
        "source_phrases": counts.source_total,
        "target_phrases": counts.target_total,
        "output": str(output),
        "timings": timings,
        "seconds": sum(timings.values()),
    }
