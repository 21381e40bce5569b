"""``parastudio study ...``: make a judgment study and move judgments in and out.

Every subcommand takes ``--db FILE`` (a SQLite path, or a database URL) and,
when the database holds more than one study, ``--study NAME``.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import TYPE_CHECKING

from parastudio.core.cli.number_options import COUNT, PROBABILITY, SEED, RealNumber, WholeNumber
from parastudio.core.csv_cells import line_feed_rows, safe_row
from parastudio.core.errors import BadNameError
from parastudio.core.vocabulary import APPLICATIONS, CHOICE_STUDY_JUDGES, DEFAULT_CRITERIA, PRESET_CRITERIA

if TYPE_CHECKING:  # the store (SQLAlchemy) is imported by the commands that open a database, not by --help
    from parastudio.core.store import operations as ops


def register(subparsers) -> None:
    study = subparsers.add_parser("study", help="make a judgment study; import, assign, export, merge, QC")
    commands = study.add_subparsers(dest="study_command", metavar="STUDY_COMMAND")
    study.set_defaults(func=lambda args: (study.print_help(), 2)[1])

    def command(name: str, help_text: str, func) -> argparse.ArgumentParser:
        parser = commands.add_parser(name, help=help_text, description=help_text)
        parser.add_argument("--db", required=True, help="study database: a SQLite file or a SQLAlchemy URL")
        if name != "create":
            parser.add_argument("--study", help="study name (needed when the database holds several)")
        parser.set_defaults(func=func)
        return parser

    create = command("create", "create a study with its criteria", _create)
    create.add_argument("name")
    create.add_argument("--criteria", default=",".join(DEFAULT_CRITERIA),
                        help=f"comma-separated, among {', '.join(PRESET_CRITERIA)} (default: %(default)s)")
    create.add_argument("--judges", type=COUNT, help="judges per item (default: 4 for a study with the choice "
                        "criterion, as seed 001 §4.2 had four judges per task; else 2)")
    create.add_argument("--application", default="simplification", choices=APPLICATIONS,
                        help="application for the usability question (seed 004)")
    create.add_argument("--seed", type=SEED, default=0, help="seed of the per-annotator random orders")
    create.add_argument("--blind-phases", dest="blind_phases", action="store_true", default=None,
                        help="judge form before meaning: every source-free item of a batch before any item that "
                        "shows a source (default: on when a criterion hides the source and another shows it)")
    create.add_argument("--no-blind-phases", dest="blind_phases", action="store_false")

    imp = command("import-candidates", "add candidates: parastudio generate JSONL, or CSV/TSV with "
                  "header item,source,candidate,system", _import_candidates)
    imp.add_argument("file")
    imp.add_argument("--format", choices=("jsonl", "csv", "tsv"), help="default: from the file extension")
    imp.add_argument("--sources", help="source sentences, one per line (for JSONL without a 'source' field)")
    imp.add_argument("--references", help="reference sentences, one per line, parallel to --sources")
    imp.add_argument("--source-originals", metavar="FILE",
                     help="the sources as published (cased, untokenized), one per line, parallel to --sources: "
                     "what judges read instead of the tokenized text")
    imp.add_argument("--id-base", type=WholeNumber(), default=0,
                     help="sentence_id of the first --sources line (default 0)")
    imp.add_argument("--test-set", help="test-set name recorded with each source sentence")
    imp.add_argument("--choice-tasks", action="store_true",
                     help='the file holds choice tasks {"id","sentence","span":[i,j],"options":[...],"system":NAME} '
                     '(seed 001); "system" names the approach (or system) that offered the options, so the report '
                     'gives seed 001 Fig. 4.5 per approach')

    mqm = command("import-mqm", "make a study of MQM ratings as Google published WMT's (Freitag et al. 2021): "
                  "sources, each system's outputs, each rater's errors; the ref system's output is the reference",
                  _import_mqm)
    mqm.add_argument("file", metavar="FILE.tsv", help="system doc doc_id seg_id rater source target category "
                     "severity comment, errors marked <v>…</v> in the target (plain or .gz), e.g. "
                     "evaldata/mqm/mqm_ted_ende.tsv.gz")

    assign = command("assign", "assign every unassigned item to annotators in seeded random orders", _assign)
    assign.add_argument("--annotators", required=True, help="comma-separated annotator names")
    assign.add_argument("--judges", type=COUNT, help="judges per item (default: the study's)")
    assign.add_argument("--overlap", type=PROBABILITY, default=1.0,
                        help="fraction of items given all --judges judges; the rest get one (default 1)")
    assign.add_argument("--repeats", type=RealNumber(at_least=0), default=0.0,
                        help="fraction of items repeated (consistency)")
    assign.add_argument("--controls", type=RealNumber(at_least=0), default=0.0,
                        help="fraction of planted control items")
    assign.add_argument("--seed", type=SEED, help="order seed (default: the study's)")
    assign.add_argument("--pairs", metavar="A:B,...",
                        help="preference criterion: compare only these pairs of systems (default: every pair); "
                        "each pair gets the same number of source sentences")
    assign.add_argument("--training", type=WholeNumber(), default=0, metavar="N", help="the study's first N "
                        "training items ([[training]] of `study guidelines`) before each annotator's items: the judge "
                        "is told after each whether they agreed and why; no statistic counts them (default 0)")

    imj = command("import-judgments", "import judgments in long format: item,annotator,criterion,value",
                  _import_judgments)
    imj.add_argument("file")

    exj = command("export-judgments", "export judgments, one row per judgment", _export_judgments)
    exj.add_argument("--format", choices=("csv", "jsonl"), default="csv")
    exj.add_argument("-o", "--output", help="output file (default: standard output)")
    exj.add_argument("--history", action="store_true", help="also superseded answers and undo rows")
    exj.add_argument("--include-qc", action="store_true", help="also repeated and control items")
    exj.add_argument("--raw", action="store_true",
                     help="CSV cells exactly as they are (default: a text cell beginning with =, +, -, @, tab or CR gets a \' before it, so a spreadsheet does not run it)")

    exp = command("export-package", "write a standalone study file for one annotator", _export_package)
    exp.add_argument("--annotator", required=True)
    exp.add_argument("-o", "--output", required=True)

    merge = command("merge-package", "merge returned annotator packages into this study", _merge_package)
    merge.add_argument("files", nargs="+")

    from parastudio.core.cli.study_adaptive import add_arguments as assign_next_arguments
    from parastudio.core.cli.study_adaptive import run_assign_next

    assign_next = command("assign-next", "adaptive assignment: the next sentences go to comparisons the anytime-valid "
                          "sign test has not decided; none to a sentence both systems said the same way",
                          lambda args: run_assign_next(args, _open))
    assign_next_arguments(assign_next)

    from parastudio.core.cli.study_competence_cmd import add_qc_arguments, add_watch_command

    qc = command("qc", "per-annotator quality control: consistency on repeats, control pass rate, and each judge's "
                 "MACE or Dawid-Skene competence", _qc)
    qc.add_argument("--min-consistency", type=PROBABILITY)
    qc.add_argument("--min-control-pass", type=PROBABILITY)
    qc.add_argument("--json", action="store_true")
    add_qc_arguments(qc)
    add_watch_command(command)

    from parastudio.core.cli.study_pace_cmd import add_pace_command

    add_pace_command(command)

    from parastudio.core.cli.study_guidelines_cmd import add_guidelines_command

    add_guidelines_command(command)

    prog = command("progress", "judged / assigned, per annotator and in all", _progress)
    prog.add_argument("--json", action="store_true")

    adjudicators = command("adjudicators", "who may read the judges' labels on a disagreement and decide it "
                           "(Ctrl+Shift+A in the app); judges never may. Without --set: list them", _adjudicators)
    adjudicators.add_argument("--set", dest="names", metavar="NAMES",
                              help="comma-separated names: exactly these are the study's adjudicators ('' for none)")

    from parastudio.core.cli.study_members_cmd import add_member_commands

    add_member_commands(commands, command)

    def study_command(name: str, help_text: str, func) -> argparse.ArgumentParser:
        # These take the study database first, like `report` and `signtest` (--db also works).
        parser = commands.add_parser(name, help=help_text, description=help_text)
        parser.add_argument("db", nargs="?", metavar="STUDY", help="study database: a SQLite file or a URL")
        parser.add_argument("--db", dest="db_option", metavar="STUDY", help=argparse.SUPPRESS)
        parser.add_argument("--study", help="study name (needed when the database holds several)")
        parser.set_defaults(func=func)
        return parser

    scores = study_command("export-scores", "one score per source sentence and system (item,system,score), the "
                           "CSV `parastudio signtest` reads", _export_scores)
    scores.add_argument("--criterion", required=True, metavar="C")
    scores.add_argument("--aggregate", choices=("mean", "majority", "unified"), default="mean",
                        help="a candidate's score from its judges: mean (share who say yes / mean label), "
                        "majority (most judges' label), unified (at least --unified-min say yes); default mean")
    scores.add_argument("--unified-min", type=COUNT, default=2, metavar="K")
    scores.add_argument("-o", "--output", help="output CSV (default: standard output)")
    scores.add_argument("--raw", action="store_true",
                        help="CSV cells exactly as they are (default: a text cell beginning with =, +, -, @, tab or CR gets a \' before it, so a spreadsheet does not run it)")

    from parastudio.core.cli.study_status import add_arguments as status_arguments
    from parastudio.core.cli.study_status import run_status

    status = study_command("status", "anytime-valid sign tests between every two systems on the judgments so far: "
                           "wins, ties, p-value, decision and a confidence sequence for the win rate, valid however "
                           "often it is looked at", lambda args: run_status(args, _open))
    status_arguments(status)

    items = study_command("items", "list item ids with their text (to write an import-judgments CSV)", _items)
    items.add_argument("--format", choices=("table", "csv", "jsonl"), default="table")
    items.add_argument("-o", "--output", help="write here (default: standard output)")
    items.add_argument("--raw", action="store_true",
                       help="CSV cells exactly as they are (default: a text cell beginning with =, +, -, @, tab or CR gets a \' before it, so a spreadsheet does not run it)")


def _open(args, *, writing: bool = True):
    from parastudio.core.cli.study_access import open_study

    if getattr(args, "db_option", None):
        args.db = args.db_option  # the later steps name the database args.db (an output must not be it)
    return open_study(args.db, getattr(args, "study", None), writing=writing)


def _summary_stream(output):
    """Where a command's summary goes: standard error when its output is standard output."""
    from parastudio.core.output_files import writes_to_standard_output

    return sys.stderr if writes_to_standard_output(output) else sys.stdout


