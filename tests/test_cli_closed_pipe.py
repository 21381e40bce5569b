"""A reader that closes our output early (``parastudio ... | head -1``) stops the command quietly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO_LM = ROOT / "evaldata" / "demo" / "lm.bin"


def test_a_closed_pipe_ends_the_command_without_a_traceback(tmp_path):
    source = tmp_path / "sentences.txt"  # a file, not a pipe: the command prints while it reads
    source.write_text("in the beginning god created the heavens and the earth\n" * 200_000)
    with source.open("rb") as stdin:
        process = subprocess.Popen([sys.executable, "-m", "parastudio", "lm", "score", str(DEMO_LM)], cwd=ROOT,
                                   stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = process.stdout.readline()
    process.stdout.close()  # what `head -1` does after its line
    stderr = process.stderr.read().decode()
    process.wait(timeout=120)
    assert float(first.split()[0]) < 0  # a log10 probability was printed before the reader left
    assert "Traceback" not in stderr and "Broken pipe" not in stderr, stderr
    assert process.returncode == 141
