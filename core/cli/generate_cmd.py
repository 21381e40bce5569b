"""``parastudio generate``: candidate paraphrases for sentences on standard input."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from parastudio.core.cli.lazy_parser import add_lazy_parser
from parastudio.core.cli.number_options import COUNT, POSITIVE, SEED, RealNumber
from parastudio.core.cli.spark_options import add_spark_options
from parastudio.core.cli.table_options import print_table_report
from parastudio.core.errors import InputFormatError
from parastudio.core.textio import MAX_SENTENCE_TOKENS, open_standard_input, open_text_maybe_gzip

# Each option of the systems' options objects (core/engine/candidates/generation_options.py) -> its flag here. Which
# system takes which is read from the objects themselves (option_names), shown in --help and checked in core.
OPTION_FLAGS = {
    "nbest": "--nbest", "exclude_source": "--exclude-source", "tokenize": "--tokenize",
    "table_loading": "--format/--score/--value-kind/--skip-bad-lines/--swap-sides/--channel-from-reverse",
    "stack_size": "--stack-size", "weights": "--weights", "pattern_score": "--pattern-score",
    "seed": "--seed", "profile": "--profile", "episodes_per_step": "--episodes-per-step",
    "max_episodes": "--max-episodes", "time_budget": "--time-budget", "exploration": "--exploration",
    "reward": "--reward", "core": "--core",
}
# Why `generate --remote` is refused before anything loads (core/spark_generation.py).
WITHOUT_CONNECT = "batch generation runs the engine on each partition (RDDs), which Spark Connect does not offer"
# Options set by their flag's value as it is (the flags above that need reading go through _option_values).
DIRECT_OPTIONS = ("nbest", "exclude_source", "stack_size", "pattern_score", "seed", "profile", "episodes_per_step",
                  "max_episodes", "time_budget", "exploration", "reward", "core")
# Inputs and outputs that only some systems take (refused in core for the others).
SYSTEM_ONLY_FLAGS = {"--pattern-table": "SPG", "--reference": "spg-similarity", "--search-graph": "beam",
                     "--predictor": "mcpg-true with --reward predictor"}


def options_by_system() -> str:
    """The table in ``--help``: the flags of every option each system takes."""
    from parastudio.core.engine.candidates.generation_options import OPTIONS_OF_SYSTEM, option_names

    common = set.intersection(*(set(option_names(system)) for system in OPTIONS_OF_SYSTEM))
    lines = ["options each system takes (any other is refused):",
             f"  {'every system':19} " + " ".join(OPTION_FLAGS[n] for n in option_names("beam") if n in common)]
    for system in OPTIONS_OF_SYSTEM:
        flags = [OPTION_FLAGS[name] for name in option_names(system) if name in OPTION_FLAGS and name not in common]
        lines.append(f"  {system:19} {' '.join(flags)}")
    lines += [f"  {flag} is for {systems} only" for flag, systems in SYSTEM_ONLY_FLAGS.items()]
    return "\n".join(lines)


def register(subparsers: argparse._SubParsersAction) -> None:
    add_lazy_parser(subparsers, "generate", _arguments,
                    help="generate paraphrases (beam decoder, MCPG, SPG) for sentences on standard input")


def _arguments(parser: argparse.ArgumentParser) -> None:
    """generate's arguments, read from the generators' options (added when generate runs or shows its help)."""
    from parastudio.core.cli.table_options import add_table_loading_options
    from parastudio.core.engine.candidates.generation import SYSTEMS
    from parastudio.core.engine.decoders.mcpg.options import (
        DEFAULT_EPISODES_PER_STEP,
        DEFAULT_EXPLORATION,
        SEED_EPISODES_PER_STEP,
        TUNED,
    )

    parser.description = ("Reads one sentence per line on standard input and prints candidates with their model "
                          "score and their exact true score (log10, seed 000) under the same table and LM. Every "
                          "candidate's params name the options, the input files by sha256 and the code by version "
                          "and commit (parastudio reproduce runs them again).")
    parser.epilog = options_by_system()
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    unset = argparse.SUPPRESS  # an option not given is absent, so core can tell given from default
    parser.add_argument("--system", required=True, choices=SYSTEMS)
    parser.add_argument("--table", action="append", required=True,
                        help="paraphrase table (repeat for several; merged except for SPG)")
    parser.add_argument("--pattern-table", action="append", default=[], metavar="FILE",
                        help="SPG only: a pattern paraphrase table (parastudio patterns build), matched on each "
                        "input sentence's spaCy parse; repeat for several")
    parser.add_argument("--pattern-score", choices=("score", "p_mle"), default=unset,
                        help="which score of the pattern table is the rule's: Eq. 3 (score, default) or Eq. 1 (p_mle)")
    parser.add_argument("--lm", required=True, help="KenLM model (ARPA or binary)")
    parser.add_argument("--nbest", type=COUNT, default=unset, help="candidates per sentence (distinct strings; default 1)")
    parser.add_argument("--reference", metavar="FILE",
                        help="one reference sentence per input line (spg-similarity)")
    parser.add_argument("--stack-size", type=COUNT, default=unset,
                        help="beam decoder stack size (Moses -stack; beam and SPG, default 200)")
    parser.add_argument("--search-graph", metavar="FILE",
                        help="write the beam decoder's search graph in Moses -output-search-graph format")
    parser.add_argument("--search-graph-extended", action="store_true",
                        help="write it in Moses' extended format (-output-search-graph-extended): forward and "
                        "fscore on the root, each step's feature values and source phrase")
    parser.add_argument("--report-segmentation", action="store_true",
                        help="print each sentence's 1-best as Moses -report-segmentation does: every phrase followed "
                        "by the source span it translates, |i-j| (0-based, inclusive); seed 001 reads coverage so")
    parser.add_argument("--exclude-source", action="store_true", default=unset,
                        help="never output the unchanged source sentence (off by default: the beam decoder is "
                        "our Moses, whose 1-best may be the source when no rewrite scores better, and seed 000's "
                        "reranking counts it; a judging study wants it on)")
    mcpg = parser.add_argument_group("MCPG (seed 003)")
    mcpg.add_argument("--profile", choices=("faithful", "tuned"), default=unset,
                      help="faithful: the seeds' MCPG; tuned (default): its measured improvements")
    mcpg.add_argument("--core", choices=("native", "python"), default=unset,
                      help="native: the compiled tree search (the same results, many times faster; it runs the "
                      "faithful profile's search, both modes); python: the reference search (default: native "
                      "when it is built and runs these settings, else python)")
    mcpg.add_argument("--episodes-per-step", type=COUNT, metavar="ETA", default=unset,
                      help=f"episodes per root decision, seed 003's eta, a count (default {DEFAULT_EPISODES_PER_STEP:,}: "
                      f"the seed's {SEED_EPISODES_PER_STEP:,} scaled to our Python search's speed)")
    mcpg.add_argument("--max-episodes", type=COUNT, metavar="N", default=unset,
                      help="episodes of the whole search (default: tuned {TUNED_MAX_EPISODES:,}, which it restarts "
                      "until; faithful none)".replace("{TUNED_MAX_EPISODES:,}", f"{TUNED.max_episodes:,}"))
    mcpg.add_argument("--time-budget", type=POSITIVE, default=unset, metavar="SECONDS",
                      help="a cap on the seconds per sentence, not a setting (default: none, so the output "
                      "depends on the inputs and the seed alone): a search it cuts says so in its candidates' "
                      "search.cut, and only such a search depends on the machine's speed")
    mcpg.add_argument("--seed", type=SEED, default=unset, help="random seed (default 0)")
    mcpg.add_argument("--exploration", type=RealNumber(at_least=0), default=unset, metavar="K",
                      help=f"RAVE equivalence parameter k (seed 003 §4.3: {DEFAULT_EXPLORATION:g})")
    mcpg.add_argument("--reward", choices=("true-score", "predictor", "channel", "seed003"), default=unset,
                      help="true-score (mcpg-true default: the exact true score) or predictor (mcpg-true: the "
                      "probability that judges accept the whole sentence, from --predictor; the Python search runs "
                      "it and the model score is that probability); channel (mcpg-translator default: "
                      "P_LM(t) prod p(s_i|t_i)) or seed003 (seed 003 §4.3's reward, each rule over p(s_i|s_i))")
    mcpg.add_argument("--predictor", metavar="MODEL",
                      help="with --reward predictor: the judgment predictor, as written by parastudio "
                      "judgment-predictor --devset DEV --json > MODEL (recorded by sha256 in params)")
    parser.add_argument("--weights", metavar="WEIGHTS_JSON",
                        help="tuned weights (parastudio tune -o): the beam decoder's alpha_phi, alpha_lm, alpha_w, "
                        "or SPG's lambda_k, lambda_self, lambda_lm, lambda_um; recorded in every candidate's params")
    parser.add_argument("--processes", type=COUNT, default=None, help="worker processes (default: up to 2)")
    parser.add_argument("--engine", choices=("local", "spark"), default="local",
                        help="local (default): this machine's worker processes; spark: the sentences partitioned "
                        "over Apache Spark executors (--master, --driver-memory), the same bytes")
    add_spark_options(parser)
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per candidate (default: 'id ||| text ||| model ||| true' lines)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the candidates here (whole or not at all) instead of standard output")
    tokenizing = parser.add_mutually_exclusive_group()
    tokenizing.add_argument("--pretokenized", dest="tokenize", action="store_false", default=False,
                            help="input is already tokenized: split on whitespace (default)")
    tokenizing.add_argument("--tokenize", dest="tokenize", action="store_true",
                            help="tokenize and lowercase input like the bundled data (Moses tokenizer; recorded "
                            "in params)")
    add_table_loading_options(parser)
    parser.set_defaults(func=run)


def _read_sentences(lines, tokenize: bool) -> list[list[str]]:
    if tokenize:
        from parastudio.core.engine.text.tokenization import tokenize as moses_tokenize
    sentences = []
    for number, line in enumerate(lines, start=1):
        text = line.rstrip("\n")
        tokens = (moses_tokenize(text) if tokenize else text).split()
        if len(tokens) > MAX_SENTENCE_TOKENS:
            raise InputFormatError("<stdin>", number, f"a sentence of at most {MAX_SENTENCE_TOKENS:,} tokens "
                                   "(a search's memory grows with the sentence)", f"{len(tokens):,} tokens")
        sentences.append(tokens)
    return sentences


def _option_values(args: argparse.Namespace) -> dict:
    """The options given on the command line, by their names in the options objects (not given: absent)."""
    from parastudio.core.cli.table_options import table_loading_from_args

    values = {name: getattr(args, name) for name in DIRECT_OPTIONS if hasattr(args, name)}
    values["tokenize"] = args.tokenize
    values["table_loading"] = table_loading_from_args(args)
    if args.weights:
        values["weights"] = _tuned_weights(args)
    return values


def _tuned_weights(args: argparse.Namespace):
    """The weights in ``--weights`` for the system (the beam decoder's or SPG's); refused for another system."""
    from parastudio.core.errors import OptionsError
    from parastudio.core.tuning.weights_file import beam_weights, check_applies, read_weights, spg_weights

    data = read_weights(args.weights)
    try:
        check_applies(data, args.system, args.weights)
    except ValueError as error:
        raise OptionsError(str(error)) from None
    return beam_weights(data, args.weights) if data["system"] == "beam" else spg_weights(data, args.weights)


def _candidate_output(path: str | None, inputs: list):
    """Where candidates go: standard output, or ``path`` written whole or not at all (an interrupted run
    leaves the previous file), never over one of ``inputs``."""
    if path:
        from parastudio.core.textio import atomic_output

        return atomic_output(path, inputs=inputs)
    return contextlib.nullcontext(sys.stdout)


def _inputs(args: argparse.Namespace) -> list:
    """Every file the command reads: its outputs may be none of them."""
    return [*args.table, *args.pattern_table, args.lm, args.reference, args.weights, args.predictor]


def run(args: argparse.Namespace) -> int:
    from parastudio.core.engine.candidates.generation import generate_batches
    from parastudio.core.engine.candidates.generation_options import options_for
    from parastudio.core.engine.candidates.generation_resources import load_resources
    from parastudio.core.tablebuild.spark_session import SparkUnavailable

    if args.search_graph_extended and not args.search_graph:
        print("parastudio: error: --search-graph-extended needs --search-graph FILE", file=sys.stderr)
        return 2
    if args.report_segmentation and args.json:
        print("parastudio: error: --report-segmentation prints text lines; with --json the derivation has the spans",
              file=sys.stderr)
        return 2
    try:
        spark = _spark_settings(args)
    except SparkUnavailable as error:
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 2
    options = options_for(args.system, **_option_values(args))  # OptionsError: exit 2 (core.cli.main)
    if (getattr(options, "reward", None) == "predictor") != (args.predictor is not None):
        print("parastudio: error: --reward predictor and --predictor MODEL go together (mcpg-true)", file=sys.stderr)
        return 2
    if getattr(options, "reward", None) == "predictor" and not hasattr(args, "core"):
        print("parastudio: note: --reward predictor runs in the Python MCPG search (the compiled core cannot call "
              "a whole-sentence reward; --core python chooses it without this note)", file=sys.stderr)
    if not args.output:
        from parastudio.core.cli.closed_streams import refuse_closed

        refuse_closed(sys.stdout)
    if args.search_graph:
        from parastudio.core.output_files import resolve_output

        resolve_output(args.search_graph, _inputs(args))  # refused before the search, not after it
    with open_standard_input() as handle:
        sentences = _read_sentences(handle, args.tokenize)
    references = None
    if args.reference:
        with open_text_maybe_gzip(args.reference) as handle:
            references = _read_sentences(handle, args.tokenize)
        if len(references) != len(sentences):
            print(f"parastudio: error: {args.reference}: {len(references)} lines, expected one per input sentence "
                  f"({len(sentences)})", file=sys.stderr)
            return 2
    signature = None
    if args.weights:
        from parastudio.core.tuning.weights_file import read_weights

        signature = read_weights(args.weights).get("signature")
    resources = load_resources(options, args.table, args.lm, pattern_tables=args.pattern_table, sentences=sentences,
                               weights_file=args.weights, weights_signature=signature, reference_file=args.reference,
                               predictor_file=args.predictor, on_table_report=print_table_report)

    from parastudio.core.cli.progress_bar import progress_bar

    graph_lines: list[str] = []
    try:
        with progress_bar("sent") as progress, _candidate_output(args.output, _inputs(args)) as out:
            if args.engine == "spark":
                from parastudio.core.spark_generation import engine_spec, spark_batches

                batches = spark_batches(spark, engine_spec(options, args.table, args.lm, resources),
                                        sentences, references,
                                        note=lambda text: print(f"parastudio: note: {text}", file=sys.stderr))
            else:
                batches = generate_batches(options, sentences, resources, progress=progress,
                                           processes=args.processes, references=references,
                                           search_graph=bool(args.search_graph),
                                           search_graph_extended=args.search_graph_extended)
            for _, candidates, graph in batches:
                if args.report_segmentation:
                    from parastudio.core.engine.decoders.cat.translate import translation_from_segments

                    best = candidates[0] if candidates else None
                    out.write((translation_from_segments(best.text.split(), best.derivation).format() if best else "")
                              + "\n")
                    candidates = []
                for candidate in candidates:
                    if args.json:
                        out.write(json.dumps(candidate.to_json(), ensure_ascii=False) + "\n")
                    else:
                        true = "unreachable" if candidate.true_score is None else f"{candidate.true_score:.6f}"
                        out.write(f"{candidate.sentence_id} ||| {candidate.text} ||| {candidate.model_score:.6f} "
                                  f"||| {true}\n")
                if graph:
                    graph_lines.extend(graph)
                out.flush()
    except ValueError as error:  # OptionsError and the generators' own refusals: a message, exit 2
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 2
    except SparkUnavailable as error:  # pyspark or Java missing
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 2
    if args.search_graph:
        from parastudio.core.textio import atomic_output

        with atomic_output(args.search_graph, inputs=_inputs(args)) as out:
            out.writelines(line + "\n" for line in graph_lines)
    return 0


def _spark_settings(args: argparse.Namespace):
    """The Spark settings of ``--engine spark`` (None for the local engine); SparkUnavailable says why not."""
    from parastudio.core.cli.spark_options import spark_settings
    from parastudio.core.tablebuild.spark_session import SparkUnavailable

    settings = spark_settings(args, without_connect=WITHOUT_CONNECT)
    distributed_not = [flag for flag, given in (("--search-graph", args.search_graph), ("--pattern-table",
                       args.pattern_table), ("--processes", args.processes is not None)) if given]
    if settings is not None and distributed_not:
        raise SparkUnavailable(f"--engine spark cannot take {', '.join(distributed_not)} (the search graph and the "
                               "pattern tables' parses are the local engine's; Spark's executors replace --processes)")
    return settings
