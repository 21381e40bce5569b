"""The word alignment gives the same links for the same lines and seed on any machine, process, hash seed or
thread count (issue 39: the data build's phrase table differed between machines because eflomal's program was
compiled for each machine's CPU)."""

from __future__ import annotations

import json
import os
import platform
import random
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import parastudio.core.tablebuild.alignment as alignment
from parastudio.core.tablebuild.alignment import align_eflomal
from parastudio.core.tablebuild.eflomal_program import (
    SEED_VARIABLE,
    SEEDING_C,
    SOURCE_ARCHIVE,
    UNSEEDED_EXIT,
    EflomalProgram,
    EflomalUnavailable,
    eflomal_program,
)
from parastudio.core.worker_processes import BackgroundCall

REPOSITORY = Path(__file__).resolve().parents[1]


def noisy_parallel_text(pairs: int = 300, seed: int = 11) -> tuple[list[str], list[str]]:
    """Zipfian source words, each translated by a fixed lexicon, with drops, insertions and swaps: enough
    ambiguity that the sampler's floating point decides some links (a CPU with FMA and one without differ here)."""
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(400)]
    weights = [1 / (rank + 1) for rank in range(400)]
    lexicon = {word: f"x{rng.randrange(300)}" for word in vocabulary}
    sources, targets = [], []
    for _ in range(pairs):
        words = rng.choices(vocabulary, weights, k=rng.randint(3, 14))
        translated = [lexicon[word] for word in words if rng.random() > 0.15]
        translated += [f"x{rng.randrange(300)}" for _ in range(rng.randint(0, 2))]
        if len(translated) > 2 and rng.random() < 0.5:
            i = rng.randrange(len(translated) - 1)
            translated[i], translated[i + 1] = translated[i + 1], translated[i]
        sources.append(" ".join(words))
        targets.append(" ".join(translated) or "x0")
    return sources, targets


def links_of(seed: int = 0) -> list:
    """Both directions' links of the noisy text, as JSON-ready lists (run here, in a fork or another interpreter)."""
    sources, targets = noisy_parallel_text()
    result = align_eflomal(sources, targets, seed=seed)
    return [[list(link) for link in links] for links in result.forward + result.reverse]


@pytest.fixture(scope="module")
def program() -> EflomalProgram:
    return eflomal_program()


def test_links_are_the_c_source_s_own_arithmetic_whatever_cpu_the_aligner_was_built_for(program, tmp_path, monkeypatch):
    # The oracle: eflomal's C source unoptimized, for the oldest x86-64 (no FMA, no AVX), every float operation as
    # written. A program compiled for this machine's CPU with eflomal's own -Ofast -march=native differs from it.
    with tarfile.open(program.path.parent / SOURCE_ARCHIVE) as archive:
        archive.extractall(tmp_path, filter="data")
    (source,) = tmp_path.glob("*/src/eflomal.c")
    seeding = tmp_path / "seeding.c"
    seeding.write_text(SEEDING_C, encoding="utf-8")
    target = ["-march=x86-64"] if platform.machine() == "x86_64" else []
    oracle = tmp_path / "eflomal-oracle"
    subprocess.run(["cc", "-O0", "-fgnu89-inline", "-ffp-contract=off", *target, "-std=gnu99", "-w", "-o", str(oracle),
                    str(source), str(seeding), "-Wl,--wrap=fopen", "-lm"], check=True)

    ours = links_of()
    monkeypatch.setattr(alignment, "eflomal_program", lambda: EflomalProgram(oracle, "oracle", "", "cc -O0", ()))
    assert links_of() == ours


def test_same_links_in_a_forked_worker_and_in_another_interpreter_with_other_hash_seed_and_threads(program):
    here = links_of()
    with BackgroundCall(lambda _: links_of(), None) as call:  # as the data build runs its second chain of stages
        forked = call.result()
    environment = {**os.environ, "PYTHONHASHSEED": "12345", "OMP_NUM_THREADS": "4"}
    script = "import json, tests.test_alignment_reproducible as t; print(json.dumps(t.links_of()))"
    other = subprocess.run([sys.executable, "-c", script], env=environment, cwd=REPOSITORY, capture_output=True,
                           text=True, check=True)
    assert forked == here
    assert json.loads(other.stdout) == here


def test_the_seed_chooses_the_links(program):
    assert links_of(seed=3) != links_of(seed=4)  # the same seed, the same links: the test above


def test_the_program_refuses_to_run_unseeded(program, tmp_path):
    text = tmp_path / "one.txt"
    text.write_text("1 1\n1 0\n", encoding="utf-8")
    environment = {name: value for name, value in os.environ.items() if name != SEED_VARIABLE}
    ran = subprocess.run([str(program.path), "-m", "1", "-s", str(text), "-t", str(text), "-f", str(tmp_path / "out")],
                         env=environment, capture_output=True, text=True)
    assert ran.returncode == UNSEEDED_EXIT
    assert SEED_VARIABLE in ran.stderr


def test_without_a_compiler_the_alignment_says_so_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # nothing built yet
    monkeypatch.setenv("PATH", str(tmp_path))  # no cc, gcc or clang
    with pytest.raises(EflomalUnavailable) as refused:
        align_eflomal(["a b"], ["c d"])
    assert "C compiler" in str(refused.value) and "\n" not in str(refused.value)
