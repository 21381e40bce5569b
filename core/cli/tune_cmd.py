"""``parastudio tune``: weights from a labelled dev set; ``parastudio judgment-predictor``: seed 000's question.

``tune --devset dev.jsonl --objective rf|f1|accuracy --system spg|pivot|beam -o weights.json`` prints the
final report (before/after on the dev and held-out parts, MERT iterations, time) and writes ``weights.json``,
which ``parastudio generate --weights`` reads.
"""

from __future__ import annotations

import argparse
import json
import sys

from parastudio.core.cli.number_options import COUNT, SEED, RealNumber, WholeNumber
from parastudio.core.vocabulary import APPLICATIONS


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tune", help="tune SPG, pivot-table or beam-decoder weights on a labelled dev set (MERT; seed 004, 002)",
        description="spg / beam: MERT (Och 2003) on rf, F1 or accuracy of the 1-best, re-decoding until the n-best "
                    "lists stop growing (seed 004 §3.6). pivot: λ1..λ4 and T of seed 002's score on labelled pairs "
                    "(the dev set's replacements, or a pattern-pair study's judged pairs), maximizing F (seed 002 "
                    "§3.4), on a pattern table (--pattern-table), a phrase pivot table (--table) or the phrase table "
                    "behind it (--phrase-table); --table-out writes the re-scored, re-thresholded table.")
    parser.add_argument("--devset", required=True, help="dev set (parastudio export-devset: JSONL or an hf folder)")
    parser.add_argument("--objective", choices=("rf", "f1", "accuracy"), default=None,
                        help="rf: seed 004's replacement F; f1: F of correct replacements (pivot: seed 002's F over "
                        "pairs); accuracy: share of 1-best judged acceptable (pivot: pairs on the right side of T); "
                        "default: rf, for pivot f1")
    parser.add_argument("--system", required=True, choices=("spg", "pivot", "beam"))
    parser.add_argument("-o", "--output", required=True, help="weights file to write (JSON)")
    parser.add_argument("--table", action="append", default=[],
                        help="paraphrase table (repeat for SPG's K tables; default: the dev set's provenance); for "
                        "pivot: a table with h1..h4 columns")
    parser.add_argument("--lm", help="KenLM model (default: the dev set's provenance)")
    parser.add_argument("--application", choices=APPLICATIONS,
                        help="SPG application (default: the dev set's)")
    parser.add_argument("--nbest", type=COUNT, default=20, help="n-best list per sentence and decoding (default 20)")
    parser.add_argument("--stack-size", type=COUNT, default=200)
    parser.add_argument("--heldout", type=RealNumber(at_least=0, below=1), default=0.25,
                        help="share of the dev set's sentences (pivot: pairs) held out for the check (default 0.25)")
    parser.add_argument("--seed", type=SEED, default=0, help="split and search seed")
    parser.add_argument("--restarts", type=WholeNumber(at_least=0), default=5,
                        help="random restarts per optimisation (default 5)")
    parser.add_argument("--directions", type=WholeNumber(at_least=0), default=3,
                        help="random directions per round (default 3)")
    parser.add_argument("--iterations", type=COUNT, default=10, help="MERT decode-and-optimise rounds at most")
    parser.add_argument("--unlabelled", choices=("incorrect", "skip"), default="incorrect",
                        help="how a replacement no judge labelled counts in rp (default incorrect)")
    pivot = parser.add_argument_group("pivot (seed 002)")
    pivot.add_argument("--pattern-table", help="a pattern table (parastudio patterns build): per-pivot h1..h4, Eq. 3 "
                       "exactly (default for a dev set exported from a pattern-pair study: the study's table)")
    pivot.add_argument("--phrase-table", help="the bilingual phrase table: per-pivot features, Eq. 3 exactly")
    pivot.add_argument("--reverse", action="store_true", help="the phrase table's second field is the language")
    pivot.add_argument("--max-pivot", type=COUNT, default=200, help="tau: pivot clusters larger than this dropped")
    pivot.add_argument("--table-out", help="write the re-scored, re-thresholded table here")
    parser.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    parser.set_defaults(func=run_tune_command)

    predictor = subparsers.add_parser(
        "judgment-predictor", help="seed 000's open question: predict the human judgment from model scores",
        description="Logistic regression from LM, channel, true score, length, edit rate and rule count to the "
                    "aggregated judgment; cross-validated accuracy and AUC against the majority baseline.")
    predictor.add_argument("--devset", required=True)
    predictor.add_argument("--lm", help="KenLM model (default: the dev set's provenance)")
    predictor.add_argument("--criterion", help="criterion to predict (default: acceptable on every criterion)")
    predictor.add_argument("--folds", type=WholeNumber(at_least=2), default=5)
    predictor.add_argument("--seed", type=SEED, default=0)
    predictor.add_argument("--json", action="store_true")
    predictor.set_defaults(func=run_predictor_command)


