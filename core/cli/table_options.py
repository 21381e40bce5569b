"""Command-line options shared by every command that loads a paraphrase table."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from parastudio.core.engine.tables.table_formats import LoadReport, TableFormat, TableLoading, ValueKind

if TYPE_CHECKING:
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable


def add_table_loading_options(parser: argparse.ArgumentParser, *, reverse: bool = True) -> None:
    group = parser.add_argument_group("table loading")
    group.add_argument("--format", choices=[f.value for f in TableFormat], default=None,
                       help="table format (default: detected from the first line)")
    group.add_argument("--score", default=None,
                       help="score column (0, 1, ... or c0, c1, ...) or PPDB feature used as the rule probability "
                            "(default: the first)")
    group.add_argument("--value-kind", choices=[k.value for k in ValueKind], default=None,
                       help="how the chosen score maps to a probability (default: prob; PPDB p(...) features: neglog)")
    group.add_argument("--skip-bad-lines", action="store_true",
                       help="skip malformed lines (and report how many) instead of stopping at the first")
    group.add_argument("--swap-sides", action="store_true",
                       help="read each line's second phrase as the source (a bilingual table used the other way)")
    if not reverse:  # a command that stores the table as read (binarize)
        return
    group.add_argument("--channel-from-reverse", action="store_true",
                       help="use the probability of the reverse entry t -> s as p(s|t) (for tables giving p(t|s))")


def table_loading_from_args(args: argparse.Namespace) -> TableLoading:
    """The group :func:`add_table_loading_options` fills (``channel_from_reverse`` false where it has no flag)."""
    return TableLoading(format=args.format, score=args.score, value_kind=args.value_kind,
                        skip_bad_lines=args.skip_bad_lines, swap_sides=args.swap_sides,
                        channel_from_reverse=getattr(args, "channel_from_reverse", False))


def load_table_from_args(path: str, args: argparse.Namespace) -> "ParaphraseTable":
    from parastudio.core.engine.tables.paraphrase_table import (
        ParaphraseTable,  # not at import: `parastudio --help` lists tables' options
    )

    report = LoadReport(path)
    table = ParaphraseTable.load(path, table_loading_from_args(args), report=report)
    print_table_report(report)
    return table


def print_table_report(report: LoadReport) -> None:
    """What loading a table has to say: its binary form written or unusable, lines skipped."""
    for note in report.notes:
        print(f"parastudio: note: {note}", file=sys.stderr)
    if report.skipped:
        print(f"parastudio: {report.path}: skipped {report.skipped} malformed line(s); loaded {report.rules} rules",
              file=sys.stderr)
        for message in report.first_errors:
            print(f"  {message}", file=sys.stderr)
