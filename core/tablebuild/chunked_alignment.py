"""Word alignment by chunks of sentence pairs (issue 41, item 4): eflomal run on each chunk on its own, on this
machine or on Spark's executors, with the same links either way.

The corpus is cut into consecutive chunks of ``chunk_pairs`` sentence pairs (line order; the last chunk shorter);
chunk ``i`` is aligned by :func:`core.tablebuild.alignment.symmetrized_alignments` with the seed
:func:`chunk_seed` ``(seed, i)``, so a chunk's links depend only on its own lines, the seed and its index: the
local run (:func:`align_in_chunks`) and Spark (:func:`aligned_rows_spark`, a chunk per task) give the same links,
hence the same table bytes.

What it changes against one alignment of the whole corpus: eflomal's model (Östling and Tiedemann 2016) is
Bayesian, its lexical, distortion and fertility distributions learned by Gibbs sampling from the sentences it is
given. Per chunk, each model sees only its chunk: a word seen a few times in the corpus is seen even fewer times
in its chunk (rarer words are aligned worse), and eflomal's iteration counts follow the number of pairs
(:func:`core.tablebuild.alignment.eflomal_iterations`: 5000/sqrt(pairs)), so a small chunk is sampled longer.
``benchmarks/bench_align_chunks.py`` measures what it does to the table and to the pivot's rules.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import replace
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from parastudio.core.tablebuild.alignment import Link, format_links, symmetrized_alignments
from parastudio.core.tablebuild.eflomal_program import EflomalProgram, eflomal_program

# Below this, a chunk is too small for eflomal's sampler to learn anything: refused.
MIN_CHUNK_PAIRS = 100


def check_chunk_pairs(chunk_pairs: int) -> int:
    """``chunk_pairs`` if it is 0 (the whole corpus at once) or at least :data:`MIN_CHUNK_PAIRS`; else ValueError."""
    if chunk_pairs != 0 and chunk_pairs < MIN_CHUNK_PAIRS:
        raise ValueError(f"expected 0 (the whole corpus at once) or at least {MIN_CHUNK_PAIRS} "
                         f"sentence pairs per chunk, got {chunk_pairs}")
    return chunk_pairs


def chunk_seed(seed: int, index: int) -> int:
    """The eflomal seed of chunk ``index``: drawn from (seed, index), the same on every machine."""
    digest = hashlib.sha256(f"{int(seed)}:align-chunk:{int(index)}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def chunk_bounds(pairs: int, chunk_pairs: int) -> list[tuple[int, int]]:
    """The ``[start, end)`` line ranges of the chunks of a corpus of ``pairs`` sentence pairs."""
    if chunk_pairs <= 0:
        return [(0, pairs)] if pairs else []
    return [(start, min(start + chunk_pairs, pairs)) for start in range(0, pairs, chunk_pairs)]


def align_chunk(index: int, source_lines: Sequence[str], target_lines: Sequence[str], seed: int,
                program: EflomalProgram | None = None, *, whole: bool = False) -> tuple[list[list[Link]], dict]:
    """The grow-diag-final-and links of chunk ``index`` and the eflomal program that made them. ``whole``: the
    chunk is the whole corpus, aligned with ``seed`` itself, as before chunks existed."""
    chunk_seed_ = seed if whole else chunk_seed(seed, index)
    return symmetrized_alignments(source_lines, target_lines, seed=chunk_seed_, program=program)


def align_in_chunks(source_lines: Sequence[str], target_lines: Sequence[str], *, chunk_pairs: int, seed: int = 0
                    ) -> tuple[list[list[Link]], dict]:
    """Every pair's links, chunk by chunk on this machine; ``chunk_pairs`` 0 aligns the whole corpus at once (the
    links of :func:`symmetrized_alignments` with ``seed`` itself, as before chunks existed)."""
    if len(source_lines) != len(target_lines):
        raise ValueError(f"{len(source_lines)} source lines but {len(target_lines)} target lines")
    whole = check_chunk_pairs(chunk_pairs) == 0
    if whole and not source_lines:
        return symmetrized_alignments(source_lines, target_lines, seed=seed)
    links: list[list[Link]] = []
    program: dict = {}
    for index, (start, end) in enumerate(chunk_bounds(len(source_lines), chunk_pairs)):
        chunk, program = align_chunk(index, source_lines[start:end], target_lines[start:end], seed, whole=whole)
        links.extend(chunk)
    return links, program


def _shipped_program(name: str, built: EflomalProgram) -> EflomalProgram:
    """On an executor: the driver's eflomal program as Spark fetched it (``SparkContext.addFile``), so the
    executors need neither a compiler nor the source, and run the very program whose provenance the table
    records."""
    from pyspark import SparkFiles

    path = Path(SparkFiles.get(name))
    if not os.access(path, os.X_OK):
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return replace(built, path=path)


def _aligned_chunk(chunk: tuple[int, Iterable[tuple[int, str, str]]], seed: int, whole: bool,
                   shipped: tuple[str, EflomalProgram]) -> Iterator[tuple]:
    """A task's work: one chunk's rows ``(line number, source, target)`` with their links, in line order."""
    index, rows = chunk
    rows = sorted(rows)
    sources, targets = [row[1] for row in rows], [row[2] for row in rows]
    program = _shipped_program(*shipped)
    links, _program = align_chunk(index, sources, targets, seed, program, whole=whole)
    for (number, source, target), pair_links in zip(rows, links):
        yield number, source, target, format_links(pair_links)


def aligned_rows_spark(rows, pairs: int, *, chunk_pairs: int, seed: int = 0):
    """``rows``, an RDD of ``(line number from 1, source, target)`` over ``pairs`` sentence pairs (read by Spark,
    in any partitions), as an RDD of ``(line number, source, target, links)`` (what :class:`core.tablebuild
    .spark_phrase_table.SparkCorpus` holds) whose links the executors computed, a chunk per task: the links of
    :func:`align_in_chunks` with the same arguments. The driver's eflomal program goes to the executors with
    the job (``addFile``)."""
    whole = check_chunk_pairs(chunk_pairs) == 0
    size = max(1, pairs) if whole else chunk_pairs
    chunks = max(1, len(chunk_bounds(pairs, size)))
    program = eflomal_program()
    # Served from the driver for the session's life; the executors fetch it by its file name once each.
    rows.context.addFile(str(program.path))
    shipped = (program.path.name, program)
    return (rows.keyBy(lambda row: (row[0] - 1) // size)
            .groupByKey(numPartitions=chunks, partitionFunc=lambda key: key)
            .flatMap(lambda chunk: _aligned_chunk(chunk, seed, whole, shipped)))