def _pct(value) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def report_lines(report: dict) -> list[str]:
    """The final report as text: before/after per part, the iterations and the signature."""
    lines = [f"tuned {report['system']} on {report['devset'].get('path')} for {report['objective']} "
             f"in {report['seconds']:.1f} s"]
    if report["system"] == "pivot":
        columns = ("precision", "recall", "f1", "accuracy")
    else:
        columns = ("rp", "rr", "rf", "recall", "f1", "accuracy")
    lines.append("part      when    " + "".join(f"{c:>9}" for c in columns) + "  (percent)")
    for part in ("dev", "heldout"):
        for when in ("before", "after"):
            figures = report[when].get(part)
            if figures:
                lines.append(f"{part:<9} {when:<7} " + "".join(f"{_pct(figures[c]):>9}" for c in columns))
    mert = report.get("mert")
    if mert:
        for it in mert["iterations"]:
            lines.append(f"iteration {it['iteration']}: decoded 1-best {it['decoded_value']:.4f}, pool "
                         f"{it['pool_value']:.4f} ({it['pool_size']} candidates, +{it['added']}), "
                         f"{it['seconds']:.1f} s")
        lines.append(f"{'converged' if mert['converged'] else 'stopped'} after {len(mert['iterations'])} "
                     f"iteration(s); 1-best objective {mert['start_value']:.4f} -> {mert['final_value']:.4f}")
    weights = report["weights"][report["system"]]
    lines.append("weights: " + json.dumps(weights))
    if report.get("table_out"):
        lines.append(f"re-scored table: {report['table_out']['path']} ({report['table_out']['pairs']} pairs)")
    lines.append(f"signature: {report['signature']}")
    return lines


def run_tune_command(args: argparse.Namespace) -> int:
    from parastudio.core.cli.progress_bar import progress_bar
    from parastudio.core.tuning.tune import TuneOptions
    from parastudio.core.tuning.tune_run import TuneRequest, run_tune

    if args.nbest < 1 or args.iterations < 1 or args.restarts < 0 or args.directions < 0:
        print("parastudio: error: --nbest and --iterations must be at least 1, --restarts and --directions at "
              "least 0", file=sys.stderr)
        return 2
    args.objective = args.objective or ("f1" if args.system == "pivot" else "rf")
    options = TuneOptions(objective=args.objective, unlabelled=args.unlabelled, heldout=args.heldout, seed=args.seed,
                          restarts=args.restarts, random_directions=args.directions, iterations=args.iterations)
    request = TuneRequest(devset=args.devset, system=args.system, objective=args.objective, output=args.output,
                          tables=args.table, lm=args.lm, application=args.application, nbest=args.nbest,
                          stack_size=args.stack_size, options=options, phrase_table=args.phrase_table,
                          reverse=args.reverse, max_pivot=args.max_pivot, table_out=args.table_out,
                          pattern_table=args.pattern_table)
    try:
        with progress_bar() as progress:
            report = run_tune(request, progress)
    except ValueError as error:
        if error.__class__ is not ValueError:
            raise
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 2
    from parastudio.core.output_files import writes_to_standard_output

    summary = sys.stderr if writes_to_standard_output(args.output) else sys.stdout
    if args.json:
        print(json.dumps(report, indent=2), file=summary)
    else:
        print("\n".join(report_lines(report)), file=summary)
    return 0


def run_predictor_command(args: argparse.Namespace) -> int:
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.tuning.devset_files import read_devset
    from parastudio.core.tuning.judgment_predictor import FEATURES, predict_judgments
    from parastudio.core.tuning.tune_run import provenance_files

    records = read_devset(args.devset)
    lm_path = args.lm or provenance_files(records)[1]
    if lm_path is None:
        print("parastudio: error: name the language model with --lm", file=sys.stderr)
        return 2
    try:
        report = predict_judgments(records, LanguageModel(lm_path), criterion=args.criterion, folds=args.folds,
                                   seed=args.seed)
    except ValueError as error:
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{report['rows']} judged candidates ({report['positive']} {report['criterion']}), "
          f"{report['folds']}-fold cross-validation")
    print(f"model:    accuracy {_pct(report['model']['accuracy'])} %, AUC {report['model']['auc']:.3f}")
    print(f"majority: accuracy {_pct(report['majority_baseline']['accuracy'])} %, AUC 0.500")
    for name in FEATURES:
        print(f"  {name:<11} coefficient {report['coefficients'][name]:+.3f} per sd; AUC alone "
              f"{report['auc_of_each_feature_alone'][name]:.3f}")
    print(f"signature: {report['signature']}")
    return 0
