"""A dev-set record read back from a file checked against its schema, ``devset.schema.json``, with ``jsonschema``.

The schema is shipped beside this module (``core/tuning/devset.schema.json``, package data, so an installed wheel
reads it); ``docs/devset.schema.json`` is the same bytes (``tests/test_devset_record_check.py``). A dev set may be
edited by hand or written by another tool; tuning reads its texts with ``.split()``, its spans as token offsets
and its probabilities with ``log10``, so :func:`record_problem` names the first field that breaks the schema (by
jsonschema's path, ``replacements[0].p``) and what it should be, and the reader stops at
``file:line: expected ...`` instead of an ``AttributeError`` deep inside tuning.

A record read back needs only the fields tuning reads: the schema says which beside each ``required`` (what
``export-devset`` writes) as ``x-tuning-reads``, and the reader's schema is the schema with each ``required``
replaced by it. A field present must have its schema type and range, and a field the schema does not know is
refused.

JSON Schema cannot say two things tuning needs, checked after it: every number finite (Python's JSON reader
takes ``NaN`` and ``Infinity``), and a span's start not after its end.
"""

from __future__ import annotations

import functools
import json
import math
from importlib import resources
from typing import Any

SCHEMA_FILE = "devset.schema.json"


@functools.cache
def schema() -> dict:
    return json.loads(resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8"))


def reader_schema() -> dict:
    """The schema a record read back is checked against: each ``required`` replaced by its ``x-tuning-reads``."""
    return _relaxed(schema())


def _relaxed(node: Any) -> Any:
    if isinstance(node, list):
        return [_relaxed(item) for item in node]
    if not isinstance(node, dict):
        return node
    relaxed = {key: _relaxed(value) for key, value in node.items() if key not in ("required", "x-tuning-reads")}
    if "x-tuning-reads" in node:
        relaxed["required"] = list(node["x-tuning-reads"])
    return relaxed


@functools.cache
def _validator():
    from jsonschema import Draft202012Validator

    return Draft202012Validator(reader_schema())


def record_problem(record: Any) -> tuple[str, Any] | None:
    """``(what was expected, the value found)`` for the first field of ``record`` that breaks the schema (the
    value None for a missing field), else None."""
    from jsonschema.exceptions import best_match

    error = best_match(_validator().iter_errors(record))
    if error is not None:
        return _expected(error), (None if error.validator == "required" else error.instance)
    return _beyond_the_schema(record, "")


def field_path(path) -> str:
    """jsonschema's path (``deque(["replacements", 0, "p"])``) as ``replacements[0].p``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _expected(error) -> str:
    where = field_path(error.absolute_path)
    subject = where or "the record"
    keyword, value = error.validator, error.validator_value
    if keyword == "required":
        missing = next((name for name in value if isinstance(error.instance, dict) and name not in error.instance),
                       value[0])
        return f"a field {where + '.' if where else ''}{missing}"
    if keyword == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        extra = sorted(name for name in error.instance if name not in known)
        return f"no field {where + '.' if where else ''}{extra[0]} (not in the schema)"
    if keyword == "type":
        kinds = [value] if isinstance(value, str) else list(value)
        return f"{subject} to be " + " or ".join(_KIND.get(kind, kind) for kind in kinds)
    if keyword == "enum":
        return f"{subject} to be one of " + ", ".join(json.dumps(choice) for choice in value)
    if keyword == "minimum":
        return f"{subject} to be at least {value}"
    if keyword == "exclusiveMinimum":
        return f"{subject} to be more than {value}"
    if keyword == "maximum":
        return f"{subject} to be at most {value}"
    if keyword in ("minItems", "maxItems"):
        return f"{subject} to have {'at least' if keyword == 'minItems' else 'at most'} {value} items"
    return f"{subject} to satisfy the schema's {keyword} {json.dumps(value)}"


_KIND = {"string": "a string", "integer": "a whole number", "number": "a number", "boolean": "true or false",
         "null": "null", "array": "a list", "object": "an object"}


def _beyond_the_schema(value: Any, where: str) -> tuple[str, Any] | None:
    if isinstance(value, float) and not math.isfinite(value):
        return f"{where} to be a finite number", value
    if isinstance(value, dict):
        for name, item in value.items():
            path = f"{where}.{name}" if where else name
            if name in ("src", "tgt") and isinstance(item, list) and len(item) == 2 and item[0] > item[1]:
                return f"{path} to be a token span [start, end] with start <= end", item
            found = _beyond_the_schema(item, path)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _beyond_the_schema(item, f"{where}[{index}]")
            if found is not None:
                return found
    return None
