"""An experiment's per-sentence outputs: a JSONL file beside its results Markdown, so a reader can recompute every
mean and count the Markdown reports (issue 23, Deliver 5).

Line 1 is the run's provenance, ``{"provenance": {...}}``: the experiment, the command, every input file by
``{"path", "sha256", "bytes"}`` (:func:`core.file_fingerprint.fingerprint`, the path relative to the
checkout when it is inside it), the code's ``version`` and ``commit`` (:func:`core.code_identity.code_identity`)
and ``fields``, what each field of a record means and in which unit. Every later line is one record: one sentence
(one case, one item) under one configuration. Floats are written by ``json`` in full (``repr``) precision, so a
mean recomputed from the file is the one the Markdown printed, to its last digit.

A name ending in ``.gz`` is gzip-compressed (with mtime 0: the same records give the same bytes). Written
atomically through :func:`core.textio.atomic_output`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from parastudio.core.code_identity import code_identity
from parastudio.core.errors import InputFormatError
from parastudio.core.experiments.provenance import in_checkout
from parastudio.core.file_fingerprint import fingerprint
from parastudio.core.textio import atomic_output, open_text_maybe_gzip

InputPaths = str | os.PathLike | Sequence[str | os.PathLike] | None


def file_input(path: str | os.PathLike | None) -> dict | None:
    """``{"path", "sha256", "bytes"}`` of an input, its path relative to the checkout when it is inside it."""
    found = fingerprint(path)
    if found is not None:
        found["path"] = in_checkout(found["path"])
    return found


def _inputs(inputs: Mapping[str, InputPaths]) -> dict:
    recorded: dict = {}
    for name, value in inputs.items():
        if value is None or isinstance(value, (str, os.PathLike)):
            recorded[name] = file_input(value)
        else:
            recorded[name] = [file_input(item) for item in value]
    return recorded


def run_provenance(experiment: str, command: str, inputs: Mapping[str, InputPaths], fields: Mapping[str, str],
               **settings) -> dict:
    """The header record's contents; ``settings`` are the run's own options worth reading without the command."""
    return {"experiment": experiment, "command": command, "inputs": _inputs(inputs), **code_identity(),
            **settings, "fields": dict(fields)}


def write_per_sentence(path: str | os.PathLike, header: dict, records: Iterable[Mapping]) -> None:
    """``header`` (from :func:`run_provenance`) on line 1, then one record per line; every record has exactly the
    header's fields."""
    fields = list(header["fields"])
    with atomic_output(path) as out:
        out.write(json.dumps({"provenance": header}, ensure_ascii=False) + "\n")
        for record in records:
            if list(record) != fields:
                raise ValueError(f"record fields {list(record)} differ from the header's {fields}")
            out.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")


def read_per_sentence(path: str | os.PathLike) -> tuple[dict, list[dict]]:
    """(provenance, records) of a per-sentence file; a malformed line is ``file:line: expected ...``."""
    header: dict | None = None
    records: list[dict] = []
    with open_text_maybe_gzip(path) as handle:
        for number, line in enumerate(handle, start=1):
            try:
                value = json.loads(line)
            except ValueError:
                raise InputFormatError(path, number, "one JSON object per line", line.rstrip("\n")) from None
            if not isinstance(value, dict):
                raise InputFormatError(path, number, "a JSON object", line.rstrip("\n"))
            if number == 1:
                if not isinstance(value.get("provenance"), dict):
                    raise InputFormatError(path, 1, 'the run\'s provenance, {"provenance": {...}}', line.rstrip("\n"))
                header = value["provenance"]
            else:
                records.append(value)
    if header is None:
        raise InputFormatError(path, 1, "the run's provenance", "an empty file")
    return header, records


def markdown_note(path: str | os.PathLike, header: dict, unit: str) -> str:
    """The Markdown's paragraph naming the file, its records' unit and each field's meaning (once)."""
    compressed = ", gzip" if str(path).endswith(".gz") else ""
    lines = [f"**Per-sentence outputs.** `{Path(path).name}` (JSON Lines{compressed}) beside this file: line 1 is the "
             "run's provenance (the command, each input's path, sha256 and bytes, the code's version and commit); "
             f"every later line is one record, {unit}. Every mean and count above is computed from these "
             "records. Fields:", ""]
    lines += [f"- `{name}`: {meaning}" for name, meaning in header["fields"].items()]
    return "\n".join(lines)
