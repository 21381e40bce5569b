"""``parastudio lm train`` and ``parastudio lm score``."""

from __future__ import annotations

import argparse
import sys

from parastudio.core.cli.number_options import COUNT, WholeNumber
from parastudio.core.textio import open_standard_input


def register(subparsers: argparse._SubParsersAction) -> None:
    lm = subparsers.add_parser("lm", help="train and query KenLM language models")
    lm_sub = lm.add_subparsers(dest="lm_command", metavar="ACTION", required=True)

    train = lm_sub.add_parser("train", help="estimate a modified Kneser-Ney LM with lmplz and binarize it")
    train.add_argument("corpus", help="tokenized text, one sentence per line")
    train.add_argument("--order", type=COUNT, required=True, help="n-gram order")
    train.add_argument("-o", "--output", required=True, help="binary model to write")
    train.add_argument("--prune", type=WholeNumber(at_least=0), nargs="+",
                       help="lmplz --prune count thresholds per order")
    train.add_argument("--memory", default="20%", help="lmplz -S memory budget (default 20%%)")
    train.add_argument("--discount-fallback", action="store_true",
                       help="lmplz --discount_fallback (needed on very small corpora)")
    train.add_argument("--arpa", help="also keep the ARPA file here")
    train.add_argument("--trie", action="store_true", help="trie data structure (smaller) instead of probing")
    train.add_argument("--quantize", type=COUNT, help="quantization bits for a trie model")
    train.set_defaults(func=run_train)

    score = lm_sub.add_parser("score", help="print log10 P(sentence) per line of standard input")
    score.add_argument("lm", help="KenLM model (ARPA or binary)")
    score.add_argument("--no-bos", action="store_true", help="do not prepend <s>")
    score.add_argument("--no-eos", action="store_true", help="do not append </s>")
    score.set_defaults(func=run_score)


def run_train(args: argparse.Namespace) -> int:
    from parastudio.core.engine.lm.kenlm_tools import KenLMToolsError, train_lm

    try:
        path = train_lm(
            args.corpus, args.order, args.output, prune=args.prune, memory=args.memory,
            discount_fallback=args.discount_fallback, arpa_output=args.arpa,
            binary_type="trie" if args.trie or args.quantize else "probing", quantize_bits=args.quantize,
        )
    except KenLMToolsError as error:
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 1
    print(f"wrote {path}", file=sys.stderr)
    return 0


def run_score(args: argparse.Namespace) -> int:
    from parastudio.core.engine.lm.language_model import LanguageModel

    model = LanguageModel(args.lm, cache_size=0)
    out = sys.stdout
    with open_standard_input() as lines:
        for line in lines:
            out.write(f"{model.score(line, bos=not args.no_bos, eos=not args.no_eos)!r}\n")
    return 0
