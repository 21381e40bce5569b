"""The five-sentence loop of issue 11 from the CLI alone: generate with two systems, judge, and get per-system
tables and sentence-paired sign tests without a script or SQL."""

from __future__ import annotations

import csv
import json

import pytest

from parastudio.core.cli import main
from parastudio.core.demo import demo_files
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.stats.significance import sign_test
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database


@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    demo = demo_files()
    folder = tmp_path_factory.mktemp("loop")
    sentences = demo.test_sentences.read_text(encoding="utf-8").splitlines()[:5]
    (folder / "src.en").write_text("\n".join(sentences) + "\n", encoding="utf-8")
    table = ParaphraseTable.load_for(demo.table, [s.split() for s in sentences])
    with open(folder / "table.txt", "w", encoding="utf-8") as out:
        for rule in table:
            out.write(f"{' '.join(rule.source)} ||| {' '.join(rule.target)} ||| {rule.prob!r}\n")
    return folder, demo, sentences


def run(capsys, argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        import io

        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    return code, capsys.readouterr().out


def test_the_loop_runs_from_generate_to_paired_sign_tests(loop, capsys, monkeypatch):
    folder, demo, sentences = loop
    db = str(folder / "study.sqlite")
    candidates = folder / "cands.jsonl"
    lines = []
    for system, extra in (("beam", []), ("mcpg-true", ["--time-budget", "0.3"])):
        code, out = run(capsys, ["generate", "--system", system, "--table", str(folder / "table.txt"), "--lm",
                                 str(demo.lm), "--nbest", "2", "--processes", "1", "--json", *extra],
                        stdin="\n".join(sentences) + "\n", monkeypatch=monkeypatch)
        assert code == 0
        lines += out.splitlines()
    candidates.write_text("\n".join(lines) + "\n", encoding="utf-8")
    by_system: dict[str, set] = {}
    for line in lines:
        record = json.loads(line)
        by_system.setdefault(record["system"], set()).add((record["sentence_id"], record["text"]))
    shared = by_system["beam"] & by_system["mcpg-true"]
    assert shared, "the beam and MCPG agree on some outputs of the demo verses"

    assert main(["study", "create", "loop", "--db", db, "--criteria", "fluency,meaning"]) == 0
    assert main(["study", "import-candidates", str(candidates), "--db", db, "--sources",
                 str(folder / "src.en")]) == 0
    assert main(["study", "assign", "--db", db, "--annotators", "judge-1,judge-2"]) == 0
    # Two scripted judges: accept a candidate when it keeps the source's length (a silver rule, not a human).
    with open_database(db, create=True) as database:
        study = ops.find_study(database)
        for judge in ("judge-1", "judge-2"):
            annotator = ops.find_annotator(database, study, judge)
            while (item := ops.next_item(database, annotator)) is not None:
                same = len(item.candidate.split()) == len(item.source.split())
                ops.record_judgment(database, item.assignment_id, "yes" if same or judge == "judge-1" else "no")
    capsys.readouterr()

    code, out = run(capsys, ["study", "items", db, "--format", "jsonl"])
    items = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(items) == len({text for system in by_system.values() for text in system})
    assert any(set(row["systems"]) == {"beam", "mcpg-true"} for row in items)

    scores_path = folder / "scores.csv"
    assert main(["study", "export-scores", db, "--criterion", "meaning", "-o", str(scores_path)]) == 0
    with open(scores_path, newline="") as handle:
        scores = list(csv.DictReader(handle))
    assert {row["system"] for row in scores} == {"beam", "mcpg-true"}
    assert {row["item"] for row in scores} == {str(i) for i in range(5)}  # one row per sentence and system
    capsys.readouterr()

    code, from_csv = run(capsys, ["signtest", str(scores_path), "--system-a", "beam", "--system-b", "mcpg-true",
                                  "--json"])
    code2, from_study = run(capsys, ["signtest", db, "--criterion", "meaning", "--system-a", "beam",
                                     "--system-b", "mcpg-true", "--json"])
    assert code == code2 == 0 and json.loads(from_csv) == json.loads(from_study)
    per = {(row["system"], row["item"]): float(row["score"]) for row in scores}
    expected = sign_test([per[("beam", str(i))] for i in range(5)], [per[("mcpg-true", str(i))] for i in range(5)])
    assert json.loads(from_study) == expected.to_json_dict()

    code, out = run(capsys, ["report", db, "--format", "json"])
    report = {t["key"]: t for t in json.loads(out)["tables"]}
    seed003 = report["seed003_table1"]
    counted = {row[0].split(" / ")[-1]: row[-1] for row in seed003["rows"]}
    assert counted == {system: len(outputs) for system, outputs in by_system.items()}
    assert report["sign_tests:meaning"]["rows"][0][2] == 5  # paired on the 5 source sentences
