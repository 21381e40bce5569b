"""Seed 001 §4.1 and §5.2: the ten approaches on round-trip test cases, ranked with sign tests.

For each case set, every approach of Fig. 4.2 runs on every case
(:mod:`core.engine.decoders.cat.autoeval`: success when the gold is among the top 5),
with the fate of each gold (:mod:`core.engine.decoders.cat.gold_trace`), so the table
says not only how many cases an approach solves but where the others were
lost. Approaches 1 and 10 also run with feedback (§5.2: 501 and 847 of 2,139
in the paper). Every pair of approaches is compared with the exact two-sided
sign test over cases (ties dropped), at 0.05 as the paper does and with Holm
over the 45 pairs.

Case sets: the round-trip cases of the 1,000 dev verses (the paper's scale:
1,000 sentences) when ``evaldata/build`` has them, else those of the 100 demo
test verses; and the WEB-KJV cases (the WEB verse as an edited translation of
the RV1909 verse's machine translation, aligned by the fuzzy aligner).

Two diagnostic rows, not the paper's, show what the figures depend on:
``approach-10, all spans`` (every hypothesis inside the coverage retrieved, not
only the spans reached by ``forward`` links) and ``approach-10 without FWPF``.

Two readings of the paper are ours to choose (issue 26 item 3): SDSF's Equation 3.7 as its text describes
it (chosen) or as its letters print it, and FWPF/FNRF's function words as the closed classes (chosen) or
NLTK's 2013 stopword list (the paper's); every approach the other reading changes runs under it too, and the
report gives its counts beside the chosen ones. For cases that carry their source words, the round trip's
Spanish -> English table is asked whether it can spell each gold at all (:mod:`core.engine.decoders.cat.table_spelling`).

Each case's result under each approach goes to ``seed001-approaches.jsonl.gz`` beside the Markdown
(:mod:`core.experiments.seed001_report`, :mod:`core.experiments.per_sentence`). Sets run by separate commands
(each can then run beside the others) go into one file: each run saves its sets with ``--save-sets FILE``, and
``--from-sets FILE ...`` writes the file from them, naming each set's command. A set too long for one run is
run in shards (``--shard I/N --save-sets FILE``: a share of its sentences, saved and not reported), which
``--from-sets`` joins back into the set one run gives (:mod:`core.experiments.seed001_shards`).

    parastudio experiment seed001-approaches [--cases roundtrip|webkjv|both] [--set dev|test ...] [--graphs DIR]
        [--limit N] [--save-sets FILE [--shard I/N]] [--from-sets FILE ...]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from parastudio.core.code_identity import code_identity
from parastudio.core.engine.decoders.cat.approaches import APPROACHES, Approach
from parastudio.core.engine.decoders.cat.autoeval import Case, CaseResult, evaluate, read_cases
from parastudio.core.engine.decoders.cat.graph_store import open_graph
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.experiments import module_main
from parastudio.core.experiments.per_sentence import file_input
from parastudio.core.experiments.seed001_independent import read_counter_file
from parastudio.core.experiments.seed001_saved_sets import load_sets, save_sets
from parastudio.core.experiments.seed001_shards import join_shards, parse_shard, shard_positions
from parastudio.core.experiments.seed001_variants import (
    OTHER_READINGS,
    diagnostic_approaches,
    graph_size,
    reading_approaches,
)
from parastudio.core.worker_processes import ordered_map


def demo_files():
    """The bundled demo's files (imported when used: the CLI registers this experiment without the store)."""
    from parastudio.core.demo import demo_files as files

    return files()

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "evaldata" / "build"
RESULTS = ROOT / "evaldata" / "results"
FEEDBACK_APPROACHES = ("approach-1", "approach-10")


def es_en_table(set_name: str, part: str) -> Path | None:
    """The Spanish -> English table that made a set's graphs (for the spellable count), when present."""
    if "demo" not in set_name:
        path = BUILD / "roundtrip" / f"rv-web.{part}.gz"
    else:
        path = demo_files().es_en_table
    return path if path.is_file() else None


def case_sets(which: str, part: str, graphs: Path | None = None) -> list[tuple[str, Path, Path]]:
    """``(name, cases, graph)`` per set: ``graphs``' files (larger graphs of a sample, with their own cases) when
    given and present, else the build's files for ``part`` when present, else the demo's (test)."""
    demo = demo_files()
    built = {
        "roundtrip": (BUILD / "testcases" / f"roundtrip-{part}.jsonl", BUILD / "roundtrip" / f"roundtrip-{part}.graph.gz"),
        "webkjv": (BUILD / "testcases" / f"{part}.jsonl", BUILD / "roundtrip" / f"direct-{part}.graph.gz"),
    }
    sets = []
    for name in (("roundtrip", "webkjv") if which == "both" else (which,)):
        cases, graph = built[name]
        larger = graphs and (graphs / cases.name, graphs / graph.name)
        if larger and larger[0].exists() and larger[1].exists() and graph_size(larger[1]):
            size = graph_size(larger[1])
            sets.append((f"{name} ({part}, stack {size['stack']} / {size['options']} options, "
                         f"{size['sentences']} of {size['of_sentences']} sentences)", *larger))
        elif cases.exists() and graph.exists():
            sets.append((f"{name} ({part}, build)", cases, graph))
        else:
            cases, graph = demo.case_set(name)
            sets.append((f"{name} (test, demo)", cases, graph))
    return sets


