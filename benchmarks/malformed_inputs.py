"""Malformed inputs through the real CLI (issues 18 and 22): the tally of clear errors, tracebacks, hangs and acceptances.

Every command that reads a file is fed the inputs a careless or unlucky user
would hand it: the 254 cases of issue 18, rebuilt from its list of causes, and
the study-store cases it names besides (another program's SQLite file, a
mistyped study path; then a study of a newer schema, a damaged study file, an
empty file). Each case runs ``python -m core ...`` in a subprocess
with a time limit, from this checkout, and is classed as

* ``clear error``: a non-zero exit with ``parastudio ... error: ...`` and no
  traceback; where the defect is on a line, the message must name it
  (``file:line: expected ...``), else it counts as ``error without its line``;
* ``traceback`` (a Python traceback, or death by a signal), ``hang`` (over the
  time limit);
* ``accepted``: exit 0; right when the input is one a user may hand us (CRLF, a
  BOM, an empty file where empty means something, text a terminal cannot show),
  and then, for CRLF and a BOM, only if the output equals the clean input's;
  wrong otherwise;
* ``refused, should be accepted``: a clear error where acceptance was right.

A store case also fails (``wrote a file it should not have``) when the file it
was given changed or a mistyped path came into existence.

Issue 22's cases (``malformed_cases_22.py``) add two failures: ``raw control
characters printed`` (an escape sequence from a file reached the output) and
``formula cells left in a CSV`` (a cell a spreadsheet would run); a case of a
read-only folder runs without root's right to write anything.

    python benchmarks/malformed_inputs.py            # the tally (1.5-3 minutes on 2 cores: 284 CLI start-ups)
    python benchmarks/malformed_inputs.py --list     # and one line per case
    python benchmarks/malformed_inputs.py --only lm-score --list
    python benchmarks/malformed_inputs.py --issue 22 --list  # issue 22's kinds only
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import ctypes
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the checkout whose CLI runs (--core changes it)
sys.path.insert(0, str(Path(__file__).resolve().parent))

from malformed_cases import Case, build_cases  # noqa: E402  (the case list lives beside this script)

CORE = ROOT
LINE_MESSAGE = re.compile(r":\d+: expected ")


@dataclass
class Result:
    case: Case
    outcome: str
    seconds: float
    detail: str = ""
    stdout: bytes = field(default=b"", repr=False)


def _run(case: Case, timeout: float) -> Result:
    env = {**os.environ, "PYTHONPATH": str(CORE), **case.env}
    stdin = open(case.stdin, "rb") if case.stdin else subprocess.DEVNULL
    before = {path: _digest(path) for path in case.untouched}
    started = time.perf_counter()
    try:
        completed = subprocess.run([sys.executable, "-m", "core", *case.argv], cwd=case.directory, env=env,
                                   stdin=stdin, capture_output=True, timeout=timeout,
                                   preexec_fn=_without_root_overrides if case.honour_permissions else None)
    except subprocess.TimeoutExpired:
        return Result(case, "hang", time.perf_counter() - started, f"over {timeout:g} s")
    finally:
        if case.stdin:
            stdin.close()
    seconds = time.perf_counter() - started
    stderr = completed.stderr.decode("utf-8", "replace")
    last = next((line for line in reversed(stderr.splitlines()) if line.strip()), "")
    if "Traceback (most recent call last)" in stderr or completed.returncode < 0:
        return Result(case, "traceback", seconds, last or f"signal {-completed.returncode}")
    changed = [str(path) for path, digest in before.items() if _digest(path) != digest]
    created = [str(path) for path in case.must_not_exist if path.exists()]
    if changed or created:
        return Result(case, "wrote a file it should not have", seconds, ", ".join(changed + created))
    output = case.output_of(completed.stdout)
    if case.expect.endswith("no-controls") and RAW_CONTROL.search(completed.stdout + completed.stderr):
        return Result(case, "raw control characters printed", seconds, repr(RAW_CONTROL.search(
            completed.stdout + completed.stderr).group()))
    if case.expect == "accept-csv-safe" and completed.returncode == 0:
        formulas = _formula_cells(output)
        if formulas:
            return Result(case, "formula cells left in a CSV", seconds, repr(formulas[:3]))
        if not output.strip():
            return Result(case, "accepted, wrong output", seconds, "no CSV")
    if completed.returncode == 0:
        if case.expect in ("accept", "same", "accept-no-controls", "accept-csv-safe", "any-no-controls"):
            if case.expect == "same" and case.baseline is not None and output != case.baseline:
                return Result(case, "accepted, wrong output", seconds, "output differs from the clean input's")
            return Result(case, "accepted, right", seconds, stdout=output)
        return Result(case, "accepted, wrong", seconds, "exit 0", stdout=output)
    if "error" not in stderr.lower():
        return Result(case, "traceback", seconds, f"exit {completed.returncode} without a message: {last}")
    if case.expect in ("accept", "same", "accept-no-controls", "accept-csv-safe"):
        return Result(case, "refused, should be accepted", seconds, last)
    if case.expect == "refuse-line" and not LINE_MESSAGE.search(stderr):
        return Result(case, "error without its line", seconds, last)
    return Result(case, "clear error", seconds, last)


RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")  # C0 but tab and newline, DEL, C1 (UTF-8)


def _formula_cells(data: bytes) -> list[str]:
    """Text cells of a CSV that a spreadsheet would run as formulas (OWASP's CSV injection)."""
    cells = [cell for row in csv.reader(io.StringIO(data.decode("utf-8", "replace"))) for cell in row]
    found = []
    for cell in cells:
        if cell.startswith(("=", "+", "-", "@", "\t", "\r")):
            try:
                float(cell)
            except ValueError:
                found.append(cell)
    return found


def _without_root_overrides() -> None:
    """In the child: give up CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH and CAP_FOWNER (prctl PR_CAPBSET_DROP), so
    root too meets a read-only folder as a user does."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2, 3):
        libc.prctl(24, capability, 0, 0, 0)


def _digest(path: Path) -> str | None:
    if not path.exists():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


ORDER = ("clear error", "error without its line", "traceback", "hang", "accepted, right", "accepted, wrong",
         "accepted, wrong output", "refused, should be accepted", "wrote a file it should not have",
         "raw control characters printed", "formula cells left in a CSV")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a case counts as a hang")
    parser.add_argument("--only", help="run the cases whose name contains this")
    parser.add_argument("--issue", type=int, choices=(18, 22), help="only the cases of this issue's list")
    parser.add_argument("--list", action="store_true", help="print one line per case")
    parser.add_argument("--keep", metavar="DIR", help="build the inputs in DIR and keep them (default: a temp dir)")
    parser.add_argument("--core", metavar="CHECKOUT", type=Path, default=ROOT,
                        help="run the CLI of another checkout (an older commit, for a before/after tally)")
    args = parser.parse_args(argv)
    global CORE
    CORE = args.core.resolve()

    directory = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="malformed-"))
    if args.keep and directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        cases = build_cases(directory, CORE)
        if args.only:
            cases = [case for case in cases if args.only in case.name]
        if args.issue:
            cases = [case for case in cases if case.issue == args.issue or case.is_baseline]
        baselines = {case.slot: case for case in cases if case.is_baseline}
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for case, result in zip(baselines.values(), pool.map(lambda c: _run(c, args.timeout),
                                                                  baselines.values())):
                if result.outcome != "accepted, right":
                    print(f"baseline {case.name} failed: {result.outcome}: {result.detail}", file=sys.stderr)
                    return 1
                for other in cases:
                    if other.slot == case.slot:
                        other.baseline = result.stdout
            to_run = [case for case in cases if not case.is_baseline]
            results = list(pool.map(lambda c: _run(c, args.timeout), to_run))
    finally:
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)
    if args.list:
        for result in results:
            print(f"{result.case.name:<58} {result.outcome:<28} {result.seconds:6.1f}s  {result.detail[:150]}")
        print()
    issue_cases = [r for r in results if not r.case.store and r.case.issue == 18]
    store_cases = [r for r in results if r.case.store and r.case.issue == 18]
    new_kinds = [r for r in results if r.case.issue == 22]
    for title, chosen in (("malformed inputs over the file-reading commands", issue_cases),
                          ("study store: foreign, mistyped, newer, damaged and empty databases", store_cases),
                          ("issue 22: filesystem objects, unicode, size, store states, silent changes, injection",
                           new_kinds)):
        if not chosen:
            continue
        tally = Counter(result.outcome for result in chosen)
        print(f"{title}: {len(chosen)} cases")
        if chosen is new_kinds:
            groups = Counter(result.case.kind for result in chosen)
            print("  " + ", ".join(f"{group} {count}" for group, count in sorted(groups.items())))
        for outcome in ORDER:
            print(f"  {outcome:<32} {tally.get(outcome, 0):>4}")
    print(f"({len(results)} cases + {len(baselines)} clean baselines in {time.perf_counter() - started:.0f} s, "
          f"{args.jobs} at a time, time limit {args.timeout:g} s)")
    bad = sum(1 for result in results if result.outcome not in ("clear error", "accepted, right"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