def _fail(message: str) -> int:
    print(f"parastudio: error: {message}", file=sys.stderr)
    return 1


def default_judges(criteria: list[str]) -> int:
    """Judges per item when ``--judges`` is not given: seed 001 §4.2's four for choice tasks, else two."""
    return CHOICE_STUDY_JUDGES if "choice" in criteria else 2


def _create(args) -> int:
    from parastudio.core.store import operations as ops
    from parastudio.core.store.database import open_database

    criteria = [c.strip() for c in args.criteria.split(",") if c.strip()]
    judges = args.judges if args.judges is not None else default_judges(criteria)
    try:  # before the study file is made: a refused study leaves none behind
        ops.new_study_plan(args.name, criteria, judges, args.application)
    except BadNameError:
        raise  # bad input: one line, exit 2 (core.cli.main)
    except ValueError as error:  # criteria or judges given wrong: a usage error
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 2
    with open_database(args.db, create=True) as db:
        try:
            study_id = ops.create_study(db, args.name, criteria=criteria, judges_per_item=judges,
                                        application=args.application, seed=args.seed,
                                        blind_phases=args.blind_phases)
        except BadNameError:
            raise  # bad input: one line, exit 2 (core.cli.main)
        except ValueError as error:
            return _fail(str(error))
    print(f"created study {args.name!r} (id {study_id}) with criteria {', '.join(criteria)}")
    return 0


