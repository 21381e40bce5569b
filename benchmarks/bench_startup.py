"""Start-up: CPU seconds from a command's start to its exit, for commands that do (almost) no work (issue 27).

Each command runs ``--repeat`` times as a child process; its CPU time (user + system, its own children such as
git included) comes from ``os.wait4``, which other processes on a shared machine do not disturb the way they
disturb wall time. Printed: the least and the median CPU seconds and
the peak resident memory.

* ``python -c pass``: the interpreter alone, the floor of every row below;
* ``parastudio --help``;
* a decoder ready: ``generate --system beam`` on the demo's binary table and LM with an empty input (the table
  opened and checked, the LM mapped, the options built, nothing decoded);
* ``generate`` of one demo verse (the above plus one decode and its provenance);
* with ``--moses PATH --moses-ini INI``: Moses loading its model and exiting on an empty input.

Commands run as ``python -m parastudio`` with the interpreter running this script, so a version manager's shim in
front of ``parastudio`` (pyenv's costs about 0.08 CPU s of bash per call) is not counted; the shim's own row
shows what it adds. Python writes its bytecode on the first run (``PYTHONDONTWRITEBYTECODE`` is removed from
the children's environment, as a user's machine has it), and one untimed run comes first.

    python benchmarks/bench_startup.py [--repeat 5] [--moses PATH --moses-ini INI]

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "evaldata" / "demo"


def cpu_of(command: list[str], stdin_bytes: bytes, env: dict) -> tuple[float, int]:
    """(user + system CPU seconds, peak RSS in KiB) of one run of ``command``, read from its own ``wait4``."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=env, cwd=ROOT)
    process.stdin.write(stdin_bytes)
    process.stdin.close()
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here; tell Popen so it does not wait again
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {errors.decode(errors='replace')[-400:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def measure(name: str, command: list[str], stdin_bytes: bytes, env: dict, repeat: int) -> None:
    cpu_of(command, stdin_bytes, env)  # writes bytecode, warms the page cache
    runs = [cpu_of(command, stdin_bytes, env) for _ in range(repeat)]
    cpus = [cpu for cpu, _ in runs]
    print(f"| {name} | {min(cpus):.3f} | {statistics.median(cpus):.3f} | {max(rss for _, rss in runs) / 1024:.0f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--moses", help="a Moses binary, to time its load beside ours")
    parser.add_argument("--moses-ini", help="the moses.ini it loads (bench_vs_moses.py writes one)")
    args = parser.parse_args()

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    table, lm = DEMO / "paraphrase-table.gz", DEMO / "lm.bin"
    verse = (DEMO / "test.en").read_text(encoding="utf-8").splitlines()[0].encode() + b"\n"
    python = [sys.executable]
    generate = python + ["-m", "parastudio", "generate", "--system", "beam", "--table", str(table), "--lm", str(lm)]
    # The binary form is written on first use; make it now so no row pays for it.
    cpu_of(generate, b"", env)

    print(f"CPU seconds over {args.repeat} runs after one untimed run; Python {sys.version.split()[0]}")
    print()
    print("| command | least CPU s | median CPU s | peak RSS MiB |")
    print("| --- | ---: | ---: | ---: |")
    measure("`python -c pass`", python + ["-c", "pass"], b"", env, args.repeat)
    measure("`parastudio --help`", python + ["-m", "parastudio", "--help"], b"", env, args.repeat)
    measure("a decoder ready (`generate` on an empty input)", generate, b"", env, args.repeat)
    measure("`generate` of one verse", generate, verse, env, args.repeat)
    script = shutil.which("parastudio")
    if script and Path(script).read_bytes()[:64].find(b"python") < 0:
        measure(f"`parastudio --help` through {script} (a shim)", [script, "--help"], b"", env, args.repeat)
    if args.moses:
        if not args.moses_ini:
            parser.error("--moses needs --moses-ini")
        measure("Moses: load and exit", [args.moses, "-f", args.moses_ini, "-v", "0"], b"", env, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
