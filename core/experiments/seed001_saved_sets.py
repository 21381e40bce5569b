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

from parastudio.core.engine.decoders.cat.autoeval import Case, CaseResult
from parastudio.core.errors import InputFormatError
from parastudio.core.textio import atomic_output

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
    if not isinstance(sets, list) or not sets:
        raise InputFormatError(path, 1, _EXPECTED, "no saved sets")
    for number, saved_set in enumerate(sets, 1):
        problem = _problem(saved_set)
        if problem:
            raise InputFormatError(path, 1, _EXPECTED, f"set {number}: {problem}")
    return sets


def _results(value) -> bool:
    """Per approach, a list of case results."""
    return isinstance(value, dict) and all(isinstance(rows, list) and all(isinstance(r, CaseResult) for r in rows)
                                           for rows in value.values())


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_FIELDS = {  # what a run saves, and what each must be for the report to read it
    "name": lambda v: isinstance(v, str), "command": lambda v: isinstance(v, str),
    "cases_file": lambda v: isinstance(v, str), "graph": lambda v: isinstance(v, str),
    "cases": lambda v: isinstance(v, list) and all(isinstance(c, Case) for c in v),
    "results": _results, "feedback": _results,
    "readings": lambda v: isinstance(v, dict) and all(_results(r) for r in v.values()),
    "seconds": lambda v: isinstance(v, dict) and all(_number(x) for x in v.values()),
    "spellable": lambda v: v is None or (isinstance(v, dict) and all(isinstance(x, bool) for x in v.values())),
    "elapsed": _number,
}


def _problem(saved_set) -> str | None:
    """What is wrong with one saved set, or None."""
    if not isinstance(saved_set, dict):
        return "not an object"
    missing = [name for name in _FIELDS if name not in saved_set]
    if missing:
        return f"no {', '.join(missing)}"
    wrong = [name for name, fits in _FIELDS.items() if not fits(saved_set[name])]
    return f"{', '.join(wrong)} not as a run writes them" if wrong else None
