"""Seed 001's paraphraser: milliseconds per suggestion request, and loading 1,000 sentences' graphs into a store.

1. Every bundled round-trip case (the 100 demo test verses) asked of each approach, one request at a time
   (alignment, retrieval, filters, FSM, K best paths, filters, sorters): p50, p95 and max in milliseconds.
   The target (issue 13) is p95 <= 100 ms.
2. ``GraphStore.build`` on the graphs of 1,000 sentences: the build's dev round-trip graph when
   ``evaldata/build`` has it, else the demo's 100 sentences written ten times over with new sentence numbers
   (the same lines, so the same work per line): seconds, lines per second, store size.

    python3 benchmarks/bench_suggest.py [--approaches approach-1,approach-10] [--limit N]

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parastudio.core.demo import demo_files  # noqa: E402
from parastudio.core.engine.decoders.cat.approaches import APPROACHES  # noqa: E402
from parastudio.core.engine.decoders.cat.autoeval import read_cases  # noqa: E402
from parastudio.core.engine.decoders.cat.graph_store import GraphStore, open_graph  # noqa: E402
from parastudio.core.engine.decoders.cat.paraphraser import suggest  # noqa: E402
from parastudio.core.engine.lm.language_model import LanguageModel  # noqa: E402

DEV_GRAPH = ROOT / "evaldata" / "build" / "roundtrip" / "roundtrip-dev.graph.gz"


def latency(approaches: list[str], limit: int | None) -> None:
    demo = demo_files()
    cases = read_cases(demo.roundtrip_cases)[:limit]
    lm = LanguageModel(demo.lm)
    with open_graph(demo.roundtrip_graph) as store:
        suggest(store.sentence_graph(0), 0, 1, APPROACHES["approach-10"], lm=lm)  # imports (SciPy) out of the way
        print(f"{len(cases)} bundled round-trip cases, one request each, milliseconds per request:")
        print(f"{'approach':<13} {'p50':>7} {'p95':>7} {'max':>7} {'mean':>7}")
        for name in approaches:
            times = []
            for case in cases:
                graph = store.sentence_graph(case.sentence_id)  # a fresh graph: nothing cached between requests
                started = time.perf_counter()
                suggest(graph, *case.span, APPROACHES[name], lm=lm, tokens=case.sentence)
                times.append(1000 * (time.perf_counter() - started))
            times.sort()
            p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
            print(f"{name:<13} {statistics.median(times):7.1f} {p95:7.1f} {times[-1]:7.1f} "
                  f"{statistics.mean(times):7.1f}")


def thousand_sentences(work: Path) -> tuple[Path, str]:
    if DEV_GRAPH.is_file():
        return DEV_GRAPH, f"{DEV_GRAPH.relative_to(ROOT)} (the build's 1,000 dev sentences)"
    source = demo_files().roundtrip_graph
    lines = gzip.open(source, "rt", encoding="utf-8").read().splitlines()
    out = work / "thousand.graph"
    with open(out, "w", encoding="utf-8") as handle:
        for copy in range(10):
            for line in lines:
                sentence, rest = line.split(" ", 1)
                handle.write(f"{int(sentence) + 100 * copy} {rest}\n")
    return out, f"the demo's 100 sentences written 10 times ({out.stat().st_size / 2**20:.0f} MB of text)"


def loading() -> None:
    with tempfile.TemporaryDirectory() as folder:
        graph, what = thousand_sentences(Path(folder))
        started = time.perf_counter()
        with GraphStore.build(Path(folder) / "store.sqlite", [graph]) as store:
            seconds = time.perf_counter() - started
            rows = int(store.meta["hypotheses"])
            sentences = len(store.sentences())
            size = store.path.stat().st_size
        print(f"\nloading {what}:")
        print(f"  {sentences:,} sentences, {rows:,} hypotheses in {seconds:.1f} s "
              f"({rows / seconds:,.0f} lines/s), store {size / 2**20:.0f} MB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--approaches", default="approach-1,approach-4,approach-7,approach-8,approach-10")
    parser.add_argument("--limit", type=int, default=None, help="first N cases")
    args = parser.parse_args()
    latency(args.approaches.split(","), args.limit)
    loading()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
