"""``parastudio metaeval STUDY|JUDGMENTS.csv --criterion C [--metrics scores.jsonl]``: how well each automatic
metric orders candidates and systems as the judges did (the WMT metrics task's protocol).

Output contract (``docs/CLI.md``): ``--format json`` writes one JSON object (:mod:`core.stats.metric_meta_evaluation`
plus ``inputs``, ``version`` and ``commit``); ``--format md`` (default) the same as Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import sys

from parastudio.core.cli.metrics_cmd import BLEU_TOKENIZERS, add_translation_options
from parastudio.core.cli.number_options import LEVEL, PROBABILITY, REPLICATES, SEED, WholeNumber


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "metaeval", help="meta-evaluate automatic metrics against a study's judges (τ_b, acc_eq, system r, clusters)",
        description="Per metric: segment-level Kendall τ_b (no grouping, and grouped by source sentence), pairwise "
                    "accuracy with tie calibration (Deutsch et al. 2023), system-level Pearson r and pairwise "
                    "accuracy (Kocmi et al. 2021), 95%% bootstrap intervals over source sentences, permutation tests "
                    "between every two metrics and the clusters they give (WMT23/24), and the segments where each "
                    "metric and the judges disagree most.")
    parser.add_argument("file", metavar="STUDY|JUDGMENTS.csv",
                        help="a study database, or a judgments CSV (study export-judgments: with its candidate column)")
    parser.add_argument("--study", dest="study_name", help="study name, when the database holds several")
    parser.add_argument("--criterion", required=True, metavar="C", help="the criterion the judges answered")
    parser.add_argument("--metrics", metavar="SCORES.jsonl",
                        help="scores from parastudio metrics (default for a study: computed from its candidates and "
                        "references, as `parastudio metrics STUDY` would)")
    parser.add_argument("--aggregate", choices=("mean", "majority"), default="mean",
                        help="a segment's human score from its judges' labels (default mean)")
    parser.add_argument("--bootstrap", type=REPLICATES, default=1000, metavar="B",
                        help="bootstrap resamples of source sentences for the 95%% intervals (default 1000; 0 = none)")
    parser.add_argument("--permutations", type=REPLICATES, default=1000, metavar="K",
                        help="permutations per pair of metrics (default 1000; 0 = no tests, no clusters)")
    parser.add_argument("--seed", type=SEED, default=0, help="seed of the bootstrap and the permutations (default 0)")
    parser.add_argument("--level", type=LEVEL, default=0.05,
                        help="p-value at or below which one metric beats another in the clusters (default 0.05)")
    parser.add_argument("--disagreements", type=WholeNumber(at_least=0), default=10, metavar="N",
                        help="segments listed per metric where it and the judges disagree most (default 10)")
    parser.add_argument("--alpha", type=PROBABILITY, default=0.9,
                        help="without --metrics: iBLEU's α, as `parastudio metrics --alpha` (default 0.9)")
    parser.add_argument("--tokenize", choices=BLEU_TOKENIZERS, default="13a",
                        help="without --metrics: sacrebleu's BLEU tokenizer (default 13a)")
    add_translation_options(parser)
    parser.add_argument("--format", choices=("md", "json"), default="md")
    parser.add_argument("-o", "--output", metavar="OUT", help="write here instead of standard output")
    parser.set_defaults(func=run, references=[])


def _study_side(args: argparse.Namespace):
    """``(judgment records, item -> candidate text, scores)`` of a study; scores None unless computed here."""
    from parastudio.core.cli.metrics_cmd import score, without_systems
    from parastudio.core.cli.study_access import open_study
    from parastudio.core.metric_inputs import is_translation_study, rows_of_study
    from parastudio.core.stats.metric_scores_file import MetricScores
    from parastudio.core.store import operations as ops
    from parastudio.core.study_judgments import study_judgment_records

    db, study_id = open_study(args.file, args.study_name, writing=False)
    with db:
        records = study_judgment_records(db, study_id)
        texts = {row["item"]: row["text"] for row in ops.list_items(db, study_id) if row["kind"] == "candidate"}
        rows = rows_of_study(db, study_id) if args.metrics is None else None
        translation = args.translation or is_translation_study(ops.study_settings(db, study_id))
    if rows is None:
        return records, texts, None
    args.input = args.file
    rows = without_systems(rows, args.exclude_system, args.file)
    provenance, segments, systems = score(args, rows, translation)
    return records, texts, MetricScores(f"the metrics of {args.file}", provenance, segments,
                                        {record["system"]: record for record in systems})


def run(args: argparse.Namespace) -> int:
    from parastudio.core.cli.metrics_cmd import excluded_note, input_record
    from parastudio.core.cli.progress_bar import progress_bar
    from parastudio.core.code_identity import code_identity
    from parastudio.core.metric_inputs import translation_note
    from parastudio.core.output_files import resolve_output
    from parastudio.core.stats.judgment_records import read_judgments
    from parastudio.core.stats.metric_meta_evaluation import MetaEvaluation
    from parastudio.core.stats.metric_scores_file import read_metric_scores
    from parastudio.core.stats.metric_segments import candidate_texts, join_scores, judged_segments
    from parastudio.core.stats.report_metaeval import render_markdown
    from parastudio.core.study_judgments import names_a_study
    from parastudio.core.textio import atomic_output

    inputs = [args.file, args.metrics]
    if args.output:
        resolve_output(args.output, inputs)  # refused before anything is computed
    if names_a_study(args.file):
        try:
            records, texts, computed = _study_side(args)
        except ValueError as error:  # an --exclude-system the study does not have
            return _fail(str(error))
    else:
        if args.metrics is None:
            return _fail(f"{args.file}: a judgments CSV needs --metrics SCORES.jsonl (made by `parastudio metrics "
                         "CANDIDATES -o SCORES.jsonl` from the candidates that were judged)")
        records, texts, computed = read_judgments(args.file), candidate_texts(args.file), None
    criteria = records.criterion_names()
    if args.criterion not in criteria:
        return _fail(f"{args.file}: no judgments of criterion {args.criterion!r}; it has: {', '.join(criteria) or 'none'}")
    scores = computed if computed is not None else read_metric_scores(args.metrics)
    judged = judged_segments(records, args.criterion, texts, aggregate=args.aggregate)
    unknown = [name for name in args.exclude_system if name not in {segment.system for segment in judged}]
    if unknown:
        return _fail(f"{args.file}: no system {', '.join(map(repr, unknown))} judged on {args.criterion!r} to exclude")
    judged = [segment for segment in judged if segment.system not in args.exclude_system]
    if not judged:
        return _fail(f"{args.file}: no candidate judged on {args.criterion!r} has a label that is a number (yes/no or "
                     "a score); a preference or choice criterion cannot be compared with a metric per candidate")
    try:
        table = join_scores(judged, scores)
    except ValueError as error:
        return _fail(str(error))
    judges = len(records.select(criterion=args.criterion).annotator_names())
    evaluation = MetaEvaluation(bootstrap=args.bootstrap, permutations=args.permutations, seed=args.seed,
                                level=args.level, disagreements=args.disagreements)
    with progress_bar("draw") as progress:
        report = evaluation.run(table, criterion=args.criterion, aggregate=args.aggregate, judges=judges,
                                progress=progress)
    notes = translation_note(bool(scores.provenance.get("options", {}).get("translation")))
    report = {**report, "notes": notes + excluded_note(args.exclude_system) + report["notes"], "inputs": {"judgments": input_record(args.file),
                                   "metrics": input_record(args.metrics) if args.metrics else None},
              **code_identity()}
    if args.format == "json":
        text = json.dumps(report, ensure_ascii=False, allow_nan=False, indent=1) + "\n"
    else:
        shown = f"Judgments: `{args.file}`" + (f"; scores: `{args.metrics}`" if args.metrics else
                                                "; scores computed from the study's candidates and references")
        text = render_markdown(report, shown)
    with atomic_output(args.output or "-", inputs=inputs) as handle:
        handle.write(text)
    return 0


def _fail(message: str) -> int:
    print(f"parastudio: error: {message}", file=sys.stderr)
    return 2
