"""``parastudio table stats T``: what a paraphrase table holds."""

from __future__ import annotations

import argparse
import json
import sys

from parastudio.core.cli.table_options import add_table_loading_options, load_table_from_args, table_loading_from_args


def register(subparsers: argparse._SubParsersAction) -> None:
    table = subparsers.add_parser("table", help="inspect paraphrase tables")
    table_sub = table.add_subparsers(dest="table_command", metavar="ACTION", required=True)
    stats = table_sub.add_parser("stats", help="rules, distinct sources, longest phrase, mean rules per source")
    stats.add_argument("table", help="Moses, PPDB or TSV table (plain or .gz)")
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    add_table_loading_options(stats)
    stats.set_defaults(func=run_stats)
    binarize = table_sub.add_parser(
        "binarize", help="write the table's binary form beside it (T.pstable), which every reader then opens at once",
        description="Reads the table once and writes T.pstable next to it (atomically). Every command that loads "
                    "T with the same loading options uses it while it is newer than T; a stale or damaged one is "
                    "ignored (with a note) and the text read instead.")
    binarize.add_argument("table", help="Moses, PPDB or TSV table (plain or .gz)")
    add_table_loading_options(binarize, reverse=False)
    binarize.set_defaults(func=run_binarize)
    prune = table_sub.add_parser("prune", help="drop the rules of a prune list (`parastudio inspect-rules "
                                 "--prune-list`): source ||| target per line")
    prune.add_argument("table", help="Moses or TSV table (plain or .gz)")
    prune.add_argument("--list", required=True, metavar="FILE", help="the rules to drop, 'source ||| target'")
    prune.add_argument("-o", "--output", required=True, help="the pruned table (.gz to compress)")
    prune.set_defaults(func=run_prune)


def run_prune(args: argparse.Namespace) -> int:
    from pathlib import Path

    from parastudio.core.inspection.rule_blame import read_prune_list
    from parastudio.core.output_files import writes_to_standard_output
    from parastudio.core.tablebuild.table_converters import prune_rules

    stats = prune_rules(Path(args.table), read_prune_list(args.list), args.output, inputs=[args.list])
    print(f"{stats['rules_in']} rules in, {stats['rules_dropped']} dropped, {stats['rules_out']} written to "
          f"{args.output}", file=sys.stderr if writes_to_standard_output(args.output) else sys.stdout)
    return 0


def run_binarize(args: argparse.Namespace) -> int:
    import time

    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
    from parastudio.core.engine.tables.table_binary import binary_path
    from parastudio.core.engine.tables.table_formats import LoadReport

    started = time.perf_counter()
    report = LoadReport(args.table)
    table = ParaphraseTable.binarize(args.table, table_loading_from_args(args), report=report)
    if report.skipped:
        print(f"parastudio: {args.table}: skipped {report.skipped} malformed line(s)", file=sys.stderr)
    written = binary_path(args.table)
    print(f"{written}: {len(table)} rules, {table.stats().distinct_sources} sources, "
          f"{written.stat().st_size / 2**20:.1f} MiB, in {time.perf_counter() - started:.1f} s")
    return 0


def run_stats(args: argparse.Namespace) -> int:
    from parastudio.core.cli.closed_streams import refuse_closed

    refuse_closed(sys.stdout)  # before the table loads and notes its binary
    stats = load_table_from_args(args.table, args).stats()
    if args.json:
        print(json.dumps({
            "rules": stats.rules,
            "distinct_sources": stats.distinct_sources,
            "longest_phrase": stats.longest_phrase,
            "mean_rules_per_source": stats.mean_rules_per_source,
        }))
    else:
        print(f"rules: {stats.rules}")
        print(f"distinct sources: {stats.distinct_sources}")
        print(f"longest phrase: {stats.longest_phrase}")
        print(f"mean rules per source: {stats.mean_rules_per_source:.4f}")
    return 0
