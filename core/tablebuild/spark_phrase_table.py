"""The Moses phrase table of a word-aligned corpus on Spark, byte-identical to the local build.

Three steps, each the local build's own:

1. *Extraction* runs our extractor (:class:`core.tablebuild.phrase_pair_counter.CorpusPhraseCounts`)
   on each partition of sentence pairs (``mapPartitions``), which emits integer counts of
   (source phrase, target phrase, internal alignment) and of word links (NULL for an unaligned word).
2. *Counting* in Spark SQL (:data:`PHRASE_TABLE_SQL`): every total is a sum of integers, so it is exact
   in any order; the best alignment of a pair is the most frequent, ties to the smallest, as locally;
   each pair gets the integer counts of the word links its lexical weights read.
3. *Writing* on the driver: the executors write the rows in the table's total order as part files beside
   the output, read back in order a batch at a time (:mod:`core.tablebuild.spark_ordered_parts`: no task
   result carries rows) into :func:`core.tablebuild.phrase_table_lines.moses_line`, the local build's
   writer, which does every division, sum and product.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from parastudio.core.errors import InputFormatError
from parastudio.core.tablebuild.alignment import Link, format_links, parse_links
from parastudio.core.tablebuild.phrase_pair_counter import CorpusPhraseCounts
from parastudio.core.tablebuild.phrase_scoring import NULL
from parastudio.core.tablebuild.phrase_table_lines import Layout, alignment_layout, moses_line, write_table
from parastudio.core.tablebuild.spark_ordered_parts import ordered_part_batches, ordered_part_files

# PHRASE_TABLE_SQL's columns, in order (moses_lines_of_rows unpacks them).
TABLE_COLUMNS = ("source", "target", "alignment", "count_pair", "count_source", "count_target", "words")
EXTRACTED_SCHEMA = "kind string, source string, target string, alignment array<int>, count bigint"
ALIGNMENT_EXPECTED = "links 'i-j' (0-based source and target word indices inside the sentence pair)"

# {extracted}: rows of EXTRACTED_SCHEMA; kind 'pair' (alignment packed s0 t0 s1 t1 ...) or 'word'.
PHRASE_TABLE_SQL = """
WITH occurrences AS (
    SELECT source, target, alignment, sum(count) AS count
    FROM {extracted} WHERE kind = 'pair' GROUP BY source, target, alignment
), pairs AS (
    -- Moses scores the most frequent alignment; ties go to the smallest (arrays compare element-wise).
    SELECT source, target, sum(count) AS count_pair,
           min(named_struct('minus_count', -count, 'alignment', alignment)).alignment AS alignment
    FROM occurrences GROUP BY source, target
), source_counts AS (
    SELECT source, sum(count) AS count_source FROM occurrences GROUP BY source
), target_counts AS (
    SELECT target, sum(count) AS count_target FROM occurrences GROUP BY target
), words AS (
    SELECT source, target, sum(count) AS count FROM {extracted} WHERE kind = 'word' GROUP BY source, target
), word_counts AS (
    -- w(e|f) = count / source_total, w(f|e) = count / target_total: divided by the writer.
    SELECT w.source, w.target, w.count, s.total AS source_total, t.total AS target_total
    FROM words w
    JOIN (SELECT source, sum(count) AS total FROM words GROUP BY source) s ON w.source = s.source
    JOIN (SELECT target, sum(count) AS total FROM words GROUP BY target) t ON w.target = t.target
), spelled AS (
    SELECT source, target, alignment, split(source, ' ') AS fw, split(target, ' ') AS ew,
           sequence(0, size(alignment) DIV 2 - 1) AS links
    FROM pairs
), needed AS (
    -- The word pairs the lexical weights read: every link, and NULL for a word with none.
    SELECT source AS pair_source, target AS pair_target, explode(array_distinct(concat(
        transform(links, i -> named_struct('source', fw[alignment[2 * i]], 'target', ew[alignment[2 * i + 1]])),
        transform(filter(sequence(0, size(fw) - 1), s -> NOT exists(links, i -> alignment[2 * i] = s)),
                  s -> named_struct('source', fw[s], 'target', '{null}')),
        transform(filter(sequence(0, size(ew) - 1), t -> NOT exists(links, i -> alignment[2 * i + 1] = t)),
                  t -> named_struct('source', '{null}', 'target', ew[t]))
    ))) AS word
    FROM spelled
), evidence AS (
    SELECT n.pair_source, n.pair_target,
           collect_list(named_struct('source', c.source, 'target', c.target, 'count', c.count,
                                     'source_total', c.source_total, 'target_total', c.target_total)) AS words
    FROM needed n JOIN word_counts c ON n.word.source = c.source AND n.word.target = c.target
    GROUP BY n.pair_source, n.pair_target
)
SELECT p.source, p.target, p.alignment, p.count_pair, s.count_source, t.count_target, e.words
FROM pairs p
JOIN source_counts s ON p.source = s.source
JOIN target_counts t ON p.target = t.target
LEFT JOIN evidence e ON p.source = e.pair_source AND p.target = e.pair_target
ORDER BY concat(p.source, ' ||| ', p.target, ' |||'), p.source, p.target
""".replace("{null}", NULL)

# One pass over the extracted rows: the first bad line (by line number), if any, and the totals.
CHECK_SQL = """
SELECT min(IF(kind = 'error', named_struct('line', count, 'path', source, 'expected', target), NULL)) AS error,
       sum(IF(kind = 'pair', count, 0)) AS occurrences,
       count(DISTINCT IF(kind = 'pair', source, NULL)) AS sources,
       count(DISTINCT IF(kind = 'pair', target, NULL)) AS targets
