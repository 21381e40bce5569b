"""``parastudio table stats T``: what a paraphrase table holds."""

from __future__ import annotations

import argparse
import json

from core.cli.table_options import add_table_loading_options, load_table_from_args


def register(subparsers: argparse._SubParsersAction) -> None:
    table = subparsers.add_parser("table", help="inspect paraphrase tables")
    table_sub = table.add_subparsers(dest="table_command", metavar="ACTION", required=True)
    stats = table_sub.add_parser("stats", help="rules, distinct sources, longest phrase, mean rules per source")
    stats.add_argument("table", help="Moses, PPDB or TSV table (plain or .gz)")
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    add_table_loading_options(stats)
    stats.set_defaults(func=run_stats)
    prune = table_sub.add_parser("prune", help="drop the rules of a prune list (`parastudio inspect-rules "
                                 "--prune-list`): source ||| target per line")
    prune.add_argument("table", help="Moses or TSV table (plain or .gz)")
    prune.add_argument("--list", required=True, metavar="FILE", help="the rules to drop, 'source ||| target'")
    prune.add_argument("-o", "--output", required=True, help="the pruned table (.gz to compress)")
    prune.set_defaults(func=run_prune)


def run_prune(args: argparse.Namespace) -> int:
    from pathlib import Path

    from core.inspection.rule_blame import read_prune_list
    from core.tablebuild.table_converters import prune_rules

    stats = prune_rules(Path(args.table), read_prune_list(args.list), Path(args.output))
    print(f"{stats['rules_in']} rules in, {stats['rules_dropped']} dropped, {stats['rules_out']} written to "
          f"{args.output}")
    return 0


def run_stats(args: argparse.Namespace) -> int:
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
