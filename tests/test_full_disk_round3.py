"""A full disk and a file-size limit, round three (issue 39): said in one line naming the file, nothing partial left,
an intact study never called damaged.

* ENOSPC: a small tmpfs (``mount -t tmpfs``, root only; skipped with the reason otherwise) holds the study or the
  output and is filled to the byte (:func:`test_kill_writes._fill`); what is left free is chosen, not timed.
* EFBIG: the command runs under RLIMIT_FSIZE (``ulimit -f``) set in the child before it starts; SIGXFSZ is ignored
  (Python's default), so the write fails with EFBIG.
"""

from __future__ import annotations

import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from test_kill_writes import _fill, run

FULL = "No space left on device"
TOO_LARGE = "File too large"
DEMO = ROOT / "evaldata" / "demo"


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs (a study with candidates fits, with room to fill), unmounted afterwards."""
    mount_point = tmp_path / "small-disk"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount_point)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs to fill (needs root): {mounted.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def _leave_free(disk: Path, free_bytes: int) -> Path:
    """Fill ``disk`` until about ``free_bytes`` are left (0: to the last byte)."""
    if free_bytes == 0:
        return _fill(disk)
    status = os.statvfs(disk)
    filler = disk / "filler"
    filler.write_bytes(b"\0" * max(0, status.f_bavail * status.f_frsize - free_bytes))
    return filler


def _candidates(folder: Path, count: int) -> Path:
    rows = "".join(f"{i},source sentence number {i} with some words,candidate sentence {i} with other words,"
                   f"system-{i % 3}\n" for i in range(count))
    path = folder / "candidates.csv"
    path.write_text("item,source,candidate,system\n" + rows, encoding="utf-8")
    return path


def _one_clear_line(completed: subprocess.CompletedProcess, named: Path | str, cause: str) -> None:
    lines = completed.stderr.strip().splitlines()
    assert completed.returncode == 1, completed.stderr
    assert len(lines) == 1 and "Traceback" not in completed.stderr, completed.stderr
    assert lines[0].startswith(f"parastudio: error: {named}: {cause}"), lines
    assert "damaged" not in completed.stderr


def _candidate_count(study: Path) -> int:
    connection = sqlite3.connect(study)
    try:
        return connection.execute("SELECT COUNT(*) FROM candidate").fetchone()[0]
    finally:
        connection.close()


def test_an_intact_study_on_a_full_disk_is_said_full_not_damaged(small_disk, tmp_path):
    study = small_disk / "study.sqlite"
    assert run(["study", "create", "s", "--db", str(study), "--criteria", "fluency"]).returncode == 0
    assert run(["study", "import-candidates", "--db", str(study), str(_candidates(tmp_path, 300))]).returncode == 0
    filler = _leave_free(small_disk, 0)
    for argv in (["study", "progress", "--db", str(study)],  # a reader: SQLite cannot make the -shm it needs
                 ["study", "assign", "--db", str(study), "--annotators", "a,b"]):
        _one_clear_line(run(argv), study, FULL)
    filler.unlink()
    checked = run(["study", "check", "--db", str(study)])
    assert checked.returncode == 0 and "no problem found" in checked.stdout.decode(), checked.stderr


def test_a_write_that_fills_the_disk_midway_keeps_the_study_as_it_was(small_disk, tmp_path):
    study = small_disk / "study.sqlite"
    assert run(["study", "create", "s", "--db", str(study), "--criteria", "fluency"]).returncode == 0
    filler = _leave_free(small_disk, 150_000)  # the study opens; 3,000 candidates need about 1.3 MB
    _one_clear_line(run(["study", "import-candidates", "--db", str(study), str(_candidates(tmp_path, 3000))]),
                    study, FULL)
    filler.unlink()
    assert _candidate_count(study) == 0  # the transaction was undone whole


@pytest.mark.parametrize("free_bytes", [0, 60_000, 180_000])  # fails opening it, making its tables, or committing
def test_study_create_on_a_full_disk_leaves_no_study_file(small_disk, free_bytes):
    _leave_free(small_disk, free_bytes)
    study = small_disk / "study.sqlite"
    _one_clear_line(run(["study", "create", "s", "--db", str(study), "--criteria", "fluency"]), study, FULL)
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]  # no study, no -wal, no -shm


@pytest.mark.parametrize("refused_options", [
    ["a\u200bb"],  # a name with an invisible character
    ["s", "--criteria", "bogus"], ["s", "--criteria", ","], ["s", "--criteria", "fluency,meaning,fluency"],
    ["s", "--judges", "0"],
])
def test_study_create_that_is_refused_leaves_no_study_file(tmp_path, refused_options):
    study = tmp_path / "study.sqlite"
    refused = run(["study", "create", *refused_options, "--db", str(study)])
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert list(tmp_path.iterdir()) == []


def _under_file_size_limit(argv: list[str], limit: int, **options) -> subprocess.CompletedProcess:
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    return subprocess.run([sys.executable, "-m", "parastudio", *argv], cwd=ROOT, preexec_fn=limited, text=True,
                          stderr=subprocess.PIPE, timeout=300,
                          **{"stdout": subprocess.DEVNULL, "stdin": subprocess.DEVNULL, **options})


@pytest.mark.parametrize("writer, name", [
    (lambda out: ["graph", "load", str(DEMO / "direct-test.graph.gz"), "-o", str(out)], "graph.sqlite"),  # SQLite's
    (lambda out: ["table", "prune", str(DEMO / "paraphrase-table.gz"), "--list", os.devnull, "-o", str(out)],
     "pruned.txt"),  # a text writer's (atomic_output)
    (lambda out: ["lm", "train", str(DEMO / "test.en"), "--order", "3", "--discount-fallback", "-o", str(out)],
     "lm.bin"),  # a child program's (lmplz, ended by SIGXFSZ: Python restores its default in children)
])
def test_past_the_file_size_limit_a_writer_says_so_and_leaves_nothing(tmp_path, writer, name):
    output = tmp_path / "out" / name
    output.parent.mkdir()
    completed = _under_file_size_limit(writer(output), 64 * 1024)
    _one_clear_line(completed, output, TOO_LARGE)
    assert list(output.parent.iterdir()) == []  # no output, no temporary


@pytest.fixture(scope="module")
def study_of_candidates(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("study")
    study = folder / "study.sqlite"
    assert run(["study", "create", "s", "--db", str(study), "--criteria", "fluency"]).returncode == 0
    assert run(["study", "import-candidates", "--db", str(study), str(_candidates(folder, 2000))]).returncode == 0
    return study


def test_standard_output_past_the_file_size_limit_is_an_error_not_a_short_file(tmp_path, study_of_candidates):
    """Unbuffered (PYTHONUNBUFFERED=1), standard output is the raw file and Python's layers drop what a partial
    write did not take: ``study items`` writes its table in one write, which left a truncated file and exit 0
    unless every write is whole (core.whole_writes)."""
    redirected = tmp_path / "items.csv"
    with open(redirected, "wb") as stdout:
        completed = _under_file_size_limit(["study", "items", str(study_of_candidates), "--format", "csv"],
                                           64 * 1024, stdout=stdout, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    _one_clear_line(completed, "standard output", TOO_LARGE)


def test_a_print_past_the_file_size_limit_names_standard_output(tmp_path):
    sentences = tmp_path / "sentences.txt"
    sentences.write_text("in the beginning god created the heavens and the earth\n" * 20_000, encoding="utf-8")
    with open(tmp_path / "scores.txt", "wb") as stdout, open(sentences, "rb") as stdin:
        completed = _under_file_size_limit(["lm", "score", str(DEMO / "lm.bin")], 64 * 1024, stdout=stdout,
                                           stdin=stdin)
    _one_clear_line(completed, "standard output", TOO_LARGE)