FROM {extracted}
"""


@dataclass(frozen=True)
class SparkCorpus:
    """Sentence pairs on Spark: an RDD of ``(line number, source, target, links text)``, and the inputs' names."""

    rows: object  # pyspark.RDD; a text is None where its file ended early
    names: tuple[str, str, str] = ("source", "target", "alignment")


def count_partition(rows: Iterable[tuple], max_length: int, names: tuple[str, str, str]) -> Iterator[tuple]:
    """Our extractor over one partition of ``(line number, source, target, links text)``; rows of EXTRACTED_SCHEMA.

    A line that cannot be read becomes an 'error' row (file, expected, line number) for the driver to report.
    """
    source_name, target_name, alignment_name = names
    counts = CorpusPhraseCounts(max_length)
    for line_number, source, target, links_text in rows:
        missing = [name for name, text in zip(names, (source, target, links_text)) if text is None]
        if missing:
            present = next(name for name in names if name not in missing)
            yield ("error", missing[0], f"a line for line {line_number} of {present}; the file ends early",
                   None, line_number)
            continue
        try:
            counts.add_sentence(source.split(), target.split(), parse_links(links_text))
        except ValueError:
            yield ("error", alignment_name, f"{ALIGNMENT_EXPECTED}; got {links_text[:120]!r}", None, line_number)
    for (source, target, packed), count in counts.occurrences.items():
        yield ("pair", source, target, list(packed), count)
    for (source, target), count in counts.word_pairs.items():
        yield ("word", source, target, None, count)


def corpus_from_files(spark, source: Path, target: Path, alignment: Path) -> SparkCorpus:
    """``(line number, source, target, links)`` from three line-parallel files (plain or .gz); None past an end."""
    context = _classic_context(spark)

    def numbered(path: Path):
        return context.textFile(str(path)).zipWithIndex().map(lambda pair: (pair[1] + 1, pair[0]))

    joined = numbered(source).fullOuterJoin(numbered(target)).fullOuterJoin(numbered(alignment))
    rows = joined.map(lambda item: (item[0], *(item[1][0] or (None, None)), item[1][1]))
    return SparkCorpus(rows, (str(source), str(target), str(alignment)))


def aligned_corpus_from_files(spark, source: Path, target: Path, *, chunk_pairs: int, seed: int = 0) -> SparkCorpus:
    """Two line-parallel files (plain or .gz) read by Spark, in its partitions, and word-aligned on the
    executors by chunks of ``chunk_pairs`` sentence pairs (:mod:`core.tablebuild.chunked_alignment`): nothing of
    the corpus passes through the driver. A line past the other file's end is a bad line, as in
    :func:`corpus_from_files`."""
    from parastudio.core.tablebuild.chunked_alignment import aligned_rows_spark

    context = _classic_context(spark)

    def numbered(path: Path):
        return context.textFile(str(path)).zipWithIndex().map(lambda pair: (pair[1] + 1, pair[0]))

    joined = numbered(source).fullOuterJoin(numbered(target))
    pairs = joined.count()
    complete = joined.filter(lambda item: item[1][0] is not None and item[1][1] is not None)
    if complete.count() != pairs:
        number, source_ended = (joined.filter(lambda item: item[1][0] is None or item[1][1] is None)
                                .map(lambda item: (item[0], item[1][0] is None)).min())
        shorter = source if source_ended else target
        raise InputFormatError(str(shorter), number, f"as many lines as {target if shorter == source else source}")
    rows = complete.map(lambda item: (item[0], item[1][0], item[1][1]))
    return SparkCorpus(aligned_rows_spark(rows, pairs, chunk_pairs=chunk_pairs, seed=seed),
                       (str(source), str(target), "alignment"))


