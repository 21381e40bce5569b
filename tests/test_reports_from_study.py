"""`parastudio report STUDY` reads the study store and gives the same tables as
exporting the judgments to CSV and reporting on that file."""

from __future__ import annotations

import json
import random

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database


def test_report_on_a_study_database_equals_report_on_its_exported_csv(tmp_path, capsys):
    db_path = str(tmp_path / "study.sqlite")
    candidates = tmp_path / "cands.jsonl"
    with open(candidates, "w") as handle:
        for s in range(30):
            for system in ("beam", "mcpg-true"):
                handle.write(json.dumps({"sentence_id": s, "system": system, "rank": 1,
                                         "text": f"{system} paraphrase {s}", "model_score": -1.0,
                                         "true_score": -2.0, "derivation": None, "params": {}}) + "\n")
    (tmp_path / "src.en").write_text("".join(f"source sentence {s} .\n" for s in range(30)))
    assert main(["study", "create", "s", "--db", db_path]) == 0
    assert main(["study", "import-candidates", str(candidates), "--db", db_path, "--sources",
                 str(tmp_path / "src.en")]) == 0
    assert main(["study", "assign", "--db", db_path, "--annotators", "a,b"]) == 0
    rng = random.Random(3)
    with open_database(db_path, create=True) as db:
        study = ops.find_study(db)
        for name in ("a", "b"):
            annotator = ops.find_annotator(db, study, name)
            while (item := ops.next_item(db, annotator)) is not None:
                value = rng.choice(["yes", "no"]) if item.scale == "binary" else rng.choice(["1", "2", "3"])
                ops.record_judgment(db, item.assignment_id, value)
    csv_path = tmp_path / "judgments.csv"
    assert main(["study", "export-judgments", "--db", db_path, "--format", "csv", "-o", str(csv_path)]) == 0
    capsys.readouterr()

    assert main(["report", db_path, "--format", "json"]) == 0
    from_study = json.loads(capsys.readouterr().out)
    assert main(["report", str(csv_path), "--format", "json"]) == 0
    from_csv = json.loads(capsys.readouterr().out)

    def tables(report):
        return {t["key"]: t["rows"] for t in report["tables"]} if "tables" in report else report

    study_tables, csv_tables = tables(from_study), tables(from_csv)
    assert study_tables and study_tables == csv_tables
