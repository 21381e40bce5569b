"""Malformed inputs through the real CLI (issue 18): the tally of clear errors, tracebacks, hangs and acceptances.

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

    python benchmarks/malformed_inputs.py            # the tally (1.5-3 minutes on 2 cores: 284 CLI start-ups)
    python benchmarks/malformed_inputs.py --list     # and one line per case
    python benchmarks/malformed_inputs.py --only lm-score --list
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
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
                                   stdin=stdin, capture_output=True, timeout=timeout)
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
    if completed.returncode == 0:
        if case.expect in ("accept", "same"):
            if case.expect == "same" and case.baseline is not None and output != case.baseline:
                return Result(case, "accepted, wrong output", seconds, "output differs from the clean input's")
            return Result(case, "accepted, right", seconds, stdout=output)
        return Result(case, "accepted, wrong", seconds, "exit 0", stdout=output)
    if "error" not in stderr.lower():
        return Result(case, "traceback", seconds, f"exit {completed.returncode} without a message: {last}")
    if case.expect in ("accept", "same"):
        return Result(case, "refused, should be accepted", seconds, last)
    if case.expect == "refuse-line" and not LINE_MESSAGE.search(stderr):
        return Result(case, "error without its line", seconds, last)
    return Result(case, "clear error", seconds, last)


def _digest(path: Path) -> str | None:
    if not path.exists():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


ORDER = ("clear error", "error without its line", "traceback", "hang", "accepted, right", "accepted, wrong",
         "accepted, wrong output", "refused, should be accepted", "wrote a file it should not have")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a case counts as a hang")
    parser.add_argument("--only", help="run the cases whose name contains this")
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
    issue_cases = [r for r in results if not r.case.store]
    store_cases = [r for r in results if r.case.store]
    for title, chosen in (("malformed inputs over the file-reading commands", issue_cases),
                          ("study store: foreign, mistyped, newer, damaged and empty databases", store_cases)):
        if not chosen:
            continue
        tally = Counter(result.outcome for result in chosen)
        print(f"{title}: {len(chosen)} cases")
        for outcome in ORDER:
            print(f"  {outcome:<32} {tally.get(outcome, 0):>4}")
    print(f"({len(results)} cases + {len(baselines)} clean baselines in {time.perf_counter() - started:.0f} s, "
          f"{args.jobs} at a time, time limit {args.timeout:g} s)")
    bad = sum(1 for result in results if result.outcome not in ("clear error", "accepted, right"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
