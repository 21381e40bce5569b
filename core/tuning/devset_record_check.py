"""The field types of a dev-set record read back from a file (docs/devset.schema.json), checked where it is parsed.

A dev set may be edited by hand or written by another tool; tuning reads its
texts with ``.split()``, its spans as token offsets and its probabilities with
``log10``. :func:`record_problem` says which field breaks the schema's types
(and what it should be), so the reader can stop at ``file:line: expected ...``
instead of an ``AttributeError`` deep inside tuning. Fields tuning does not
read are not required; a field present must have its schema type.
"""

from __future__ import annotations

import json
import math
from typing import Any, Callable

Check = tuple[Callable[[Any], bool], str]  # (accepts the value, what it should be)


def _is_number(value) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        return False


def _whole(value) -> bool:
    return type(value) is int and value >= 0


def _or_null(check: Check) -> Check:
    accepts, what = check
    return (lambda value: value is None or accepts(value)), f"{what} or null"


def _one_of(*choices) -> Check:
    return (lambda value: isinstance(value, (str, type(None))) and value in choices), \
        "one of " + ", ".join(json.dumps(choice) for choice in choices)


STRING: Check = (lambda value: isinstance(value, str), "a string")
BOOLEAN: Check = (lambda value: isinstance(value, bool), "true or false")
NUMBER: Check = (_is_number, "a finite number")
WHOLE: Check = (_whole, "a whole number >= 0")
PROBABILITY: Check = (lambda value: _is_number(value) and 0 < value <= 1, "a probability in (0, 1]")
SPAN: Check = (lambda value: isinstance(value, list) and len(value) == 2 and all(_whole(x) for x in value)
               and value[0] <= value[1], "a token span [start, end] of whole numbers, start <= end")
STRINGS: Check = (lambda value: isinstance(value, list) and all(isinstance(x, str) for x in value),
                  "a list of strings")

# Per part of a record: field -> (check, required). Lists of objects are checked item by item.
LABEL = {"annotator": (STRING, True), "value": (STRING, True)}
SEGMENT = {"src": (SPAN, True), "tgt": (SPAN, True), "source": (STRING, True), "target": (STRING, True),
           "p": (_or_null(PROBABILITY), False), "identity": (BOOLEAN, True)}
REPLACEMENT = {"unit": (WHOLE, False), "segment": (WHOLE, False), "src": (SPAN, True), "tgt": (SPAN, False),
               "source": (STRING, True), "target": (STRING, True), "p": (_or_null(PROBABILITY), False),
               "label": (_one_of("correct", "incorrect", None), False), "labels": ([LABEL], False)}
JUDGMENT = {"criterion": (STRING, True), "label": (_or_null(STRING), False),
            "verdict": (_one_of("positive", "negative", "neither", None), False), "labels": ([LABEL], False)}
SYSTEM = {"system": (STRING, True), "rank": (_or_null(WHOLE), False), "model_score": (_or_null(NUMBER), False),
          "true_score": (_or_null(NUMBER), False), "params": (STRING, False)}
PROVENANCE = {"tables": (STRINGS, False), "lm": (_or_null(STRING), False), "params": (STRING, False)}
RECORD = {"id": (STRING, True), "study": (STRING, False), "item": (STRING, False), "sentence_id": (WHOLE, False),
          "source": (STRING, True), "candidate": (STRING, True), "references": (STRINGS, False),
          "system": (_or_null(STRING), False), "systems": ([SYSTEM], False), "provenance": (PROVENANCE, False),
          "model_score": (_or_null(NUMBER), False), "true_score": (_or_null(NUMBER), False),
          "derivation": ([SEGMENT], True), "replacements": ([REPLACEMENT], True), "judgments": ([JUDGMENT], True),
          "acceptable": (_or_null(BOOLEAN), False),
          "shown": ({"source": (STRING, True), "candidate": (STRING, True)}, False)}


def record_problem(record: Any) -> tuple[str, Any] | None:
    """``(what was expected, the value found)`` for the first field of ``record`` that breaks its type, else None."""
    return _object_problem(record, RECORD, "")


def _object_problem(value: Any, fields: dict, where: str) -> tuple[str, Any] | None:
    if not isinstance(value, dict):
        return f"{where or 'the record'} to be a JSON object", value
    for name, (check, required) in fields.items():
        path = f"{where}.{name}" if where else name
        if name not in value:
            if required:
                return f"a field {path}", None
            continue
        problem = _value_problem(value[name], check, path)
        if problem is not None:
            return problem
    return None


def _value_problem(value: Any, check, path: str) -> tuple[str, Any] | None:
    if isinstance(check, dict):
        return _object_problem(value, check, path)
    if isinstance(check, list):  # a list of objects of one shape
        if not isinstance(value, list):
            return f"{path} to be a list", value
        for index, item in enumerate(value):
            problem = _object_problem(item, check[0], f"{path}[{index}]")
            if problem is not None:
                return problem
        return None
    accepts, what = check
    return None if accepts(value) else (f"{path} to be {what}", value)
