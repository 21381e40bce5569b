"""How one case of issue 39's held-out set runs and is classed (``malformed_cases_39.py`` holds the cases).

Issue 39's cases ask more of a command than the earlier lists: a refusal in exactly one line with the status a
bad input gets (2), naming what it must name and showing no password; Ctrl+C (130) and SIGTERM (143) sent once
the command has started, and a SIGKILL followed by a second run; standard descriptors closed, a file-size limit
(RLIMIT_FSIZE), a full disk (a small tmpfs in a private mount namespace); no temporary, no file and no worker
process left behind. A :class:`Case39` carries these and runs itself (``malformed_inputs.py`` calls ``run``);
its outcome is one of the runner's (``clear error``, ``accepted, right``, ``traceback``, ``hang``, ...) or
``killed by a signal`` (a signal the case did not send, or one the command did not handle), ``misdiagnosed``
(refused, but not in one line, with another status, without naming the cause, or showing a secret) and
``left processes running``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from malformed_cases import Case

LINE_MESSAGE = re.compile(r":\d+: expected ")
# KenLM's own loading chatter (an ARPA file), our warnings and notes are not the refusal: they are not counted as its lines.
NOT_THE_MESSAGE = re.compile(r"^(Loading the LM will be faster|Reading /|----5---10|\*+$|parastudio: (warning|note):)")
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")
START_LIMIT = 20.0  # seconds a long command may take to reach its start condition


@dataclass
class Interrupt:
    """A signal sent once the command has started: ``when`` its process tree has used ``cpu`` seconds and has
    ``children`` processes besides itself; to the process group (``group``, as Ctrl+C in a terminal) or to the
    command's process alone (``kill PID``); ``twice``: sent again at once (an impatient Ctrl+C)."""

    signum: int
    group: bool = True
    cpu: float = 1.0
    children: int = 0
    twice: bool = False


@dataclass
class Case39(Case):
    exit_code: int | None = None  # the status a refusal or an interruption must end with
    mentions: tuple = ()  # groups of words: the message holds one word of every group (case-insensitive)
    secrets: tuple = ()  # texts no output may hold (a password and its pieces)
    stdout_must_not: tuple = ()  # texts an accepted output may not hold ("100%" of a study without judgments)
    close: tuple = ()  # standard descriptors closed in the command (bash's <&- >&- 2>&-)
    fsize: int | None = None  # RLIMIT_FSIZE of the command, in bytes
    interrupt: Interrupt | None = None
    rerun: list | None = None  # after a SIGKILL: the command run again to its end (it must clean up)
    rerun_stdin: Path | None = None
    watch: tuple = ()  # folders where nothing may be left but ``allowed_new`` (and a study's SQLite companions)
    allowed_new: tuple = ()
    post: Callable[[], str] | None = None  # after the run: what is wrong with the files it left, or ""
    baseline_argv: list | None = None  # "same-or-refuse": the clean command whose standard output must be the same
    full_disk: dict | None = None  # a run on a nearly full tmpfs (FULL_DISK_RUNNER's specification)
    one_line: bool = True
    warns: tuple = ()  # groups of words an accepted run must say on standard error (an input outside its folder)

    def run(self, timeout: float, core: Path) -> tuple[str, float, str]:
        """Run the case: (outcome, seconds, detail)."""
        return _run(self, self.time_limit or timeout, core)


def _environment(case: Case39, core: Path) -> dict:
    temporary = case.directory / f".tmp-{abs(hash(case.name)) % 10**8}"  # the command's TMPDIR: left empty
    temporary.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "PYTHONPATH": str(core), "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": str(temporary),
            **case.env}


def _listing(folders) -> dict[Path, set[str]]:
    return {folder: set(os.listdir(folder)) if folder.is_dir() else set() for folder in folders}


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


class _Drain(threading.Thread):
    """Reads a pipe to its end so a command that prints much never blocks on it."""

    def __init__(self, pipe):
        super().__init__(daemon=True)
        self.pipe, self.data = pipe, b""
        self.start()

    def run(self) -> None:
        if self.pipe is not None:
            self.data = self.pipe.read()
            self.pipe.close()


def _preexec(case: Case39) -> Callable[[], None]:
    def prepare() -> None:
        if case.fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (case.fsize, case.fsize))
        for descriptor in case.close:
            os.close(descriptor)
    return prepare


