"""Seed 001's paraphraser from the command line: ``graph load``, ``suggest`` and ``autoeval``.

* ``graph load GRAPH [GRAPH ...] -o G.sqlite [--source FILE]``: stream search graphs (ours or Moses',
  traditional or extended format, plain or gzip) into a graph store (:mod:`core.engine.decoders.cat.graph_store`).
* ``suggest --graph G --sentence N --span I J [--approach NAME] [--top 5] [--feedback TEXT] [--json]``:
  suggestions for tokens ``[I, J)`` of sentence ``N``'s translation, and what became of every candidate.
* ``autoeval --approach NAME [--top 5] [--feedback] [--cases roundtrip|webkjv|FILE] [--compare NAME] [--plot FILE]
  [--json]``: seed 001 §4.1's automatic evaluation; with no ``--cases``, the bundled round-trip cases of the test
  verses; ``--compare`` runs a second approach on the same cases, ``--plot`` draws Fig. 4.3 (PNG or SVG).

``--graph`` takes a graph store or a search graph dump (loaded once into the user cache).
"""

from __future__ import annotations

import argparse
import json
import sys

from parastudio.core.cli.number_options import COUNT, WholeNumber

CASE_SETS = ("roundtrip", "webkjv")


def _approach_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--approach", default="approach-10",
                        help="approach-1 ... approach-10 (seed 001 Fig. 4.2) or one from --approaches "
                        "(default approach-10)")
    parser.add_argument("--approaches", metavar="TOML", help="user-defined approaches ([approach.NAME] tables)")
    parser.add_argument("--top", type=COUNT, default=5, help="suggestions shown (default 5)")
    parser.add_argument("--lm", help="KenLM model for LMSF and LMBS (default: the demo's English LM)")


def register(subparsers) -> None:
    graph = subparsers.add_parser("graph", help="search graphs for seed 001's paraphraser")
    graph_sub = graph.add_subparsers(dest="graph_command", metavar="COMMAND")
    load = graph_sub.add_parser("load", help="stream search graphs into a SQLite graph store (seed 001 §3.2.2)")
    load.add_argument("graphs", nargs="+", metavar="GRAPH", help="Moses -output-search-graph file(s), plain or .gz")
    load.add_argument("-o", "--output", required=True, help="the graph store to write (SQLite)")
    load.add_argument("--source", metavar="FILE", help="the translated sentences, one per line, kept beside")
    load.add_argument("--translations", metavar="FILE",
                      help="the decoder's 1-best with its segmentation (Moses -report-segmentation), one per line; "
                      "without it the 1-best is read from the graph")
    load.set_defaults(func=run_graph_load)

    suggest = subparsers.add_parser("suggest", help="paraphrases of a span of a translation, from its search "
                                    "graph (seed 001)")
    suggest.add_argument("--graph", help="graph store or search graph file (default: the demo's round-trip graph)")
    suggest.add_argument("--sentence", type=WholeNumber(at_least=0), required=True, help="sentence number in the graph")
    suggest.add_argument("--span", type=WholeNumber(at_least=0), nargs=2, required=True, metavar=("I", "J"),
                         help="the selected tokens [I, J) of the translation (or of --text)")
    suggest.add_argument("--text", help="the translation as the user edited it (the span is aligned to the "
                         "machine translation by the fuzzy aligner)")
    suggest.add_argument("--feedback", help="'more like this': a suggestion to move towards (UFBS, §5.1)")
    suggest.add_argument("--request", choices=("paraphrase", "expand-abbreviation"), default="paraphrase",
                         help="expand-abbreviation adds §5.3's filter")
    suggest.add_argument("--gold", help="a wanted paraphrase: say where it was lost")
    suggest.add_argument("--json", action="store_true")
    _approach_options(suggest)
    suggest.set_defaults(func=run_suggest)

    autoeval = subparsers.add_parser("autoeval", help="seed 001 §4.1: share of test cases whose gold is among the "
                                     "top suggestions")
    autoeval.add_argument("--cases", default="roundtrip",
                          help="roundtrip (default) or webkjv: the bundled cases of the test verses; or a cases file "
                          "(JSON lines) with --graph")
    autoeval.add_argument("--graph", help="graph store or search graph file for a cases file")
    autoeval.add_argument("--feedback", action="store_true", help="§5.2: each shown suggestion also given as feedback")
    autoeval.add_argument("--details", metavar="FILE", help="write one JSON line per case (suggestions, fate)")
    autoeval.add_argument("--compare", metavar="NAME", help="a second approach on the same cases: both counts, and the "
                          "cases each finds that the other misses")
    autoeval.add_argument("--plot", metavar="FILE", action="append", default=[],
                          help="success by span length per approach (seed 001 Fig. 4.3), .png or .svg (repeatable)")
    autoeval.add_argument("--json", action="store_true")
    _approach_options(autoeval)
    autoeval.set_defaults(func=run_autoeval)


