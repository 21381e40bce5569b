"""A Moses phrase table from tokenized parallel text: align, extract, score, write.

Steps (Koehn et al. 2003 as Moses runs them): eflomal in both directions
(:mod:`core.data.alignment`), grow-diag-final-and, phrase pairs up to
``max_length`` consistent with the alignment (:mod:`core.data.phrase_extraction`),
the four Moses scores (:mod:`core.data.phrase_scoring`). The source lines are
the table's first field.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Sequence

from core.atomic_write import atomic_output
from core.data.alignment import format_links, symmetrized_alignments
from core.data.phrase_extraction import extract_phrase_pairs
from core.data.phrase_scoring import PhrasePairCounts, WordTranslationTable


def build_phrase_table(
    source_lines: list[str],
    target_lines: list[str],
    output: Path,
    *,
    max_length: int = 7,
    seed: int = 0,
    alignment_output: Path | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> dict:
    """Write ``output`` (plain or .gz) and return statistics and timings."""
    if len(source_lines) != len(target_lines):
        raise ValueError(f"{len(source_lines)} source lines but {len(target_lines)} target lines")
    report = progress or (lambda stage, done, total: None)
    timings: dict[str, float] = {}

    started = time.perf_counter()
    report("align", 0, len(source_lines))
    alignments, seeded = symmetrized_alignments(source_lines, target_lines, seed=seed)
    timings["align_seconds"] = time.perf_counter() - started
    if alignment_output is not None:
        with atomic_output(alignment_output) as handle:
            handle.writelines(format_links(links) + "\n" for links in alignments)

    started = time.perf_counter()
    words = WordTranslationTable()
    counts = PhrasePairCounts()
    occurrences = 0
    for number, (source, target, links) in enumerate(zip(source_lines, target_lines, alignments), start=1):
        source_words, target_words = source.split(), target.split()
        words.add_sentence(source_words, target_words, links)
        for pair in extract_phrase_pairs(len(source_words), len(target_words), links, max_length=max_length):
            counts.add(
                " ".join(source_words[pair.source_start : pair.source_end + 1]),
                " ".join(target_words[pair.target_start : pair.target_end + 1]),
                pair.links,
            )
            occurrences += 1
        if number % 2000 == 0:
            report("extract", number, len(source_lines))
    timings["extract_seconds"] = time.perf_counter() - started

    started = time.perf_counter()
    scored = counts.scored(words)
    with atomic_output(output) as handle:
        for index in range(0, len(scored), 50_000):
            handle.write("".join(pair.moses_line() + "\n" for pair in scored[index : index + 50_000]))
    timings["score_and_write_seconds"] = time.perf_counter() - started
    return {
        "sentence_pairs": len(source_lines),
        "alignment_links": sum(len(links) for links in alignments),
        "eflomal_seeded": seeded,
        "seed": seed,
        "max_length": max_length,
        "phrase_pair_occurrences": occurrences,
        "phrase_pairs": len(scored),
        "source_phrases": len(counts.source_counts),
        "target_phrases": len(counts.target_counts),
        "output": str(output),
        "timings": timings,
        "seconds": sum(timings.values()),
    }
