"""Pivot at scale: DuckDB on one thread, on every core, and under a memory limit, on synthetic Zipfian tables.

For each size (1M and 5M rules; 20M with ``--big``; any with ``--rules``) a bilingual table is generated
(``tests/zipf_phrase_table.py``: Zipfian phrase frequencies on both sides) and pivoted by
``parastudio pivot``'s library call in a fresh child process per run, so peak memories do not mix. Printed
per run: wall time, the child's peak resident memory (``ru_maxrss``), DuckDB's own peak buffer memory, the
bytes it spilled over the whole query and the peak size of its temp directory (its query profile: "spilled MB"
and "disk peak MB"), and the output's sha256, which must be the same in every row of one size
(the pivot's contract, issue 25). No asserts: figures only, and times depend on what else the machine runs.

``--with-plain-sum`` adds a run on every core with the sums spelt as plain ``SUM`` (the pivot before its
sums were ordered), to show what the fixed order costs and that plain sums give other bytes.

``--spark`` adds ``parastudio pivot --engine spark --master local[N]`` (N = every core) in its own child:
its time includes starting the JVM; "peak RSS" is then the driver's Python process plus the JVM's own peak
(``VmHWM`` read before the session stops; Spark's Python workers are not counted, they only parse lines),
"disk peak MB" the peak total of its shuffle and spill files (``spark.local.dir``, sampled every 2 s; its total
written is not measured: "spilled MB" is "-"), and
its sha256 must equal DuckDB's.

    python benchmarks/bench_pivot_scale.py [--rules 1000000,5000000] [--big] [--memory-limit 1GB]
        [--with-plain-sum] [--spark] [--work DIR] [--runs duckdb-1,duckdb,duckdb-limit,plain,spark] [--timeout S]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from zipf_phrase_table import write_zipf_phrase_table  # noqa: E402

CHILD = r"""
import functools, hashlib, json, resource, sys, time
sys.path.insert(0, sys.argv[1])
import parastudio.core.tablebuild.pivot as pivot
from parastudio.core.tablebuild.pivot_sql import render_pivot_sql
table, output, threads, memory_limit, plain = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] or None, sys.argv[6] == "plain"
if plain:  # the unordered sums of the pivot before issue 25
    pivot.render_pivot_sql = functools.partial(render_pivot_sql, ordered_sum=lambda term: f"SUM({term})")
started = time.perf_counter()
try:
    stats = pivot.pivot_table(table, output, threads=threads, memory_limit=memory_limit)
except OSError as error:
    stats = {"error": str(error).splitlines()[0][:120]}
