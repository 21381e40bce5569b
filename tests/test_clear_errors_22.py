"""Issue 22, Found 5 and 7: the tracebacks and wrong diagnoses each become one clear sentence (exit 2).

Deep JSON and TOML, a rank too big for the study, a locked study, a read-only study (which still opens for
reading), an unreachable PostgreSQL server, a non-UTF-8 approaches file, a symlink loop, blank lines given to
``patterns extract``, and a mistyped SQLite URL that must not create a file.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_support import run_cli

from parastudio.core.demo import demo_files

ROOT = Path(__file__).resolve().parent.parent
SENTENCES = "the dog runs\nthe cat sleeps\n"


def _candidate(sentence_id, text, source, rank=1, derivation=None) -> str:
    return json.dumps({"sentence_id": sentence_id, "system": "beam", "rank": rank, "text": text,
                       "model_score": -1.5, "true_score": -1.4, "derivation": derivation, "source": source}) + "\n"


@pytest.fixture
def study(tmp_path) -> Path:
    path = tmp_path / "s.sqlite"
    assert run_cli(["study", "create", "s", "--db", str(path), "--criteria", "fluency"])[0] == 0
    candidates = tmp_path / "c.jsonl"
    candidates.write_text(_candidate(0, "the beast runs", "the dog runs") + _candidate(1, "a cat sleeps",
                                                                                      "the cat sleeps"))
    assert run_cli(["study", "import-candidates", str(candidates), "--db", str(path)])[0] == 0
    return path


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_deeply_nested_json_names_the_line_where_nesting_goes_too_deep(tmp_path):
    demo = demo_files()
    weights = tmp_path / "weights.json"
    weights.write_text('{"format": "x",\n "weights": ' + _deep(100_000) + "}\n")
    status, _out, err = run_cli(["generate", "--system", "beam", "--table", str(demo.table), "--lm", str(demo.lm),
                                 "--weights", str(weights)], stdin=b"the dog runs\n")
    assert status == 2 and f"{weights}:2: expected a JSON weights file" in err and "nested" in err, err
    devset = tmp_path / "dev.jsonl"
    devset.write_text("\n" + _deep(100_000) + "\n")  # a blank first line: the record is line 2
    status, _out, err = run_cli(["tune", "--devset", str(devset), "--system", "spg", "-o", str(tmp_path / "w.json"),
                                 "--table", str(demo.table), "--lm", str(demo.lm)])
    assert status == 2 and f"{devset}:2: expected a JSON dev-set record" in err, err


def test_deeply_nested_or_non_utf8_approaches_toml_is_named(tmp_path):
    deep = tmp_path / "deep.toml"
    deep.write_text("[approach.x]\nfilters = " + _deep(100_000) + "\n")
    status, _out, err = run_cli(["autoeval", "--approaches", str(deep), "--approach", "x"])
    assert status == 2 and f"{deep}:2: expected a TOML file" in err, err
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'[approach.x]\nfilters = ["caf\xe9"]\n')
    status, _out, err = run_cli(["autoeval", "--approaches", str(latin), "--approach", "x"])
    assert status == 2 and f"{latin}:2: expected UTF-8 text" in err, err


def test_a_rank_too_big_for_the_study_is_refused_with_its_line(tmp_path, study):
    candidates = tmp_path / "big.jsonl"
    candidates.write_text(_candidate(0, "the hound runs", "the dog runs")
                          + _candidate(1, "the kitten sleeps", "the cat sleeps", rank=2**63))
    status, _out, err = run_cli(["study", "import-candidates", str(candidates), "--db", str(study)])
    assert status == 2 and f"{candidates}:2: expected a rank that is an integer >= 1 (and at most {2**63 - 1:,}" in err

    assert "Traceback" not in err


def test_writing_to_a_locked_study_says_another_program_holds_it(tmp_path, study, monkeypatch):
    from parastudio.core.store import database

    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 50)  # the wait before SQLite gives up; the lock is held
    judgments = tmp_path / "j.csv"
    judgments.write_text("item,annotator,criterion,value\n1,ann1,fluency,yes\n")
    holder = sqlite3.connect(study, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        status, _out, err = run_cli(["study", "import-judgments", str(judgments), "--db", str(study)])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert status == 2 and "another program holds the study (locked): retry or close it" in err, err
    assert "Traceback" not in err


def _without_root_overrides():
    """Run the child as root without the capabilities that let root write anything (it honours permissions)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2, 3):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
        libc.prctl(24, capability, 0, 0, 0)  # PR_CAPBSET_DROP: gone from the bounding set, so after exec