def _start(case: Case39, argv: list[str], env: dict, stdin_path: Path | None = None):
    stdin = subprocess.DEVNULL
    if stdin_path is not None:
        stdin = open(stdin_path, "rb")  # noqa: SIM115 - closed once the child has it
    elif case.stdin_data is not None:
        stdin = subprocess.PIPE
    process = subprocess.Popen([sys.executable, "-m", "parastudio", *argv], cwd=case.directory, env=env, stdin=stdin,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_preexec(case),
                               start_new_session=True)
    if stdin_path is not None:
        stdin.close()
    if case.stdin_data is not None:
        threading.Thread(target=_feed, args=(process.stdin, case.stdin_data), daemon=True).start()
    return process, _Drain(process.stdout), _Drain(process.stderr)


def _feed(pipe, data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except OSError:  # the command stopped reading: a shell pipe meets that too
        pass


def _finish(process, drains, limit: float) -> tuple[int | None, bytes, bytes]:
    """Wait for the command (None past ``limit``: the whole group killed); then its outputs."""
    try:
        process.wait(limit)
        returncode = process.returncode
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        process.wait()
        returncode = None
    for drain in drains:
        drain.join(10)
    return returncode, drains[0].data, drains[1].data


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def _descendants(pid: int) -> list[int]:
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        found += [int(child) for child in children]
        queue += [int(child) for child in children]
    return found


def _cpu_seconds(pids) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _wait_until_started(process, interrupt: Interrupt) -> bool:
    """True once the command's process tree has reached the interrupt's start condition; False if it ended first."""
    deadline = time.monotonic() + START_LIMIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        tree = [process.pid, *_descendants(process.pid)]
        if len(tree) - 1 >= interrupt.children and _cpu_seconds(tree) >= interrupt.cpu:
            return True
        time.sleep(0.02)  # polling the condition, not a guess of how long the start takes
    return process.poll() is None


def _wait_group_gone(pgid: int, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _group_alive(pgid):
            return True
        time.sleep(0.02)
    return not _group_alive(pgid)


def _run(case: Case39, limit: float, core: Path) -> tuple[str, float, str]:
    env = _environment(case, core)
    before = {path: _digest(path) for path in case.untouched}
    listed = _listing([*case.watch, Path(env["TMPDIR"])])
    started = time.perf_counter()
    leftovers_alive = False
    if case.full_disk is not None:
        returncode, stdout, stderr, disk = _run_on_full_disk(case, env, limit)
        if returncode is None:
            return "hang", time.perf_counter() - started, f"over {limit:g} s"
        problems = disk
    else:
        process, out, err = _start(case, case.argv, env, case.stdin)
        if case.interrupt is not None:
            if not _wait_until_started(process, case.interrupt):
                _finish(process, (out, err), 10)
                return "benchmark error", time.perf_counter() - started, "it ended before it could be interrupted"
            send = os.killpg if case.interrupt.group else os.kill
            send(process.pid, case.interrupt.signum)
            if case.interrupt.twice:
                send(process.pid, case.interrupt.signum)
        returncode, stdout, stderr = _finish(process, (out, err), limit)
        if returncode is None:
            return "hang", time.perf_counter() - started, f"over {limit:g} s"
        if case.interrupt is not None and case.interrupt.signum != signal.SIGKILL:
            leftovers_alive = not _wait_group_gone(process.pid)
        _kill_group(process.pid)
        if case.rerun is not None:  # after a SIGKILL: the same writer again, to its end
            process, out, err = _start(case, case.rerun, env, case.rerun_stdin)
            returncode, stdout, stderr = _finish(process, (out, err), limit)
            if returncode is None:
                return "hang", time.perf_counter() - started, f"the second run: over {limit:g} s"
            _kill_group(process.pid)
        problems = []
    seconds = time.perf_counter() - started
    problems += [f"{path} changed" for path, digest in before.items() if _digest(path) != digest]
    problems += [f"{path} created" for path in case.must_not_exist if os.path.lexists(path)]
    problems += _left_behind(case, listed)
    outcome, detail = _classify(case, returncode, stdout, stderr, problems, leftovers_alive, core)
    return outcome, seconds, detail


def _left_behind(case: Case39, listed: dict[Path, set[str]]) -> list[str]:
    left = []
    for folder, names in listed.items():
        now = set(os.listdir(folder)) if folder.is_dir() else set()
        for name in sorted(now - names):
            base = name
            for companion in SQLITE_COMPANIONS:
                base = base.removesuffix(companion)
            if name in case.allowed_new or (base != name and (folder / base).exists()):
                continue
            left.append(f"left {folder.name}/{name}")
    return left


def _stderr_lines(stderr: bytes) -> list[str]:
    text = stderr.decode("utf-8", "replace")
    return [line for line in re.split(r"[\r\n]+", text) if line.strip() and not NOT_THE_MESSAGE.match(line)]


def _classify(case: Case39, returncode: int, stdout: bytes, stderr: bytes, problems: list[str],
              processes_left: bool, core: Path) -> tuple[str, str]:
    text = stderr.decode("utf-8", "replace")
    lines = _stderr_lines(stderr)
    last = lines[-1] if lines else ""
    if "Traceback (most recent call last)" in text:
        return "traceback", last
    if returncode < 0:
        return "killed by a signal", f"{signal.Signals(-returncode).name}; {last}"
    if returncode == 0 and (case.expect.startswith("refuse") or case.expect == "signal"):
        said = [text for text in case.stdout_must_not if text.encode() in stdout]
        return "accepted, wrong", "; ".join(["exit 0", *(f"printed {text!r}" for text in said), *problems])[:300]
    if problems:
        return "wrote a file it should not have", "; ".join(problems)[:300]
    if processes_left:
        return "left processes running", f"exit {returncode}; {last}"
    everything = (stdout + stderr).decode("utf-8", "replace")
    shown = [secret for secret in case.secrets if secret in everything]
    if shown:
        return "misdiagnosed", f"shows the secret {shown[0]!r}: {last}"
    if returncode == 0:
        return _accepted(case, stdout, stderr, core)
    if case.expect == "accept":
        return "refused, should be accepted", f"exit {returncode}: {last}"
    if case.post is not None and (wrong := case.post()):
        return "wrote a file it should not have", f"{wrong} (exit {returncode}: {last})"
    return _refusal(case, returncode, lines, stdout)


def _accepted(case: Case39, stdout: bytes, stderr: bytes, core: Path) -> tuple[str, str]:
    wrong = case.post() if case.post is not None else ""
    if not wrong and case.baseline_argv is not None and _normal(stdout, case, case.argv) != _baseline(case, core):
        wrong = "output differs from the clean input's"
    if not wrong:
        said = [text for text in case.stdout_must_not if text.encode() in stdout]
        wrong = f"printed {said[0]!r}" if said else ""
    told = stderr.decode("utf-8", "replace").lower()
    for group in case.warns if not wrong else ():
        if not any(word.lower() in told for word in group):
            wrong = f"did not say {' / '.join(group)} on stderr"
    return ("accepted, wrong output", wrong) if wrong else ("accepted, right", "")


def _refusal(case: Case39, returncode: int, lines: list[str], stdout: bytes) -> tuple[str, str]:
    last = lines[-1] if lines else ""
    if 2 in case.close:  # standard error closed: the status is all a caller gets
        if case.exit_code is not None and returncode != case.exit_code:
            return "misdiagnosed", f"exit {returncode}, expected {case.exit_code}"
        return "clear error", f"exit {returncode}"
    if not lines and (case.one_line or not stdout.strip()):
        return "misdiagnosed", f"exit {returncode} and nothing said"
    if case.one_line and len(lines) != 1:
        return "misdiagnosed", f"{len(lines)} lines on stderr: {' | '.join(lines[:3])[:240]}"
    if case.exit_code is not None and returncode != case.exit_code:
        return "misdiagnosed", f"exit {returncode}, expected {case.exit_code}: {last}"
    message = " ".join(lines).lower()
    if not case.one_line:  # a listing (study check): its lines may be on standard output
        message += " " + stdout.decode("utf-8", "replace").lower()
    for group in case.mentions:
        if not any(word.lower() in message for word in group):
            return "misdiagnosed", f"does not name {' / '.join(group)}: {last}"
    if case.expect.endswith("refuse-line") and not LINE_MESSAGE.search(" ".join(lines)):
        return "error without its line", last
    return "clear error", last


_BASELINES: dict[tuple, bytes] = {}
_BASELINE_LOCK = threading.Lock()


def _normal(stdout: bytes, case: Case39, argv: list[str]) -> bytes:
    """An output without what differs between two correct runs: the run's seconds, inputs' digests, and the paths
    of the input files in which the case and its clean run differ."""
    data = re.sub(rb'"(\w*seconds|\w*memory\w*|peak_\w*|spilled_bytes)": [-+.0-9e]+', b'"_": _', stdout)
    data = re.sub(rb'"sha256": "[0-9a-f]{64}", "bytes": [0-9]+', b'"sha256": _, "bytes": _', data)
    for mine, clean in zip(case.argv, case.baseline_argv or ()):
        if mine != clean and "/" in mine:
            data = data.replace((mine if argv is case.argv else clean).encode(), b"INPUT")
    return data.replace(str(case.directory).encode(), b"DIR")


def _baseline(case: Case39, core: Path) -> bytes:
    key = (tuple(case.baseline_argv), str(case.stdin), case.stdin_data)
    with _BASELINE_LOCK:
        if key not in _BASELINES:
            clean = Case39(case.name + "/baseline", case.slot, case.baseline_argv, case.directory, "accept",
                           stdin=case.stdin, stdin_data=case.stdin_data)
            process, out, err = _start(clean, clean.argv, _environment(clean, core), clean.stdin)
            returncode, stdout, _ = _finish(process, (out, err), 120)
            _BASELINES[key] = _normal(stdout, case, case.baseline_argv) if returncode == 0 else \
                b"<the clean run failed>"
        return _BASELINES[key]


# Runs in a private mount namespace (unshare -m): a tmpfs of ``size`` bytes at ``mount``, ``copy`` put in it, a
# filler leaving ``free`` bytes, the command run there; then every file's sha256 and the answers of ``queries``.
FULL_DISK_RUNNER = r"""
import hashlib, json, os, shutil, sqlite3, subprocess, sys
spec = json.load(open(sys.argv[1]))
mount = spec["mount"]
subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={spec['size']}", "tmpfs", mount], check=True)
for source, name in spec["copy"]:
    shutil.copy(source, os.path.join(mount, name))
answers = {}
for name, query in spec["before"]:
    connection = sqlite3.connect(os.path.join(mount, name))
    answers["before " + query] = connection.execute(query).fetchall()
    connection.close()
room = os.statvfs(mount)
filler = room.f_bavail * room.f_frsize - spec["free"]
if filler > 0:
    with open(os.path.join(mount, "filler"), "wb") as handle:
        handle.write(b"\0" * filler)
try:
    stdin = open(spec["stdin"], "rb") if spec.get("stdin") else subprocess.DEVNULL
    done = subprocess.run([sys.executable, "-m", "parastudio", *spec["argv"]], cwd=mount, capture_output=True,
                          stdin=stdin, timeout=spec["limit"], env=dict(os.environ))
    result = {"returncode": done.returncode, "stdout": done.stdout.decode("utf-8", "replace"),
              "stderr": done.stderr.decode("utf-8", "replace")}
except subprocess.TimeoutExpired:
    result = {"returncode": None, "stdout": "", "stderr": ""}
os.remove(os.path.join(mount, "filler")) if filler > 0 else None
for name, query in spec["before"]:
    connection = sqlite3.connect(os.path.join(mount, name))
    answers["after " + query] = connection.execute(query).fetchall()
    answers["integrity"] = connection.execute("PRAGMA integrity_check").fetchall()
    connection.close()
result["files"] = {name: hashlib.sha256(open(os.path.join(mount, name), "rb").read()).hexdigest()
                   for name in sorted(os.listdir(mount)) if os.path.isfile(os.path.join(mount, name))}
result["answers"] = answers
print(json.dumps(result))
"""


def _run_on_full_disk(case: Case39, env: dict, limit: float):
    """The command on a nearly full tmpfs: (status, stdout, stderr, problems with the files it left there)."""
    spec = dict(case.full_disk, argv=case.argv, limit=limit)
    spec_file = case.directory / f"full-disk-{abs(hash(case.name)) % 10**8}.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    done = subprocess.run(["unshare", "-m", "--propagation", "private", sys.executable, "-c", FULL_DISK_RUNNER,
                           str(spec_file)], capture_output=True, env=env, timeout=limit + 30)
    if done.returncode != 0:
        raise RuntimeError(f"the full-disk runner failed: {done.stderr.decode()[-300:]}")
    result = json.loads(done.stdout)
    problems = []
    copied = {name for _, name in spec["copy"]}
    for name, _digest in result["files"].items():
        base = name
        for companion in SQLITE_COMPANIONS:
            base = base.removesuffix(companion)
        if name not in copied and base not in copied and name not in case.allowed_new:
            problems.append(f"left {name} on the full disk")
    for name in spec.get("unchanged", []):
        original = hashlib.sha256(Path(dict((n, s) for s, n in spec["copy"])[name]).read_bytes()).hexdigest()
        if result["files"].get(name) != original:
            problems.append(f"{name} changed on the full disk")
    answers = result["answers"]
    for _, query in spec["before"]:
        if answers["before " + query] != answers["after " + query]:
            problems.append(f"{query}: {answers['before ' + query]} became {answers['after ' + query]}")
    if answers.get("integrity", [["ok"]]) != [["ok"]]:
        problems.append(f"integrity_check: {answers['integrity'][:2]}")
    if result["returncode"] == 0:
        problems = []  # taken: what it wrote is the answer (judged by the case's expectation)
    return result["returncode"], result["stdout"].encode(), result["stderr"].encode(), problems
