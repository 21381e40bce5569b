"""MCPG by count: the same command writes the same bytes on an idle machine and beside a CPU hog (issue 23, Deliver 4).

The search commits after a number of episodes (eta), never after a share of a
clock; the time budget is only a cap, set here far above what the runs take so
that it never triggers (each candidate says whether it did: ``search.cut``). The
assertion is on the bytes written, not on any time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT

SENTENCES = "the dog runs after the young cat\nthe young cat sees the dog after the dog\n"
HOG = "while True:\n    pass\n"


def run_generate(arguments, table, lm, cache) -> bytes:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache)}
    done = subprocess.run([sys.executable, "-m", "parastudio", "generate", *arguments, "--table", str(table), "--lm", str(lm),
                           "--json", "--processes", "1", "--time-budget", "3600"],
                          input=SENTENCES.encode(), capture_output=True, cwd=ROOT, env=environment, check=True)
    return done.stdout


@pytest.mark.parametrize("arguments", [
    ["--system", "mcpg-true", "--seed", "7", "--max-episodes", "1500"],
    ["--system", "mcpg-translator", "--profile", "faithful", "--seed", "3", "--episodes-per-step", "150"],
], ids=["tuned", "faithful"])
def test_mcpg_with_a_seed_writes_the_same_bytes_beside_a_cpu_hog(arguments, example1_table_path, tiny_lm, tmp_path):
    idle = run_generate(arguments, example1_table_path, tiny_lm["binary"], tmp_path)
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(max(2, os.cpu_count() or 1))]
    try:
        loaded = run_generate(arguments, example1_table_path, tiny_lm["binary"], tmp_path)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    rows = [json.loads(line) for line in idle.decode().splitlines()]
    assert rows and all(not row["search"]["cut"] for row in rows)  # the cap never triggered
    assert all(row["search"]["decisions"] and row["search"]["episodes"] > 0 for row in rows)
    assert loaded == idle
