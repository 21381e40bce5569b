"""``parastudio data build``: rebuild evaldata/ (corpus, split, tables, LM, test cases, demo)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from parastudio.core.cli.number_options import COUNT, WholeNumber

MIN_CHUNK_PAIRS = 100  # core.tablebuild.chunked_alignment's (not imported here: `data --help` stays quick)

# Why `data build --remote` is refused before any stage runs (core/tablebuild/spark_phrase_table.py).
WITHOUT_CONNECT = ("the phrase-table stage runs our extractor on each partition (RDDs), which Spark Connect does "
                   "not offer")


def register(subparsers: argparse._SubParsersAction) -> None:
    from parastudio.core.cli.lazy_parser import add_lazy_parser

    data = subparsers.add_parser("data", help="build the real-data corpus, tables, LM and test sets")
    data_sub = data.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    add_lazy_parser(data_sub, "build", _build_arguments,
                    help="rebuild evaldata/ from Debian's SWORD packages (sword-text-web, -kjv, -sparv)")


def _build_arguments(build: argparse.ArgumentParser) -> None:
    from parastudio.core.cli.spark_options import add_spark_options
    from parastudio.core.evaldata.build import (
        STAGES,  # the stages' modules: only when `data build` runs or shows its help
    )

    build.description = ("Stages run in pipeline order; each reads what earlier stages wrote under OUT/build. "
                         f"Stages: {', '.join(STAGES)}.")
    build.add_argument("--out", type=Path, help="evaldata directory (default: the checkout's evaldata/)")
    build.add_argument("--stages", nargs="+", metavar="STAGE", choices=STAGES,
                       help="run only these stages (default: all)")
    build.add_argument("--jobs", type=COUNT, default=2, metavar="N",
                       help="2 (default): build the WEB-KJV table, LM and test cases in a second process while "
                            "the WEB-RV table and pivot run; 1: one stage at a time")
    build.add_argument("--no-install", dest="install", action="store_false",
                       help="never run apt-get; if the SWORD packages are missing, print the command that installs them")
    build.add_argument("--engine", choices=("local", "spark"), default="local",
                       help="local (default): extract and score the phrase tables in this process and pivot with "
                            "DuckDB; spark: both on Apache Spark (see --master, --driver-memory), the same bytes; the "
                            "word alignment runs here unless --align-chunk is given")
    build.add_argument("--align-chunk", type=WholeNumber(at_least=0), default=0, metavar="PAIRS",
                       help="align the phrase tables' corpora by chunks of PAIRS sentence pairs, eflomal on each "
                            "on its own (with --engine spark on the executors, a chunk per task; the same links "
                            f"either way); 0 (default): the whole corpus at once. At least {MIN_CHUNK_PAIRS}")
    add_spark_options(build)
    build.set_defaults(func=run_build_command)


def run_build_command(args: argparse.Namespace) -> int:
    from parastudio.core.cli.progress_bar import progress_bar
    from parastudio.core.cli.spark_options import spark_settings
    from parastudio.core.evaldata.build import run_build
    from parastudio.core.evaldata.sword_extract import SwordUnavailable
    from parastudio.core.tablebuild.eflomal_program import EflomalUnavailable
    from parastudio.core.tablebuild.spark_session import SparkUnavailable

    if 0 < args.align_chunk < MIN_CHUNK_PAIRS:
        print(f"parastudio: error: --align-chunk: expected 0 (the whole corpus at once) or at least "
              f"{MIN_CHUNK_PAIRS} sentence pairs, got {args.align_chunk}", file=sys.stderr)
        return 2
    try:
        spark = spark_settings(args, without_connect=WITHOUT_CONNECT)
    except SparkUnavailable as error:
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 2
    try:
        with progress_bar("chunk") as progress:
            report = run_build(args.out, args.stages, progress=progress, jobs=args.jobs, install=args.install,
                               spark=spark, align_chunk=args.align_chunk)
    except (SwordUnavailable, SparkUnavailable, EflomalUnavailable) as error:
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 1
    print("stage           status    seconds")
    for stage, entry in report["stages"].items():
        print(f"{stage:15} {entry['status']:8} {entry['seconds']:8.1f}")
    print(f"{'total (wall)':15} {'':8} {report['last_run']['seconds']:8.1f}")
    skipped = [stage for stage, entry in report["stages"].items() if entry["status"] == "skipped"]
    return 3 if skipped and args.stages is None else 0
