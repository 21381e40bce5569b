"""Kinds of bad input the held-out benchmark (benchmarks/malformed_cases_held_out.py) found taken wrongly, one
test per family over the commands that meet it: lines ended by a carriage return alone, SQLite's in-memory
database named as a study, a study file this user may not read."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_support import run_cli
from test_clear_errors_22 import _without_root_overrides

from parastudio.core.demo import demo_files

ROOT = Path(__file__).resolve().parent.parent
JUDGMENTS = "item,annotator,criterion,value\n1,ann1,fluency,yes\n1,ann2,fluency,no\n2,ann1,fluency,no\n"


@pytest.fixture
def study(tmp_path) -> Path:
    path = tmp_path / "s.sqlite"
    assert run_cli(["study", "create", "s", "--db", str(path), "--criteria", "fluency"])[0] == 0
    candidates = tmp_path / "c.jsonl"
    candidates.write_text('{"sentence_id": 0, "system": "beam", "text": "the beast runs", "source": "the dog runs"}\n'
                          '{"sentence_id": 1, "system": "beam", "text": "a cat sleeps", "source": "the cat sleeps"}\n')
    assert run_cli(["study", "import-candidates", str(candidates), "--db", str(path)])[0] == 0
    return path


def _cr_only_commands(tmp_path: Path, study: Path) -> dict:
    """Each reader of lines, with the file (or standard input) it reads."""
    demo = demo_files()
    sentences = "the dog runs\nthe cat sleeps\n"
    return {
        "lm score (standard input)": (["lm", "score", str(demo.lm)], None, sentences),
        "generate (standard input)": (["generate", "--system", "beam", "--table", str(demo.table), "--lm",
                                       str(demo.lm)], None, sentences),
        "table stats": (["table", "stats", "{}"], "t.txt", "the dog ||| the hound ||| 0.5\nruns ||| sprints ||| 0.5\n"),
        "agreement": (["agreement", "{}"], "j.csv", JUDGMENTS),
        "import-judgments": (["study", "import-judgments", "{}", "--db", str(study)], "j.csv", JUDGMENTS),
        "patterns extract": (["patterns", "extract", "{}"], "s.txt", sentences),
    }


@pytest.mark.parametrize("command", ["lm score (standard input)", "generate (standard input)", "table stats",
                                     "agreement", "import-judgments", "patterns extract"])
def test_lines_ended_by_a_carriage_return_alone_are_refused_with_their_line(tmp_path, study, command):
    """Read up to LF, two sentences ended by CR alone were one (lm score printed one score for two)."""
    argv, name, text = _cr_only_commands(tmp_path, study)[command]
    data = text.replace("\n", "\r").encode()
    stdin = b""
    if name is None:
        stdin, shown = data, "<stdin>"
    else:
        (tmp_path / name).write_bytes(data)
        shown = str(tmp_path / name)
        argv = [part.replace("{}", shown) for part in argv]
    status, _out, err = run_cli(argv, stdin=stdin)
    said = "CSV fields (every quote closed, no carriage return" if name == "j.csv" else "lines ending in LF or CRLF"
    assert status == 2 and f"{shown}:1: expected {said}" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:", "sqlite+pysqlite://"])
@pytest.mark.parametrize("command", ["create", "import-judgments", "progress"])
def test_sqlite_in_memory_is_no_study(tmp_path, url, command):
    """A study made or judged in memory is gone when the command ends: `study create --db sqlite://` said
    "created study" and kept nothing."""
    judgments = tmp_path / "j.csv"
    judgments.write_text(JUDGMENTS)
    argv = {"create": ["study", "create", "s", "--db", url],
            "import-judgments": ["study", "import-judgments", str(judgments), "--db", url],
            "progress": ["study", "progress", "--db", url]}[command]
    status, out, err = run_cli(argv)
    assert status == 2 and "expected a study file or a database server; got SQLite's in-memory database" in err, err
    assert "created" not in out and "Traceback" not in err


@pytest.mark.skipif(os.geteuid() != 0, reason="runs as root giving up its right to read anything")
@pytest.mark.parametrize("argv", [["study", "progress", "--db", "{}"], ["inspect", "{}"],
                                  ["export-devset", "{}", "-o", "dev.jsonl"],
                                  ["study", "import-judgments", "j.csv", "--db", "{}"]])
def test_a_study_this_user_may_not_read_is_said_so(tmp_path, study, argv):
    unreadable = tmp_path / "locked-away.sqlite"
    shutil.copy(study, unreadable)
    unreadable.chmod(0)
    (tmp_path / "j.csv").write_text(JUDGMENTS)
    completed = subprocess.run([sys.executable, "-m", "parastudio", *[part.replace("{}", str(unreadable)) for part in argv]],
                               cwd=tmp_path, capture_output=True, text=True, preexec_fn=_without_root_overrides,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert completed.returncode == 2, completed.stderr
    assert f"{unreadable}: the study file cannot be read (permission denied)" in completed.stderr
    assert "Traceback" not in completed.stderr and not (tmp_path / "dev.jsonl").exists()


@pytest.mark.parametrize("argv", [["agreement", "{}", "--bootstrap", "0"], ["report", "{}", "--bootstrap", "0"],
                                  ["study", "import-judgments", "{}", "--db", "STUDY"]])
def test_a_value_under_no_column_is_refused_with_its_line(tmp_path, study, argv):
    """`1,ann2,fluency,yes,no` (an answer "yes,no" left unquoted) was read as "yes": kappa from a value the
    judge did not give."""
    judgments = tmp_path / "j.csv"
    judgments.write_text(JUDGMENTS.replace("1,ann2,fluency,no", "1,ann2,fluency,yes,no"))
    before = study.read_bytes()
    status, _out, err = run_cli([part.replace("{}", str(judgments)).replace("STUDY", str(study)) for part in argv])
    assert status == 2 and f"{judgments}:3: expected at most 4 fields (the header's columns) with a value" in err, err
    assert study.read_bytes() == before
    judgments.write_text(JUDGMENTS.replace("\n", ",,\n"))  # empty trailing cells, as a spreadsheet pads rows: taken
    status, _out, err = run_cli([part.replace("{}", str(judgments)).replace("STUDY", str(study)) for part in argv])
    assert status == 0, err


@pytest.mark.parametrize("field, number", [("model_score", "1e309"), ("true_score", "-1e309"),
                                           ("model_score", "123456789e400")])
def test_a_json_number_past_a_double_is_refused_with_its_line(tmp_path, study, field, number):
    """JSON has no infinity, but Python reads 1e309 as one: a candidate's score became inf, silently."""
    line = ('{"sentence_id": 5, "system": "beam", "text": "x y", "source": "a b", "model_score": -1.5, '
            '"true_score": -1.4}\n').replace(f'"{field}": -1.' + ("5" if field == "model_score" else "4"),
                                             f'"{field}": {number}')
    assert number in line
    candidates = tmp_path / "c.jsonl"
    candidates.write_text(line.replace("5", "6", 1).replace(number, "-2") + line)
    before = study.read_bytes()
    status, _out, err = run_cli(["study", "import-candidates", str(candidates), "--db", str(study)])
    assert status == 2 and f"{candidates}:2: expected a JSON object (no NaN or Infinity)" in err, err
    assert study.read_bytes() == before


