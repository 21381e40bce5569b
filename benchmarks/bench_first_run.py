"""The README's first command on a fresh clone: seconds from `bash packaging/setup.sh app` to the app's window.

A fresh clone of this checkout is made in a temporary folder, with a new virtual environment whose ``python3``
comes first on ``PATH`` (so pip installs every Python package from PyPI, as on a fresh machine; the system
packages are what this machine has). The command runs against a virtual screen (Xvfb on its own display), and
``xdotool`` polls for a window named "Paraphrase Studio" every 0.2 s. Printed: the seconds to each step that
shows on the command's output or the file system (the install ended when the package is importable, the demo
table's binary form written, the window shown), then the app is closed and the folder removed.

    python benchmarks/bench_first_run.py [--keep DIR]

Needs git, Xvfb and xdotool (``apt-get install xvfb xdotool``) and network access to PyPI. Takes minutes
(PySide6, spaCy, DuckDB and the rest are downloaded; the compiled cores are built). Prints figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TITLE = "Paraphrase Studio"


def free_display() -> int:
    number = 90
    while Path(f"/tmp/.X11-unix/X{number}").exists() or Path(f"/tmp/.X{number}-lock").exists():
        number += 1
    return number


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", help="make the clone here and keep it (default: a temporary folder, removed)")
    args = parser.parse_args()
    for tool in ("git", "Xvfb", "xdotool"):
        if shutil.which(tool) is None:
            raise SystemExit(f"bench_first_run: needs {tool} (apt-get install git xvfb xdotool)")

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="parastudio-first-run-"))
    clone = work / "paraphrase-studio"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True)
    display = free_display()
    screen = subprocess.Popen(["Xvfb", f":{display}", "-screen", "0", "1280x800x24"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "QT_QPA_PLATFORM")}
    env.update(PATH=f"{work / 'venv' / 'bin'}:{env['PATH']}", DISPLAY=f":{display}",
               PARASTUDIO_DATA=str(work / "data"), XDG_CONFIG_HOME=str(work / "config"),
               XDG_CACHE_HOME=str(work / "cache"), PIP_CACHE_DIR=str(work / "pip-cache"))
    log = open(work / "setup.log", "wb")
    start = time.monotonic()
    command = subprocess.Popen(["bash", "packaging/setup.sh", "app"], cwd=clone, env=env, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    marks: dict[str, float] = {}
    venv_python = work / "venv" / "bin" / "python3"
    binary = clone / "evaldata" / "demo" / "paraphrase-table.gz.pstable"
    try:
        while "window" not in marks:
            time.sleep(0.2)
            elapsed = time.monotonic() - start
            if command.poll() is not None:
                raise SystemExit(f"the command ended (exit {command.returncode}) before a window; see {work}/setup.log")
            if "installed" not in marks and subprocess.run(
                    [str(venv_python), "-c", "import importlib.metadata as m; m.version('paraphrase-studio')"],
                    capture_output=True, cwd=work).returncode == 0:  # not beside an .egg-info
                marks["installed"] = elapsed
            if "binary table" not in marks and binary.exists():
                marks["binary table"] = elapsed
            found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", TITLE], capture_output=True,
                                   env=env)
            if found.returncode == 0 and found.stdout.strip():
                marks["window"] = time.monotonic() - start
    finally:
        os.killpg(command.pid, signal.SIGTERM)
        command.wait(timeout=30)
        screen.terminate()
        log.close()
    print(f"`bash packaging/setup.sh app` on a fresh clone with a new virtual environment ({sys.version.split()[0]})")
    for name, seconds in marks.items():
        print(f"  {name:14s} {seconds:7.1f} s")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
