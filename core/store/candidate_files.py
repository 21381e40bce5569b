"""Candidate files read for a study: ``parastudio generate --json`` lines, CSV/TSV tables, sources, choice tasks.

Every field is checked where it is read, and a bad one stops the read with
``file:line: expected ...`` (issue 18): ids are strings or integers, texts are
strings, a rank is an integer >= 1, ``model_score`` and ``true_score`` are
finite numbers (log10 scores: any sign, since weights and the word penalty
move them), and a derivation is a list of segments
``{"src": [i, j], "tgt": [k, l], "source", "target", "p", "identity"}``
(:meth:`core.engine.model.derivation.Segment.to_json`) whose target spans tile the
candidate's tokens left to right, each ``target`` the very tokens it spans,
whose source spans tile the source the same way, and whose ``p`` is a
probability in (0, 1]. The source side is checked once the source is known:
here when the record carries it, else by :func:`derivation_problem` at import.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Any, Iterator

from parastudio.core.errors import InputFormatError
from parastudio.core.textio import open_text_maybe_gzip, read_csv

MAX_STORED_INTEGER = 2**63 - 1  # SQLite's and PostgreSQL's BIGINT


@dataclass
class CandidateRow:
    """One candidate as read from an import file."""

    sentence_id: str
    text: str
    system: str
    source: str | None = None
    rank: int | None = None
    model_score: float | None = None
    true_score: float | None = None
    derivation: Any = None
    params: dict | None = None
    references: list | None = None
    line: int = 0


def _tiles(spans: list[tuple[int, int]], tokens: list[str], texts: list[Any], side: str) -> str | None:
    """Why ``spans`` (with their ``texts``) do not tile ``tokens`` left to right, or None."""
    position = 0
    for (start, end), text in zip(spans, texts):
        if start != position or end < start:
            return f"{side} spans that follow each other from token 0 (a span starts at {start}, not {position})"
        if end > len(tokens):
            return f"{side} spans inside the {len(tokens)} tokens of the {side} (a span ends at {end})"
        if text != " ".join(tokens[start:end]):
            return f"the {side} of each segment to be the tokens it spans ({' '.join(tokens[start:end])!r})"
        position = end
    if position != len(tokens):
        return f"segments covering all {len(tokens)} tokens of the {side} (they stop at {position})"
    return None


def _span(value: Any) -> tuple[int, int] | None:
    if (isinstance(value, list) and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)):
        return value[0], value[1]
    return None


def derivation_problem(derivation: Any, text: str, source: str | None) -> str | None:
    """What is wrong with a derivation of ``text`` from ``source`` (None: nothing; see the module docstring)."""
    if derivation is None:
        return None
    shape = 'a derivation: a list of {"src": [i, j], "tgt": [k, l], "source", "target", "p", "identity"}'
    if not isinstance(derivation, list):
        return shape
    src_spans, tgt_spans, sources, targets = [], [], [], []
    for segment in derivation:
        if not isinstance(segment, dict):
            return shape
        src, tgt = _span(segment.get("src")), _span(segment.get("tgt"))
        if src is None or tgt is None or not isinstance(segment.get("source"), str) \
                or not isinstance(segment.get("target"), str):
            return shape
        probability = segment.get("p", 1.0)
        if isinstance(probability, bool) or not isinstance(probability, (int, float)) \
                or not 0.0 < probability <= 1.0:
            return "a derivation whose segments' p are probabilities in (0, 1]"
        if not isinstance(segment.get("identity", False), bool):
            return "a derivation whose segments' identity is true or false"
        src_spans.append(src)
        tgt_spans.append(tgt)
        sources.append(segment["source"])
        targets.append(segment["target"])
    problem = _tiles(tgt_spans, text.split(), targets, "candidate")
    if problem is None and source is not None:
        problem = _tiles(src_spans, source.split(), sources, "source")
    return problem and f"a derivation with {problem}"


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _record_problem(record: dict) -> str | None:
    """What is wrong with one ``generate --json`` record (None: nothing)."""
    missing = [k for k in ("sentence_id", "system", "text") if k not in record]
    if missing:
        return f"fields {', '.join(missing)}"
    sentence_id = record["sentence_id"]
    if isinstance(sentence_id, bool) or not isinstance(sentence_id, (int, str)) or str(sentence_id).strip() == "":
        return "a sentence_id that is an integer or a non-empty string"
    if not isinstance(record["system"], str) or not record["system"].strip():
        return "a system name (a non-empty string)"
    if not isinstance(record["text"], str):
        return "a candidate text that is a string"
    for name in ("source",):
        if record.get(name) is not None and not isinstance(record[name], str):
            return f"a {name} that is a string"
    references = record.get("references")
    if references is not None and not (isinstance(references, list) and all(isinstance(r, str) for r in references)):
        return "references as a list of strings"
    rank = record.get("rank")
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or not 1 <= rank <= MAX_STORED_INTEGER):
        return f"a rank that is an integer >= 1 (and at most {MAX_STORED_INTEGER:,}, the largest the study stores)"
    for name in ("model_score", "true_score"):
        if record.get(name) is not None and not _finite(record[name]):
            return f"a {name} that is a finite number (a log10 score)"
    if record.get("params") is not None and not isinstance(record["params"], dict):
        return "params as a JSON object"
    return derivation_problem(record.get("derivation"), record["text"], record.get("source"))


def _reject_constant(name: str):
    raise ValueError(name)


def _finite_float(text: str) -> float:
    """A JSON number as a float; one past a double's range (``1e309``) reads as infinity, which is refused."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def read_candidates_jsonl(path: str | os.PathLike) -> Iterator[CandidateRow]:
    """Lines of ``parastudio generate --json``: {"sentence_id", "system", "rank",
    "text", "model_score", "true_score", "derivation", "params"}; an optional
    "source" (and "references") carries the source sentence itself."""
    with open_text_maybe_gzip(path) as handle:
        for line in handle:
            number = handle.line_number
            if not line.strip():
                continue
            try:
                # NaN and Infinity are not JSON (RFC 8259), though Python writes and reads them.
                record = json.loads(line, parse_constant=_reject_constant, parse_float=_finite_float)
            except (ValueError, RecursionError):
                raise InputFormatError(path, number, "a JSON object (no NaN or Infinity)", line.strip()) from None
            if not isinstance(record, dict):
                raise InputFormatError(path, number, "a JSON object", line.strip())
            problem = _record_problem(record)
            if problem:
                raise InputFormatError(path, number, problem, line.strip())
            yield CandidateRow(
                sentence_id=str(record["sentence_id"]), text=record["text"], system=record["system"],
                source=record.get("source"), rank=record.get("rank"), model_score=record.get("model_score"),
                true_score=record.get("true_score"), derivation=record.get("derivation"),
                params=record.get("params"), references=record.get("references"), line=number)


