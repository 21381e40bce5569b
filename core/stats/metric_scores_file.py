"""The scores file of ``parastudio metrics``: JSON Lines, the run's provenance first, then one record per scored
candidate and one per system; what ``parastudio metaeval --metrics`` reads back.

Line 1 is ``{"provenance": {...}}``: the command and its options, every input by ``{"path", "sha256", "bytes"}``,
the code's ``version`` and ``commit``, the metrics' ``signature``, and ``metrics``, each metric with ``better``
(``"higher"`` or ``"lower"``) and its own signature (sacrebleu's for BLEU, chrF and TER). Every later line has
``"level"``: ``"segment"`` (one candidate as one system made it: :data:`SEGMENT_FIELDS`) or ``"system"``
(:data:`SYSTEM_FIELDS`), and one number or ``null`` per metric. A bad line is ``file:line: expected ...``.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Iterable, Mapping

from parastudio.core.errors import InputFormatError
from parastudio.core.textio import atomic_output, open_text_maybe_gzip

SEGMENT_FIELDS = ("level", "item", "sentence_id", "source_key", "system", "rank", "text")
SYSTEM_FIELDS = ("level", "system", "candidates", "referenced")
LEVELS = ("segment", "system")


@dataclass(frozen=True)
class MetricScores:
    """A scores file read back: its provenance, segment records and system records (by system)."""

    path: str
    provenance: dict
    segments: list[dict]
    systems: dict[str, dict]

    @property
    def metric_names(self) -> list[str]:
        return list(self.provenance["metrics"])

    def higher_is_better(self, metric: str) -> bool:
        return self.provenance["metrics"][metric]["better"] == "higher"


def write_metric_scores(path: str | os.PathLike, provenance: Mapping, segments: Iterable[Mapping],
                        systems: Iterable[Mapping], *, inputs=()) -> int:
    """Provenance, then the records, through the one door for outputs; returns the records written."""
    count = 0
    with atomic_output(path, inputs=inputs) as out:
        out.write(json.dumps({"provenance": provenance}, ensure_ascii=False, allow_nan=False) + "\n")
        for record in [*segments, *systems]:
            out.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
            count += 1
    return count


def _check_provenance(path: str, value: object, line: str) -> dict:
    header = value.get("provenance") if isinstance(value, dict) else None
    metrics = header.get("metrics") if isinstance(header, dict) else None
    if not isinstance(metrics, dict) or not metrics or not all(
            isinstance(entry, dict) and entry.get("better") in ("higher", "lower") for entry in metrics.values()):
        raise InputFormatError(path, 1, 'the provenance of parastudio metrics, {"provenance": {..., "metrics": '
                               '{NAME: {"better": "higher" or "lower", ...}}}}', line)
    return header


def _check_record(path: str, number: int, record: object, metrics: list[str], line: str) -> dict:
    if not isinstance(record, dict) or record.get("level") not in LEVELS:
        raise InputFormatError(path, number, 'a JSON object with "level": "segment" or "system"', line)
    needed = SEGMENT_FIELDS if record["level"] == "segment" else SYSTEM_FIELDS
    missing = [name for name in (*needed, *metrics) if name not in record]
    if missing:
        raise InputFormatError(path, number, f"a {record['level']} record with the fields "
                               f"{', '.join(missing)}", line)
    for name in metrics:
        value = record[name]
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value)):
            raise InputFormatError(path, number, f"a finite number or null in {name!r}", line)
    text_fields = ("source_key", "system", "text") if record["level"] == "segment" else ("system",)
    for name in text_fields:
        if not isinstance(record[name], str) or not record[name]:
            raise InputFormatError(path, number, f"a non-empty string in {name!r}", line)
    if record["level"] == "segment" and record["item"] is not None and not isinstance(record["item"], str):
        raise InputFormatError(path, number, "a string or null in 'item'", line)
    return record


def read_metric_scores(path: str | os.PathLike) -> MetricScores:
    """The scores file at ``path`` (plain or gzip), every line checked (module docstring)."""
    path = str(path)
    provenance: dict | None = None
    segments: list[dict] = []
    systems: dict[str, dict] = {}
    with open_text_maybe_gzip(path) as handle:
        for number, line in enumerate(handle, start=1):
            shown = line.rstrip("\n")
            try:
                value = json.loads(line, parse_constant=_refuse_constant)
            except (ValueError, RecursionError):
                raise InputFormatError(path, number, "one JSON object per line", shown) from None
            if number == 1:
                provenance = _check_provenance(path, value, shown)
                continue
            record = _check_record(path, number, value, list(provenance["metrics"]), shown)
            if record["level"] == "segment":
                segments.append({**record, "line": number})
            elif record["system"] in systems:
                raise InputFormatError(path, number, f"one system record per system ({record['system']!r} "
                                       f"is on line {systems[record['system']]['line']})", shown)
            else:
                systems[record["system"]] = {**record, "line": number}
    if provenance is None:
        raise InputFormatError(path, 1, "the provenance of parastudio metrics", "an empty file")
    return MetricScores(path, provenance, segments, systems)


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")
