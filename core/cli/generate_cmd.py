"""``parastudio generate``: candidate paraphrases for sentences on standard input."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from core.cli.table_options import add_table_loading_options, load_table_from_args
from core.engine.generation import SYSTEMS, generate_batches
from core.engine.lm import LanguageModel
from core.engine.mcpg import DEFAULT_EXPLORATION
from core.textio import open_standard_input, open_text_maybe_gzip


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "generate",
        help="generate paraphrases (beam decoder, MCPG, SPG) for sentences on standard input",
        description="Reads one sentence per line on standard input and prints candidates with their model "
                    "score and their exact true score (log10, seed 000) under the same table and LM.",
    )
    parser.add_argument("--system", required=True, choices=SYSTEMS)
    parser.add_argument("--table", action="append", required=True,
                        help="paraphrase table (repeat for several; merged except for SPG)")
    parser.add_argument("--pattern-table", action="append", default=[], metavar="FILE",
                        help="SPG only: a pattern paraphrase table (parastudio patterns build), matched on each "
                        "input sentence's spaCy parse; repeat for several")
    parser.add_argument("--pattern-score", choices=("score", "p_mle"), default="score",
                        help="which score of the pattern table is the rule's: Eq. 3 (score, default) or Eq. 1 (p_mle)")
    parser.add_argument("--lm", required=True, help="KenLM model (ARPA or binary)")
    parser.add_argument("--nbest", type=int, default=1, help="candidates per sentence (distinct strings)")
    parser.add_argument("--time-budget", type=float, default=None,
                        help=f"seconds per sentence (MCPG, SPG; MCPG default {MCPG_DEFAULT_BUDGET:g})")
    parser.add_argument("--reference", metavar="FILE",
                        help="one reference sentence per input line (spg-similarity)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (MCPG)")
    parser.add_argument("--stack-size", type=int, default=200, help="beam decoder stack size (Moses -stack)")
    parser.add_argument("--search-graph", metavar="FILE",
                        help="write the beam decoder's search graph in Moses -output-search-graph format")
    parser.add_argument("--search-graph-extended", action="store_true",
                        help="write it in Moses' extended format (-output-search-graph-extended): forward and "
                        "fscore on the root, each step's feature values and source phrase")
    parser.add_argument("--report-segmentation", action="store_true",
                        help="print each sentence's 1-best as Moses -report-segmentation does: every phrase followed "
                        "by the source span it translates, |i-j| (0-based, inclusive); seed 001 reads coverage so")
    parser.add_argument("--exclude-source", action="store_true",
                        help="never output the unchanged source sentence (off by default: the beam decoder is "
                        "our Moses, whose 1-best may be the source when no rewrite scores better, and seed 000's "
                        "reranking counts it; a judging study wants it on)")
    mcpg = parser.add_argument_group("MCPG (seed 003)")
    mcpg.add_argument("--profile", choices=("faithful", "tuned"), default="tuned",
                      help="faithful: the seeds' MCPG; tuned (default): its measured improvements")
    mcpg.add_argument("--episodes-per-step", type=int, metavar="ETA",
                      help="episodes per root decision, seed 003's eta (default: tuned 1000; faithful 100,000, or "
                      "with --time-budget paced so that every decision left gets an equal share of the time)")
    mcpg.add_argument("--exploration", type=float, default=DEFAULT_EXPLORATION, metavar="K",
                      help=f"RAVE equivalence parameter k (seed 003 §4.3: {DEFAULT_EXPLORATION:g})")
    mcpg.add_argument("--reward", choices=("true-score", "channel", "seed003"),
                      help="true-score (mcpg-true: the exact true score); channel (mcpg-translator default: "
                      "P_LM(t) prod p(s_i|t_i)) or seed003 (seed 003 §4.3's reward, each rule over p(s_i|s_i))")
    parser.add_argument("--weights", metavar="WEIGHTS_JSON",
                        help="tuned weights (parastudio tune -o): the beam decoder's alpha_phi, alpha_lm, alpha_w, "
                        "or SPG's lambda_k, lambda_self, lambda_lm, lambda_um; recorded in every candidate's params")
    parser.add_argument("--processes", type=int, default=None, help="worker processes (default: up to 2)")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per candidate (default: 'id ||| text ||| model ||| true' lines)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the candidates here (whole or not at all) instead of standard output")
    tokenizing = parser.add_mutually_exclusive_group()
    tokenizing.add_argument("--pretokenized", dest="tokenize", action="store_false", default=False,
                            help="input is already tokenized: split on whitespace (default)")
    tokenizing.add_argument("--tokenize", dest="tokenize", action="store_true",
                            help="tokenize and lowercase input like the bundled data (Moses tokenizer)")
    add_table_loading_options(parser)
    parser.set_defaults(func=run)


# MCPG is anytime; without a budget its paper settings run for minutes per sentence.
MCPG_DEFAULT_BUDGET = 2.0


def _read_sentences(lines, tokenize: bool) -> list[list[str]]:
    if tokenize:
        from core.engine.tokenization import tokenize as moses_tokenize
    sentences = []
    for line in lines:
        text = line.rstrip("\n")
        sentences.append((moses_tokenize(text) if tokenize else text).split())
    return sentences


def _mcpg_reward(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """(translator reward, error): the reward names which mode's objective is meant."""
    if args.reward is None:
        return "channel", None
    if args.system == "mcpg-true":
        return ("channel", None) if args.reward == "true-score" else (
            None, f"--reward {args.reward} is a translator-mode reward; mcpg-true's reward is the true score")
    if args.system == "mcpg-translator":
        return (args.reward, None) if args.reward != "true-score" else (
            None, "--reward true-score is mcpg-true's; mcpg-translator takes channel or seed003")
    return None, "--reward applies to the MCPG systems"