def _import_candidates(args) -> int:
    from parastudio.core.cli.progress_bar import progress_bar
    from parastudio.core.store import operations as ops

    db, study_id = _open(args)
    with db:
        if args.choice_tasks:
            added = ops.add_choice_tasks(db, study_id, ops.read_choice_tasks(args.file), path=args.file)
            print(f"added {added} choice tasks")
            return 0
        sources = ops.read_sources(args.sources, args.id_base) if args.sources else None
        displays = ops.read_sources(args.source_originals, args.id_base) if args.source_originals else None
        references = None
        if args.references:
            references = {k: [v] for k, v in ops.read_sources(args.references, args.id_base).items()}
        with progress_bar(" lines") as progress:
            report = ops.import_candidates(db, study_id, ops.read_candidates(args.file, args.format),
                                           path=args.file, sources=sources, references=references,
                                           test_set=args.test_set, progress=progress, displays=displays)
    print(f"{report.rows} lines: {report.candidates_added} new candidates for {report.sources_added} new sources; "
          f"{report.credited_to_existing} strings credited to another system too; "
          f"{report.already_present} already present; systems: {', '.join(report.systems)}")
    return 0


def _assign(args) -> int:
    from parastudio.core.store import operations as ops
    from parastudio.core.store.preference_pairs import parse_system_pairs

    db, study_id = _open(args)
    with db:
        names = [n for n in args.annotators.split(",") if n.strip()]  # as typed: the store cleans them
        try:
            pairs = parse_system_pairs(args.pairs) if args.pairs is not None else None
            report = ops.assign(db, study_id, names, judges_per_item=args.judges, overlap=args.overlap,
                                repeat_fraction=args.repeats, control_fraction=args.controls, seed=args.seed,
                                system_pairs=pairs, training=args.training)
        except BadNameError:
            raise  # bad input: one line, exit 2 (core.cli.main)
        except ValueError as error:
            return _fail(str(error))
    print(f"assigned {report.items} items")
    for name, given in report.training.items() if args.training else ():
        print(f"  {name}: {given} training items first" + ("" if given else " (had training items already)"))
    for pair, sentences in report.pairs.sentences.items():
        print(f"  preference {pair}: {sentences} sentences ({report.pairs.identical[pair]} ties by construction: "
              f"the same string from both systems, not shown), {report.pairs.totals[pair]} in all")
    for pair, count in report.pairs.unbalanced.items():
        print(f"  preference {pair}: unbalanced, it already has {count} sentences and another pair can have "
              f"only {min(report.pairs.totals.values())}")
    for name in report.assignments:  # each annotator as the study stores the name
        print(f"  {name}: {report.assignments.get(name, 0)} assignments "
              f"({report.repeats.get(name, 0)} repeated items, {report.controls.get(name, 0)} control items)")
        if report.not_blind.get(name):
            print(f"  note: {report.not_blind[name]} of {name}'s source-free items are of sentences whose source "
                  f"{name} has already judged with, so they are not blind (no other annotator was free for them)")
    return 0