def _run_one(job: tuple[Path, Path, str, Approach, bool]) -> tuple[str, str, list[CaseResult], float]:
    graph_path, lm_path, bucket, approach, feedback = job
    started = time.perf_counter()
    with open_graph(graph_path) as store:
        evaluation = evaluate(store, _CASES, approach, lm=LanguageModel(lm_path), feedback=feedback,
                              explain=not feedback)
    return approach.name, bucket, evaluation.results, time.perf_counter() - started


def spellable_cases(table: Path | None, rows: list[CaseResult]) -> dict[str, bool] | None:
    """Per case id, whether the table spells its gold from the selection's source words (None: no table, or
    the cases carry no source words)."""
    from parastudio.core.engine.decoders.cat.table_spelling import needed_phrases, read_targets, spellable

    stretches = {r.case.id: r.case.source[slice(*r.coverage)] for r in rows if r.coverage and r.case.source}
    if table is None or not stretches:
        return None
    targets = read_targets(table, needed_phrases(stretches.values()))
    return {r.case.id: r.case.id in stretches and spellable(stretches[r.case.id], r.case.gold, targets)
            for r in rows}


_CASES: list[Case] = []  # the set being evaluated, shared with forked workers


def run_set(name: str, cases_path: Path, graph_path: Path, lm_path: Path, *, limit: int | None,
            processes: int, say, table: Path | None = None, shard: tuple[int, int] | None = None) -> dict:
    global _CASES
    started = time.perf_counter()
    _CASES = read_cases(cases_path)
    _CASES = _CASES[:limit] if limit else _CASES
    positions = None
    if shard:  # a share of the sentences; --from-sets puts each case back at its place
        positions = shard_positions([case.sentence_id for case in _CASES], shard)
        _CASES = [_CASES[place] for place in positions]
    cases = _CASES
    open_graph(graph_path).close()  # load a dump into the cache once, before the workers fork
    approaches = {**APPROACHES, **diagnostic_approaches()}
    jobs = [(graph_path, lm_path, "results", approach, False) for approach in approaches.values()]
    jobs += [(graph_path, lm_path, "feedback", APPROACHES[a], True) for a in FEEDBACK_APPROACHES]
    jobs += [(graph_path, lm_path, reading, approach, False)
             for reading in OTHER_READINGS for approach in reading_approaches(reading).values()]
    buckets: dict[str, dict[str, list[CaseResult]]] = {"results": {}, "feedback": {},
                                                       **{reading: {} for reading in OTHER_READINGS}}
    seconds: dict[str, float] = {}
    say(f"  {name}: {len(cases)} cases, {len(jobs)} runs")
    for approach, bucket, rows, spent in ordered_map(_run_one, jobs, processes):  # Ctrl+C kills the workers
        buckets[bucket][approach] = rows
        label = approach + ("" if bucket == "results" else f" ({bucket})")
        seconds[label] = spent
        say(f"    {label}: {sum(r.success for r in rows)}/{len(rows)} in {spent:.0f} s")
    first = next(iter(buckets["results"].values()), [])
    # What ran, recorded now: --from-sets writes its file later, when these files may have moved or changed.
    inputs = {"cases": file_input(cases_path), "graph": file_input(graph_path), "lm": file_input(lm_path),
              "table": file_input(table)}
    return {"name": name, "cases_file": str(cases_path), "graph": str(graph_path), "cases": cases,
            "inputs": inputs, "graph_settings": graph_size(graph_path), "code": code_identity(),
            "results": buckets["results"], "feedback": buckets["feedback"],
            "readings": {reading: buckets[reading] for reading in OTHER_READINGS}, "seconds": seconds,
            "spellable": spellable_cases(table, first), "elapsed": time.perf_counter() - started,
            **({"shard": {"index": shard[0], "of": shard[1], "positions": positions}} if shard else {})}


