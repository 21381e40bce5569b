"""Seed 002's pattern pipeline, speed: prints figures, asserts nothing.

* parsing (spaCy over our tokens, recovered casing): verses/s in one process and in two processes
  over chunks, as the ``parse`` stage runs it, and the ratio;
* Algorithm 1 (English patterns) and Algorithm 2 (pivot patterns) over the parsed verses: verses/s.

Data: the first ``--verses`` WEB training verses of ``--data`` (default the checkout's evaldata/build;
needs corpus/, split/ and, for Algorithm 2, alignment/web-rv.align.gz from the phrase-table stage).

    python benchmarks/bench_patterns.py [--data DIR] [--verses 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from parastudio.core.engine.tables.patterns.induction import induce_patterns  # noqa: E402
from parastudio.core.engine.tables.patterns.spacy_parser import SpacyParser  # noqa: E402
from parastudio.core.engine.text.display_text import cased_tokens  # noqa: E402
from parastudio.core.tablebuild.alignment import parse_links  # noqa: E402
from parastudio.core.tablebuild.patterns.pivot_patterns import aligned_pivot_pattern  # noqa: E402
from parastudio.core.textio import open_text_maybe_gzip  # noqa: E402
from parastudio.core.worker_processes import ordered_map  # noqa: E402


def _parse(job):
    tokens, cased = job
    return list(SpacyParser().parse_many(tokens, cased))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT / "evaldata" / "build"))
    parser.add_argument("--verses", type=int, default=2000)
    args = parser.parse_args()
    build = Path(args.data)
    if not (build / "corpus" / "train.web").exists():
        print(f"no corpus under {build}: run parastudio data build first")
        return 0
    web = (build / "corpus" / "train.web").read_text(encoding="utf-8").splitlines()[: args.verses]
    refs = (build / "split" / "train.ids").read_text(encoding="utf-8").splitlines()[: args.verses]
    wanted = set(refs)
    texts = {}
    with open(build / "corpus" / "verses.jsonl", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["ref"] in wanted:
                texts[row["ref"]] = row["web"]
    tokens = [line.split() for line in web]
    cased = [cased_tokens(texts[ref], t) for ref, t in zip(refs, tokens)]
    words = sum(len(t) for t in tokens)
    _ = SpacyParser().pipeline  # load once, outside the timing
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} (2 cores, shared)")

    started = time.perf_counter()
    parses = list(SpacyParser().parse_many(tokens, cased))
    one = time.perf_counter() - started
    half = len(tokens) // 2
    started = time.perf_counter()
    list(ordered_map(_parse, [(tokens[:half], cased[:half]), (tokens[half:], cased[half:])], 2))
    two = time.perf_counter() - started
    print(f"parse, {len(tokens)} verses ({words} words): 1 process {len(tokens) / one:.1f} verses/s "
          f"({words / one:.0f} words/s); 2 processes {len(tokens) / two:.1f} verses/s "
          f"(including each worker loading the pipeline); ratio {one / two:.2f}")

    started = time.perf_counter()
    instances = [induce_patterns(parse) for parse in parses]
    induce = time.perf_counter() - started
    count = sum(len(i) for i in instances)
    print(f"Algorithm 1: {len(parses) / induce:.0f} verses/s, {count} patterns ({count / len(parses):.1f} per verse)")
    alignment = build / "alignment" / "web-rv.align.gz"
    if not alignment.exists():
        print(f"Algorithm 2: skipped ({alignment} missing: run the phrase-table stage)")
        return 0
    with open_text_maybe_gzip(alignment) as handle:
        links = [parse_links(handle.readline()) for _ in range(len(parses))]
    pivots = [line.split() for line in (build / "corpus" / "train.rv").read_text(encoding="utf-8").splitlines()]
    started = time.perf_counter()
    aligned = sum(aligned_pivot_pattern(p.elements, parse.words, pivot, link) is not None
                  for parse, found, pivot, link in zip(parses, instances, pivots, links) for p in found)
    seconds = time.perf_counter() - started
    print(f"Algorithm 2: {len(parses) / seconds:.0f} verses/s, {count / seconds:.0f} patterns/s, {aligned} aligned")
    return 0


if __name__ == "__main__":
    sys.exit(main())