def _print_merge(report: ops.MergeReport, label: str) -> None:
    print(f"{label}: {report.applied} applied, {report.already_present} already present, "
          f"{report.duplicates} identical to the master's, {len(report.conflicts)} conflicts")
    for conflict in report.conflicts:
        print("  conflict: " + ", ".join(f"{k}={v}" for k, v in conflict.items()))


def _import_mqm(args) -> int:
    from pathlib import Path

    from parastudio.core.cli.progress_bar import progress_bar
    from parastudio.core.store.database import open_database
    from parastudio.core.store.mqm_ratings import read_mqm_ratings
    from parastudio.core.study_builder import study_from_mqm

    ratings = read_mqm_ratings(args.file)  # checked before the study file is made
    name = args.study or Path(args.file).name.split(".")[0]
    with open_database(args.db, create=True) as db, progress_bar("%") as progress:
        study_id, brought = study_from_mqm(progress, db, name, args.file, ratings)
    systems = len({row.system for row in ratings.candidates})
    print(f"created study {name!r} (id {study_id}): {len(ratings.sources)} segments, {systems} systems, "
          f"{len({r.rater for r in ratings.ratings})} raters, {brought.applied} ratings", file=sys.stderr)
    return 0


def _import_judgments(args) -> int:
    from parastudio.core.store import operations as ops

    db, study_id = _open(args)
    with db:
        report = ops.import_judgments_csv(db, study_id, args.file)
    _print_merge(report, args.file)
    return 0