def _cli_honouring_permissions(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "parastudio", *argv], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)},
                          preexec_fn=_without_root_overrides if os.geteuid() == 0 else None)


def test_a_study_in_a_read_only_folder_opens_for_reading_and_refuses_writes_clearly(tmp_path, study):
    folder = tmp_path / "archive"
    folder.mkdir()
    shutil.copy(study, folder / "s.sqlite")  # a closed study: no -wal, no -shm beside it
    folder.chmod(0o555)
    try:
        probe = subprocess.run([sys.executable, "-c", "import os, sys; print(os.access(sys.argv[1], os.W_OK))",
                                str(folder)], capture_output=True, text=True,
                               preexec_fn=_without_root_overrides if os.geteuid() == 0 else None)
        if probe.stdout.strip() != "False":
            pytest.skip("this process cannot give up its right to write a read-only folder")
        before = sorted(os.listdir(folder)), (folder / "s.sqlite").read_bytes()
        progress = _cli_honouring_permissions("study", "progress", "--db", "archive/s.sqlite", cwd=tmp_path)
        assert progress.returncode == 0 and "damaged" not in progress.stderr, progress.stderr
        exported = _cli_honouring_permissions("study", "export-judgments", "--db", "archive/s.sqlite", cwd=tmp_path)
        assert exported.returncode == 0 and exported.stdout.startswith("item,annotator"), exported.stderr
        judgments = tmp_path / "j.csv"
        judgments.write_text("item,annotator,criterion,value\n1,ann1,fluency,yes\n")
        written = _cli_honouring_permissions("study", "import-judgments", str(judgments), "--db", "archive/s.sqlite",
                                             cwd=tmp_path)
        assert written.returncode == 2, written.stderr
        assert "the study's folder is read-only: " in written.stderr and "Traceback" not in written.stderr
        assert (sorted(os.listdir(folder)), (folder / "s.sqlite").read_bytes()) == before
    finally:
        folder.chmod(0o755)


def test_an_unreachable_postgresql_server_is_named_with_its_host_and_port():
    with socket.socket() as probe:  # a port nothing listens on: bound, then released
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    status, _out, err = run_cli(["study", "progress", "--db",
                                 f"postgresql+psycopg://judge:secret@127.0.0.1:{port}/studies"])
    assert status == 2 and f"cannot reach the database server at 127.0.0.1:{port}: " in err, err
    assert "secret" not in err and "Traceback" not in err


def test_a_mistyped_sqlite_url_creates_no_file(tmp_path):
    target = tmp_path / "typo.sqlite"
    status, _out, err = run_cli(["study", "progress", "--db", f"sqlite+pysqlite:///{target}"])
    assert status == 2 and f"{target}: expected a study database" in err, err
    assert not target.exists()


def test_a_symlink_loop_is_called_one(tmp_path):
    loop = tmp_path / "loop"
    os.symlink(tmp_path / "back", loop)
    os.symlink(loop, tmp_path / "back")
    for argv in (["lm", "score", str(loop)], ["study", "progress", "--db", str(loop)], ["table", "stats", str(loop)],
                 ["export-devset", str(loop), "-o", str(tmp_path / "d.jsonl")]):
        status, _out, err = run_cli(argv)
        assert status == 2 and f"{loop}: symlink loop" in err and "not found" not in err, (argv, err)


def test_patterns_extract_takes_blank_lines(tmp_path):
    pytest.importorskip("spacy")
    sentences = tmp_path / "s.txt"
    sentences.write_text("the dog runs\n\n   \nthe cat sleeps\n")
    status, out, err = run_cli(["patterns", "extract", "--json", str(sentences)])
    if status == 1 and "parser" in err.lower():
        pytest.skip(err)
    assert status == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["sentence_id"] for r in records] == [0, 1, 2, 3]
    assert records[1]["patterns"] == [] and records[2]["tokens"] == []
