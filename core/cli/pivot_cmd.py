"""``parastudio pivot PHRASE_TABLE -o PARA_TABLE``: paraphrase table by pivoting (seed 000 §3.1)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from parastudio.core.cli.number_options import COUNT, PROBABILITY


def register(subparsers: argparse._SubParsersAction) -> None:
    from parastudio.core.cli.spark_options import add_spark_options

    parser = subparsers.add_parser(
        "pivot",
        help="build a paraphrase table from a bilingual Moses phrase table",
        description=(
            "p(e2|e1) = sum_f p(e2|f) p(f|e1), pruned as in Chevelu et al. 2010: pivot clusters larger "
            "than --max-pivot dropped, pairs below --min-prob dropped, --top paraphrases kept per phrase. "
            "Output: 'e1 ||| e2 ||| p(e2|e1) h1 h2 h3 h4' (Zhao et al. 2008 features, natural logs)."
        ),
    )
    parser.add_argument("phrase_table", help="Moses phrase table (plain or .gz); E is the first field. With --engine "
                        "spark also a folder or glob of part files, Parquet (a column 'line'), or a URI Spark reads "
                        "(file://, hdfs://, s3a://), read in parallel")
    parser.add_argument("-o", "--output", type=Path, required=True, help="paraphrase table to write (.gz to compress)")
    parser.add_argument("--min-prob", type=PROBABILITY, default=1e-5,
                        help="E: drop pairs with p(e2|e1) below this (1e-5)")
    parser.add_argument("--max-pivot", type=COUNT, default=200, help="tau: drop pivot clusters larger than this (200)")
    parser.add_argument("--top", type=COUNT, default=20, help="kappa: paraphrases kept per phrase (20)")
    parser.add_argument("--reverse", action="store_true", help="the language to paraphrase is the second field")
    parser.add_argument("--no-features", action="store_true", help="write only p(e2|e1), without h1..h4")
    parser.add_argument("--memory-limit", default=None,
                        help="DuckDB memory limit, e.g. 1GB; beyond it DuckDB spills to --temp-dir (default: a third "
                        "of RAM)")
    parser.add_argument("--temp-dir", type=Path, default=None,
                        help="where DuckDB keeps its database and spills, or Spark's executors write the ordered part "
                        "files the driver joins (then a folder every machine sees) (default: beside the output; e.g. "
                        "/tmp to use the system's temp folder)")
    parser.add_argument("--threads", type=COUNT, default=os.cpu_count() or 1,
                        help="DuckDB threads (default: every core, %(default)s here); the output is the same bytes "
                        "for any number of threads and any --memory-limit")
    parser.add_argument("--engine", choices=("duckdb", "spark"), default="duckdb",
                        help="duckdb (default): in this process; spark: the same query on Apache Spark (--master or "
                        "--remote), the same bytes")
    add_spark_options(parser)
    parser.add_argument("--output-format", choices=("text", "parquet"), default="text",
                        help="text (default): the table, gzip when the name ends in .gz; parquet (--engine spark): a "
                        "folder of part files of one column 'line', the same lines in the same order")
    parser.add_argument("--prune", metavar="FILE", help="leave out the pairs of a prune list ('e1 ||| e2' per line, "
                        "as `parastudio inspect-rules --prune-list` writes it)")
    parser.add_argument("--json", action="store_true", help="print the statistics as one JSON object")
    parser.set_defaults(func=run_pivot)


def run_pivot(args: argparse.Namespace) -> int:
    from parastudio.core.cli.progress_bar import progress_bar
    from parastudio.core.cli.spark_options import spark_settings
    from parastudio.core.tablebuild.pivot import pivot_table
    from parastudio.core.tablebuild.spark_session import SparkUnavailable

    try:
        spark = spark_settings(args)
    except SparkUnavailable as error:
        print(f"parastudio pivot: error: {error}", file=sys.stderr)
        return 2
    if args.output_format == "parquet" and spark is None:
        print("parastudio pivot: error: --output-format parquet needs --engine spark", file=sys.stderr)
        return 2
    exclude = None
    if args.prune:
        from parastudio.core.inspection.rule_blame import read_prune_list

        exclude = read_prune_list(args.prune)
    from parastudio.core.interruption import signals_noted

    try:  # Ctrl+C during a DuckDB query is DuckDB's RuntimeError("Query interrupted"): said as an interruption
        with signals_noted(), progress_bar(units={"load": "pairs", "write": "rows"}) as progress:
            if spark is None:
                stats = pivot_table(Path(args.phrase_table), args.output, min_prob=args.min_prob,
                                    max_pivot=args.max_pivot, top=args.top, reverse=args.reverse,
                                    features=not args.no_features, memory_limit=args.memory_limit,
                                    temp_directory=args.temp_dir, threads=args.threads, progress=progress,
                                    exclude=exclude, inputs=[args.prune])
            else:
                stats = _pivot_on_spark(args, spark, exclude, progress)
    except SparkUnavailable as error:
        print(f"parastudio pivot: error: {error}", file=sys.stderr)
        return 1
    except ValueError as error:
        if error.__class__ is not ValueError:
            raise
        print(f"parastudio pivot: error: {error}", file=sys.stderr)
        return 2
    from parastudio.core.output_files import writes_to_standard_output

    summary = sys.stderr if writes_to_standard_output(args.output) else sys.stdout
    if args.json:
        print(json.dumps(stats), file=summary)
    else:
        print(
            f"{stats['phrase_pairs_in']} phrase pairs ({stats['phrases_e']} phrases, {stats['pivot_phrases']} pivots, "
            f"{stats['pivot_clusters_dropped']} clusters > {stats['max_pivot']} dropped) -> "
            f"{stats['paraphrase_pairs_out']} paraphrase pairs for {stats['source_phrases_out']} phrases "
            f"in {stats['seconds']:.2f} s: {stats['output']}", file=summary
        )
    return 0


def _pivot_on_spark(args: argparse.Namespace, settings, exclude, progress) -> dict:
    from parastudio.core.tablebuild.spark_pivot import pivot_table_spark
    from parastudio.core.tablebuild.spark_session import spark_session

    session = spark_session(settings, app_name="parastudio-pivot")
    try:
        return pivot_table_spark(session, args.phrase_table, args.output, min_prob=args.min_prob,
                                 max_pivot=args.max_pivot, top=args.top, reverse=args.reverse,
                                 features=not args.no_features, exclude=exclude, progress=progress,
                                 inputs=[args.prune], temp_directory=args.temp_dir,
                                 output_format=args.output_format)
    finally:
        session.stop()