def read_candidates_table(path: str | os.PathLike, delimiter: str) -> Iterator[CandidateRow]:
    """A CSV/TSV with header columns item, source, candidate, system (item is the sentence id)."""
    needed = ("item", "source", "candidate", "system")
    rows = read_csv(path, delimiter=delimiter)
    number, header = next(rows, (1, None))
    if header is None or any(column not in [h.strip() for h in header] for column in needed):
        raise InputFormatError(path, number, f"a header with columns {', '.join(needed)}",
                               delimiter.join(header or []))
    columns = {name.strip(): index for index, name in enumerate(header)}
    for number, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputFormatError(path, number, f"{len(header)} columns", delimiter.join(row))
        if not row[columns["item"]].strip() or not row[columns["system"]].strip():
            raise InputFormatError(path, number, "a non-empty item and system", delimiter.join(row))
        references = None
        if "references" in columns and row[columns["references"]].strip():
            references = [r for r in row[columns["references"]].split(" ||| ")]
        yield CandidateRow(sentence_id=row[columns["item"]].strip(), source=row[columns["source"]],
                           text=row[columns["candidate"]], system=row[columns["system"]].strip(),
                           references=references, line=number)


def read_candidates(path: str | os.PathLike, file_format: str | None = None) -> Iterator[CandidateRow]:
    name = str(path).lower().removesuffix(".gz")
    file_format = file_format or ("csv" if name.endswith(".csv") else "tsv" if name.endswith((".tsv", ".txt"))
                                  else "jsonl")
    if file_format == "jsonl":
        return read_candidates_jsonl(path)
    if file_format in ("csv", "tsv"):
        return read_candidates_table(path, "," if file_format == "csv" else "\t")
    raise ValueError(f"unknown candidate format {file_format!r}; expected jsonl, csv or tsv")


def read_sources(path: str | os.PathLike, id_base: int = 0) -> dict[str, str]:
    """Source sentences one per line; the sentence id is the line index counted from ``id_base``."""
    with open_text_maybe_gzip(path) as handle:
        return {str(index): line.rstrip("\n") for index, line in enumerate(handle, id_base)}


def read_choice_tasks(path: str | os.PathLike) -> Iterator[dict]:
    """Choice tasks, one JSON object a line (seed 001 §4.2); each gets its ``line`` for error messages."""
    with open_text_maybe_gzip(path) as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                task = json.loads(line, parse_constant=_reject_constant, parse_float=_finite_float)
            except (ValueError, RecursionError):
                raise InputFormatError(path, handle.line_number, "a JSON object", line.strip()) from None
            if not isinstance(task, dict):
                raise InputFormatError(path, handle.line_number, "a JSON object", line.strip())
            yield {**task, "line": handle.line_number}
