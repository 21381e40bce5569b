"""Commands started with standard input, output or error closed (``<&-``, ``>&-``, ``2>&-``; issue 39): one line
when they need the closed one, never an AttributeError traceback, never output silently lost."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT

DEMO = ROOT / "evaldata" / "demo"
GENERATE = ["generate", "--system", "beam", "--table", str(DEMO / "paraphrase-table.gz"), "--lm",
            str(DEMO / "lm.bin"), "--processes", "1"]
STDOUT_CLOSED = "parastudio: error: standard output is closed"
STDIN_CLOSED = "parastudio: error: standard input is closed"


def run_closed(argv: list[str], closed: tuple[int, ...], stdin: bytes = b"") -> subprocess.CompletedProcess:
    """``parastudio argv`` with the descriptors ``closed`` closed when it starts, as the shell's ``N>&-`` does."""
    def close() -> None:
        for descriptor in closed:
            os.close(descriptor)

    return subprocess.run([sys.executable, "-m", "parastudio", *argv], cwd=ROOT, input=stdin, capture_output=True,
                          preexec_fn=close, timeout=300)


@pytest.mark.parametrize("argv, closed, said", [
    (GENERATE, (1,), STDOUT_CLOSED),  # candidates to print
    (GENERATE, (0,), STDIN_CLOSED),  # sentences to read
    (["lm", "score", str(DEMO / "lm.bin")], (0,), STDIN_CLOSED),
    (["patterns", "extract", "-"], (0,), STDIN_CLOSED),
    (["table", "stats", str(DEMO / "paraphrase-table.gz")], (1,), STDOUT_CLOSED),
    (["--version"], (1,), STDOUT_CLOSED),
    (["--help"], (1,), STDOUT_CLOSED),
])
def test_a_command_that_needs_a_closed_stream_says_so_in_one_line(argv, closed, said):
    completed = run_closed(argv, closed, b"the dog runs\n")
    err = completed.stderr.decode()
    assert completed.returncode == 2, err
    assert len(err.strip().splitlines()) == 1 and err.startswith(said), err


@pytest.mark.parametrize("command", [
    lambda table: ["generate", "--system", "beam", "--table", table, "--lm", str(DEMO / "lm.bin"), "--processes", "1"],
    lambda table: ["table", "stats", table],
    lambda table: ["truescore", "--table", table, "--source", "the dog runs", "--target", "the dog runs"],
])
def test_a_closed_output_is_said_before_the_table_loads(tmp_path, command):
    # A table without its binary form yet: loading it would print a note first, so the refusal must come before.
    table = tmp_path / "paraphrase-table.gz"
    table.write_bytes((DEMO / "paraphrase-table.gz").read_bytes())
    completed = run_closed(command(str(table)), (1,), b"the dog runs\n")
    err = completed.stderr.decode()
    assert completed.returncode == 2 and err.startswith(STDOUT_CLOSED) and len(err.splitlines()) == 1, err
    assert not (tmp_path / "paraphrase-table.gz.pstable").exists()


def test_a_command_that_writes_a_file_runs_with_standard_output_closed(tmp_path):
    # A table of the test's own with its binary form written first: whether the demo's binary exists depends
    # on which tests ran before, and loading without it prints a note on stderr.
    table = tmp_path / "paraphrase-table.gz"
    table.write_bytes((DEMO / "paraphrase-table.gz").read_bytes())
    subprocess.run([sys.executable, "-m", "parastudio", "table", "binarize", str(table)], cwd=ROOT, capture_output=True,
                   check=True, timeout=300)
    generate = [*GENERATE[:3], "--table", str(table), *GENERATE[5:]]
    output = tmp_path / "candidates.txt"
    completed = run_closed([*generate, "-o", str(output)], (1,), b"the dog runs\nthe cat sleeps\n")
    assert completed.returncode == 0 and completed.stderr == b"", completed.stderr
    assert output.read_text(encoding="utf-8") == subprocess.run(
        [sys.executable, "-m", "parastudio", *generate], cwd=ROOT, input=b"the dog runs\nthe cat sleeps\n",
        capture_output=True, check=True).stdout.decode()


def test_with_standard_error_closed_the_exit_status_still_tells():
    failed = run_closed(["study", "progress", "--db", str(ROOT / "no-such-study.sqlite")], (2,))
    assert failed.returncode == 2 and failed.stdout == b""  # the message had nowhere to go, and is not on stdout
    printed = run_closed(GENERATE, (2,), b"the dog runs\n")
    assert printed.returncode == 0 and printed.stdout.startswith(b"0 ||| ")


def test_every_stream_closed_at_once_gives_no_traceback():
    completed = run_closed(GENERATE, (0, 1, 2))
    assert completed.returncode == 2


def test_a_file_opened_with_standard_output_closed_is_not_descriptor_1(tmp_path):
    """A closed descriptor 1 is held on /dev/null: otherwise the first file opened would be descriptor 1, and
    whatever writes to standard output (a child process, C code) would write into it."""
    probe = ("import os, sys\nfrom core.cli.closed_streams import stand_in_for_closed_streams\n"
             "stand_in_for_closed_streams()\nwith open(sys.argv[1], 'w') as handle:\n"
             "    os.write(1, b'into descriptor 1')\n    handle.write(f'descriptor {handle.fileno()}')\n")
    opened = tmp_path / "opened.txt"
    completed = subprocess.run([sys.executable, "-c", probe, str(opened)], cwd=ROOT, capture_output=True,
                               preexec_fn=lambda: os.close(1), timeout=60)
    assert completed.returncode == 0, completed.stderr
    text = opened.read_text()
    assert text.startswith("descriptor ") and int(text.split()[1]) > 2, text
