"""``parastudio export-devset STUDY.sqlite --format jsonl|csv|hf -o OUT``: a labelled dev set out of a study."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export-devset",
        help="export a judged study as a labelled dev set (JSONL, CSV or a Hugging Face datasets folder)",
        description="One record per candidate: source, candidate, systems and provenance, scores, derivation, "
                    "every judge's labels and the aggregated label with how it was reached, and a correct/"
                    "incorrect label per unit replacement (judged directly, or derived and marked so). "
                    "JSONL schema: docs/devset.schema.json.",
    )
    parser.add_argument("study", help="study database (SQLite file or SQLAlchemy URL)")
    parser.add_argument("--study", dest="study_name", help="study name (needed when the database holds several)")
    parser.add_argument("--format", choices=("jsonl", "csv", "hf"), default="jsonl",
                        help="jsonl (default), csv (flat, one row per candidate) or hf (a folder datasets reads)")
    parser.add_argument("-o", "--output", required=True, help="output file (a folder for --format hf)")
    parser.add_argument("--raw", action="store_true", help="CSV cells exactly as they are (default: a text cell beginning with =, +, -, @, tab or CR gets a \' before it, so a spreadsheet does not run it)")
    parser.add_argument("--aggregate", choices=("agree", "majority", "adjudicated", "mace", "dawid-skene"),
                        default="adjudicated",
                        help="how judges' labels become one: agree (all judges agree), majority (more than half), "
                        "adjudicated (agreement, else the adjudicator's decision; default), mace or dawid-skene "
                        "(the model's most probable label, fitted per criterion by crowd-kit; its probability, "
                        "seed and iterations in the entry's reason)")
    parser.add_argument("--criteria", help="comma-separated criteria to export (default: every candidate criterion)")
    parser.add_argument("--records", choices=("candidates", "preference", "da"), default="candidates",
                        help="candidates (default: one record per candidate, as above), preference (one record "
                        'per preference pair: {"source", "a", "b", "systems", "labels", "verdict"}) or da (one '
                        "record per candidate with each judge's direct assessment score and z); the last two "
                        "as JSONL only")
    parser.add_argument("--unit-labels", choices=("verdicts", "spans"), default="verdicts",
                        help="where a unit replacement's label comes from when no replacement task judged it: "
                        "verdicts (default: derived from the candidate's label, --derive-from) or spans (from the "
                        "words judges marked in an error-span criterion, where the candidate has one; else derived)")
    parser.add_argument("--derive-from", help="criterion replacement labels are derived from when no replacement "
                        "task judged them (default: meaning, else adequacy)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from parastudio.core.cli.study_access import open_study
    from parastudio.core.output_files import resolve_output
    from parastudio.core.tuning.devset import devset_records
    from parastudio.core.tuning.devset_files import write_devset

    if args.records != "candidates":
        return _run_comparison(args)
    criteria = [c.strip() for c in args.criteria.split(",") if c.strip()] if args.criteria else None
    resolve_output(args.output, [args.study], folder=args.format == "hf")  # refused before the study is read
    db, study_id = open_study(args.study, args.study_name, writing=False)
    with db:
        try:
            records = devset_records(db, study_id, aggregate=args.aggregate, criteria=criteria,
                                     derive_from=args.derive_from, unit_labels=args.unit_labels)
        except ValueError as error:
            print(f"parastudio: error: {error}", file=sys.stderr)
            return 2
    count = write_devset(records, args.output, args.format, inputs=[args.study], raw=args.raw)
    statuses: dict[str, int] = {}
    for record in records:
        for judgment in record["judgments"]:
            statuses[judgment["status"]] = statuses.get(judgment["status"], 0) + 1
    replacements = [r for record in records for r in record["replacements"]]
    print(f"{count} candidates, {len(replacements)} unit replacements "
          f"({sum(r['label'] is not None for r in replacements)} labelled, "
          f"{sum(r['origin'] == 'derived' for r in replacements)} derived, "
          f"{sum(r['origin'] == 'spans' for r in replacements)} from spans) -> {args.output}; labels: "
          + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())), file=sys.stderr)
    return 0


def _run_comparison(args: argparse.Namespace) -> int:
    """``--records preference`` or ``--records da`` (:mod:`core.tuning.comparison_devset`)."""
    from parastudio.core.cli.study_access import open_study
    from parastudio.core.output_files import resolve_output
    from parastudio.core.tuning.comparison_devset import da_records, preference_records
    from parastudio.core.tuning.devset_files import write_devset

    if args.format != "jsonl":
        print(f"parastudio: error: --records {args.records} writes JSONL only, not --format {args.format}",
              file=sys.stderr)
        return 2
    resolve_output(args.output, [args.study])
    db, study_id = open_study(args.study, args.study_name, writing=False)
    with db:
        try:
            records = (preference_records if args.records == "preference" else da_records)(db, study_id)
        except ValueError as error:
            print(f"parastudio: error: {error}", file=sys.stderr)
            return 2
    count = write_devset(records, args.output, "jsonl", inputs=[args.study])
    print(f"{count} {args.records} records -> {args.output}", file=sys.stderr)
    return 0
