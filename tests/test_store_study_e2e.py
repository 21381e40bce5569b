"""A real two-judge study of 200 candidates, scripted end to end through the
CLI and the store operations: create, import, assign with repeats and
controls, two annotators judge everything (with undos), QC, export, agreement."""

from __future__ import annotations

import csv
import json
import random

import pytest

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database


def write_generate_output(path, sentences: int = 100) -> None:
    """`parastudio generate --json` lines: beam gives 2 candidates per sentence,
    mcpg one, which beam also gave: 200 distinct candidates, 100 credited to both."""
    rng = random.Random(0)
    with open(path, "w") as handle:
        for s in range(sentences):
            for system in ("beam", "mcpg-true"):
                texts = [f"the shared paraphrase of sentence {s}", f"a {system} paraphrase of sentence {s}"]
                if system == "mcpg-true":
                    texts = texts[:1]
                for rank, candidate in enumerate(texts, start=1):
                    handle.write(json.dumps({
                        "sentence_id": s, "system": system, "rank": rank, "text": candidate,
                        "model_score": -rng.random(), "true_score": -rng.random() * 3, "derivation": None,
                        "params": {"table": "paraphrase-table.gz", "lm": "lm.bin"}}) + "\n")


@pytest.fixture(params=["sqlite", "postgresql"])
def study_database(request, tmp_path):
    """The same study code on SQLite (a file) and PostgreSQL (a URL)."""
    if request.param == "sqlite":
        return str(tmp_path / "study.db")
    return request.getfixturevalue("postgres_url")


def test_two_judge_study_of_200_candidates(tmp_path, capsys, study_database):
    db_path = study_database
    generated = tmp_path / "generated.jsonl"
    write_generate_output(generated)
    (tmp_path / "test.en").write_text("".join(f"the original sentence number {s} .\n" for s in range(100)))

    assert main(["study", "create", "bible", "--db", db_path, "--judges", "2", "--seed", "7"]) == 0
    assert main(["study", "import-candidates", str(generated), "--db", db_path,
                 "--sources", str(tmp_path / "test.en"), "--test-set", "demo"]) == 0
    out = capsys.readouterr().out
    assert "200 new candidates for 100 new sources" in out and "100 strings credited" in out
    assert main(["study", "assign", "--db", db_path, "--annotators", "ann,bob",
                 "--repeats", "0.05", "--controls", "0.05"]) == 0
    assert "ann: 660 assignments (10 repeated items, 10 control items)" in capsys.readouterr().out

    with open_database(db_path, create=True) as db:
        study = ops.find_study(db)
        rng = random.Random(1)
        with db.reading() as session:
            from sqlalchemy import select

            from parastudio.core.store.models import Candidate
            controls = set(str(i) for i in session.scalars(select(Candidate.id).where(Candidate.kind == "control")))
        remembered: dict[tuple[str, str, str], str] = {}
        for name in ("ann", "bob"):
            annotator = ops.find_annotator(db, study, name)
            steps = 0
            while (item := ops.next_item(db, annotator)) is not None:
                key = (name, item.item, item.criterion)
                if item.item in controls:
                    value = "no" if item.scale == "binary" else "1"
                elif key in remembered:
                    value = remembered[key]  # consistent on repeats
                else:
                    value = (rng.choice(["yes", "yes", "no"]) if item.scale == "binary"
                             else rng.choice(["1", "2", "3", "3"]))
                remembered[key] = value
                ops.record_judgment(db, item.assignment_id, value, comment="unsure" if steps % 50 == 0 else None)
                steps += 1
                if steps % 97 == 0:  # a slip, undone and answered again
                    ops.undo_last(db, annotator)
            assert ops.next_item(db, annotator) is None
        records = ops.judgment_records(db, study)
    assert len(records) == 200 * 3 * 2
    assert {r["annotator"] for r in records} == {"ann", "bob"}
    assert sum(1 for r in records if r["systems"] == ["beam", "mcpg-true"]) == 100 * 3 * 2

    assert main(["study", "progress", "--db", db_path, "--json"]) == 0
    progress = json.loads(capsys.readouterr().out)
    assert progress["done"] == progress["total"] > 1200
    assert main(["study", "qc", "--db", db_path, "--json"]) == 0
    qc = json.loads(capsys.readouterr().out)
    assert [r["passed"] for r in qc] == [True, True]
    assert all(r["controls_judged"] > 0 and r["repeat_pairs"] > 0 for r in qc)

    exported = tmp_path / "judgments.csv"
    assert main(["study", "export-judgments", "--db", db_path, "--format", "csv", "-o", str(exported)]) == 0
    with open(exported, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 1200 and sum(1 for r in rows if r["comment"] == "unsure") >= 2
    assert main(["study", "export-judgments", "--db", db_path, "--format", "jsonl", "--history"]) == 0
    history = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sum(1 for h in history if h["status"] == "undo") >= 2

    # The exported file is what the agreement command reads.
    assert main(["agreement", str(exported), "--criterion", "fluency", "--bootstrap", "0", "--json"]) == 0
    agreement = json.loads(capsys.readouterr().out)
    assert agreement["n_items"] == 200 and agreement["n_annotators"] == 2


def test_cli_packages_and_judgment_import(tmp_path, capsys):
    db_path = str(tmp_path / "master.db")
    table = tmp_path / "candidates.csv"
    table.write_text("item,source,candidate,system\n" + "".join(
        f"{s},the source {s},cand {s} {r},sys{r % 2}\n" for s in range(10) for r in range(2)))
    assert main(["study", "create", "s", "--db", db_path, "--criteria", "fluency,meaning"]) == 0
    assert main(["study", "import-candidates", str(table), "--db", db_path]) == 0
    assert main(["study", "assign", "--db", db_path, "--annotators", "ann,bob"]) == 0
    package = tmp_path / "ann.pkg"
    assert main(["study", "export-package", "--db", db_path, "--annotator", "ann", "-o", str(package)]) == 0
    with open_database(package, create=True) as db:
        annotator = ops.find_annotator(db, ops.find_study(db), "ann")
        for _ in range(5):
            ops.record_judgment(db, ops.next_item(db, annotator).assignment_id, "yes")
    capsys.readouterr()
    assert main(["study", "merge-package", str(package), "--db", db_path]) == 0
    assert "5 applied, 0 already present, 0 identical to the master's, 0 conflicts" in capsys.readouterr().out
    crowd = tmp_path / "crowd.csv"
    crowd.write_text("item,annotator,criterion,value\n1,worker7,fluency,no\n1,worker7,meaning,yes\n")
    assert main(["study", "import-judgments", str(crowd), "--db", db_path]) == 0
    assert "2 applied" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_text("item,annotator,criterion,value\n1,worker8,fluency,maybe\n")
    assert main(["study", "import-judgments", str(bad), "--db", db_path]) == 2
    assert "bad.csv:2: expected" in capsys.readouterr().err
    assert main(["study", "progress", "--db", db_path]) == 0
    out = capsys.readouterr().out
    assert "ann" in out and "worker7" in out