def corpus_from_lines(spark, source_lines: Sequence[str], target_lines: Sequence[str],
                      alignments: Sequence[Sequence[Link]], *, partitions: int | None = None) -> SparkCorpus:
    """``(line number, source, target, links)`` from lines already in the driver (as the local build has them)."""
    if not len(source_lines) == len(target_lines) == len(alignments):
        raise ValueError(f"{len(source_lines)} source lines, {len(target_lines)} target lines and "
                         f"{len(alignments)} alignments")
    rows = [(number, source, target, format_links(links))
            for number, (source, target, links) in enumerate(zip(source_lines, target_lines, alignments), start=1)]
    return SparkCorpus(_classic_context(spark).parallelize(rows, partitions))


def build_phrase_table_spark(spark, corpus: SparkCorpus, output: Path, *, max_length: int = 7,
                             compresslevel: int = 9) -> dict:
    """Write the phrase table of ``corpus`` (:func:`corpus_from_files`, :func:`corpus_from_lines`) to ``output``.

    Returns the totals of the local build's statistics.

    Raises :class:`core.errors.InputFormatError` for the first bad line (by line number), before writing.
    """
    from pyspark import StorageLevel

    if not 1 <= max_length <= 255:
        raise ValueError(f"max_length must be in 1..255; got {max_length}")
    names = corpus.names
    extracted_rdd = corpus.rows.mapPartitions(lambda rows: count_partition(rows, max_length, names))
    extracted = spark.createDataFrame(extracted_rdd, EXTRACTED_SCHEMA).persist(StorageLevel.MEMORY_AND_DISK)
    try:
        check = spark.sql(CHECK_SQL, extracted=extracted).collect()[0]
        if check["error"] is not None:
            raise InputFormatError(check["error"]["path"], check["error"]["line"], check["error"]["expected"])
        written = 0

        def counted(lines: Iterator[str]) -> Iterator[str]:
            nonlocal written
            for line in lines:
                written += 1
                yield line

        # The part files beside the output (the driver and the executors must both see that folder).
        with ordered_part_files(spark.sql(PHRASE_TABLE_SQL, extracted=extracted), Path(output).resolve().parent,
                                prefix=f".{Path(output).name}.parts-") as parts:
            rows = (row for batch in ordered_part_batches(parts, TABLE_COLUMNS) for row in batch)
            write_table(counted(moses_lines_of_rows(rows)), output, compresslevel=compresslevel)
    finally:
        extracted.unpersist()
    return {"max_length": max_length, "phrase_pair_occurrences": check["occurrences"] or 0,
            "phrase_pairs": written, "source_phrases": check["sources"], "target_phrases": check["targets"],
            "output": str(output)}


def moses_lines_of_rows(rows: Iterable) -> Iterator[str]:
    """The writer's lines for PHRASE_TABLE_SQL's rows, in their order; w(f|e) and w(e|f) divided here."""
    layouts: dict[tuple[tuple[int, ...], int, int], Layout] = {}
    for source, target, alignment, count_pair, count_source, count_target, words in rows:
        f_given_e, e_given_f = {}, {}
        for word_source, word_target, count, source_total, target_total in words or ():
            f_given_e[(word_source, word_target)] = count / target_total
            e_given_f[(word_source, word_target)] = count / source_total
        layout_key = (tuple(alignment), source.count(" ") + 1, target.count(" ") + 1)
        layout = layouts.get(layout_key)
        if layout is None:
            layout = layouts[layout_key] = alignment_layout(*layout_key)
        yield moses_line(source, target, layout, count_target, count_source, count_pair, f_given_e, e_given_f)


def _classic_context(spark):
    try:
        return spark.sparkContext
    except Exception as error:  # Spark Connect sessions have no SparkContext
        from parastudio.core.tablebuild.spark_session import SparkUnavailable

        raise SparkUnavailable("the phrase-table build runs our extractor on each partition (RDDs), which "
                               "Spark Connect does not offer: use --master local[N] or spark://HOST:PORT") from error
