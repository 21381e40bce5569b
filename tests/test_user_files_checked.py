"""Files a user names on other paths than the main readers (an experiment's --input, a weights file, a study's
test set, patterns' standard input) are read through core.textio's checks: a clear ``file:line: expected ...``."""

from __future__ import annotations

import pytest
from fuzz_support import run_cli

from parastudio.core.demo import demo_files
from parastudio.core.errors import InputFormatError
from parastudio.core.progress import no_progress
from parastudio.core.store.database import open_database
from parastudio.core.study_builder import EngineChoice, StudyPlan, study_from_engine
from parastudio.core.tuning.weights_file import read_weights

NOT_UTF8 = b"the dog runs\nthe caf\xe9 sleeps\n"


def test_seed000_reranking_input_not_utf8_is_named(tmp_path):
    bad = tmp_path / "input.txt"
    bad.write_bytes(NOT_UTF8)
    demo = demo_files()
    status, _out, err = run_cli(["experiment", "seed000-reranking", "--table", str(demo.table), "--lm",
                                 str(demo.lm), "--input", str(bad), "--out", str(tmp_path / "out")])
    assert status == 2 and f"{bad}:2: expected UTF-8 text" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_weights_file_not_utf8_or_not_json_names_its_line(tmp_path):
    bad = tmp_path / "weights.json"
    bad.write_bytes(b'{"format": "x",\n "system": "b\xe9am"}\n')
    with pytest.raises(InputFormatError, match=rf"{bad}:2: expected UTF-8 text"):
        read_weights(bad)
    bad.write_bytes(b'{"format": "x",\n "system": beam}\n')
    with pytest.raises(InputFormatError, match=rf"{bad}:2: expected a JSON weights file"):
        read_weights(bad)


def test_a_study_test_set_not_utf8_is_named(tmp_path):
    bad = tmp_path / "test.en"
    bad.write_bytes(NOT_UTF8)
    demo = demo_files()
    db = open_database(tmp_path / "s.sqlite", create=True)
    try:
        with pytest.raises(InputFormatError, match=rf"{bad}:2: expected UTF-8 text"):
            study_from_engine(no_progress, db, StudyPlan(name="s", annotators=["a"]),
                              EngineChoice(test_set=str(bad), systems=["beam"], tables=[str(demo.table)],
                                           lm=str(demo.lm)))
    finally:
        db.close()


def test_patterns_extract_standard_input_not_utf8_is_named():
    status, _out, err = run_cli(["patterns", "extract", "-"], stdin=NOT_UTF8)
    assert status == 2 and "<stdin>:2: expected UTF-8 text" in err and "Traceback" not in err


def test_a_pattern_table_sidecar_not_utf8_or_not_json_is_named(tmp_path):
    from parastudio.core.tablebuild.patterns.table_file import read_meta, sidecar_path

    table = tmp_path / "patterns.txt"
    table.write_text("", encoding="utf-8")
    sidecar_path(table).write_bytes(b'{"format": "x",\n "lambdas": "\xe9"}\n')
    with pytest.raises(InputFormatError, match=rf"{sidecar_path(table)}:2: expected UTF-8 text"):
        read_meta(table)
    sidecar_path(table).write_bytes(b'{"format": "x",\n "lambdas": }\n')
    with pytest.raises(InputFormatError, match=rf"{sidecar_path(table)}:2: expected the pattern table's JSON sidecar"):
        read_meta(table)
