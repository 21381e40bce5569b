"""Span lookups per second on a synthetic 1M-rule paraphrase table.

    python3 benchmarks/bench_tables.py [--rules 1000000]

Prints the load time, resident memory, bare span lookups/s (``rules_for`` on
every span of up to the table's longest source) and sentence matches/s.
"""

from __future__ import annotations

import argparse
import random
import resource
import tempfile
import time
from pathlib import Path

from core.engine.paraphrase_table import ParaphraseTable


def zipf_vocabulary(rng: random.Random, size: int) -> tuple[list[str], list[float]]:
    words = [f"w{i}" for i in range(size)]
    cumulative, total = [], 0.0
    for rank in range(size):
        total += 1.0 / (rank + 1)
        cumulative.append(total)
    return words, cumulative


def write_table(path: Path, rules: int, rng: random.Random, words, weights) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for _ in range(rules):
            source = " ".join(rng.choices(words, cum_weights=weights, k=rng.randint(1, 4)))
            target = " ".join(rng.choices(words, cum_weights=weights, k=rng.randint(1, 4)))
            handle.write(f"{source} ||| {target} ||| {rng.uniform(1e-4, 1):.6f} 0.5 0.5 0.5\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rules", type=int, default=1_000_000)
    parser.add_argument("--sentences", type=int, default=2000)
    args = parser.parse_args()
    rng = random.Random(0)
    words, weights = zipf_vocabulary(rng, 20_000)
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "table.txt"
        started = time.perf_counter()
        write_table(path, args.rules, rng, words, weights)
        print(f"wrote {args.rules:,} rules in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        table = ParaphraseTable.load(path, keep_features=False)
        load_seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    stats = table.stats()
    print(f"loaded {stats.rules:,} rules, {stats.distinct_sources:,} sources in {load_seconds:.1f} s "
          f"({stats.rules / load_seconds:,.0f} rules/s); peak RSS {peak_mb:,.0f} MB")

    sentences = [tuple(rng.choices(words, cum_weights=weights, k=30)) for _ in range(args.sentences)]
    spans = [s[i:j] for s in sentences for i in range(30) for j in range(i + 1, min(30, i + table.max_source_length) + 1)]
    started = time.perf_counter()
    hits = 0
    for span in spans:
        if table.rules_for(span):
            hits += 1
    lookup_seconds = time.perf_counter() - started
    print(f"span lookups: {len(spans):,} in {lookup_seconds:.3f} s = {len(spans) / lookup_seconds:,.0f} lookups/s "
          f"({hits:,} spans had rules)")

    started = time.perf_counter()
    matched = sum(len(table.matches(sentence)) for sentence in sentences)
    match_seconds = time.perf_counter() - started
    span_count = len(spans)
    print(f"sentence matching: {len(sentences):,} 30-token sentences in {match_seconds:.3f} s = "
          f"{len(sentences) / match_seconds:,.0f} sentences/s, {span_count / match_seconds:,.0f} span lookups/s "
          f"including building {matched:,} matches")


if __name__ == "__main__":
    main()