def _tuned_weights(args: argparse.Namespace) -> tuple[dict, str | None]:
    """(generation options, error) from ``--weights``: the decoder settings or SPG weights and their provenance."""
    if not args.weights:
        return {}, None
    from core.engine.beam_decoder import DecoderSettings
    from core.tuning.weights_file import beam_weights, check_applies, read_weights, spg_weights, weights_provenance

    data = read_weights(args.weights)
    try:
        check_applies(data, args.system, args.weights)
    except ValueError as error:
        return {}, str(error)
    options: dict = {"weights_source": weights_provenance(args.weights, data)}
    if data["system"] == "beam":
        options["settings"] = DecoderSettings(stack_size=args.stack_size, weights=beam_weights(data, args.weights))
    else:
        weights = spg_weights(data, args.weights)
        if len(weights.tables) != len(args.table):
            return {}, (f"{args.weights} holds lambda_k for {len(weights.tables)} table(s); --table is given "
                        f"{len(args.table)} time(s)")
        options["spg"] = weights
    return options, None


def _candidate_output(path: str | None, inputs: list):
    """Where candidates go: standard output, or ``path`` written whole or not at all (an interrupted run
    leaves the previous file), never over one of ``inputs``."""
    if path:
        from core.textio import atomic_output

        return atomic_output(path, inputs=inputs)
    return contextlib.nullcontext(sys.stdout)


def _inputs(args: argparse.Namespace) -> list:
    """Every file the command reads: its outputs may be none of them."""
    return [*args.table, *args.pattern_table, args.lm, args.reference, args.weights]


def run(args: argparse.Namespace) -> int:
    if args.search_graph_extended and not args.search_graph:
        print("parastudio: error: --search-graph-extended needs --search-graph FILE", file=sys.stderr)
        return 2
    translator_reward, problem = _mcpg_reward(args)
    if problem:
        print(f"parastudio: error: {problem}", file=sys.stderr)
        return 2
    if args.episodes_per_step is not None and args.episodes_per_step < 1:
        print("parastudio: error: --episodes-per-step must be at least 1", file=sys.stderr)
        return 2
    if args.search_graph and args.system != "beam":
        print("parastudio: error: --search-graph needs --system beam", file=sys.stderr)
        return 2
    if args.report_segmentation and args.json:
        print("parastudio: error: --report-segmentation prints text lines; with --json the derivation has the spans",
              file=sys.stderr)
        return 2
    if args.nbest < 1 or args.stack_size < 1:
        print("parastudio: error: --nbest and --stack-size must be at least 1", file=sys.stderr)
        return 2
    if args.pattern_table and not args.system.startswith("spg"):
        print("parastudio: error: --pattern-table needs an SPG system (spg-compression, spg-simplification, "
              "spg-similarity)", file=sys.stderr)
        return 2
    if args.search_graph:
        from core.output_files import resolve_output

        resolve_output(args.search_graph, _inputs(args))  # refused before the search, not after it
    tuned, problem = _tuned_weights(args)
    if problem:
        print(f"parastudio: error: {problem}", file=sys.stderr)
        return 2
    tables = [load_table_from_args(path, args) for path in args.table]
    lm = LanguageModel(args.lm)
    with open_standard_input() as handle:
        sentences = _read_sentences(handle, args.tokenize)
    pattern_tables = []
    if args.pattern_table:
        from core.engine.patterns.pattern_table import pattern_table_for

        pattern_tables = [pattern_table_for(path, sentences, score=args.pattern_score) for path in args.pattern_table]
    references = None
    if args.reference:
        with open_text_maybe_gzip(args.reference) as handle:
            references = _read_sentences(handle, args.tokenize)
        if len(references) != len(sentences):
            print(f"parastudio: error: {args.reference}: {len(references)} lines, expected one per input sentence "
                  f"({len(sentences)})", file=sys.stderr)
            return 2
    elif args.system == "spg-similarity":
        print("parastudio: error: spg-similarity needs --reference FILE", file=sys.stderr)
        return 2
    time_budget = args.time_budget
    if time_budget is None and args.system.startswith("mcpg"):
        time_budget = MCPG_DEFAULT_BUDGET

    from core.cli.progress_bar import progress_bar

    graph_lines: list[str] = []
    try:
        with progress_bar("sent") as progress, _candidate_output(args.output, _inputs(args)) as out:
            batches = generate_batches(
                args.system, sentences, tables, lm, nbest=args.nbest, time_budget=time_budget, seed=args.seed,
                stack_size=args.stack_size, progress=progress, processes=args.processes,
                search_graph=bool(args.search_graph), references=references,
                search_graph_extended=args.search_graph_extended, exclude_source=args.exclude_source,
                mcpg=args.profile, mcpg_episodes_per_step=args.episodes_per_step,
                mcpg_exploration=args.exploration, mcpg_translator_reward=translator_reward, **tuned,
                **({"pattern_tables": pattern_tables} if pattern_tables else {}),
            )
            for _, candidates, graph in batches:
                if args.report_segmentation:
                    from core.engine.cat.translate import translation_from_segments

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
    except ValueError as error:
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 2
    if args.search_graph:
        from core.textio import atomic_output

        with atomic_output(args.search_graph, inputs=_inputs(args)) as out:
            out.writelines(line + "\n" for line in graph_lines)
    return 0
