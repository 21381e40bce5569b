"""Fuzzing the CLI entry point in process (issue 18): ``core.cli.main([...])`` on generated, damaged files.

Each example draws a command (table stats and truescore, agreement, report
and import-judgments, signtest, import-candidates, lm score, pivot, generate
-o) and a file for it.

Every call either succeeds or exits non-zero with ``parastudio ... error: ...``
(never an exception other than argparse's SystemExit), answers within its
time limit, and leaves no output file half-written: after a failure the
output does not exist (and no temporary file is left beside it), after a
success it is whole. A failed import leaves the study database as it was.
"""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from fuzz_strategies import arpa_files, candidate_records, csv_files, junk, numbers, phrases, table_files
from fuzz_support import assert_clear, damage, defects, fuzz_tests, no_leftovers, run_cli
from hypothesis import strategies as st

ARPA = ("\\data\\\nngram 1=7\nngram 2=5\n\n\\1-grams:\n-1.0\t<unk>\t0\n-99\t<s>\t-0.3\n-0.7\t</s>\t0\n"
        "-0.5\tthe\t-0.3\n-0.6\tdog\t-0.2\n-0.8\tbeast\t-0.2\n-0.9\truns\t-0.1\n\n\\2-grams:\n-0.2\t<s> the\n"
        "-0.3\tthe dog\n-0.4\tthe beast\n-0.2\tdog runs\n-0.1\truns </s>\n\n\\end\\\n")
