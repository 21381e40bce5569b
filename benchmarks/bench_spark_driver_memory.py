"""The driver's memory on the demo: `generate` and the phrase-table build, locally and on Spark (issue 25).

Runs each command line as a child process and samples ``/proc`` every 0.1 s for the peak resident memory
(``VmHWM``) of the command's own Python process, of Spark's driver JVM (a ``java`` descendant) and of the other
descendants (Spark's Python workers, or the local engine's worker processes). Prints one Markdown table with
seconds, the peaks, and the sha256 of the output (decompressed), which must be the local run's.

    python benchmarks/bench_spark_driver_memory.py [--work /tmp/spark-driver-memory] [--master local[2]]

``generate``: the demo's 100 test verses, the demo paraphrase table (binarized into WORK first) and LM, the beam.
The table build: ``data build --stages phrase-table`` on the same 100 verses and their RV1909 text (eflomal
runs in the driver's Python every time).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "evaldata" / "demo"
SAMPLE_SECONDS = 0.1


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    return children


def _descendants(root: int) -> list[int]:
    children, found, stack = _children(), [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def _status(pid: int) -> tuple[str, int] | None:
    """The process's name and VmHWM in KiB (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            fields = dict(line.split(":", 1) for line in handle if ":" in line)
    except OSError:
        return None
    return fields["Name"].strip(), int(fields.get("VmHWM", "0 kB").split()[0])


def measure(command: list[str], stdin: Path | None) -> dict:
    """Seconds and peak memories (MiB) of ``command``: its own process, the JVM, the other descendants."""
    peaks: dict[int, tuple[str, int]] = {}
    started = time.perf_counter()
    with open(stdin or os.devnull, "rb") as source:
        process = subprocess.Popen(command, stdin=source, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
        stderr: list[bytes] = []
        reader = threading.Thread(target=lambda: stderr.append(process.stderr.read()), daemon=True)
        reader.start()
        while process.poll() is None:
            for pid in _descendants(process.pid):
                status = _status(pid)
                if status is not None:
                    peaks[pid] = (status[0], max(status[1], peaks.get(pid, ("", 0))[1]))
            time.sleep(SAMPLE_SECONDS)
        reader.join()
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{b''.join(stderr).decode(errors='replace')[-3000:]}")
    own = peaks.get(process.pid, ("", 0))[1]
    jvm = max((kib for pid, (name, kib) in peaks.items() if name == "java"), default=0)
    others = sum(kib for pid, (name, kib) in peaks.items() if pid != process.pid and name.startswith("python"))
    return {"seconds": seconds, "python_mib": own / 1024, "jvm_mib": jvm / 1024, "workers_mib": others / 1024}


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/spark-driver-memory"))
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    table = args.work / "paraphrase-table.gz"
    if not Path(f"{table}.pstable").exists():  # every run memory-maps the binary table, as a cluster would
        shutil.copyfile(DEMO / "paraphrase-table.gz", table)
        subprocess.run([sys.executable, "-m", "parastudio", "table", "binarize", str(table)], check=True, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True)
    engines = {"local": [], "spark, default driver": ["--engine", "spark", "--master", args.master],
               "spark, --driver-memory 512m": ["--engine", "spark", "--master", args.master, "--driver-memory",
                                                "512m"]}
    python = [sys.executable, "-m", "parastudio"]
    rows = []
    for name, flags in engines.items():
        output = args.work / f"candidates-{len(rows)}.jsonl"
        stats = measure([*python, "generate", "--system", "beam", "--table", str(table), "--lm",
                         str(DEMO / "lm.bin"), "--json", "-o", str(output), *flags], DEMO / "test.en")
        rows.append(("generate", name, stats, sha256_of(output)))
    for name, flags in engines.items():
        out = args.work / f"build-{len(rows)}"
        shutil.rmtree(out, ignore_errors=True)
        (out / "build" / "corpus").mkdir(parents=True)
        shutil.copyfile(DEMO / "test.en", out / "build" / "corpus" / "train.web")
        shutil.copyfile(DEMO / "test.es", out / "build" / "corpus" / "train.rv")
        stats = measure([*python, "data", "build", "--out", str(out), "--stages", "phrase-table", "--no-install",
                         *flags], None)
        rows.append(("phrase table", name, stats, sha256_of(out / "build" / "tables" / "web-rv.phrase-table.gz")))
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (1 min), {os.getloadavg()[2]:.1f} (15 min)")
    print("| command | engine | seconds | driver Python (MiB) | driver JVM (MiB) | other Python (MiB) | sha256 |")
    print("|---|---|---:|---:|---:|---:|---|")
    for command, name, stats, digest in rows:
        reference = next(d for c, n, _, d in rows if c == command and n == "local")
        same = "`" + digest[:12] + "`" if name == "local" else ("same" if digest == reference else f"DIFFERENT {digest[:12]}")
        print(f"| {command} | {name} | {stats['seconds']:.1f} | {stats['python_mib']:.0f} | {stats['jvm_mib']:.0f} | "
              f"{stats['workers_mib']:.0f} | {same} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
