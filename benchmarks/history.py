"""Benchmark figures per commit, and what changed since the previous landed commit (issue 40, Deliver 4).

A benchmark run with ``--record`` appends one JSON line to ``benchmarks/history/NAME.jsonl``: the commit it
measured (and whether the work tree held changes beside it), when, on what machine, with which settings (inputs
by sha256), and its figures, each with its unit and whether higher or lower is better. The files are committed
with the code, so the previous landed commit's figures are there when a change is measured.

    python3 benchmarks/history.py                  # each benchmark's newest record against the previous commit's
    python3 benchmarks/history.py --all            # every recorded commit, oldest first, with the change per step
    python3 benchmarks/history.py --threshold 5    # mark changes worse than 5 % (default 5)

Records are compared only with records of the same machine and the same settings: a figure measured on another
CPU or other inputs is not a change of the code. "Previous" follows main's first-parent history
(``git rev-list --first-parent``); a record of a commit that is not on it (a branch, or a work tree with
changes) is compared with the newest landed record before it. Prints figures; asserts nothing, and exits 0
whatever changed (a noisy figure is for a person to judge: run the benchmark again).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "benchmarks" / "history"
HIGHER, LOWER = "higher", "lower"


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def code_state() -> dict:
    """The commit measured and whether the work tree differs from it (outside the history files themselves)."""
    commit = _git("rev-parse", "HEAD")
    changed = _git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!benchmarks/history")
    return {"commit": commit or None, "changed": bool(changed),
            "commit_date": _git("show", "-s", "--format=%cI", "HEAD") or None}


def machine() -> dict:
    """What makes figures comparable: the CPU's model, its count and the memory (no host name)."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        model = platform.processor()
    memory_gib = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_gib = round(int(line.split()[1]) / (1 << 20))
    except OSError:
        pass
    described = {"cpu": model, "cpus": os.cpu_count(), "memory_gib": memory_gib,
                 "python": platform.python_version(), "system": platform.system()}
    described["id"] = hashlib.sha256(json.dumps([model, os.cpu_count(), memory_gib], sort_keys=True)
                                      .encode()).hexdigest()[:12]
    return described


def file_sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def figure(value: float, unit: str, better: str) -> dict:
    if better not in (HIGHER, LOWER):
        raise ValueError(f"better must be {HIGHER!r} or {LOWER!r}, not {better!r}")
    return {"value": value, "unit": unit, "better": better}


def record(benchmark: str, settings: dict, figures: dict[str, dict], *, folder: Path = FOLDER) -> Path:
    """Append one record of ``benchmark`` (its figures made with :func:`figure`) to its history file."""
    folder.mkdir(parents=True, exist_ok=True)
    line = {"benchmark": benchmark, **code_state(),
            "measured": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "machine": machine(), "settings": settings, "figures": figures}
    path = folder / f"{benchmark}.jsonl"
    with open(path, "a", encoding="utf-8") as handle:  # appended: a line is whole or, cut short, ignored on read
        handle.write(json.dumps(line, sort_keys=True) + "\n")
    return path


def read_records(path: Path) -> list[dict]:
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                print(f"{path}:{number}: expected one JSON record per line; skipped", file=sys.stderr)
                continue
            if isinstance(entry, dict) and isinstance(entry.get("figures"), dict):
                records.append(entry)
    return records


def comparable_key(entry: dict) -> str:
    return json.dumps([entry.get("machine", {}).get("id"), entry.get("settings")], sort_keys=True)


def landed_order() -> dict[str, int]:
    """Main's first-parent commits, newest first, as commit -> position (0 is HEAD)."""
    listed = _git("rev-list", "--first-parent", "HEAD").split()
    return {commit: position for position, commit in enumerate(listed)}