def test_reproduce_names_the_line_of_json_nested_too_deep(tmp_path):
    deep = tmp_path / "runs.jsonl"
    deep.write_text("\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    status, _out, err = run_cli(["reproduce", str(deep)])
    assert status == 2 and f"{deep}:2: expected a JSON object (parastudio generate --json) nested at most" in err, err


@pytest.mark.skipif(os.geteuid() != 0, reason="runs as root giving up its right to write anything")
@pytest.mark.parametrize("argv", [["graph", "load", "g.txt", "-o", "{}"],
                                  ["lm", "train", "corpus.txt", "--order", "2", "--discount-fallback", "-o", "{}"],
                                  ["study", "export-package", "--db", "s.sqlite", "--annotator", "a3", "-o", "{}"]])
def test_a_writer_through_another_program_says_its_folder_takes_no_file(tmp_path, study, argv):
    """graph load into a read-only folder ended in sqlite3's "unable to open database file" traceback."""
    from cat_graph_fixture import GRAPH

    (tmp_path / "g.txt").write_text(GRAPH)
    (tmp_path / "corpus.txt").write_text("the dog runs\nthe cat sleeps\n" * 10)
    assert run_cli(["study", "assign", "--db", str(study), "--annotators", "a3"])[0] == 0
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o555)
    output = folder / "out"
    completed = subprocess.run([sys.executable, "-m", "parastudio", *[part.replace("{}", str(output)) for part in argv]],
                               cwd=tmp_path, capture_output=True, text=True, preexec_fn=_without_root_overrides,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert completed.returncode == 2, completed.stderr
    assert f"{output}: cannot be written (Permission denied)" in completed.stderr
    assert "Traceback" not in completed.stderr and os.listdir(folder) == []


@pytest.mark.parametrize("url", ["mysql://judge:secret@127.0.0.1/studies", "oracle://judge:secret@db/studies",
                                 "nosuchdb://judge:secret@db/studies"])
@pytest.mark.parametrize("command", [["study", "progress", "--db"], ["study", "create", "s", "--db"]])
def test_a_database_without_a_driver_is_named_not_a_traceback(url, command):
    status, _out, err = run_cli([*command, url])
    assert status == 2 and "expected a study file, or a PostgreSQL server" in err and "no driver for" in err, err
    assert "secret" not in err and "Traceback" not in err


@pytest.mark.parametrize("number", ["0.1_5", "\u0660.\u0665", "\uff10.\uff15", "0x1p-3"])
@pytest.mark.parametrize("command", ["table stats", "truescore", "table prune"])
def test_a_score_only_python_reads_as_a_number_is_refused_with_its_line(tmp_path, number, command):
    """float() takes "0.1_5", Arabic-Indic and full-width digits; Moses and every other table reader do not."""
    table = tmp_path / "t.txt"
    table.write_text(f"the dog ||| the beast ||| 0.8\nthe dog ||| the hound ||| {number}\n", encoding="utf-8")
    prune = tmp_path / "prune.txt"
    prune.write_text("runs ||| sprints\n")
    argv = {"table stats": ["table", "stats", str(table)],
            "truescore": ["truescore", "--table", str(table), "--source", "the dog", "--target", "the beast"],
            "table prune": ["table", "prune", str(table), "--list", str(prune), "-o", str(tmp_path / "out.txt")]}
    status, _out, err = run_cli(argv[command])
    said = "a rule 'src ||| tgt ||| score [score ...]' whose scores are finite numbers" if command == "table prune" \
        else "every score to be a finite number"
    assert status == 2 and f"{table}:2: expected {said}" in err, err
    assert not (tmp_path / "out.txt").exists()


@pytest.mark.parametrize("argv", [["study", "items", "{db}", "--format", "csv"], ["inspect", "{db}", "--format", "csv"],
                                  ["export-devset", "{db}", "--format", "csv", "-o", "-"]])
def test_a_csv_cell_holding_a_carriage_return_is_quoted(tmp_path, argv):
    """Python 3.11's csv, told to end rows with LF, left a bare CR unquoted: a spreadsheet began a new row
    there, with a formula `=1+2` in its first cell, and our own reader refused the file."""
    db = tmp_path / "s.sqlite"
    assert run_cli(["study", "create", "s", "--db", str(db), "--criteria", "fluency"])[0] == 0
    candidates = tmp_path / "c.jsonl"
    candidates.write_text('{"sentence_id": 0, "system": "beam", "text": "the beast\\r=1+2", "source": "the dog"}\n')
    assert run_cli(["study", "import-candidates", str(candidates), "--db", str(db)])[0] == 0
    judgments = tmp_path / "j.csv"
    judgments.write_text("item,annotator,criterion,value\n1,ann1,fluency,no\n1,ann2,fluency,no\n")
    assert run_cli(["study", "import-judgments", str(judgments), "--db", str(db)])[0] == 0
    status, out, err = run_cli([part.replace("{db}", str(db)) for part in argv])
    assert status == 0, err
    import csv
    import io

    rows = list(csv.reader(io.StringIO(out, newline="")))
    assert len({len(row) for row in rows}) == 1 and len(rows) == 2, rows  # the header and one row, every cell in it
    assert not any(cell.startswith("=") for row in rows for cell in row)
    assert out.endswith("\n") and not out.endswith("\r\n")
