"""The dev-set reader checks each record with jsonschema against the shipped schema (core/tuning/devset.schema.json,
the same bytes as docs/devset.schema.json), and names the line and the field of a bad one."""

import json
from pathlib import Path

import pytest

from parastudio.core.errors import InputFileError, InputFormatError
from parastudio.core.tuning import devset_record_check
from parastudio.core.tuning.devset_files import read_devset

ROOT = Path(__file__).resolve().parent.parent
GOOD = {"id": "u:1", "source": "the dog runs", "candidate": "the hound runs",
        "derivation": [{"src": [0, 1], "tgt": [0, 1], "source": "the", "target": "the", "p": 1, "identity": True},
                       {"src": [1, 2], "tgt": [1, 2], "source": "dog", "target": "hound", "p": 0.4,
                        "identity": False}],
        "replacements": [{"src": [1, 2], "source": "dog", "target": "hound", "label": "correct",
                          "labels": [{"annotator": "ann1", "value": "yes"}]}],
        "judgments": [{"criterion": "meaning", "label": "yes", "verdict": "positive"}]}


def test_the_shipped_schema_is_the_documented_one():
    shipped = ROOT / "core" / "tuning" / devset_record_check.SCHEMA_FILE
    assert shipped.read_bytes() == (ROOT / "docs" / "devset.schema.json").read_bytes()
    assert devset_record_check.schema() == json.loads(shipped.read_text(encoding="utf-8"))


def test_the_reader_requires_what_tuning_reads_and_the_export_writes_the_rest():
    written, read = devset_record_check.schema(), devset_record_check.reader_schema()
    assert written["required"][:3] == ["id", "study", "item"] and "study" not in read["required"]
    assert read["required"] == ["id", "source", "candidate", "derivation", "replacements", "judgments"]
    def keys(node):
        if isinstance(node, dict):
            return set(node) | {key for value in node.values() for key in keys(value)}
        return {key for value in node for key in keys(value)} if isinstance(node, list) else set()

    assert "x-tuning-reads" in keys(written) and "x-tuning-reads" not in keys(read)


def replaced(path: str, value):
    """GOOD with the field at ``path`` (``a.0.b``) set to ``value`` (deleted when ``value`` is DELETE)."""
    record = json.loads(json.dumps(GOOD))
    *parents, last = [int(part) if part.isdigit() else part for part in path.split(".")]
    node = record
    for part in parents:
        node = node[part]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    return record


DELETE = object()


@pytest.mark.parametrize("path, value, expected", [
    ("candidate", DELETE, "a field candidate"),
    ("derivation.1.identity", DELETE, "a field derivation[1].identity"),
    ("replacements.0.labels.0.value", DELETE, "a field replacements[0].labels[0].value"),
    ("source", ["the", "dog"], "source to be a string"),
    ("sentence_id", "7", "sentence_id to be a whole number"),
    ("judgments.0.criterion", 3, "judgments[0].criterion to be a string"),
    ("sentence_id", -1, "sentence_id to be at least 0"),
    ("derivation.1.p", 1.5, "derivation[1].p to be at most 1"),
    ("replacements.0.p", 0, "replacements[0].p to be more than 0"),
    ("replacements.0.label", "maybe", 'replacements[0].label to be one of "correct", "incorrect", null'),
    ("derivation.0.src", [0], "derivation[0].src to have at least 2 items"),
    ("colour", "blue", "no field colour (not in the schema)"),
    ("replacements.0.weight", 2, "no field replacements[0].weight (not in the schema)"),
    ("model_score", float("inf"), "model_score to be a finite number"),
    ("replacements.0.src", [2, 1], "replacements[0].src to be a token span [start, end] with start <= end"),
])
def test_a_bad_record_is_named_by_its_line_and_field(tmp_path, path, value, expected):
    bad = tmp_path / "dev.jsonl"
    bad.write_text(json.dumps(GOOD) + "\n\n" + json.dumps(replaced(path, value)) + "\n", encoding="utf-8")
    with pytest.raises(InputFormatError) as raised:
        read_devset(bad)
    assert str(raised.value).startswith(f"{bad}:3: expected a dev-set record with {expected}")


def test_a_good_record_reads_back():
    assert devset_record_check.record_problem(GOOD) is None


def test_a_line_that_is_not_json_or_not_an_object_is_named(tmp_path):
    bad = tmp_path / "dev.jsonl"
    bad.write_text(json.dumps(GOOD) + "\n{\"id\": \n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=rf"{bad}:2: expected a JSON dev-set record"):
        read_devset(bad)
    bad.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match=rf"{bad}:1: expected a dev-set record with the record to be an object"):
        read_devset(bad)


def test_an_empty_file_is_refused(tmp_path):
    empty = tmp_path / "dev.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputFileError, match="a dev set with at least one record"):
        read_devset(empty)