def series(records: list[dict], order: dict[str, int]) -> list[list[dict]]:
    """Records of one machine and settings, oldest first: landed commits by their place in history, then
    records of commits off it (or of changed work trees) after the landed one they were measured on or after."""
    groups: dict[str, list[dict]] = {}
    for entry in records:
        groups.setdefault(comparable_key(entry), []).append(entry)
    ordered = []
    for group in groups.values():
        def place(entry: dict) -> tuple:
            position = order.get(entry.get("commit"))
            landed = position is not None and not entry.get("changed")
            return (-(position if position is not None else -1), 0 if landed else 1, entry.get("measured", ""))
        ordered.append(sorted(group, key=place))
    return ordered


def change(before: dict, after: dict) -> tuple[float, bool]:
    """The relative change of a figure in percent, and whether it is for the worse."""
    old, new = before["value"], after["value"]
    if not old:
        return float("nan"), False
    percent = 100.0 * (new - old) / abs(old)
    worse = percent < 0 if after.get("better") == HIGHER else percent > 0
    return percent, worse


def _label(entry: dict) -> str:
    commit = (entry.get("commit") or "unknown")[:8]
    return commit + (" + changes" if entry.get("changed") else "")


def _collapse(group: list[dict]) -> list[dict]:
    """One record per measured state (commit, changed): a state measured twice keeps the median of each figure,
    which is what a second run of a noisy benchmark is for."""
    merged: dict[tuple, list[dict]] = {}
    for entry in group:
        merged.setdefault((entry.get("commit"), bool(entry.get("changed"))), []).append(entry)
    states = []
    for entries in merged.values():
        base = dict(entries[-1])
        figures = {}
        for name in base["figures"]:
            values = sorted(e["figures"][name]["value"] for e in entries if name in e["figures"])
            figures[name] = {**base["figures"][name], "value": values[len(values) // 2], "runs": len(values)}
        base["figures"] = figures
        states.append(base)
    return states


def print_step(before: dict, after: dict, threshold: float) -> int:
    """The change of each figure from ``before`` to ``after``; the number marked worse than ``threshold`` %."""
    print(f"  {_label(before)} -> {_label(after)}  (measured {after.get('measured', '?')})")
    marked = 0
    for name, now in after["figures"].items():
        then = before["figures"].get(name)
        if then is None:
            print(f"    {name:<44} {'':>12} -> {now['value']:>12.4g} {now['unit']}  (new)")
            continue
        percent, worse = change(then, now)
        flag = ""
        if worse and abs(percent) >= threshold:
            flag, marked = "  <- worse", marked + 1
        print(f"    {name:<44} {then['value']:>12.4g} -> {now['value']:>12.4g} {now['unit']}  "
              f"{percent:+6.1f} % ({now['better']} is better){flag}")
    return marked


def main(argv: list[str] | None = None, *, order: dict[str, int] | None = None) -> int:
    """The command; ``order`` (commit -> place in main's history, 0 the newest) is read from git when not given."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", default=str(FOLDER), help="where the history files are")
    parser.add_argument("--all", action="store_true", help="every recorded step, not only the newest")
    parser.add_argument("--threshold", type=float, default=5.0, help="mark changes worse than this many percent")
    args = parser.parse_args(argv)
    files = sorted(Path(args.folder).glob("*.jsonl"))
    if not files:
        print(f"no history in {args.folder}: run a benchmark with --record (docs/BENCHMARKS.md)")
        return 0
    order = landed_order() if order is None else order
    marked = 0
    for path in files:
        for group in series(read_records(path), order):
            states = _collapse(group)
            first = states[-1]
            settings = ", ".join(f"{k}={v}" for k, v in sorted(first.get("settings", {}).items())
                                 if not str(k).endswith("sha256"))
            print(f"{path.stem} on {first['machine'].get('cpu', '?')} ({first['machine'].get('cpus', '?')} CPUs): "
                  f"{settings}")
            if len(states) == 1:
                print(f"  {_label(first)}: one record, nothing to compare with yet")
                continue
            steps = list(zip(states, states[1:])) if args.all else [(states[-2], states[-1])]
            for before, after in steps:
                marked += print_step(before, after, args.threshold)
    if marked:
        print(f"{marked} figure(s) worse by {args.threshold:g} % or more: measure them again before believing it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
