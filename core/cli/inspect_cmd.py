"""``parastudio inspect`` and ``inspect-rules``: the judged candidates of a study, and the rules behind rejections.

* ``inspect STUDY [--system S] [--criterion C] [--verdict rejected|disagreed|accepted|adjudicated]
  --format table|csv|jsonl``: one row per judged candidate (:mod:`core.inspection.candidate_rows`); a row an
  adjudicator's decision settled reads ``adjudicated``, with the decision and its adjudicator, and its settled
  verdict as ``outcome``.
* ``inspect-rules STUDY [--criterion C] [--system S] [--top N] [--prune-list FILE] [--bilingual T] [--json]``:
  rule blame (``--blame-from spans``: from the words judges marked), with the pivot phrases behind each
  rule from ``--bilingual``
  (:mod:`core.inspection.rule_blame`); ``--prune-list`` writes the listed rules for ``table prune`` / ``pivot --prune``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from parastudio.core.cli.number_options import COUNT, PROBABILITY
from parastudio.core.csv_cells import line_feed_rows, safe_row
from parastudio.core.stats.verdicts import VERDICTS

ROW_COLUMNS = ("item", "sentence_id", "source_key", "verdict", "systems", "source_length", "rules", "model_score",
               "true_score", "search_error", "source", "candidate", "outcome", "adjudication")


def register(subparsers) -> None:
    inspect = subparsers.add_parser("inspect", help="judged candidates of a study with their verdicts (failures "
                                    "first: --verdict rejected)")
    inspect.add_argument("study", metavar="STUDY", help="study database (SQLite file or URL)")
    inspect.add_argument("--study-name", help="the study, when the database holds several")
    inspect.add_argument("--system", help="only candidates this system produced")
    inspect.add_argument("--criterion", help="the verdict of this criterion only (default: all criteria)")
    inspect.add_argument("--verdict", choices=VERDICTS, help="only rows with this verdict (rejected, accepted: also "
                         "those an adjudicator's decision settled so; adjudicated: those it settled)")
    inspect.add_argument("--format", choices=("table", "csv", "jsonl"), default="table")
    inspect.add_argument("--raw", action="store_true", help="CSV cells exactly as they are (default: a text cell beginning with =, +, -, @, tab or CR gets a \' before it, so a spreadsheet does not run it)")
    inspect.set_defaults(func=run_inspect)

    rules = subparsers.add_parser("inspect-rules", help="the rules that occur in rejected candidates more than in "
                                  "accepted ones (one-sided Fisher exact test)")
    rules.add_argument("study", metavar="STUDY")
    rules.add_argument("--study-name", help="the study, when the database holds several")
    rules.add_argument("--criterion", action="append", help="verdicts on these criteria (repeat; default: all)")
    rules.add_argument("--system", help="only candidates this system produced")
    rules.add_argument("--top", type=COUNT, default=20, help="rules shown (default 20)")
    rules.add_argument("--max-p", type=PROBABILITY, default=1.0, help="only rules with p at most this (default 1)")
    rules.add_argument("--prune-list", metavar="FILE", help="write the rules shown as 'source ||| target' lines")
    rules.add_argument("--bilingual", metavar="TABLE",
                       help="the Moses table the pivot table was built from: each rule with the pivot phrases behind it")
    rules.add_argument("--blame-from", choices=("verdicts", "spans"), default="verdicts",
                       help="verdicts (default): a rule's candidates rejected or accepted as wholes; spans: each "
                       "rewrite marked or not by the judges of an error-span criterion (the words they marked)")
    rules.add_argument("--json", action="store_true")
    rules.set_defaults(func=run_rules)


def _study(args):
    from parastudio.core.cli.study_access import open_study

    return open_study(args.study, args.study_name, writing=False)


def run_inspect(args: argparse.Namespace) -> int:
    from parastudio.core.inspection.candidate_rows import candidate_rows, filter_rows

    db, study_id = _study(args)
    from parastudio.core.inspection.derivation_steps import derivations_of

    with db:
        rows = candidate_rows(db, study_id, criteria={args.criterion} if args.criterion else None)
        rows = filter_rows(rows, system=args.system, criterion=args.criterion, verdict=args.verdict)
        derivations = derivations_of(db, [row.candidate_id for row in rows]) if args.format == "jsonl" else {}
    if args.format == "jsonl":
        for row in rows:
            # The verdict per criterion is "criteria"; the derivation rule by rule is "derivation".
            print(json.dumps({**row.to_json(), "derivation": derivations.get(row.candidate_id)}, ensure_ascii=False))
        return 0
    records = [{**{k: v for k, v in row.to_json().items() if k in ROW_COLUMNS},
                "systems": ";".join(row.systems), "adjudication": row.adjudication_text} for row in rows]
    if args.format == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(line_feed_rows(buffer), fieldnames=ROW_COLUMNS, lineterminator="\r\n",
                                extrasaction="ignore")
        writer.writeheader()
        writer.writerows(safe_row(record, args.raw) for record in records)
        sys.stdout.write(buffer.getvalue())
        return 0
    for row in rows:
        flag = " SEARCH-ERROR" if row.search_error else ""
        decided = f"  [{row.adjudication_text} -> {row.verdict or '-'}]" if row.adjudications else ""
        print(f"{row.item:>8} {row.shown_verdict or '-':<11} {';'.join(row.systems):<24} rules={row.rules:<2} "
              f"{row.text}{flag}{decided}")
    print(f"{len(rows)} candidates", file=sys.stderr)
    return 0


def run_rules(args: argparse.Namespace) -> int:
    from parastudio.core.inspection.rule_blame import rule_blame, rule_blame_from_spans, write_prune_list

    db, study_id = _study(args)
    blame = rule_blame_from_spans if args.blame_from == "spans" else rule_blame
    with db:
        try:
            blamed = blame(db, study_id, criteria=set(args.criterion) if args.criterion else None, system=args.system)
        except ValueError as error:
            print(f"parastudio: error: {error}", file=sys.stderr)
            return 2
    shown = [rule for rule in blamed if rule.p_value <= args.max_p][: args.top]
    if args.prune_list:
        count = write_prune_list(shown, args.prune_list, inputs=[args.study, args.bilingual])
        print(f"wrote {count} rules to {args.prune_list}", file=sys.stderr)
    pivots = [[] for _ in shown]
    if args.bilingual:
        from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
        from parastudio.core.inspection.details import pivot_phrases

        bilingual = ParaphraseTable.load(args.bilingual)
        pivots = [pivot_phrases(rule.source, rule.target, bilingual, limit=3) for rule in shown]
    if args.json:
        print(json.dumps([{**rule.to_json(), **({"pivots": [{"pivot": f, "term": term} for f, term in behind]}
                                                if args.bilingual else {})}
                          for rule, behind in zip(shown, pivots)], ensure_ascii=False))
        return 0
    heads = ("marked", "unmarked") if args.blame_from == "spans" else ("rejected", "accepted")
    print(f"{heads[0]:>8} {heads[1]:>8} {'p':>10}  rule")
    for rule, behind in zip(shown, pivots):
        through = f"   via {', '.join(f'{f} ({term:.3g})' for f, term in behind)}" if behind else ""
        print(f"{rule.rejected:>8} {rule.accepted:>8} {rule.p_value:>10.3g}  {rule.source} -> {rule.target}{through}")
    return 0