def compare_with_moses(graph: Path, translations: Path, lm_path: Path) -> dict:
    """Our round-trip test graphs against a real Moses decoder's graphs of the same Spanish, case by case."""
    import tempfile

    from parastudio.core.engine.decoders.cat.graph_store import GraphStore
    from parastudio.core.textio import read_lines

    demo = demo_files()
    cases = read_cases(demo.roundtrip_cases)
    moses_lines = [text for _, text in read_lines(translations)]
    lm = LanguageModel(lm_path)
    with tempfile.TemporaryDirectory() as folder, open_graph(demo.roundtrip_graph) as ours:
        started = time.perf_counter()
        moses = GraphStore.build(Path(folder) / "moses.sqlite", [graph], translations=moses_lines)
        load_seconds = time.perf_counter() - started
        with moses:
            sentences = moses.sentences()
            same_string = sum(moses.sentence_graph(i).translation().tokens == ours.sentence_graph(i).translation().tokens
                              for i in sentences)
            rows = {}
            for name in ("approach-1", "approach-10"):
                a = evaluate(ours, cases, APPROACHES[name], lm=lm)
                b = evaluate(moses, cases, APPROACHES[name], lm=lm)
                rows[name] = {"ours": a.successes, "moses": b.successes,
                              "same_lists": sum(x.shown == y.shown for x, y in zip(a.results, b.results)),
                              "moses_errors": sum(1 for y in b.results if y.error)}
            return {"graph": graph.name, "hypotheses": int(moses.meta["hypotheses"]), "sentences": len(sentences),
                    "load_seconds": load_seconds, "same_one_best": same_string, "cases": len(cases), "rows": rows}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cases", choices=("roundtrip", "webkjv", "both"), default="both")
    parser.add_argument("--set", choices=("dev", "test"), nargs="+", default=["dev"],
                        help="the build's cases of these parts (the demo's test cases without a build)")
    parser.add_argument("--limit", type=int, help="first N cases of each set")
    parser.add_argument("--lm", help="KenLM model for LMSF and LMBS (default: the demo's English LM, which made "
                        "the graphs)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--moses-graph", help="a real Moses decoder's search graph of the round trip's Spanish test "
                        "sentences (see tests/data/moses/README.md), compared with ours on the bundled test cases")
    parser.add_argument("--moses-translations", help="that run's -report-segmentation output")
    parser.add_argument("--graphs", help="a folder of larger graphs of a sample of the part's sentences, with their "
                        "cases and settings.json (benchmarks/decode_thesis_graphs.py); sets without one there use "
                        "the build's")
    parser.add_argument("--out", help="output directory (default evaldata/results)")
    parser.add_argument("--save-sets", metavar="FILE", help="also save the sets as run (every case's result) for "
                        "--from-sets")
    parser.add_argument("--from-sets", metavar="FILE", nargs="+", action="extend",
                        help="run nothing: write the file from the sets these --save-sets runs saved, in this order "
                        "(each set names the command that ran it; a set's --shard runs are joined into one)")
    parser.add_argument("--independent", metavar="FILE", nargs="+", action="extend", default=[],
                        help="the independent counter's files (benchmarks/seed001_independent_counts.py --out), each "
                        "shown beside the set whose cases and graph it counted, with every case where they disagree")
    parser.add_argument("--shard", metavar="I/N", type=shard_argument,
                        help="run only the cases of sentences whose id is I modulo N (with --save-sets; "
                        "--from-sets joins the N shards into the set one run would give)")


def shard_argument(text: str) -> str:
    """``I/N`` checked, kept as text so the recorded command reads as typed."""
    try:
        index, count = parse_shard(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return f"{index}/{count}"


def run_from_args(args: argparse.Namespace, command: str) -> int:
    from parastudio.core.experiments.seed001_report import write_report

    code_identity()  # read (and cached) now: the code that ran is the code as the run started
    lm_path = Path(args.lm) if args.lm else demo_files().lm
    started = time.perf_counter()
    graphs = Path(args.graphs) if args.graphs else None
    if args.shard and (args.from_sets or not args.save_sets):
        print("parastudio: error: --shard runs a share of a set to be joined later: give it --save-sets, "
              "not --from-sets", file=sys.stderr)
        return 2
    independent = [read_counter_file(Path(path)) for path in args.independent]  # a bad file stops before a run
    if args.from_sets:
        sets = [s for path in args.from_sets for s in load_sets(Path(path))]
        sets = join_shards(sets, Path(args.from_sets[-1]))
    else:
        sets = [run_set(name, cases, graph, lm_path, limit=args.limit, processes=args.processes, say=print,
                        table=es_en_table(name, part), shard=args.shard and parse_shard(args.shard))
                for part in dict.fromkeys(args.set) for name, cases, graph in case_sets(args.cases, part, graphs)]
        for result in sets:
            result["command"] = command
        if args.save_sets:  # before the report: a run's results outlive a failure to write it
            save_sets(sets, Path(args.save_sets))
        if args.shard:  # a share of a set's figures is no report: the sets wait for --from-sets
            print(f"shard {args.shard}: "
                  + "; ".join(f"{result['name']}, {len(result['cases'])} cases" for result in sets)
                  + f"; saved to {args.save_sets}")
            return 0
    moses = compare_with_moses(Path(args.moses_graph), Path(args.moses_translations), lm_path) \
        if args.moses_graph and args.moses_translations else None
    out = Path(args.out) if args.out else RESULTS
    written = write_report(sets, out, command=command, lm=lm_path, seconds=time.perf_counter() - started,
                           moses=moses, independent=independent)
    for path in written:
        print(path)
    return 0


def main(argv: list[str] | None = None) -> int:
    return module_main("seed001_approaches", __doc__.splitlines()[0], add_arguments, run_from_args, argv)


if __name__ == "__main__":
    raise SystemExit(main())