stats["wall_seconds"] = time.perf_counter() - started
stats["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if "error" not in stats:
    digest = hashlib.sha256()
    with open(output, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    stats["sha256"] = digest.hexdigest()
print(json.dumps(stats))
"""


SPARK_CHILD = r"""
import hashlib, json, os, resource, sys, threading, time
sys.path.insert(0, sys.argv[1])
from parastudio.core.tablebuild.spark_pivot import pivot_table_spark
from parastudio.core.tablebuild.spark_session import SparkSettings, spark_session
table, output, threads, local_dir = sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
def disk_bytes():
    total = 0
    for folder, _, names in os.walk(local_dir):
        for name in names:
            try:
                total += os.path.getsize(os.path.join(folder, name))
            except OSError:  # a shuffle or spill file removed while we walk
                pass
    return total
peak, done = [0], threading.Event()
def watch():  # Spark's shuffle and spill files: their peak total on disk, sampled every 2 s
    while not done.wait(2):
        peak[0] = max(peak[0], disk_bytes())
threading.Thread(target=watch, daemon=True).start()
started = time.perf_counter()
spark = spark_session(SparkSettings(master=f"local[{threads}]", local_dir=local_dir), app_name="bench-pivot-scale")
stats = pivot_table_spark(spark, table, output)
peak[0] = max(peak[0], disk_bytes())
done.set()
stats["disk_peak_bytes"] = peak[0]
jvm = spark.sparkContext._gateway.proc.pid
with open(f"/proc/{jvm}/status") as status:
    jvm_peak_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
spark.stop()
stats["wall_seconds"] = time.perf_counter() - started
stats["peak_rss_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss + jvm_peak_kb) / 1024
digest = hashlib.sha256()
with open(output, "rb") as handle:
    for block in iter(lambda: handle.read(1 << 20), b""):
        digest.update(block)
stats["sha256"] = digest.hexdigest()
print(json.dumps(stats))
"""


def run(table: Path, work: Path, *, threads: int, memory_limit: str, plain: bool = False, spark: bool = False,
        timeout: float | None = None) -> dict:
    output = work / "para.txt.gz"
    child = [SPARK_CHILD, str(ROOT), str(table), str(output), str(threads), str(work / "spark-local")] if spark else [
        CHILD, str(ROOT), str(table), str(output), str(threads), memory_limit, "plain" if plain else "ordered"]
    started = time.perf_counter()
    # Its own session, so a run over --timeout is ended with everything it started (Spark's JVM included).
    process = subprocess.Popen([sys.executable, "-c", *child], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        output.unlink(missing_ok=True)
        shutil.rmtree(work / "spark-local", ignore_errors=True)
        return {"error": f"did not finish within --timeout {timeout:.0f} s (killed)",
                "wall_seconds": time.perf_counter() - started}
    result = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    output.unlink(missing_ok=True)
    shutil.rmtree(work / "spark-local", ignore_errors=True)
    if result.returncode != 0:  # one failed engine is a row that says why, not the end of the benchmark
        last = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("\tat ")]
        return {"error": f"exit {result.returncode}: {(last or ['no message'])[-1][:300]}",
                "wall_seconds": time.perf_counter() - started}
    return json.loads(result.stdout.strip().splitlines()[-1])


def row(rules: int, name: str, stats: dict, reference: str | None) -> str:
    if "error" in stats:
        return f"{rules:>11,d}  {name:<26} failed after {stats['wall_seconds']:.1f} s: {stats['error']}"
    spilled = stats.get("spilled_bytes")  # DuckDB's total written over the query; Spark's is not measured
    disk_peak = _disk_peak(stats)
    buffer = stats.get("peak_buffer_memory_bytes")  # DuckDB's own; Spark has none
    same = "reference" if reference is None else ("same" if stats["sha256"] == reference else "DIFFERENT")
    return (
        f"{rules:>11,d}  {name:<26} {stats['wall_seconds']:>8.1f} {stats['peak_rss_mb']:>9,.0f} "
        f"{'-' if buffer is None else f'{buffer / 2**20:,.0f}':>10} "
        f"{'-' if spilled is None else f'{spilled / 2**20:,.0f}':>10} "
        f"{'?' if disk_peak is None else f'{disk_peak / 2**20:,.0f}':>12} "
        f"{stats['paraphrase_pairs_out']:>11,d}  {stats['sha256'][:12]}  {same}"
    )


def _disk_peak(stats: dict) -> int | None:
    """The most the run had on disk at once: DuckDB's temp directory at its peak, Spark's sampled shuffle and spill
    files (None where the engine did not report it)."""
    return stats.get("peak_temp_dir_bytes", stats.get("disk_peak_bytes"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="1000000,5000000", help="table sizes, comma-separated (1M,5M)")
    parser.add_argument("--big", action="store_true", help="add a 20M-rule table")
    parser.add_argument("--memory-limit", default="1GB", help="DuckDB memory limit of the limited run (1GB)")
    parser.add_argument("--with-plain-sum", action="store_true", help="add a run with unordered SUMs (the old pivot)")
    parser.add_argument("--spark", action="store_true", help="add Spark local mode on every core (pivot --engine spark)")
    parser.add_argument("--work", type=Path, default=None, help="where tables and outputs go (default: system temp)")
    parser.add_argument("--runs", default="duckdb-1,duckdb,duckdb-limit,plain,spark",
                        help="which runs, comma-separated, of duckdb-1 (1 thread), duckdb (every core), duckdb-limit "
                        "(every core under --memory-limit), plain (--with-plain-sum), spark (--spark); default all")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds a run may take; one that takes longer is killed and reported as a row")
    args = parser.parse_args()

    sizes = [int(float(value)) for value in args.rules.split(",") if value.strip()]
    if args.big:
        sizes.append(20_000_000)
    cores = os.cpu_count() or 1
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{cores} cores, load average {load:.2f} at start (a shared machine makes times noisy)")
    print(f"{'rules':>11}  {'run':<26} {'seconds':>8} {'peak RSS':>9} {'DuckDB MB':>10} {'spilled MB':>10} "
          f"{'disk peak MB':>12} {'pairs out':>11}  {'sha256':<12}  bytes")
    measured: dict[int, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-pivot-scale-", dir=args.work) as directory:
        work = Path(directory)
        for rules in sizes:
            started = time.perf_counter()
            table = write_zipf_phrase_table(work / f"zipf-{rules}.txt.gz", rules)
            print(f"{rules:>11,d}  (table generated in {time.perf_counter() - started:.1f} s, "
                  f"{table.stat().st_size / 2**20:,.0f} MB gzip)", flush=True)
            runs = [("duckdb-1", "DuckDB 1 thread", dict(threads=1, memory_limit="")),
                    ("duckdb", f"DuckDB {cores} threads", dict(threads=cores, memory_limit="")),
                    ("duckdb-limit", f"DuckDB {cores} threads, {args.memory_limit}",
                     dict(threads=cores, memory_limit=args.memory_limit))]
            if args.with_plain_sum:
                runs.append(("plain", f"plain SUM, {cores} threads", dict(threads=cores, memory_limit="", plain=True)))
            if args.spark:
                runs.append(("spark", f"Spark local[{cores}]", dict(threads=cores, memory_limit="", spark=True)))
            order = [value.strip() for value in args.runs.split(",")]  # the runs chosen, in the order given
            runs = sorted(((key, name, options) for key, name, options in runs if key in order),
                          key=lambda run_: order.index(run_[0]))
            reference = None
            for _, name, options in runs:
                stats = run(table, work, timeout=args.timeout, **options)
                print(row(rules, name, stats, reference), flush=True)
                measured.setdefault(rules, {})[name] = stats
                if reference is None and "sha256" in stats:
                    reference = stats["sha256"]
            table.unlink()
    print()
    print(side_by_side(measured))
    return 0


def side_by_side(measured: dict[int, dict[str, dict]]) -> str:
    """Sizes down, runs across: seconds / peak RSS MB (disk peak MB), and whether each size's runs wrote one
    sha256."""
    names = list(dict.fromkeys(name for runs in measured.values() for name in runs))
    lines = ["seconds / peak RSS MB (the most on disk at once, MB); bytes: whether every run of the size wrote the "
             "same sha256",
             "| rules | " + " | ".join(names) + " | bytes |", "|---:|" + "---:|" * len(names) + "---|"]
    for rules, runs in measured.items():
        cells = []
        for name in names:
            stats = runs.get(name)
            if stats is None:
                cells.append("not run")
            elif "error" in stats:
                cells.append(f"failed after {stats['wall_seconds']:.0f} s")
            else:
                disk_peak = _disk_peak(stats)
                cells.append(f"{stats['wall_seconds']:,.1f} / {stats['peak_rss_mb']:,.0f}"
                             + ("" if disk_peak is None else f" ({disk_peak / 2**20:,.0f})"))
        digests = {stats["sha256"] for stats in runs.values() if "sha256" in stats}
        same = "same" if len(digests) == 1 else ("-" if not digests else "DIFFERENT")
        lines.append(f"| {rules:,d} | " + " | ".join(cells) + f" | {same} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
