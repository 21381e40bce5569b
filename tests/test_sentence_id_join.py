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

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.tuning.devset import devset_records

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "docs" / "devset.schema.json").read_text(encoding="utf-8"))
SENTENCES = ["the dog runs after the young cat", "a young cat sees the dog", "the young cat runs after it"]


def test_generate_output_joins_an_exported_devset_on_sentence_id(tiny_lm, example1_table_path, tmp_path):
    generated = subprocess.run(
        [sys.executable, "-m", "parastudio", "generate", "--system", "beam", "--table", str(example1_table_path),
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


def _judged_study(candidates, sources, db) -> None:
    assert main(["study", "create", "s", "--db", db, "--criteria", "meaning"]) == 0
    assert main(["study", "import-candidates", str(candidates), "--db", db, "--sources", str(sources)]) == 0
    assert main(["study", "assign", "--db", db, "--annotators", "ann"]) == 0
    with open_database(db) as database:
        annotator = ops.find_annotator(database, ops.find_study(database), "ann")
        while (item := ops.next_item(database, annotator)) is not None:
            ops.record_judgment(database, item.assignment_id, "yes" if item.assignment_id % 2 else "no")


def test_generate_export_judgments_inspect_and_the_devset_join_on_one_integer_sentence_id(
        tiny_lm, example1_table_path, tmp_path, capsys):
    generated = subprocess.run(
        [sys.executable, "-m", "parastudio", "generate", "--system", "beam", "--table", str(example1_table_path),
         "--lm", str(tiny_lm["binary"]), "--nbest", "2", "--json"],
        input="\n".join(SENTENCES) + "\n", capture_output=True, text=True, cwd=ROOT, check=True)
    candidates, sources = tmp_path / "candidates.jsonl", tmp_path / "sources.txt"
    candidates.write_text(generated.stdout, encoding="utf-8")
    sources.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    db = str(tmp_path / "study.sqlite")
    _judged_study(candidates, sources, db)
    outputs = {name: tmp_path / name for name in ("judgments.jsonl", "judgments.csv", "dev.jsonl", "items.jsonl")}
    assert main(["study", "export-judgments", "--db", db, "--format", "jsonl", "-o",
                 str(outputs["judgments.jsonl"])]) == 0
    assert main(["study", "export-judgments", "--db", db, "-o", str(outputs["judgments.csv"])]) == 0
    assert main(["export-devset", db, "-o", str(outputs["dev.jsonl"])]) == 0
    assert main(["study", "items", db, "--format", "jsonl", "-o", str(outputs["items.jsonl"])]) == 0
    capsys.readouterr()
    assert main(["inspect", db, "--format", "jsonl"]) == 0
    inspected = [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    def rows(name):
        return [json.loads(line) for line in outputs[name].read_text(encoding="utf-8").splitlines()]

    produced = {(row["sentence_id"], row["text"]) for row in map(json.loads, generated.stdout.splitlines())}
    judged, dev, items = rows("judgments.jsonl"), rows("dev.jsonl"), rows("items.jsonl")
    every = {"judgments": judged, "dev set": dev, "items": items, "inspect": inspected}
    for name, records in every.items():
        assert records and {type(r["sentence_id"]) for r in records} == {int}, name
        assert all("sentence" not in r for r in records), name  # one name: sentence_id
    assert {(r["sentence_id"], r["candidate"]) for r in judged} == produced  # the join matches every candidate
    assert {(r["sentence_id"], r["candidate"]) for r in dev} == produced
    assert {(r["sentence_id"], r["candidate"]) for r in inspected} == produced
    assert {(r["sentence_id"], r["text"]) for r in items} == produced
    dev_labels = {(r["sentence_id"], r["candidate"]): r["judgments"][0]["labels"] for r in dev}
    for record in judged:  # the same judgment, reached through the join from both sides
        assert dev_labels[(record["sentence_id"], record["candidate"])] == [{"annotator": "ann",
                                                                            "value": record["value"]}]
    with open(outputs["judgments.csv"], newline="", encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    assert sorted((int(r["sentence_id"]), r["candidate"]) for r in table) == sorted(
        (r["sentence_id"], r["candidate"]) for r in judged)


def test_a_study_whose_ids_are_not_numbers_exports_a_null_sentence_id_and_its_key(tmp_path, capsys):
    table = tmp_path / "candidates.csv"
    table.write_text("item,source,candidate,system\nq7,the cat sat,a cat sat,beam\nq7,the cat sat,the cat sits,spg\n"
                     "12,a dog ran,the dog ran,beam\n", encoding="utf-8")
    db = str(tmp_path / "study.sqlite")
    assert main(["study", "create", "s", "--db", db, "--criteria", "meaning"]) == 0
    assert main(["study", "import-candidates", str(table), "--db", db]) == 0
    capsys.readouterr()
    assert main(["study", "items", db, "--format", "jsonl"]) == 0
    items = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["sentence_id"], r["source_key"]) for r in items] == [(None, "q7"), (None, "q7"), (12, "12")]


def test_judgments_pair_on_the_same_sentences_read_from_a_new_export_or_an_older_one(tmp_path):
    from parastudio.core.stats.judgment_records import read_judgments

    new, old = tmp_path / "new.csv", tmp_path / "old.csv"
    new.write_text("item,annotator,criterion,value,sentence_id,source_key,system\n"
                   "1,ann,meaning,yes,0,0,beam\n2,ann,meaning,no,,q7,spg\n3,ann,meaning,yes,,q7,beam\n",
                   encoding="utf-8")
    old.write_text("item,annotator,criterion,value,sentence,system\n"
                   "1,ann,meaning,yes,0,beam\n2,ann,meaning,no,q7,spg\n3,ann,meaning,yes,q7,beam\n", encoding="utf-8")
    assert read_judgments(new).sentences == read_judgments(old).sentences == ["0", "q7", "q7"]
    only_ids = tmp_path / "ids.csv"  # a file that carries only the integer
    only_ids.write_text("item,annotator,criterion,value,sentence_id\n1,ann,meaning,yes,4\n2,ann,meaning,no,4\n",
                        encoding="utf-8")
    assert read_judgments(only_ids).sentences == ["4", "4"]
