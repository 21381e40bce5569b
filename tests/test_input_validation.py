"""Fields checked where they are read (issue 18): candidates, choice tasks, CSV records, standard input, item ids,
and the temporaries a killed writer leaves."""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys

import pytest

from parastudio.core.errors import InputFormatError
from parastudio.core.store import operations as ops
from parastudio.core.store.candidate_files import derivation_problem, read_candidates_jsonl, read_choice_tasks
from parastudio.core.store.database import open_database
from parastudio.core.store.items import parse_item_key
from parastudio.core.textio import open_standard_input, read_csv, remove_stale_temporaries

GOOD = {"sentence_id": 3, "system": "beam", "rank": 1, "text": "the beast runs", "model_score": -1.5,
        "true_score": -1.4, "source": "the dog runs", "params": {"table": "t"},
        "derivation": [{"src": [0, 2], "tgt": [0, 2], "source": "the dog", "target": "the beast", "p": 0.8,
                        "identity": False},
                       {"src": [2, 3], "tgt": [2, 3], "source": "runs", "target": "runs", "p": 1.0,
                        "identity": True}]}


def _segment(**changes):
    return [{**GOOD["derivation"][0], **changes}, GOOD["derivation"][1]]


@pytest.mark.parametrize("field, value, expected", [
    ("rank", 0, "a rank that is an integer >= 1"),
    ("rank", -2, "a rank that is an integer >= 1"),
    ("rank", 1.5, "a rank that is an integer >= 1"),
    ("rank", True, "a rank that is an integer >= 1"),
    ("model_score", "NaN", "a JSON object (no NaN or Infinity)"),
    ("true_score", "Infinity", "a JSON object (no NaN or Infinity)"),
    ("true_score", "-1", "a true_score that is a finite number"),
    ("text", {"words": "the beast"}, "a candidate text that is a string"),
    ("sentence_id", None, "a sentence_id that is an integer or a non-empty string"),
    ("system", "", "a system name"),
    ("source", 7, "a source that is a string"),
    ("params", [1], "params as a JSON object"),
    ("derivation", "garbage", "a derivation: a list of"),
    ("derivation", _segment(src="x"), "a derivation: a list of"),
    ("derivation", _segment(p=1.5), "p are probabilities in (0, 1]"),
    ("derivation", _segment(p=0), "p are probabilities in (0, 1]"),
    ("derivation", _segment(p=0.0), "p are probabilities in (0, 1]"),
    ("derivation", _segment(p=-0.25), "p are probabilities in (0, 1]"),
    ("derivation", _segment(target="the hound"), "the candidate of each segment to be the tokens it spans"),
    ("derivation", _segment(source="a dog"), "the source of each segment to be the tokens it spans"),
    ("derivation", _segment(tgt=[1, 3]), "candidate spans that follow each other"),
    ("derivation", GOOD["derivation"][:1], "segments covering all 3 tokens of the candidate"),
])
def test_a_bad_candidate_field_is_refused_with_its_line(tmp_path, field, value, expected):
    record = {**GOOD, field: value}
    line = json.dumps(record)
    if value in ("NaN", "Infinity", "-1"):  # literals as a JSON writer would put them
        line = line.replace(f'"{value}"', value)
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(GOOD) + "\n\n" + line + "\n", encoding="utf-8")
    if field == "true_score" and value == "-1":  # -1 is a fine log10 score
        assert len(list(read_candidates_jsonl(path))) == 2
        return
    with pytest.raises(InputFormatError) as raised:
        list(read_candidates_jsonl(path))
    message = str(raised.value)
    assert message.startswith(f"{path}:3: expected ") and expected in message.split("; got")[0]


def test_a_rule_of_probability_one_is_accepted_and_zero_is_refused_by_the_cli(tmp_path):
    """A derivation with p = 0 would give a log10 score of -inf: ``study import-candidates`` refuses it at its
    line (exit 2, one line, no traceback, nothing imported); the upper bound p = 1 is a probability."""
    certain = tmp_path / "certain.jsonl"
    certain.write_text(json.dumps({**GOOD, "derivation": _segment(p=1.0)}) + "\n", encoding="utf-8")
    impossible = tmp_path / "impossible.jsonl"
    impossible.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "sentence_id": 4, "derivation": _segment(p=0)})
                          + "\n", encoding="utf-8")
    db = tmp_path / "s.sqlite"

    def run(*arguments):
        return subprocess.run([sys.executable, "-m", "parastudio", "study", *arguments, "--db", str(db)],
                              capture_output=True, text=True)

    assert run("create", "s").returncode == 0
    refused = run("import-candidates", str(impossible))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr.strip().splitlines()[-1].startswith(
        f"parastudio: error: {impossible}:2: expected a derivation whose segments' p are probabilities in (0, 1]")
    with open_database(db) as opened:
        assert not ops.list_items(opened, ops.find_study(opened))
    assert run("import-candidates", str(certain)).returncode == 0


