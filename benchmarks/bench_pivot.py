"""Pivot throughput and peak memory: the Bible phrase table and a synthetic table 10x larger.

Prints phrase pairs in per second, paraphrase pairs out per second and the
peak resident memory of the process that ran the pivot (each run in a fresh
child process so peaks do not mix). No asserts: figures only.

    python benchmarks/bench_pivot.py [--table PATH] [--scale 10] [--base-pairs N] [--memory-limit 2GB]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
from parastudio.core.tablebuild.pivot import pivot_table
started = time.perf_counter()
stats = pivot_table(sys.argv[2], sys.argv[3], memory_limit=sys.argv[4] or None)
stats["wall_seconds"] = time.perf_counter() - started
stats["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(stats))
"""


def find_bible_table() -> Path | None:
    build = ROOT / "evaldata" / "build"
    if not build.is_dir():
        return None
    candidates = sorted(
        path for path in build.rglob("*") if path.is_file() and "phrase" in path.name and "table" in path.name
        and "para" not in path.name
    )
    return candidates[0] if candidates else None


def count_lines(path: Path) -> int:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        return sum(1 for _ in handle)


def write_synthetic_table(path: Path, pairs: int, seed: int = 0) -> None:
    """A Moses table with Zipf-like phrase frequencies: few big pivot clusters, many small."""
    rng = random.Random(seed)
    n_phrases = max(10, pairs // 4)
    n_pivots = max(10, pairs // 4)
    seen: set[tuple[int, int]] = set()
    while len(seen) < pairs:
        e = int(n_phrases * rng.random() ** 2)
        f = int(n_pivots * rng.random() ** 3)
        seen.add((e, f))
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as handle:
        for e, f in sorted(seen):
            words_e = " ".join(f"e{e}w{k}" for k in range(1 + e % 3))
            words_f = " ".join(f"f{f}w{k}" for k in range(1 + f % 3))
            scores = " ".join(f"{rng.uniform(0.001, 1):.6g}" for _ in range(4))
            handle.write(f"{words_e} ||| {words_f} ||| {scores} ||| 0-0 ||| 1 1 1\n")


def run(table: Path, work: Path, memory_limit: str) -> dict:
    output = work / f"{table.name}.para.gz"
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT), str(table), str(output), memory_limit],
        capture_output=True, text=True, check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def show(name: str, stats: dict) -> None:
    seconds = stats["wall_seconds"]
    print(
        f"{name:<28} in {stats['phrase_pairs_in']:>10,d}  out {stats['paraphrase_pairs_out']:>10,d}  "
        f"{seconds:7.2f} s  {stats['phrase_pairs_in'] / seconds:>10,.0f} in/s  "
        f"{stats['paraphrase_pairs_out'] / seconds:>10,.0f} out/s  peak RSS {stats['peak_rss_mb']:,.0f} MB"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=Path, default=None, help="bilingual table (default: the Bible table under evaldata/build)")
    parser.add_argument("--scale", type=int, default=10, help="synthetic table size as a multiple of the real one")
    parser.add_argument("--base-pairs", type=int, default=200_000, help="size assumed when no real table exists")
    parser.add_argument("--memory-limit", default="", help="DuckDB memory limit for both runs (default: a third of RAM)")
    args = parser.parse_args()

    table = args.table or find_bible_table()
    with tempfile.TemporaryDirectory(prefix="bench-pivot-") as directory:
        work = Path(directory)
        results = {}
        if table is not None:
            results["bible"] = run(table, work, args.memory_limit)
            show(f"real: {table.name}", results["bible"])
            base = results["bible"]["phrase_pairs_in"]
        else:
            print("no Bible phrase table under evaldata/build/: synthetic only "
                  f"(base size {args.base_pairs:,d} pairs)")
            base = args.base_pairs
        synthetic = work / "synthetic.gz"
        write_synthetic_table(synthetic, base * args.scale)
        results["synthetic"] = run(synthetic, work, args.memory_limit)
        show(f"synthetic x{args.scale}", results["synthetic"])
        if "bible" in results:
            a, b = results["bible"], results["synthetic"]
            print(
                f"ratio synthetic/real: time {b['wall_seconds'] / a['wall_seconds']:.2f}x for "
                f"{b['phrase_pairs_in'] / a['phrase_pairs_in']:.1f}x the input; "
                f"peak memory {b['peak_rss_mb'] / a['peak_rss_mb']:.2f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
