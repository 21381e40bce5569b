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
* ``mcpg-steered``: issue 24's MCPG steered by the judgment predictor on the demo,
  :mod:`core.experiments.mcpg_steered` (Markdown and JSON lines, no plot).
* ``metrics-vs-judges``: issue 43's meta-evaluation of the metrics on the TED en-de MQM ratings and on the demo
  study with scripted judges, :mod:`core.experiments.metrics_vs_judges` (Markdown, JSON, JSON lines; no plot).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from parastudio.core.cli.lazy_parser import add_lazy_parser
from parastudio.core.cli.number_options import COUNT

ROOT = Path(__file__).resolve().parents[2]
# Not options of the experiment itself: left out of the recorded command.
_NOT_OPTIONS = {"func", "command", "experiment", "progress"}

# Each experiment's module is imported by a function of its own, only when the experiment runs or prints its
# help: `parastudio --help` does not pay for every experiment's imports, and no module name is resolved from a
# string (the imports are plain statements the layer and cycle tests read).
def _seed000_reranking():
    from parastudio.core.experiments import seed000_reranking
    return seed000_reranking


def _mcpg_vs_beam():
    from parastudio.core.experiments import mcpg_vs_beam
    return mcpg_vs_beam


def _spg_rates():
    from parastudio.core.experiments import spg_rates
    return spg_rates


def _seed001_approaches():
    from parastudio.core.experiments import seed001_approaches
    return seed001_approaches


def _seed002_patterns():
    from parastudio.core.experiments import seed002_patterns
    return seed002_patterns


def _tuning_loop():
    from parastudio.core.experiments import tuning_loop
    return tuning_loop


def _judgment_predictor():
    from parastudio.core.experiments import judgment_predictor
    return judgment_predictor


def _sequential_sign_test():
    from parastudio.core.experiments import sequential_sign_test
    return sequential_sign_test


def _adaptive_demo():
    from parastudio.core.experiments import adaptive_demo
    return adaptive_demo


def _mcpg_steered():
    from parastudio.core.experiments import mcpg_steered
    return mcpg_steered


def _metrics_vs_judges():
    from parastudio.core.experiments import metrics_vs_judges
    return metrics_vs_judges


# name -> (the loader of its module under core.experiments, one line of help).
EXPERIMENTS = {
    "seed000-reranking": (_seed000_reranking, "seed 000 §3: the beam decoder's n-best reranked by true score"),
    "mcpg-vs-beam": (_mcpg_vs_beam, "seed 000 §4 / seed 003 §5: MCPG 1-best true scores against the beam decoder"),
    "spg-rates": (_spg_rates, "seed 004 §5: SPG paraphrase rate and unit replacements per application"),
    "seed001-approaches": (_seed001_approaches, "seed 001 §4.1, §5.2: the ten paraphraser approaches on "
                           "round-trip cases, with sign tests"),
    "seed002-patterns": (_seed002_patterns, "seed 002: paraphrase patterns through the Spanish pivot, models, "
                         "scripted judges, SPG"),
    "tuning-loop": (_tuning_loop, "seed 004 §3.6 on the demo: judge (scripted), export, tune, regenerate, "
                    "judge again"),
    "judgment-predictor": (_judgment_predictor, "seed 000's open question: model scores predicting the demo "
                           "study's judgments"),
    "sequential-sign-test": (_sequential_sign_test, "issue 29: the anytime-valid sign test's false positives "
                             "under continuous monitoring and judgments saved, by simulation"),
    "adaptive-demo": (_adaptive_demo, "issue 29: the demo judged by silver judges through the adaptive "
                      "assignment, against the full fixed study"),
    "mcpg-steered": (_mcpg_steered, "issue 24: MCPG steered by the judgment predictor against the beam and "
                     "MCPG's true score, judged by silver judges and the predictor cross-validated"),
    "metrics-vs-judges": (_metrics_vs_judges, "issue 43: BLEU, chrF, TER (and iBLEU, edit rate) against real MQM "
                          "judges (WMT21 TED en-de) and the demo's scripted judges"),
}


def experiment_module(name: str):
    return EXPERIMENTS[name][0]()


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "experiment",
        help="reproduce a seed paper's analysis on the test set (Markdown + PNG in evaldata/results)",
        description="Reproduce the seeds' analyses; results go to --out as Markdown plus a PNG plot.",
    )
    experiments = parser.add_subparsers(dest="experiment", metavar="EXPERIMENT", required=True)
    for name, (_, help_line) in EXPERIMENTS.items():
        add_lazy_parser(experiments, name, _ARGUMENTS.get(name) or _arguments_of(name), help=help_line)


def _arguments_of(name: str):
    """The experiment module's own arguments, and a run that records the command."""
    def add(parser: argparse.ArgumentParser) -> None:
        module = experiment_module(name)
        module.add_arguments(parser)
        parser.set_defaults(func=lambda args: module.run_from_args(args, recorded_command(name, args)))
    return add


def _seed000_reranking_arguments(reranking: argparse.ArgumentParser) -> None:
    reranking.add_argument("--table", help="paraphrase table (default: the demo or build table)")
    reranking.add_argument("--lm", help="KenLM model (default: the demo or build LM)")
    reranking.add_argument("--input", help="tokenized test sentences (default: the demo or build test set)")
    reranking.add_argument("--limit", type=COUNT, default=None, help="first N sentences (default 100)")
    reranking.add_argument("--out", default=None, help="output directory (default evaldata/results)")
    reranking.add_argument("--nbest", type=COUNT, default=None, help="distinct n-best size (default 100)")
    reranking.add_argument("--stack-sizes", type=COUNT, nargs="+", default=None, help="default 5 20 200")
    reranking.add_argument("--processes", type=COUNT, default=None)
    reranking.set_defaults(func=run_seed000_reranking)


def _tuning_loop_arguments(loop: argparse.ArgumentParser) -> None:
    experiment_module("tuning-loop").add_arguments(loop)
    loop.set_defaults(func=run_tuning_loop)


_ARGUMENTS = {"seed000-reranking": _seed000_reranking_arguments, "tuning-loop": _tuning_loop_arguments}


def run_tuning_loop(args: argparse.Namespace) -> int:
    from parastudio.core.cli.progress_bar import progress_bar

    with progress_bar() as progress:
        return experiment_module("tuning-loop").run_from_args(args, recorded_command("tuning-loop", args), progress)


def recorded_command(experiment: str, args: argparse.Namespace) -> str:
    """The command with every option spelled out, so the report says exactly how it was made.

    Paths inside the checkout are written relative to it, so the command runs from any clone.
    """
    parts = ["parastudio", "experiment", experiment]
    for name, value in sorted(vars(args).items()):
        if name in _NOT_OPTIONS or value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:  # a switch (store_true): the flag alone
            parts.append(flag)
            continue
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
    return experiment_module("seed000-reranking").main(argv)
