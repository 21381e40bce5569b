"""Ctrl+C and SIGTERM end a writer cleanly (issue 39): exit 130 or 143, one line, no worker's traceback, no
temporary left beside the output. The signal goes to the whole process group, as a terminal's Ctrl+C does, once
the output's temporary exists (the test waits on the file, not on a clock); SIGTERM to the command itself, as
`kill PID` sends it."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from conftest import EXAMPLE1_RULES, ROOT


@pytest.mark.parametrize("sent, group, status, said", [
    (signal.SIGINT, True, 130, "interrupted"),  # Ctrl+C: the terminal signals the whole process group
    (signal.SIGTERM, False, 143, "terminated (SIGTERM)"),  # kill PID, as a shell or a job runner sends it
])
def test_generate_with_workers_ends_in_one_line_and_leaves_no_temporary(tmp_path, tiny_lm, sent, group, status,
                                                                        said):
    table = tmp_path / "table.txt"
    table.write_text("".join(f"{s} ||| {t} ||| {p}\n" for s, t, p in EXAMPLE1_RULES), encoding="utf-8")
    words = "the dog runs after young cat sees and a kitten".split()
    rng = random.Random(39)
    sentences = tmp_path / "sentences.txt"
    sentences.write_text("".join(" ".join(rng.choice(words) for _ in range(12)) + "\n" for _ in range(300_000)),
                         encoding="utf-8")
    output = tmp_path / "out" / "candidates.jsonl"
    output.parent.mkdir()
    with open(sentences, "rb") as stdin:
        process = subprocess.Popen([sys.executable, "-m", "core", "generate", "--system", "beam", "--table",
                                    str(table), "--lm", str(tiny_lm["binary"]), "--processes", "2", "--json", "-o",
                                    str(output)], cwd=ROOT, stdin=stdin, stderr=subprocess.PIPE,
                                   stdout=subprocess.DEVNULL, start_new_session=True, text=True,
                                   env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            for _ in range(6000):  # the temporary appears once candidates are being written (a bound, not a pace)
                if any(p.suffix == ".part" and p.stat().st_size > 0 for p in output.parent.iterdir()):
                    break
                if process.poll() is not None:
                    pytest.fail(f"generate ended before it was signalled: {process.stderr.read()}")
                time.sleep(0.05)
            (os.killpg if group else os.kill)(process.pid, sent)
            _, err = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == status, err
    assert err.strip().splitlines() == [f"parastudio: {said}; what it was writing was not kept"], err
    assert list(output.parent.iterdir()) == []  # no temporary, and no half output