def _resolve_approach(args, name: str | None = None):
    from parastudio.core.engine.decoders.cat.approaches import APPROACHES, load_approaches

    approaches = dict(APPROACHES)
    if args.approaches:
        approaches.update(load_approaches(args.approaches))
    name = name or args.approach
    if name not in approaches:
        raise SystemExit(f"parastudio: error: no approach {name!r}; known: {', '.join(approaches)}")
    return approaches[name]


def _lm(args):
    from parastudio.core.demo import demo_files
    from parastudio.core.engine.lm.language_model import LanguageModel

    return LanguageModel(args.lm or demo_files().lm)


def _store(path, progress):
    from parastudio.core.engine.decoders.cat.graph_store import open_graph

    return open_graph(path, progress=progress)


def run_graph_load(args: argparse.Namespace) -> int:
    from parastudio.core.cli.progress_bar import progress_bar
    from parastudio.core.engine.decoders.cat.graph_store import GraphStore
    from parastudio.core.output_files import resolve_output
    from parastudio.core.textio import read_lines

    inputs = [*args.graphs, args.source, args.translations]
    resolve_output(args.output, inputs)  # refused before the inputs are read
    sources = [text for _, text in read_lines(args.source)] if args.source else None
    translations = None
    if args.translations:
        from parastudio.core.engine.decoders.cat.segmentation import parse_segmentation

        translations = [text for _, text in read_lines(args.translations)]
        for number, text in enumerate(translations, 1):
            parse_segmentation(text, args.translations, number)  # a bad line stops here, not at first use
    with progress_bar("B") as progress:
        info = GraphStore.write(args.output, args.graphs, sources=sources, translations=translations,
                                progress=progress, inputs=inputs)
    print(f"{args.output}: {info['hypotheses']} hypotheses of {info['sentences']} sentences")
    return 0