def test_a_derivation_is_checked_against_the_sources_file_at_import(tmp_path):
    without_source = {key: value for key, value in GOOD.items() if key != "source"}
    candidates, sources = tmp_path / "c.jsonl", tmp_path / "sources.txt"
    candidates.write_text(json.dumps({**without_source, "sentence_id": 0}) + "\n"
                          + json.dumps({**without_source, "sentence_id": 1}) + "\n", encoding="utf-8")
    sources.write_text("the dog runs\nthe cat runs\n", encoding="utf-8")
    with open_database(tmp_path / "s.sqlite", create=True) as db:
        study = ops.create_study(db, "s")
        with pytest.raises(InputFormatError, match=r"c.jsonl:2: expected a derivation with the source of each "
                                                   r"segment to be the tokens it spans \('the cat'\)"):
            ops.import_candidates(db, study, ops.read_candidates(candidates), path=str(candidates),
                                  sources=ops.read_sources(sources))
        assert ops.study_progress(db, study).total == 0 and not ops.list_items(db, study)  # nothing imported


def test_a_generated_derivation_passes_and_insertions_tile():
    assert derivation_problem(GOOD["derivation"], GOOD["text"], GOOD["source"]) is None
    insertion = GOOD["derivation"] + [{"src": [3, 3], "tgt": [3, 4], "source": "", "target": "fast", "p": 0.5,
                                       "identity": False}]
    assert derivation_problem(insertion, "the beast runs fast", "the dog runs") is None
    assert derivation_problem([], "", "") is None and derivation_problem(None, "x", None) is None


def test_choice_tasks_are_refused_at_their_line(tmp_path):
    path = tmp_path / "tasks.jsonl"
    good = {"id": 1, "sentence": "he went home", "span": [1, 2], "options": ["walked"]}
    path.write_text(json.dumps(good) + "\n\n" + json.dumps({**good, "span": [1.5, 2]}) + "\n", encoding="utf-8")
    with open_database(tmp_path / "s.sqlite", create=True) as db:
        study = ops.create_study(db, "s", criteria=["choice"])
        with pytest.raises(InputFormatError, match=r"tasks.jsonl:3: expected an object"):
            ops.add_choice_tasks(db, study, read_choice_tasks(path), path=str(path))
    path.write_text(json.dumps(good) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"tasks.jsonl:2: expected a JSON object"):
        list(read_choice_tasks(path))


@pytest.mark.parametrize("text, line", [
    ('a,b\n1,"open quote\n2,3\n', 3),  # an unterminated quote runs to the end of the file
    ("a,b\n1,x\ry\n", 2),  # a carriage return inside a field
])
def test_csv_defects_name_their_line(tmp_path, text, line):
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    if "open quote" in text:  # the csv module reads it as one field spanning lines: the reader sees 2 rows
        assert [row for _, row in read_csv(path)] == [["a", "b"], ["1", "open quote\n2,3\n"]]
        return
    with pytest.raises(InputFormatError) as raised:
        list(read_csv(path))
    assert str(raised.value).startswith(f"{path}:{line}: expected CSV fields")


def _stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data)), encoding="ascii"))


def test_standard_input_is_read_as_utf8_through_the_checks(monkeypatch):
    _stdin(monkeypatch, b"\xef\xbb\xbfcaf\xc3\xa9 one\r\ntwo\n")  # an ASCII locale does not matter
    with open_standard_input() as handle:
        assert list(handle) == ["caf\u00e9 one\n", "two\n"]
    _stdin(monkeypatch, b"fine\nnot \xe9 utf-8\n")
    with pytest.raises(InputFormatError, match=r"^<stdin>:2: expected UTF-8 text"):
        with open_standard_input() as handle:
            list(handle)


@pytest.mark.parametrize("key", ["\u0661", "1" * 19, "choice-x", "-3", "", "choice-" + "9" * 30])
def test_item_ids_are_ascii_numbers_a_database_holds(key):
    with pytest.raises(ValueError):
        parse_item_key(key)
    assert parse_item_key(" 12 ") == (12, None) and parse_item_key("choice-4") == (None, 4)


def test_a_dead_writers_temporary_is_removed_a_live_ones_kept(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    host = socket.gethostname()
    stale = tmp_path / f".out.txt.{host}-{dead.stdout.strip()}.abc123.part"
    stale_wal = tmp_path / f"{stale.name}-wal"
    live = tmp_path / f".out.txt.{host}-{os.getpid()}.def456.part"
    elsewhere = tmp_path / f".out.txt.another-host-{dead.stdout.strip()}.ghi789.part"
    other = tmp_path / f".other.txt.{host}-{dead.stdout.strip()}.abc123.part"
    for path in (stale, stale_wal, live, elsewhere, other):
        path.write_text("x")
    remove_stale_temporaries(tmp_path / "out.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in (live, elsewhere, other))
