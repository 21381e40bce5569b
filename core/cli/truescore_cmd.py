"""``parastudio truescore``: the exact true score of one candidate (seed 000)."""

from __future__ import annotations

import argparse
import json
import sys

from parastudio.core.cli.number_options import WEIGHT
from parastudio.core.cli.table_options import add_table_loading_options, load_table_from_args


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("truescore", help="exact true score of a candidate paraphrase (seed 000)")
    parser.add_argument("--table", required=True, help="paraphrase table")
    parser.add_argument("--lm", help="KenLM model (ARPA or binary); the score then includes P_LM(target)")
    parser.add_argument("--source", required=True)
    parser.add_argument("--target", required=True)
    tokenizing = parser.add_mutually_exclusive_group()
    tokenizing.add_argument("--pretokenized", dest="tokenize", action="store_false", default=False,
                            help="split source and target on whitespace (default)")
    tokenizing.add_argument("--tokenize", dest="tokenize", action="store_true",
                            help="tokenize and case source and target like the bundled data (Moses tokenizer)")
    parser.add_argument("--alpha-phi", type=WEIGHT, default=1.0, help="weight of the rule probabilities")
    parser.add_argument("--alpha-lm", type=WEIGHT, default=1.0, help="weight of the LM")
    parser.add_argument("--alpha-w", type=WEIGHT, default=0.0, help="word penalty weight")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_table_loading_options(parser)
    parser.set_defaults(func=run)


def _tokens(text: str, tokenize: bool) -> list[str]:
    from parastudio.core.errors import OptionsError
    from parastudio.core.textio import MAX_SENTENCE_TOKENS

    if tokenize:
        from parastudio.core.engine.text.tokenization import tokenize as moses_tokenize

        text = moses_tokenize(text, "en")
    tokens = text.split()
    if len(tokens) > MAX_SENTENCE_TOKENS:  # the exact search's time grows with the sentence (issue 39)
        raise OptionsError(f"a sentence of at most {MAX_SENTENCE_TOKENS:,} tokens, not {len(tokens):,}")
    return tokens


def run(args: argparse.Namespace) -> int:
    from parastudio.core.cli.closed_streams import refuse_closed
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.model.scoring import ScoreWeights
    from parastudio.core.engine.model.truescore import TrueScorer

    refuse_closed(sys.stdout)  # before the table loads and notes its binary
    table = load_table_from_args(args.table, args)
    lm = LanguageModel(args.lm) if args.lm else None
    weights = ScoreWeights(args.alpha_phi, args.alpha_lm, args.alpha_w)
    result = TrueScorer(table, lm, weights).score(_tokens(args.source, args.tokenize), _tokens(args.target, args.tokenize))
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    if not result.reachable:
        print("unreachable: no set of disjoint rules turns the source into the target")
        return 0
    print(f"score: {result.score:.6g}")
    print(f"log10 score: {result.log10_score:.6f}")
    for segment in result.derivation:
        if not segment.identity:
            print(f"  [{segment.src_start},{segment.src_end}) {' '.join(segment.rule.source)} -> "
                  f"{' '.join(segment.rule.target)}  p={segment.rule.prob:g}")
    return 0