def run_suggest(args: argparse.Namespace) -> int:
    """Through the service ``parastudio serve`` and the Translator screen call (one engine for the three)."""
    from parastudio.core.cli.progress_bar import progress_bar
    from parastudio.core.demo import demo_files
    from parastudio.core.engine.decoders.cat.suggestion_service import BadRequest, SuggestionService, SuggestRequest

    approach = _resolve_approach(args)
    with progress_bar("B") as progress:
        store = _store(args.graph or demo_files().roundtrip_graph, progress)
    with store:
        if args.sentence not in set(store.sentences()):
            print(f"parastudio: error: {store.path}: no sentence {args.sentence}", file=sys.stderr)
            return 2
        graph = store.sentence_graph(args.sentence)
        tokens = tuple(args.text.split()) if args.text else None
        words = len(tokens) if tokens is not None else len(graph.translation().tokens)
        start, end = args.span
        if not 0 <= start < end <= words:  # a span the user typed wrong: a usage error, not a failed suggestion
            print(f"parastudio: error: --span {start} {end}: expected 0 <= I < J <= {words}, the "
                  f"{'--text' if tokens is not None else 'translation'}'s {words} tokens", file=sys.stderr)
            return 2
        service = SuggestionService(store, {approach.name: approach}, _lm(args), approach.name)
        request = SuggestRequest(span=(start, end), sentence=args.sentence, text=tokens, top=args.top,
                                 feedback=tuple(args.feedback.split()) if args.feedback else None,
                                 request=args.request, gold=tuple(args.gold.split()) if args.gold else None)
        try:
            suggested = service.suggest(request)
        except BadRequest as refusal:
            print(f"parastudio: error: --{refusal.field or 'span'}: {refusal}", file=sys.stderr)
            return 2
        out = service.answer_of(suggested)
        result, graph = suggested.result, suggested.graph
    if result.error and not args.json:
        print(f"parastudio: error: {result.error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return 0 if not result.error else 1
    print(f"translation: {out['translation']}")
    alignment = result.alignment
    print(f"selection: {' '.join(graph.translation().tokens[alignment.start:alignment.end])} "
          f"[{alignment.start}, {alignment.end}) <- source [{alignment.source_start}, {alignment.source_end})")
    for row in out["suggestions"]:
        lm = "" if row["lm_score"] is None else f"  lm {row['lm_score']:.3f}"
        print(f"{row['rank']}. {row['text']}  (fsm {row['fsm_score']:.4f}{lm})")
    if args.gold:
        print(f"gold {args.gold!r}: {out['gold']['fate']}")
    return 0


def run_autoeval(args: argparse.Namespace) -> int:
    from parastudio.core.cli.progress_bar import progress_bar
    from parastudio.core.demo import demo_files
    from parastudio.core.engine.decoders.cat.autoeval import evaluate, read_cases
    from parastudio.core.output_files import resolve_output
    from parastudio.core.textio import atomic_output

    approach = _resolve_approach(args)
    compared = _resolve_approach(args, args.compare) if args.compare else None
    for plot in args.plot:
        if not plot.lower().endswith((".png", ".svg")):
            print(f"parastudio: error: --plot {plot}: a plot is written as .png or .svg", file=sys.stderr)
            return 2
    if args.cases in CASE_SETS:
        cases_path, graph_path = demo_files().case_set(args.cases)
        graph_path = args.graph or graph_path
    else:
        if not args.graph:
            print("parastudio: error: a cases file needs --graph (the search graph its sentence ids refer to)",
                  file=sys.stderr)
            return 2
        cases_path, graph_path = args.cases, args.graph
    inputs = [cases_path, graph_path, args.lm, args.approaches]
    for output in (args.details, *args.plot):  # refused before the evaluation, not after it
        if output:
            resolve_output(output, inputs)
    cases = read_cases(cases_path)
    lm = _lm(args)
    evaluations = []
    with progress_bar("case") as progress:
        store = _store(graph_path, progress)
        with store:
            for which in (approach, compared) if compared else (approach,):
                evaluations.append(evaluate(store, cases, which, lm=lm, top=args.top, feedback=args.feedback,
                                            explain=bool(args.details), progress=progress))
    evaluation = evaluations[0]
    if args.details:
        with atomic_output(args.details, inputs=inputs) as handle:
            for result in evaluation.results:
                handle.write(json.dumps(result.to_json(), ensure_ascii=False) + "\n")
    if args.plot:
        from parastudio.core.inspection.plots import plot_success_by_length
        from parastudio.core.inspection.suggestion_cases import tabulate_by_length

        table = tabulate_by_length({e.approach.name: [(r.case.length, r.success) for r in e.results]
                                    for e in evaluations})
        for plot in args.plot:
            plot_success_by_length(table, plot, inputs=inputs)
    if args.json:
        out = evaluation.to_json()
        if compared:
            out = {**out, "compared": evaluations[1].to_json()}
        print(json.dumps(out))
        return 0
    for each in evaluations:
        print(f"{each.approach.name}: {each.successes} of {len(cases)} cases"
              f"{' with feedback' if args.feedback else ''} (top {args.top})")
        for length, (count, successes) in each.by_length().items():
            print(f"  length {length}: {successes}/{count}")
        ties = each.ties()
        print(f"  ties at the cut: {ties['cases_with_tie_at_cut']} cases, {ties['hits_in_tie_at_cut']} hits among "
              f"them; {ties['successes_with_ties_reversed']} successes had each tie been broken the other way")
    if compared:
        first, second = ([r.success for r in e.results] for e in evaluations)
        print(f"{approach.name} finds {sum(a and not b for a, b in zip(first, second))} cases {compared.name} misses; "
              f"{compared.name} finds {sum(b and not a for a, b in zip(first, second))} that {approach.name} misses")
    for plot in args.plot:
        print(f"plot: {plot}")
    return 0
