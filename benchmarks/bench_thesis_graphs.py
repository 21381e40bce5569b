"""How large seed 001's round-trip search graphs get at the thesis's settings, and how many golds they hold.

Rustamli decoded with Moses at ``-s 5000 -cube-pruning-pop-limit 5000 -ttable-limit 100
-max-trans-opt-per-coverage 100`` (§4.1.1); the bundled graphs use stack 10 and 20 options per span. This
decodes the Spanish of the bundled round-trip cases (one sentence per case sentence) with the demo's
Spanish -> English table and English LM at each ``--settings STACK:OPTIONS``, each in a fresh process, and
prints per setting: decode time, peak memory, graph lines and gzip size, the time to load it into a graph
store and the store's size, and how many of the 239 golds a chain of its hypotheses spells inside the
selection's source coverage (the coverage of the bundled graph's alignment; with every grouping retrieved,
what the paraphraser could reach). Figures only, no asserts.

    python3 benchmarks/bench_thesis_graphs.py [--settings 10:20 200:100 1000:100] [--direct] [--sentences N] [--out DIR]
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _counts_module():
    spec = importlib.util.spec_from_file_location("seed001_independent_counts",
                                                  ROOT / "benchmarks" / "seed001_independent_counts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def decode(stack: int, options: int, out: Path, direct: bool = False, sentences: int | None = None) -> dict:
    """Runs in its own process: decode the cases' Spanish sentences (``direct``: the RV1909 test verses of
    the WEB-KJV cases' direct graph) and write the graph."""
    from parastudio.core.demo import demo_files
    from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
    from parastudio.core.engine.decoders.cat.translate import translate_all
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable

    demo = demo_files()
    sources: dict[int, list[str]] = {}
    for line in demo.roundtrip_cases.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        sources.setdefault(case["sentence_id"], case["source"].split())
    if direct:
        sources = {i: line.split() for i, line in enumerate(demo.spanish_test_sentences.read_text(
            encoding="utf-8").splitlines())}
    ids = sorted(sources)[:sentences]
    table = ParaphraseTable.load_for(demo.es_en_table, [sources[i] for i in ids], max_length=7)
    decoder = BeamDecoder(table, LanguageModel(demo.lm), DecoderSettings(stack_size=stack, option_limit=options))
    started = time.perf_counter()
    with gzip.open(out, "wt", encoding="utf-8", compresslevel=6) as graph:
        for sentence_id in ids:
            translate_all(decoder, [sources[sentence_id]], graph=graph, first_id=sentence_id)
    return {"decode_seconds": time.perf_counter() - started, "sentences": len(ids),
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def measure(stack: int, options: int, folder: Path, direct: bool = False, sentences: int | None = None) -> dict:
    graph = folder / f"{'direct' if direct else 'roundtrip'}-s{stack}-o{options}.graph.gz"
    child = subprocess.run([sys.executable, __file__, "--decode", f"{stack}:{options}", "--graph", str(graph),
                            *(["--direct"] if direct else []), *(["--sentences", str(sentences)] if sentences else [])],
                           capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    row = json.loads(child.stdout.strip().splitlines()[-1])
    from parastudio.core.engine.decoders.cat.graph_store import GraphStore

    started = time.perf_counter()
    store_path = folder / f"{'direct-' if direct else ''}s{stack}-o{options}.sqlite"
    with GraphStore.build(store_path, [graph]) as store:
        row["load_seconds"] = time.perf_counter() - started
        row["hypotheses"] = int(store.meta["hypotheses"])
    row["graph_mb"] = graph.stat().st_size / 2 ** 20
    row["store_mb"] = store_path.stat().st_size / 2 ** 20
    row["golds_in_graph"], row["cases"] = (None, None) if direct else golds_in_graph(graph)
    return {"stack": stack, "options": options, **row}


def golds_in_graph(graph: Path) -> tuple[int, int]:
    """Golds a chain of the graph's hypotheses spells inside the selection's coverage (from the bundled graph),
    and the cases of the graph's sentences."""
    from parastudio.core.demo import demo_files

    counts = _counts_module()
    demo = demo_files()
    small, large = counts.read_graph(demo.roundtrip_graph), counts.read_graph(graph)
    found = cases = 0
    for line in demo.roundtrip_cases.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["sentence_id"] not in large:
            continue
        cases += 1
        phrases = counts.one_best(small[case["sentence_id"]])
        counts.TOKENS = tuple(w for words, _ in phrases for w in words)
        _, _, spans = counts.align(phrases, *case["span"])
        low, high = min(s for s, _ in spans), max(e for _, e in spans)
        inside = [(n["span"], counts.norm(n["out"])) for n in large[case["sentence_id"]].values() if n["span"]]
        found += counts.spells(inside, counts.norm(case["gold"].split()), low, high)
    return found, cases


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", nargs="+", default=["10:20", "200:100", "1000:100"])
    parser.add_argument("--out", help="keep the graphs in this folder")
    parser.add_argument("--direct", action="store_true", help="the direct graph of the RV1909 test verses (the "
                        "WEB-KJV cases'; their golds are aligned fuzzily, so none are counted here)")
    parser.add_argument("--sentences", type=int, help="only the first N sentences (a sample for large stacks)")
    parser.add_argument("--decode", help=argparse.SUPPRESS)
    parser.add_argument("--graph", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.decode:
        stack, options = (int(v) for v in args.decode.split(":"))
        print(json.dumps(decode(stack, options, Path(args.graph), args.direct, args.sentences)))
        return 0
    folder = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="thesis-graphs-"))
    folder.mkdir(parents=True, exist_ok=True)
    print("| stack | options per span | sentences | decode s | peak MB | hypotheses | graph MB (gz) | load s | "
          "store MB | golds in graph | cases |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for setting in args.settings:
        stack, options = (int(v) for v in setting.split(":"))
        r = measure(stack, options, folder, args.direct, args.sentences)
        print(f"| {stack} | {options} | {r['sentences']} | {r['decode_seconds']:.1f} | {r['peak_mb']:.0f} | "
              f"{r['hypotheses']:,} | {r['graph_mb']:.1f} | {r['load_seconds']:.1f} | {r['store_mb']:.1f} | "
              f"{'–' if r['golds_in_graph'] is None else r['golds_in_graph']} | {r['cases'] or '–'} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
