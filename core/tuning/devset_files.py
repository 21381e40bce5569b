"""Dev sets on disk: JSONL (schema in docs/devset.schema.json), flat CSV, and a Hugging Face datasets folder.

``--format hf`` writes a folder that ``datasets`` reads without any code of ours:

* ``devset.jsonl``: the JSONL records, so ``datasets.load_dataset("json", data_files="OUT/devset.jsonl")``
  works (with or without the library installed when the folder was written), and ``README.md``, a dataset card;
* when the ``datasets`` library is installed (the ``test`` extra; not needed to run ``parastudio``), also the
  folder ``datasets``' ``save_to_disk`` writes (Arrow data, ``dataset_info.json``, ``state.json``), so
  ``datasets.load_from_disk("OUT")`` works too.

The folder is built beside its destination and renamed into place: never half-written.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path
from typing import Iterable

from parastudio.core.csv_cells import line_feed_rows, safe_row
from parastudio.core.errors import InputFileError, InputFormatError, OutputFileError
from parastudio.core.file_fingerprint import sha256_of
from parastudio.core.output_files import FILE, resolve_output
from parastudio.core.structured_text import parse_json
from parastudio.core.textio import atomic_output, open_text_maybe_gzip, remove_stale_temporaries, temporary_sibling
from parastudio.core.tuning.devset_record_check import record_problem

FORMATS = ("jsonl", "csv", "hf")
CSV_COLUMNS = ("id", "study", "item", "sentence_id", "source", "candidate", "references", "system", "systems",
               "tables", "lm", "params", "model_score", "true_score", "derivation", "replacements",
               "replacements_correct", "replacements_incorrect", "replacements_unresolved", "acceptable",
               "aggregate")
HF_DATA_FILE = "devset.jsonl"


def _csv_row(record: dict, criteria: list[str]) -> dict:
    """One flat row: lists joined with ' ; ', a replacement as 'source => target (p) label/status/origin'."""
    replacements = record["replacements"]
    row = {
        **{k: record.get(k) for k in ("id", "study", "item", "sentence_id", "source", "candidate", "system",
                                      "model_score", "true_score", "aggregate")},
        "references": " ||| ".join(record["references"]),
        "systems": ";".join(s["system"] for s in record["systems"]),
        "tables": ";".join(record["provenance"]["tables"]), "lm": record["provenance"]["lm"],
        "params": record["provenance"]["params"],
        "derivation": " | ".join(f"{s['source']} => {s['target']} ({s['p']:g})" if s["p"] is not None else
                                 f"{s['source']} => {s['target']}" for s in record["derivation"]),
        "replacements": " ; ".join(f"{r['source']} => {r['target']} ({r['label'] or 'unresolved'}/{r['status']}/"
                                   f"{r['origin']})" for r in replacements),
        "replacements_correct": sum(r["label"] == "correct" for r in replacements),
        "replacements_incorrect": sum(r["label"] == "incorrect" for r in replacements),
        "replacements_unresolved": sum(r["label"] is None for r in replacements),
        "acceptable": "" if record["acceptable"] is None else int(record["acceptable"]),
    }
    judged = {j["criterion"]: j for j in record["judgments"]}
    for name in criteria:
        entry = judged.get(name)
        row[f"{name}_label"] = entry["label"] if entry else None
        row[f"{name}_status"] = entry["status"] if entry else None
        row[f"{name}_reason"] = entry["reason"] if entry else None
        row[f"{name}_labels"] = ";".join(f"{l['annotator']}={l['value']}" for l in entry["labels"]) if entry else ""
        adjudication = entry["adjudication"] if entry else None
        row[f"{name}_adjudication"] = f"{adjudication['annotator']}={adjudication['value']}" if adjudication else ""
    return row


def _write_jsonl(records: Iterable[dict], handle) -> int:
    count = 0
    for record in records:
        handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        count += 1
    return count


def _dataset_card(records: list[dict]) -> str:
    return ("# Paraphrase Studio dev set\n\nOne record per judged candidate paraphrase: source, candidate, "
            "derivation, each judge's labels and the aggregated label per criterion, and a correct/incorrect label "
            f"per unit replacement. {len(records)} records. Schema: docs/devset.schema.json of Paraphrase Studio.\n\n"
            f"Load it with `datasets.load_dataset(\"json\", data_files=\"{HF_DATA_FILE}\")` from this folder, or "
            "`datasets.load_from_disk` on the folder when it holds `state.json`.\n")


def _write_hf(records: list[dict], output: Path, inputs) -> None:
    target = resolve_output(output, inputs, folder=True)
    if target.kind != FILE:
        raise OutputFileError(output, "is not a folder: --format hf writes a folder (a dataset); name one")
    output = target.path  # a symlink's target folder is replaced, the link kept
    output.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(output)  # a killed export's folder
    building = temporary_sibling(output)
    building.mkdir()
    try:
        try:
            import datasets
        except ImportError:
            datasets = None
        if datasets is not None:
            datasets.Dataset.from_list(records).save_to_disk(str(building))
        with open(building / HF_DATA_FILE, "w", encoding="utf-8") as handle:
            _write_jsonl(records, handle)
        (building / "README.md").write_text(_dataset_card(records), encoding="utf-8")
        if output.exists():
            if not (output / HF_DATA_FILE).is_file():
                raise FileExistsError(f"{output} exists and is not a dev-set folder: not replacing it")
            shutil.rmtree(output)
        os.replace(building, output)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise


def write_devset(records: list[dict], output: str | os.PathLike, file_format: str, *, inputs=(),
                 raw: bool = False) -> int:
    """Write ``records`` as ``file_format`` (jsonl, csv or hf) to ``output``, never one of ``inputs``; returns
    the record count. CSV text cells a spreadsheet would run are quoted (:mod:`core.csv_cells`) unless ``raw``."""
    if file_format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {file_format!r}")
    output = Path(output)
    if file_format == "hf":
        _write_hf(records, output, inputs)
        return len(records)
    with atomic_output(output, inputs=inputs) as handle:
        if file_format == "jsonl":
            return _write_jsonl(records, handle)
        criteria = list(dict.fromkeys(j["criterion"] for r in records for j in r["judgments"]))
        columns = list(CSV_COLUMNS) + [f"{c}_{part}" for c in criteria
                                       for part in ("label", "status", "reason", "labels", "adjudication")]
        writer = csv.DictWriter(line_feed_rows(handle), fieldnames=columns, lineterminator="\r\n")
        writer.writeheader()
        for record in records:
            writer.writerow(safe_row(_csv_row(record, criteria), raw))
    return len(records)


def read_devset(path: str | os.PathLike) -> list[dict]:
    """Records of a JSONL dev set (or of an ``hf`` folder's ``devset.jsonl``), each bad line named: a record
    that is not JSON, lacks a field tuning needs or holds a field of the wrong type (a number where a text
    belongs, a NaN score, a span that is not two offsets: :mod:`core.tuning.devset_record_check`)."""
    path = Path(path)
    if path.is_dir():
        path = path / HF_DATA_FILE
        if not path.is_file():
            raise InputFileError(path.parent, f"a dev-set folder with {HF_DATA_FILE}")
    records = []
    with open_text_maybe_gzip(path) as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            record = parse_json(line.rstrip("\r\n"), path, "a JSON dev-set record", first_line=number)
            problem = record_problem(record)
            if problem is not None:
                expected, value = problem
                raise InputFormatError(str(path), number, f"a dev-set record with {expected}",
                                       None if value is None else json.dumps(value, ensure_ascii=False))
            records.append(record)
    if not records:
        raise InputFileError(path, "a dev set with at least one record", "an empty file")
    return records


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 of a dev set (of its ``devset.jsonl`` for a folder): what a tuning run was made from."""
    path = Path(path)
    if path.is_dir():
        path = path / HF_DATA_FILE
    return sha256_of(path)
