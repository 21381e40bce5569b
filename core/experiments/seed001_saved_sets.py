"""The sets a ``seed001-approaches --save-sets`` run wrote, read back by ``--from-sets``: gzipped JSON, not a pickle.

A pickle runs code while it loads, so a file someone hands over could run anything; JSON only ever gives
values. Tuples, cases and case results are tagged objects (``{"tuple": [...]}``, ``{"case": {...}}``,
``{"case_result": {...}}``) so the sets come back exactly as run: JSON's floats round-trip every bit.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

from core.engine.cat.autoeval import Case, CaseResult
from core.errors import InputFormatError
from core.textio import atomic_output

_EXPECTED = "a file written by seed001-approaches --save-sets"
_FORMAT = "parastudio seed001-approaches sets 1"
_TAGS = {"tuple": tuple, "case": Case, "case_result": CaseResult}


def _tagged(value):
    if isinstance(value, Case | CaseResult):
        tag = "case" if isinstance(value, Case) else "case_result"
        return {tag: {field.name: _tagged(getattr(value, field.name)) for field in dataclasses.fields(value)}}
    if isinstance(value, tuple):
        return {"tuple": [_tagged(item) for item in value]}
    if isinstance(value, list):
        return [_tagged(item) for item in value]
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise TypeError("a set's mapping keys must be strings to be saved")
        if len(value) == 1 and next(iter(value)) in _TAGS:  # would read back as a tagged object
            raise TypeError(f"a set's mapping with the single key {next(iter(value))!r} cannot be saved")
        return {key: _tagged(item) for key, item in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise TypeError(f"a set holds a {type(value).__name__}, which is not saved")


def _untagged(obj: dict):
    if len(obj) == 1:
        (tag, body), = obj.items()
        if tag == "tuple" and isinstance(body, list):
            return tuple(body)
        if tag in ("case", "case_result") and isinstance(body, dict):
            return _TAGS[tag](**body)  # a missing or unknown field: TypeError, reported as the file's fault
    return obj


def save_sets(sets: list[dict], path: Path) -> None:
    """The sets as run (every case's result), for ``--from-sets`` to write one file from several runs."""
    text = json.dumps({"format": _FORMAT, "sets": _tagged(sets)}, ensure_ascii=False, allow_nan=False)
    with atomic_output(path, "wb", encoding=None) as handle:
        handle.write(gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0))


def load_sets(path: Path) -> list[dict]:
    """The sets a ``--save-sets`` run wrote; anything else is ``FILE:1: expected ...``."""
    try:
        saved = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"), object_hook=_untagged)
    except (OSError, EOFError, ValueError, TypeError, RecursionError) as error:
        raise InputFormatError(path, 1, _EXPECTED, type(error).__name__) from None
    sets = saved.get("sets") if isinstance(saved, dict) and saved.get("format") == _FORMAT else None
    if not (isinstance(sets, list) and all(isinstance(s, dict) and {"name", "results", "command"} <= set(s)
                                           for s in sets)):
        raise InputFormatError(path, 1, _EXPECTED, "no saved sets")
    return sets