def _export_judgments(args) -> int:
    from parastudio.core.store import operations as ops

    db, study_id = _open(args, writing=False)
    with db:
        count = ops.export_judgments(db, study_id, args.output or "-", args.format, history=args.history,
                                     include_qc=args.include_qc, inputs=[args.db], raw=args.raw)
    if args.output:
        print(f"wrote {count} judgments to {args.output}", file=sys.stderr)
    return 0


def _export_package(args) -> int:
    from parastudio.core.store import operations as ops

    db, study_id = _open(args)
    with db:
        try:
            count = ops.export_package(db, study_id, args.annotator, args.output, inputs=[args.db])
        except LookupError as error:
            return _fail(str(error))
    print(f"wrote {args.output}: {count} assignments for {args.annotator}", file=_summary_stream(args.output))
    return 0


def _merge_package(args) -> int:
    from parastudio.core.errors import InputFileError, InputFormatError
    from parastudio.core.store import operations as ops
    from parastudio.core.store.database import open_database

    with open_database(args.db) as db:
        for path in args.files:
            try:
                report = ops.merge_package(db, path)
            except (InputFormatError, InputFileError):
                raise  # a bad package: the CLI's exit 2, naming the file and row
            except ValueError as error:
                return _fail(str(error))
            _print_merge(report, path)
    # Conflicts are not errors: the master keeps its judgments and logs the others.
    return 0


def _qc(args) -> int:
    from parastudio.core.cli.study_competence_cmd import competence_json, competence_model, print_competence
    from parastudio.core.store import operations as ops
    from parastudio.core.study_judgments import da_reliability, study_competence

    db, study_id = _open(args, writing=False)
    thresholds = {}
    if args.min_consistency is not None:
        thresholds["min_consistency"] = args.min_consistency
    if args.min_control_pass is not None:
        thresholds["min_control_pass"] = args.min_control_pass
    with db:
        reports = ops.quality_control(db, study_id, thresholds)
        reliability = {r.annotator: r for r in da_reliability(db, study_id)}
        model = competence_model(args)
        competence = [] if model is None else study_competence(db, study_id, model)
    if args.json:
        by_judge = competence_json(competence)
        print(json.dumps([{**asdict(r), "da_reliability": asdict(reliability[r.annotator])
                           if r.annotator in reliability else None,
                           "competence": by_judge.get(r.annotator, {})} for r in reports], indent=2))
        return 0
    print(f"{'annotator':<20} {'repeats':>7} {'consistency':>11} {'controls':>8} {'control pass':>12}  result")
    for r in reports:
        consistency = "-" if r.consistency is None else f"{r.consistency:.3f}"
        control = "-" if r.control_pass_rate is None else f"{r.control_pass_rate:.3f}"
        result = "n/a" if r.passed is None else "PASS" if r.passed else "FAIL: " + "; ".join(r.reasons)
        print(f"{r.annotator:<20} {r.repeat_pairs:>7} {consistency:>11} {r.controls_judged:>8} {control:>12}  {result}")
    for name, r in sorted(reliability.items()):
        p = "-" if r.p_value is None else f"{r.p_value:.4g}"
        drop = "-" if r.mean_drop is None else f"{r.mean_drop:.1f}"
        print(f"direct assessment, {name}: {r.pairs} degraded candidates scored {drop} lower on average; "
              f"one-sided Wilcoxon p {p} ({'reliable' if r.p_value is not None and r.p_value < 0.05 else 'not shown reliable'} at 0.05)")
    if model is not None:
        print_competence(competence, model.model, args.min_competence)
    return 0


