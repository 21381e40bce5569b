"""``parastudio experiment``: the seeds' analyses on our test set, one subcommand each.

Each writes Markdown and a PNG plot (atomically) into ``--out`` (default
``evaldata/results``):

* ``seed000-reranking``: seed 000 §3, :mod:`core.experiments.seed000_reranking`;
* ``mcpg-vs-beam``: seed 000 §4 / seed 003 §5, :mod:`core.experiments.mcpg_vs_beam`;
* ``spg-rates``: seed 004 §5, :mod:`core.experiments.spg_rates`;
* ``seed001-approaches``: seed 001 §4.1 and §5.2, :mod:`core.experiments.seed001_approaches`.
* ``seed002-patterns``: seed 002 §3-4, :mod:`core.experiments.seed002_patterns`.
* ``tuning-loop``: judge, export, tune, regenerate, judge again (seed 004 §3.6), :mod:`core.experiments.tuning_loop`;
* ``judgment-predictor``: seed 000's open question, :mod:`core.experiments.judgment_predictor`.
* ``sequential-sign-test``: issue 29's simulation of the anytime-valid sign test,
  :mod:`core.experiments.sequential_sign_test` (Markdown and JSON lines, no plot).
* ``adaptive-demo``: issue 29's adaptive assignment on the demo against the full study,
  :mod:`core.experiments.adaptive_demo` (Markdown and JSON, no plot).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from core.experiments import (adaptive_demo, judgment_predictor, mcpg_vs_beam, seed000_reranking, seed001_approaches,
                              seed002_patterns, sequential_sign_test, spg_rates, tuning_loop)

ROOT = Path(__file__).resolve().parents[2]
# Not options of the experiment itself: left out of the recorded command.
_NOT_OPTIONS = {"func", "command", "experiment", "progress"}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "experiment",
        help="reproduce a seed paper's analysis on the test set (Markdown + PNG in evaldata/results)",
        description="Reproduce the seeds' analyses; results go to --out as Markdown plus a PNG plot.",
    )
    experiments = parser.add_subparsers(dest="experiment", metavar="EXPERIMENT", required=True)

    reranking = experiments.add_parser(
        "seed000-reranking", help="seed 000 §3: the beam decoder's n-best reranked by true score")
    reranking.add_argument("--table", help="paraphrase table (default: the demo or build table)")
    reranking.add_argument("--lm", help="KenLM model (default: the demo or build LM)")
    reranking.add_argument("--input", help="tokenized test sentences (default: the demo or build test set)")
    reranking.add_argument("--limit", type=int, default=None, help="first N sentences (default 100)")
    reranking.add_argument("--out", default=None, help="output directory (default evaldata/results)")
    reranking.add_argument("--nbest", type=int, default=None, help="distinct n-best size (default 100)")
    reranking.add_argument("--stack-sizes", type=int, nargs="+", default=None, help="default 5 20 200")
    reranking.add_argument("--processes", type=int, default=None)
    reranking.set_defaults(func=run_seed000_reranking)

    versus = experiments.add_parser(
        "mcpg-vs-beam", help="seed 000 §4 / seed 003 §5: MCPG 1-best true scores against the beam decoder")
    mcpg_vs_beam.add_arguments(versus)
    versus.set_defaults(func=lambda args: mcpg_vs_beam.run_from_args(args, recorded_command("mcpg-vs-beam", args)))

    rates = experiments.add_parser(
        "spg-rates", help="seed 004 §5: SPG paraphrase rate and unit replacements per application")
    spg_rates.add_arguments(rates)
    rates.set_defaults(func=lambda args: spg_rates.run_from_args(args, recorded_command("spg-rates", args)))

    approaches = experiments.add_parser(
        "seed001-approaches", help="seed 001 §4.1, §5.2: the ten paraphraser approaches on round-trip cases, "
        "with sign tests")
    seed001_approaches.add_arguments(approaches)
    approaches.set_defaults(func=lambda args: seed001_approaches.run_from_args(
        args, recorded_command("seed001-approaches", args)))
    patterns = experiments.add_parser(
        "seed002-patterns", help="seed 002: paraphrase patterns through the Spanish pivot, models, scripted judges, SPG")
    seed002_patterns.add_arguments(patterns)
    patterns.set_defaults(func=lambda args: seed002_patterns.run_from_args(
        args, recorded_command("seed002-patterns", args)))

    loop = experiments.add_parser(
        "tuning-loop", help="seed 004 §3.6 on the demo: judge (scripted), export, tune, regenerate, judge again")
    tuning_loop.add_arguments(loop)
    loop.set_defaults(func=run_tuning_loop)

    predictor = experiments.add_parser(
        "judgment-predictor", help="seed 000's open question: model scores predicting the demo study's judgments")
    judgment_predictor.add_arguments(predictor)
    predictor.set_defaults(func=lambda args: judgment_predictor.run_from_args(
        args, recorded_command("judgment-predictor", args)))

    sequential = experiments.add_parser(
        "sequential-sign-test", help="issue 29: the anytime-valid sign test's false positives under continuous "
        "monitoring and judgments saved, by simulation")
    sequential_sign_test.add_arguments(sequential)
    sequential.set_defaults(func=lambda args: sequential_sign_test.run_from_args(
        args, recorded_command("sequential-sign-test", args)))

    adaptive = experiments.add_parser(
        "adaptive-demo", help="issue 29: the demo judged by silver judges through the adaptive assignment, against "
        "the full fixed study")
    adaptive_demo.add_arguments(adaptive)
    adaptive.set_defaults(func=lambda args: adaptive_demo.run_from_args(args, recorded_command("adaptive-demo", args)))


def run_tuning_loop(args: argparse.Namespace) -> int:
    from core.cli.progress_bar import progress_bar

    with progress_bar() as progress:
        return tuning_loop.run_from_args(args, recorded_command("tuning-loop", args), progress)


def recorded_command(experiment: str, args: argparse.Namespace) -> str:
    """The command with every option spelled out, so the report says exactly how it was made.

    Paths inside the checkout are written relative to it, so the command runs from any clone.
    """
    parts = ["parastudio", "experiment", experiment]
    for name, value in sorted(vars(args).items()):
        if name in _NOT_OPTIONS or value is None:
            continue
        flag = "--" + name.replace("_", "-")
        for item in value if isinstance(value, list) else [value]:
            parts += [flag, _relative(str(item))]
    return " ".join(parts)


def _relative(value: str) -> str:
    path = Path(value)
    if path.is_absolute() and path.is_relative_to(ROOT):
        return str(path.relative_to(ROOT))
    return value


def run_seed000_reranking(args: argparse.Namespace) -> int:
    """Forward to the module's own command line (its options are named differently)."""
    argv: list[str] = []
    for flag, value in (("--table", args.table), ("--lm", args.lm), ("--input", args.input),
                        ("--sentences", args.limit), ("--output-dir", args.out), ("--nbest", args.nbest),
                        ("--processes", args.processes)):
        if value is not None:
            argv += [flag, str(value)]
    if args.stack_sizes:
        argv += ["--stack-sizes", *map(str, args.stack_sizes)]
    return seed000_reranking.main(argv)
