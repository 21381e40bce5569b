"""``parastudio patterns``: seed 002's paraphrase patterns (extract, build, stats, rescore, study).

* ``extract SENTENCES``: the English patterns of each sentence (Algorithm 1 with
  simplification, spaCy parse), one line or JSON object per sentence;
* ``build``: the ``parse`` and ``patterns`` build stages (the WEB-RV alignment
  comes from the ``phrase-table`` stage);
* ``stats TABLE``: pairs (#PP), distinct patterns, slots per pair (seed 002 Tables 4, 5);
* ``rescore TABLE``: Eq. 3 under new λ and T (the MLE-model: ``--mle``);
* ``study TABLE``: a blind judging study of LL-model and MLE-model pairs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from parastudio.core.cli.number_options import COUNT, SEED, WEIGHT


def register(subparsers: argparse._SubParsersAction) -> None:
    patterns = subparsers.add_parser("patterns", help="seed 002's paraphrase patterns: extract, build, stats, "
                                     "rescore, study")
    actions = patterns.add_subparsers(dest="patterns_command", metavar="ACTION", required=True)

    extract = actions.add_parser("extract", help="the English patterns of each sentence (Algorithm 1, simplified)")
    extract.add_argument("sentences", metavar="SENTENCES", help="one sentence per line ('-' for standard input)")
    extract.add_argument("--json", action="store_true", help="one JSON object per sentence")
    extract.add_argument("--pretokenized", action="store_true",
                         help="split on whitespace only (default: the project's tokenizer, which leaves "
                              "tokenized text as it is)")
    extract.set_defaults(func=run_extract)

    build = actions.add_parser("build", help="parse the WEB training verses and build the pattern table "
                               "(build stages parse and patterns)")
    build.add_argument("--out", type=Path, help="evaldata directory (default: the checkout's evaldata/); its "
                       "build/ must hold the corpus, split and alignment/web-rv.align.gz")
    build.add_argument("--jobs", type=COUNT, default=2, metavar="N", help="parsing processes (default 2)")
    build.set_defaults(func=run_build)

    stats = actions.add_parser("stats", help="pairs, distinct patterns, slots per pair of a pattern table")
    stats.add_argument("table", metavar="TABLE")
    stats.add_argument("--json", action="store_true")
    stats.set_defaults(func=run_stats)

    rescore = actions.add_parser("rescore", help="a pattern table scored under new weights λ1..λ4 and threshold T")
    rescore.add_argument("table", metavar="TABLE")
    rescore.add_argument("-o", "--output", required=True, help="the new table (.gz to compress)")
    weights = rescore.add_mutually_exclusive_group()
    weights.add_argument("--lambdas", type=WEIGHT, nargs=4, metavar="λ", help="λ1 λ2 λ3 λ4 (default 1 1 1 1)")
    weights.add_argument("--mle", action="store_true", help="the MLE-model: λ = 1 1 0 0 (Eq. 1)")
    weights.add_argument("--paper", action="store_true",
                         help="seed 002's tuned values: λ = 0.0594137 0.995936 -0.0048954 1.47816, T = -10.002")
    rescore.add_argument("--threshold", type=WEIGHT, default=None, metavar="T",
                         help="keep pairs whose ln score exceeds T (default: keep all)")
    rescore.set_defaults(func=run_rescore)

    study = actions.add_parser("study", help="a blind study of LL-model and MLE-model pattern pairs (seed 002 §4.1)")
    study.add_argument("table", metavar="TABLE")
    study.add_argument("--db", required=True, help="the study database (created if missing)")
    study.add_argument("--name", default="pattern pairs", help="study name")
    study.add_argument("--annotators", required=True, help="comma-separated judges")
    study.add_argument("--sample", type=COUNT, default=100, help="pairs drawn from each model (default 100)")
    study.add_argument("--judges-per-item", type=COUNT, default=2)
    study.add_argument("--seed", type=SEED, default=0)
    study.add_argument("--ll-lambdas", type=WEIGHT, nargs=4, default=None, metavar="λ",
                       help="the LL-model's λ1..λ4 (default: seed 002's tuned 0.0594137 0.995936 -0.0048954 1.47816)")
    study.add_argument("--ll-threshold", type=WEIGHT, default=None, metavar="T",
                       help="the LL-model keeps pairs whose ln score exceeds T (default: seed 002's -10.002)")
    study.add_argument("--mle-threshold", type=WEIGHT, default=None, metavar="T'",
                       help="the MLE-model (Eq. 1) keeps pairs whose ln p(e2|e1) exceeds T' (default: seed 002's -5.1)")
    study.add_argument("--paper", action="store_true",
                       help="seed 002's tuned values for both models (the default; kept for old scripts)")
    study.set_defaults(func=run_study)


def _sentences(path: str) -> list[str]:
    from parastudio.core.textio import open_standard_input, open_text_maybe_gzip

    with (open_standard_input() if path == "-" else open_text_maybe_gzip(path)) as handle:
        return [line.rstrip("\n") for line in handle]


def run_extract(args: argparse.Namespace) -> int:
    from parastudio.core.engine.tables.patterns.induction import induce_patterns
    from parastudio.core.engine.tables.patterns.spacy_parser import ParserUnavailable, SpacyParser
    from parastudio.core.engine.text.display_text import cased_tokens
    from parastudio.core.engine.text.tokenization import tokenize

    lines = _sentences(args.sentences)
    sentences = [line.split() if args.pretokenized else tokenize(line).split() for line in lines]
    _refuse_long_sentences(sentences, "<stdin>" if args.sentences == "-" else args.sentences)
    # The parser was trained on cased text: keep the casing the input has.
    cased = [cased_tokens(line, tokens) if any(c.isupper() for c in line) else None
             for line, tokens in zip(lines, sentences)]
    parser = SpacyParser()
    try:
        parses = list(parser.parse_many(sentences, cased))
    except ParserUnavailable as error:
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 1
    for number, (tokens, parse) in enumerate(zip(sentences, parses)):
        instances = induce_patterns(parse)
        if args.json:
            print(json.dumps({"sentence_id": number, "tokens": tokens, "patterns": [
                {"pattern": instance.unnumbered, "numbered": instance.text, "root": instance.root,
                 "span": list(instance.span), "slots": {slot: " ".join(words)
                                                        for slot, words in instance.filler_words().items()}}
                for instance in instances], "parser": parser.provenance()}, ensure_ascii=False))
        else:
            for instance in instances:
                print(f"{number}\t{instance.unnumbered}\t{instance.text}")
    return 0


def _refuse_long_sentences(sentences: list[list[str]], shown: str) -> None:
    """A sentence past the bound of generate and truescore is refused before the parser starts (issue 39): its
    parse and its subtrees grow with its length (a 12,000-token line ran the tree walk past Python's recursion
    limit; 100,000 tokens parsed for minutes)."""
    from parastudio.core.errors import InputFormatError
    from parastudio.core.textio import MAX_SENTENCE_TOKENS

    for number, tokens in enumerate(sentences, start=1):
        if len(tokens) > MAX_SENTENCE_TOKENS:
            raise InputFormatError(shown, number, f"a sentence of at most {MAX_SENTENCE_TOKENS:,} tokens (a parse "
                                   "and its subtrees grow with the sentence)", f"{len(tokens):,} tokens")


def run_build(args: argparse.Namespace) -> int:
    from parastudio.core.cli.progress_bar import progress_bar
    from parastudio.core.evaldata.build import run_build as build

    with progress_bar("chunk") as progress:
        report = build(args.out, ["parse", "patterns"], progress=progress, jobs=args.jobs, install=False)
    failed = False
    for stage in ("parse", "patterns"):
        entry = report["stages"].get(stage, {})
        print(f"{stage:10} {entry.get('status', '?'):8} {entry.get('seconds', 0):8.1f} s")
        if entry.get("status") != "done":
            failed = True
            print(f"  {entry.get('stats', {}).get('reason', '')}", file=sys.stderr)
    stats = report["stages"].get("patterns", {}).get("stats", {})
    if stats.get("pairs") is not None:
        print(f"pattern pairs: {stats['pairs']} in {stats['output']}")
    return 3 if failed else 0


def run_stats(args: argparse.Namespace) -> int:
    from parastudio.core.tablebuild.patterns.rescoring import table_stats

    stats = table_stats(Path(args.table))
    if args.json:
        print(json.dumps(stats, ensure_ascii=False))
        return 0
    print(f"pairs (#PP): {stats['pairs']}")
    print(f"distinct e1: {stats['distinct_e1']}")
    print(f"distinct e2: {stats['distinct_e2']}")
    print(f"mean pivots per pair: {stats['mean_pivots_per_pair']:.4f}")
    for name in ("pairs_by_slot_count", "pairs_by_slot_kind"):
        shown = ", ".join(f"{key} {value}" for key, value in stats[name].items())
        print(f"{name.replace('_', ' ')}: {shown}")
    print(f"λ: {stats['lambdas']}, T: {stats['threshold']}")
    return 0


def run_rescore(args: argparse.Namespace) -> int:
    from parastudio.core.tablebuild.patterns.rescoring import rescore_table
    from parastudio.core.tablebuild.patterns.scoring import (
        DEFAULT_LAMBDAS,
        KEEP_ALL,
        MLE_LAMBDAS,
        PAPER_LAMBDAS,
        PAPER_THRESHOLD,
    )

    lambdas = PAPER_LAMBDAS if args.paper else MLE_LAMBDAS if args.mle else tuple(args.lambdas or DEFAULT_LAMBDAS)
    threshold = args.threshold if args.threshold is not None else PAPER_THRESHOLD if args.paper else KEEP_ALL
    from parastudio.core.output_files import writes_to_standard_output

    stats = rescore_table(Path(args.table), args.output, lambdas=lambdas, threshold=threshold)
    print(f"{stats['pairs']} pairs written to {args.output} (λ = {' '.join(map(str, stats['lambdas']))}, "
          f"T = {threshold})", file=sys.stderr if writes_to_standard_output(args.output) else sys.stdout)
    return 0


def run_study(args: argparse.Namespace) -> int:
    from parastudio.core.progress import no_progress
    from parastudio.core.store.database import open_database
    from parastudio.core.study_builder import PatternModels, StudyPlan, parse_names, study_from_pattern_table
    from parastudio.core.tablebuild.patterns.scoring import PAPER_LAMBDAS, PAPER_MLE_THRESHOLD, PAPER_THRESHOLD

    if args.paper and (args.ll_lambdas or args.ll_threshold is not None or args.mle_threshold is not None):
        print("parastudio: error: --paper sets both models; leave out --ll-lambdas, --ll-threshold and "
              "--mle-threshold", file=sys.stderr)
        return 2
    models = PatternModels(ll_lambdas=tuple(args.ll_lambdas or PAPER_LAMBDAS),
                           ll_threshold=PAPER_THRESHOLD if args.ll_threshold is None else args.ll_threshold,
                           mle_threshold=PAPER_MLE_THRESHOLD if args.mle_threshold is None else args.mle_threshold,
                           sample=args.sample)
    plan = StudyPlan(name=args.name, annotators=parse_names(args.annotators), judges_per_item=args.judges_per_item,
                     seed=args.seed, application=None)
    with open_database(args.db, create=True) as db:
        try:
            study = study_from_pattern_table(no_progress, db, plan, args.table, models)
        except ValueError as error:
            print(f"parastudio: error: {error}", file=sys.stderr)
            return 2
    print(f"study {args.name!r} (id {study}) in {args.db}: pattern pairs of {args.table}, judged blind by "
          f"{', '.join(plan.annotators)}")
    return 0