def _adjudicators(args) -> int:
    from parastudio.core.store.adjudication import not_adjudicated
    from parastudio.core.store.adjudicator_role import adjudicators, set_adjudicators

    db, study_id = _open(args, writing=args.names is not None)
    with db:
        names = (set_adjudicators(db, study_id, args.names.split(",")) if args.names is not None
                 else adjudicators(db, study_id))
        left_out = not_adjudicated(db, study_id) if names else {}
    print("\n".join(names) if names else "(no adjudicator)")
    for criterion, reason in left_out.items():  # never offered to them: said, not left to be found
        print(f"parastudio: note: criterion {criterion} is not adjudicated: {reason}", file=sys.stderr)
    return 0


def _progress(args) -> int:
    from parastudio.core.cli.study_guidelines_cmd import print_training, training_json
    from parastudio.core.store import operations as ops

    db, study_id = _open(args, writing=False)
    with db:
        report = ops.study_progress(db, study_id)
        training = ops.training_results(db, study_id)
    if args.json:
        print(json.dumps({"done": report.done, "total": report.total,
                          "per_annotator": {k: {"done": d, "total": t} for k, (d, t) in report.per_annotator.items()},
                          "training": training_json(training)}))
        return 0
    for name, (done, total) in sorted(report.per_annotator.items()):
        share = done / total if total else 0.0
        print(f"{name:<20} {done:>7} / {total:<7} {share:6.1%}")
    print(f"{'study':<20} {report.done:>7} / {report.total:<7} {report.fraction:6.1%}")
    print_training(training)
    return 0


def _export_scores(args) -> int:
    import csv
    import io

    from parastudio.core.stats.system_scores import score_rows, sentence_scores
    from parastudio.core.study_judgments import study_judgment_records
    from parastudio.core.textio import atomic_output

    db, study_id = _open(args, writing=False)
    with db:
        records = study_judgment_records(db, study_id)
    if args.criterion not in records.criterion_names():
        return _fail(f"no judgments of criterion {args.criterion!r}; the study has: "
                     f"{', '.join(records.criterion_names()) or 'none'}")
    scores = sentence_scores(records, args.criterion, args.aggregate, unified_min=args.unified_min)
    buffer = io.StringIO()
    writer = csv.writer(line_feed_rows(buffer), lineterminator="\r\n")
    writer.writerow(["item", "system", "score"])
    for item, system, score in score_rows(scores):
        writer.writerow(safe_row([item, system, repr(score)], args.raw))
    with atomic_output(args.output or "-", inputs=[args.db]) as handle:
        handle.write(buffer.getvalue())
    if args.output:
        print(f"wrote {buffer.getvalue().count(chr(10)) - 1} scores to {args.output}", file=sys.stderr)
    return 0


def _items(args) -> int:
    import csv
    import io

    from parastudio.core.store.items import list_items
    from parastudio.core.textio import atomic_output

    db, study_id = _open(args, writing=False)
    with db:
        rows = list_items(db, study_id)
    buffer = io.StringIO()
    if args.format == "jsonl":
        buffer.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    elif args.format == "csv":
        writer = csv.DictWriter(line_feed_rows(buffer), fieldnames=list(rows[0]) if rows else ["item"],
                                lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(safe_row({**row, "systems": ";".join(row["systems"])}, args.raw) for row in rows)
    else:
        for row in rows:
            buffer.write(f"{row['item']:<10} {row['source_key']:<8} {';'.join(row['systems']) or '-':<24} "
                         f"{row['text']}\n")
    with atomic_output(args.output or "-", inputs=[args.db]) as handle:
        handle.write(buffer.getvalue())
    return 0
