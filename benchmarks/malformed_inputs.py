"""Malformed inputs through the real CLI (issues 18 and 22): the tally of clear errors, tracebacks, hangs and acceptances.

Every command that reads a file is fed the inputs a careless or unlucky user
would hand it: the 254 cases of issue 18, rebuilt from its list of causes, and
the study-store cases it names besides (another program's SQLite file, a
mistyped study path; then a study of a newer schema, a damaged study file, an
empty file). Each case runs ``python -m parastudio ...`` in a subprocess
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
    python benchmarks/malformed_inputs.py --issue 39 --list  # issue 39's held-out set (malformed_cases_39.py)
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import csv
import ctypes
import hashlib
import io
import os
import pty
import re
import select
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import tty
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
    before = {path: _digest(path) for path in case.untouched}
    kinds = {path: _kind(path) for path in case.kept_kinds}
    helpers = _Helpers(case)
    started = time.perf_counter()
    try:
        timeout = max(timeout, case.time_limit or 0)
        returncode, stdout, stderr_bytes = _execute(case, env, timeout, helpers)
    except subprocess.TimeoutExpired:
        return Result(case, "hang", time.perf_counter() - started, f"over {timeout:g} s")
    finally:
        helpers.stop()
    seconds = time.perf_counter() - started
    stderr = stderr_bytes.decode("utf-8", "replace")
    last = next((line for line in reversed(stderr.splitlines()) if line.strip()), "")
    if "Traceback (most recent call last)" in stderr or returncode < 0:
        return Result(case, "traceback", seconds, last or f"signal {-returncode}")
    changed = [str(path) for path, digest in before.items() if _digest(path) != digest]
    changed += [f"{path} ({kind} became {_kind(path)})" for path, kind in kinds.items() if _kind(path) != kind]
    created = [str(path) for path in case.must_not_exist if os.path.lexists(path)]
    if changed or created:
        return Result(case, "wrote a file it should not have", seconds, ", ".join(changed + created))
    if helpers.descriptor_path:  # the name the command was given, as the case names it
        stdout = stdout.replace(helpers.descriptor_path.encode(), b"/dev/fd/{FD}")
    output = case.output_of(stdout)
    if case.on_terminal:
        # On a terminal, our own progress bar redraws itself with carriage returns; every other control
        # character came from data (a raw \r from data would be escaped like the rest).
        shown = stdout.replace(b"\r", b"")
        if RAW_CONTROL.search(shown):
            return Result(case, "raw control characters printed", seconds, repr(RAW_CONTROL.search(shown).group()))
    if case.expect == "accept-csv-safe" and returncode == 0:
        formulas = _formula_cells(output)
        if formulas:
            return Result(case, "formula cells left in a CSV", seconds, repr(formulas[:3]))
        if not output.strip():
            return Result(case, "accepted, wrong output", seconds, "no CSV")
    if returncode == 0:
        if case.expect in ("accept", "same", "accept-no-controls", "accept-csv-safe", "any-no-controls", "any",
                           "same-or-refuse"):
            if case.expect in ("same", "same-or-refuse") and case.baseline is not None and output != case.baseline:
                return Result(case, "accepted, wrong output", seconds, "output differs from the clean input's")
            if case.check is not None:
                wrong = case.check(output)
                if wrong:
                    return Result(case, "accepted, wrong output", seconds, wrong)
            return Result(case, "accepted, right", seconds, stdout=output)
        return Result(case, "accepted, wrong", seconds, "exit 0", stdout=output)
    if "error" not in stderr.lower():
        return Result(case, "traceback", seconds, f"exit {returncode} without a message: {last}")
    if case.expect in ("accept", "same", "accept-no-controls", "accept-csv-safe"):
        return Result(case, "refused, should be accepted", seconds, last)
    if case.expect == "refuse-line" and not LINE_MESSAGE.search(stderr):
        return Result(case, "error without its line", seconds, last)
    return Result(case, "clear error", seconds, last)


def _guarded_run(case: Case, timeout: float) -> Result:
    """``_run``, a fault of this script counted against the case (not the end of the whole run)."""
    try:
        if hasattr(case, "run"):  # issue 39's cases run and class themselves (malformed_run_39.py)
            return Result(case, *case.run(timeout, CORE))
        return _run(case, timeout)
    except Exception as error:  # noqa: BLE001 - reported in the tally
        return Result(case, "benchmark error", 0.0, f"{type(error).__name__}: {error}")


def _line(result: Result) -> str:
    return f"{result.case.name:<58} {result.outcome:<28} {result.seconds:6.1f}s  {result.detail[:150]}"


def _execute(case: Case, env: dict, timeout: float, helpers: "_Helpers") -> tuple[int, bytes, bytes]:
    """Run the case's command: (exit status, standard output, standard error); on a terminal both are the
    terminal's bytes. Raises TimeoutExpired past ``timeout``."""
    argv, pass_fds = list(case.argv), ()
    if case.fd_input is not None:  # bash's <(...): a pipe the command names as /dev/fd/N
        reader, writer = os.pipe()
        argv = [argument.replace("{FD}", str(reader)) for argument in argv]
        helpers.descriptor_path = f"/dev/fd/{reader}"
        pass_fds = (reader,)
        helpers.feed_descriptor(writer, case.fd_input)
    if case.stdin is not None:
        stdin = os.open(case.stdin, os.O_RDONLY)  # a folder too: what the shell's `< folder` would not give
    elif case.stdin_data is not None:
        stdin = subprocess.PIPE
    else:
        stdin = subprocess.DEVNULL
    preexec = _without_root_overrides if case.honour_permissions else None
    try:
        if not case.on_terminal:
            process = subprocess.Popen([sys.executable, "-m", "parastudio", *argv], cwd=case.directory, env=env,
                                       stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       pass_fds=pass_fds, preexec_fn=preexec)
            helpers.close_passed(pass_fds)
            try:
                stdout, stderr = process.communicate(case.stdin_data, timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                raise
            return process.returncode, stdout, stderr
        controller, terminal = pty.openpty()
        tty.setraw(terminal)  # no \n -> \r\n: the bytes as the program wrote them
        process = subprocess.Popen([sys.executable, "-m", "parastudio", *argv], cwd=case.directory, env=env,
                                   stdin=stdin, stdout=terminal, stderr=terminal, pass_fds=pass_fds,
                                   preexec_fn=preexec)
        os.close(terminal)
        helpers.close_passed(pass_fds)
        if case.stdin_data is not None:
            threading.Thread(target=_write_and_close, args=(process.stdin, case.stdin_data), daemon=True).start()
        received, deadline = b"", time.monotonic() + timeout
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    process.kill()
                    process.wait()
                    raise subprocess.TimeoutExpired(argv, timeout)
                ready, _, _ = select.select([controller], [], [], remaining)
                if not ready:
                    continue
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # every holder of the terminal closed it
                    break
                if not chunk:
                    break
                received += chunk
        finally:
            os.close(controller)
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
        return process.returncode, received, received
    finally:
        if isinstance(stdin, int) and stdin >= 0:
            os.close(stdin)


def _write_and_close(handle, data: bytes) -> None:
    try:
        handle.write(data)
        handle.close()
    except OSError:  # the command stopped reading: what a shell pipe meets too
        pass


class _Helpers:
    """What runs beside a case's command: a process holding a lock on a study, writers feeding the named pipes
    the command reads, readers draining the ones it writes; all stopped (and unblocked) when it ends."""

    def __init__(self, case: Case):
        self.case = case
        self.holder = None
        self.threads: list[threading.Thread] = []
        self.drained: dict[Path, bytes] = {}
        self.descriptor_path = ""
        if case.holder:
            self.holder = subprocess.Popen([sys.executable, "-c", case.holder[0], *case.holder[1:]],
                                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                           env={**os.environ, "PYTHONPATH": str(CORE)})
            self.holder.stdout.readline()  # "ready": it holds the lock
        for path, data in case.feed.items():
            self._start(self._feed_fifo, path, data)
        for path in case.drain:
            self._start(self._drain_fifo, path)

    def _start(self, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        thread.start()
        self.threads.append(thread)

    @staticmethod
    def _feed_fifo(path: Path, data: bytes) -> None:
        try:
            with open(path, "wb") as handle:
                handle.write(data)
        except OSError:
            pass

    def _drain_fifo(self, path: Path) -> None:
        try:
            with open(path, "rb") as handle:
                self.drained[path] = handle.read()
        except OSError:
            pass

    def feed_descriptor(self, writer: int, data: bytes) -> None:
        self._start(_write_and_close, os.fdopen(writer, "wb"), data)

    @staticmethod
    def close_passed(descriptors) -> None:
        for descriptor in descriptors:
            os.close(descriptor)

    def stop(self) -> None:
        if self.holder is not None:
            self.holder.kill()
            self.holder.wait()
        # A pipe the command never opened still blocks its feeder or drainer in open(): open the other end.
        for path in self.case.feed:
            with contextlib.suppress(OSError):
                os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        for path in self.case.drain:
            with contextlib.suppress(OSError):
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        for thread in self.threads:
            thread.join(5)


def _kind(path: Path) -> str:
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return "missing"
    return next((name for test, name in ((stat.S_ISLNK, "symlink"), (stat.S_ISCHR, "character device"),
                                         (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"),
                                         (stat.S_ISDIR, "directory"), (stat.S_ISREG, "file")) if test(mode)), "?")


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
    if not path.is_file():  # a device or pipe: its kind is checked (kept_kinds), its bytes are not a file's
        return _kind(path)
    return hashlib.sha256(path.read_bytes()).hexdigest()


ORDER = ("clear error", "error without its line", "traceback", "hang", "accepted, right", "accepted, wrong",
         "accepted, wrong output", "refused, should be accepted", "wrote a file it should not have",
         "raw control characters printed", "formula cells left in a CSV", "misdiagnosed", "killed by a signal",
         "left processes running", "benchmark error")


def _print_families(results: list[Result]) -> None:
    """A Markdown table: one row per family, one column per outcome that occurred."""
    outcomes = [outcome for outcome in ORDER if any(result.outcome == outcome for result in results)]
    print("\n| family | cases | " + " | ".join(outcomes) + " |")
    print("|---|---:|" + "---:|" * len(outcomes))
    for family in sorted({result.case.kind for result in results}):
        chosen = [result for result in results if result.case.kind == family]
        tally = Counter(result.outcome for result in chosen)
        print(f"| {family} | {len(chosen)} | " + " | ".join(str(tally.get(o, 0)) for o in outcomes) + " |")
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a case counts as a hang")
    parser.add_argument("--only", help="run the cases whose name contains this")
    parser.add_argument("--issue", type=int, choices=(18, 22, 39), help="only the cases of this issue's list")
    parser.add_argument("--held-out", action="store_true", help="only the held-out kinds "
                        "(malformed_cases_held_out.py)")
    parser.add_argument("--families", action="store_true", help="a table of outcomes per family (held-out kinds)")
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
        cases = build_cases(directory, CORE) if args.issue != 39 else []
        if args.issue in (None, 39) and not args.held_out:
            from malformed_cases_39 import build_cases_39  # issue 39's held-out set

            cases += build_cases_39(directory, CORE)
        if args.only:
            cases = [case for case in cases if args.only in case.name or case.is_baseline]  # "same" needs them
        if args.issue:
            cases = [case for case in cases if case.issue == args.issue or case.is_baseline]
        if args.held_out:
            cases = [case for case in cases if case.name.startswith("held-out/") or case.is_baseline]
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
            results = []
            for result in pool.map(lambda c: _guarded_run(c, args.timeout), to_run):
                results.append(result)
                if args.list:  # as they come: a long run's lines are not lost with it
                    print(_line(result), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)
    if args.list:
        print()
    issue_cases = [r for r in results if not r.case.store and r.case.issue == 18]
    store_cases = [r for r in results if r.case.store and r.case.issue == 18]
    new_kinds = [r for r in results if r.case.issue == 22 and not r.case.name.startswith("held-out/")]
    held_out = [r for r in results if r.case.name.startswith("held-out/")]
    issue_39 = [r for r in results if r.case.issue == 39]
    for title, chosen in (("malformed inputs over the file-reading commands", issue_cases),
                          ("study store: foreign, mistyped, newer, damaged and empty databases", store_cases),
                          ("issue 22: filesystem objects, unicode, size, store states, silent changes, injection",
                           new_kinds),
                          ("held-out kinds (malformed_cases_held_out.py)", held_out),
                          ("issue 39's held-out set (malformed_cases_39.py)", issue_39)):
        if not chosen:
            continue
        tally = Counter(result.outcome for result in chosen)
        print(f"{title}: {len(chosen)} cases")
        if chosen is new_kinds or chosen is held_out or chosen is issue_39:
            groups = Counter(result.case.kind for result in chosen)
            print("  " + ", ".join(f"{group} {count}" for group, count in sorted(groups.items())))
        if (chosen is held_out and args.families) or chosen is issue_39:
            _print_families(chosen)
        for outcome in ORDER:
            print(f"  {outcome:<32} {tally.get(outcome, 0):>4}")
    print(f"({len(results)} cases + {len(baselines)} clean baselines in {time.perf_counter() - started:.0f} s, "
          f"{args.jobs} at a time, time limit {args.timeout:g} s)")
    bad = sum(1 for result in results if result.outcome not in ("clear error", "accepted, right"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
