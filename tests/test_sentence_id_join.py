"""``sentence_id`` has one type, an integer, in ``generate``'s output and in an exported dev set (issue 23,
Found 5): a join of the two on it matches every record (a string in one and an integer in the other matched
nothing, silently)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from core.cli import main
from core.store import operations as ops
from core.store.database import open_database
from core.tuning.devset import devset_records

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "docs" / "devset.schema.json").read_text(encoding="utf-8"))
SENTENCES = ["the dog runs after the young cat", "a young cat sees the dog", "the young cat runs after it"]


def test_generate_output_joins_an_exported_devset_on_sentence_id(tiny_lm, example1_table_path, tmp_path):
    generated = subprocess.run(
        [sys.executable, "-m", "core", "generate", "--system", "beam", "--table", str(example1_table_path),
         "--lm", str(tiny_lm["binary"]), "--nbest", "2", "--json"],
        input="\n".join(SENTENCES) + "\n", capture_output=True, text=True, cwd=ROOT, check=True)
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text(generated.stdout, encoding="utf-8")
    sources = tmp_path / "sources.txt"
    sources.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    db = str(tmp_path / "study.sqlite")
    assert main(["study", "create", "s", "--db", db, "--criteria", "meaning"]) == 0
    assert main(["study", "import-candidates", str(candidates), "--db", db, "--sources", str(sources)]) == 0
    exported = {}
    for file_format in ("jsonl", "csv", "hf"):
        exported[file_format] = tmp_path / f"dev.{file_format}"
        assert main(["export-devset", db, "--format", file_format, "-o", str(exported[file_format])]) == 0

    generated_rows = [json.loads(line) for line in generated.stdout.splitlines()]
    dev = [json.loads(line) for line in exported["jsonl"].read_text(encoding="utf-8").splitlines()]
    assert dev and {type(row["sentence_id"]) for row in generated_rows + dev} == {int}
    by_key = {(row["sentence_id"], row["text"]): row for row in generated_rows}
    for record in dev:
        jsonschema.validate(record, SCHEMA)
        joined = by_key[(record["sentence_id"], record["candidate"])]  # KeyError: the join missed
        assert SENTENCES[joined["sentence_id"]] == record["source"]
    assert {key for key in by_key} == {(r["sentence_id"], r["candidate"]) for r in dev}

    # Hugging Face datasets reads the column as integers, in both of the folder's forms.
    datasets = pytest.importorskip("datasets")
    from_json = datasets.load_dataset("json", data_files=str(exported["hf"] / "devset.jsonl"), split="train")
    from_disk = datasets.load_from_disk(str(exported["hf"]))
    for dataset in (from_json, from_disk):
        assert dataset.features["sentence_id"].dtype == "int64"
        assert sorted(dataset["sentence_id"]) == sorted(r["sentence_id"] for r in dev)
    with open(exported["csv"], newline="", encoding="utf-8") as handle:
        assert sorted(int(row["sentence_id"]) for row in csv.DictReader(handle)) == sorted(
            r["sentence_id"] for r in dev)


def test_a_study_whose_ids_are_not_numbers_is_refused_at_export_with_the_id(tmp_path):
    with open_database(tmp_path / "s.sqlite", create=True) as db:
        study = ops.create_study(db, "named", criteria=["meaning"])
        ops.import_candidates(db, study, [ops.CandidateRow(sentence_id="q7", text="a cat sat", system="beam",
                                                           source="the cat sat", line=1)])
        with pytest.raises(ValueError, match=r"source sentence id 'q7' is not a whole number"):
            devset_records(db, study)
    assert main(["export-devset", str(tmp_path / "s.sqlite"), "-o", str(tmp_path / "dev.jsonl")]) == 2
    assert not (tmp_path / "dev.jsonl").exists()