TABLE = "the dog ||| the beast ||| 0.8\nruns ||| sprints ||| 0.5\nthe ||| a ||| 0.3\n"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A clean table and ARPA model, an empty study and one with four candidates (ids 1-4) to judge."""
    directory = tmp_path_factory.mktemp("fuzz-cli")
    (directory / "table.txt").write_text(TABLE, encoding="utf-8")
    (directory / "lm.arpa").write_text(ARPA, encoding="utf-8")
    empty, items = directory / "empty.sqlite", directory / "items.sqlite"
    assert run_cli(["study", "create", "s", "--db", str(empty), "--criteria", "fluency"])[0] == 0
    shutil.copy(empty, items)
    candidates = directory / "items.jsonl"
    candidates.write_text("".join(json.dumps({"sentence_id": i // 2, "system": "beam", "text": f"candidate {i}",
                                              "source": f"source {i // 2}"}) + "\n" for i in range(4)))
    assert run_cli(["study", "import-candidates", str(candidates), "--db", str(items)])[0] == 0
    return {"dir": directory, "table": directory / "table.txt", "lm": directory / "lm.arpa", "empty": empty,
            "items": items}


def _write(directory: Path, name: str, text: str, defect: str, where: int) -> Path:
    path = directory / name
    path.write_bytes(damage(text, defect, where))
    return path


def _count(database: Path, table: str) -> int:
    connection = sqlite3.connect(database)
    try:
        return connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    finally:
        connection.close()


def _tables(files, example):
    (text, _rules), defect, where = example
    with tempfile.TemporaryDirectory() as directory:
        table = _write(Path(directory), "table.txt", text, defect, where)
        status, out, err = run_cli(["table", "stats", str(table), "--json"])
        assert_clear(status, err)
        if status == 0:
            assert json.loads(out)["rules"] >= 0
        status, out, err = run_cli(["truescore", "--table", str(table), "--lm", str(files["lm"]), "--source",
                                    "the dog runs", "--target", "the beast runs", "--json"])
        assert_clear(status, err)
        if status == 0:
            score = json.loads(out)["log10_score"]
            assert score is None or math.isfinite(score)




def _judgment_commands(files, example):
    text, defect, where = example
    with tempfile.TemporaryDirectory() as directory:
        directory = Path(directory)
        path = _write(directory, "judgments.csv", text, defect, where)
        status, out, err = run_cli(["agreement", str(path), "--bootstrap", "0", "--json"])
        assert_clear(status, err)
        if status == 0:
            assert 0 <= json.loads(out)["n_items"]
        report = directory / "report.md"
        status, _out, err = run_cli(["report", str(path), "--bootstrap", "0", "-o", str(report)])
        assert_clear(status, err)
        assert report.exists() == (status == 0) and not no_leftovers(directory)
        study = directory / "study.sqlite"
        shutil.copy(files["items"], study)
        status, _out, err = run_cli(["study", "import-judgments", str(path), "--db", str(study)])
        assert_clear(status, err)
        if status != 0:  # one transaction: a bad line imports nothing
            assert _count(study, "judgment") == 0




def _signtest(example):
    text, defect, where = example
    with tempfile.TemporaryDirectory() as directory:
        path = _write(Path(directory), "scores.csv", text, defect, where)
        status, out, err = run_cli(["signtest", str(path), "--system-a", "1", "--system-b", "2", "--json"])
        assert_clear(status, err)
        if status == 0:
            assert 0.0 <= json.loads(out)["p_value"] <= 1.0




def _import_candidates(files, example):
    records, junk_line, defect, where = example
    text = "".join(json.dumps(record) + "\n" for record in records) + junk_line
    with tempfile.TemporaryDirectory() as directory:
        directory = Path(directory)
        path = _write(directory, "candidates.jsonl", text, defect, where)
        study = directory / "study.sqlite"
        shutil.copy(files["empty"], study)
        status, _out, err = run_cli(["study", "import-candidates", str(path), "--db", str(study)])
        assert_clear(status, err)
        if status != 0:
            assert _count(study, "candidate") == 0




sentences = st.lists(st.one_of(phrases, junk, st.text(max_size=12)), max_size=4).map(lambda s: "\n".join(s) + "\n")


def _lm_score(example):
    model, model_defect, text, text_defect, where = example
    with tempfile.TemporaryDirectory() as directory:
        path = _write(Path(directory), "model.arpa", model, model_defect, where)
        stdin = damage(text, text_defect, where)
        status, out, err = run_cli(["lm", "score", str(path)], stdin=stdin)
        assert_clear(status, err)
        if status == 0:
            assert all(math.isfinite(float(line)) for line in out.split("\n")[:-1])
            if text_defect in ("none", "bom", "crlf", "gzip"):  # one score per line read
                assert out.count("\n") == text.count("\n")




@st.composite
def phrase_tables(draw):
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["rule", "rule", "rule", "rule", "bad", "junk"]))
        scores = [repr(draw(st.floats(1e-4, 1.0))) for _ in range(4)]
        if kind == "bad":
            scores[draw(st.integers(0, 3))] = draw(numbers)
        pivot = draw(st.sampled_from(["le chien", "chat", "court"]))
        lines.append(draw(junk) if kind == "junk" else f"{draw(phrases)} ||| {pivot} ||| {' '.join(scores)}")
    return "\n".join(lines) + "\n"


def _pivot(example):
    text, defect, where = example
    with tempfile.TemporaryDirectory() as directory:
        directory = Path(directory)
        path = _write(directory, "phrases.txt", text, defect, where)
        output = directory / "out" / "para.txt.gz"
        status, _out, err = run_cli(["pivot", str(path), "-o", str(output)])
        assert_clear(status, err)
        assert output.exists() == (status == 0)
        if output.parent.exists():
            assert not no_leftovers(output.parent)




def _generate(files, example):
    text, defect, where = example
    with tempfile.TemporaryDirectory() as directory:
        directory = Path(directory)
        output = directory / "candidates.jsonl"
        status, _out, err = run_cli(["generate", "--system", "beam", "--table", str(files["table"]), "--lm",
                                     str(files["lm"]), "--json", "-o", str(output)],
                                    stdin=damage(text, defect, where))
        assert_clear(status, err)
        assert output.exists() == (status == 0) and not no_leftovers(directory)
        if status == 0:
            assert all(json.loads(line)["rank"] >= 1 for line in output.read_text(encoding="utf-8").splitlines())


# The commands share the counts: 200 examples through the CLI in the default run, 2,000 in the thorough one.
COMMANDS = {
    "tables": (st.tuples(table_files(), defects, st.integers(0, 400)), _tables),
    "judgments": (st.tuples(csv_files(("item", "annotator", "criterion", "value")), defects, st.integers(0, 300)),
                  _judgment_commands),
    "signtest": (st.tuples(csv_files(("item", "system", "score")), defects, st.integers(0, 300)), _signtest),
    "import_candidates": (st.tuples(st.lists(candidate_records(), max_size=4),
                                    st.one_of(st.just(""), junk.map(lambda j: j + "\n")), defects,
                                    st.integers(0, 600)), _import_candidates),
    "lm_score": (st.tuples(arpa_files(), defects.filter(lambda d: d not in ("gzip", "gzip-truncated")), sentences,
                           defects, st.integers(0, 300)), _lm_score),
    "pivot": (st.tuples(phrase_tables(), defects, st.integers(0, 400)), _pivot),
    "generate": (st.tuples(sentences, defects, st.integers(0, 300)), _generate),
}
NEEDS_FILES = {_tables, _judgment_commands, _import_candidates, _generate}

for _name, (_strategy, _prop) in COMMANDS.items():
    globals()[f"test_{_name}"], globals()[f"test_{_name}_thorough"] = fuzz_tests(
        _strategy, _prop, fixtures=("files",) if _prop in NEEDS_FILES else (), share=len(COMMANDS))
