"""The check every options object's fields get from their declared types, so no value reaches a search unless it
is of its field's kind and in its range (issue 39: a NaN or 1e30 stack size read from params reached the C++ beam).

A field's annotation says its kind:

* ``int``: a whole number (a bool, a float such as 2.0, NaN or 1e30, or text is refused), from 0 to
  :data:`LARGEST_COUNT` unless the field says otherwise (:func:`whole`);
* ``float``: a finite real number (a whole number is one too), within the field's bounds (:func:`real`; a margin
  may say that Infinity means "no limit");
* ``bool``: true or false (not 1 or 0); ``str``: text, one of the field's choices when it has some (:func:`one_of`);
  ``Literal[...]``: one of its values;
* ``tuple[float, ...]`` and ``tuple[float, float]``: a tuple of such reals (of that length), each within the
  field's per-item bounds when it gives them;
* ``X | None``: also nothing; a dataclass: an instance, whose own fields are checked the same way, named
  ``group.field``.

The error (:class:`OptionValueError`) names the field and says what it must be, in one line, so ``generate``
and ``reproduce`` (which names the line of the candidates file and the field of its params) can say it.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import types
import typing
from contextlib import contextmanager

from parastudio.core.errors import OptionsError

# Counts past this overflow the compiled searches' 64-bit products (the beam's nbest x nbest_factor); no run needs
# more stack, n-best entries or episodes than 2**31 - 1.
LARGEST_COUNT = 2**31 - 1


class OptionValueError(OptionsError):
    """One option's value is not of its kind or not in its range: ``{field} must be {requirement}, not {value}``."""

    def __init__(self, field: str, requirement: str, value: object):
        self.field, self.requirement, self.value = field, requirement, value
        super().__init__(f"{field} must be {requirement}, not {shown(value)}")

    def renamed(self, field: str) -> "OptionValueError":
        return OptionValueError(field, self.requirement, self.value)


def shown(value: object) -> str:
    """A value as a JSON reader wrote it (NaN, Infinity, null, true, "text"), cut short."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def whole(default, *, minimum: int | None = 0, maximum: int | None = LARGEST_COUNT):
    """A whole-number field with its bounds (``None``: none on that side)."""
    return dataclasses.field(default=default, metadata={"minimum": minimum, "maximum": maximum})


def real(default, *, minimum: float | None = None, maximum: float | None = None, above: float | None = None,
         described: str | None = None, items: tuple | None = None, no_limit: bool = False):
    """A real-number field (or tuple of them): its bounds, ``above`` an exclusive minimum; ``items``: one
    ``(minimum, maximum)`` per position of a tuple; ``described``: what to say instead of the bounds;
    ``no_limit``: Infinity is taken too (a margin that lets everything through)."""
    metadata = {"minimum": minimum, "maximum": maximum, "above": above, "described": described, "items": items,
                "no_limit": no_limit}
    return dataclasses.field(default=default, metadata=metadata)


def one_of(default, choices):
    """A text field that takes one of ``choices``."""
    return dataclasses.field(default=default, metadata={"choices": tuple(choices)})


def check_fields(options, prefix: str = "") -> None:
    """Raise :class:`OptionValueError` for the first field of dataclass ``options`` (then of its groups) whose
    value is not of its declared kind and range (module docstring)."""
    hints = _hints(type(options))
    groups = []
    for spec in dataclasses.fields(options):
        value, hint, name = getattr(options, spec.name), hints[spec.name], prefix + spec.name
        kind = _without_none(hint)
        if dataclasses.is_dataclass(kind) and isinstance(value, kind):
            groups.append((value, name))  # the run's own values first, then its groups'
        elif value is not None or kind is hint:
            _check_value(name, value, kind, spec.metadata)
    for value, name in groups:
        check_fields(value, name + ".")


@contextmanager
def within(group: str):
    """Errors raised inside name their field as ``group.field``."""
    try:
        yield
    except OptionValueError as error:
        raise error.renamed(f"{group}.{error.field}") from None


@functools.cache
def _hints(cls: type) -> dict:
    return typing.get_type_hints(cls)


def _without_none(hint):
    """``X`` for ``X | None``; ``hint`` itself otherwise."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        kinds = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if len(kinds) == 1:
            return kinds[0]
    return hint


def _check_value(name: str, value, kind, metadata) -> None:
    origin = typing.get_origin(kind)
    if kind is bool:
        if not isinstance(value, bool):
            raise OptionValueError(name, "true or false", value)
    elif kind is int:
        _check_whole(name, value, metadata)
    elif kind is float:
        _check_real(name, value, metadata.get("minimum"), metadata.get("maximum"), metadata.get("above"),
                    metadata.get("described"), metadata.get("no_limit", False))
    elif kind is str:
        _check_text(name, value, metadata.get("choices"))
    elif origin is typing.Literal:
        _check_text(name, value, typing.get_args(kind))
    elif origin is tuple:
        _check_reals(name, value, typing.get_args(kind), metadata)
    elif dataclasses.is_dataclass(kind):
        raise OptionValueError(name, f"an object of {', '.join(f.name for f in dataclasses.fields(kind))}", value)
    else:  # a kind this module does not know: a new field must be given one it knows
        raise TypeError(f"{name}: no check for fields of type {kind!r}")


def _check_whole(name: str, value, metadata) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionValueError(name, "a whole number", value)
    minimum, maximum = metadata.get("minimum", 0), metadata.get("maximum", LARGEST_COUNT)
    if minimum is not None and value < minimum:
        raise OptionValueError(name, f"at least {minimum}", value)
    if maximum is not None and value > maximum:
        raise OptionValueError(name, f"at most {maximum}", value)


def _check_real(name: str, value, minimum, maximum, above, described, no_limit: bool = False) -> None:
    try:
        finite = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    except OverflowError:  # a whole number past any float
        finite = False
    if not finite and not (no_limit and value == math.inf and not isinstance(value, bool)):
        raise OptionValueError(name, described or ("a number or Infinity" if no_limit else "a finite number"), value)
    if minimum is not None and value < minimum:
        raise OptionValueError(name, described or f"at least {minimum:g}", value)
    if above is not None and value <= above:
        raise OptionValueError(name, described or f"more than {above:g}", value)
    if maximum is not None and value > maximum:
        raise OptionValueError(name, described or f"at most {maximum:g}", value)


def _check_text(name: str, value, choices) -> None:
    if isinstance(value, str) and (not choices or value in choices):
        return
    if not choices:
        raise OptionValueError(name, "text", value)
    raise OptionValueError(name, " or ".join(choices) if len(choices) == 2 else "one of " + ", ".join(choices), value)


def _check_reals(name: str, value, arguments: tuple, metadata) -> None:
    counted = len(arguments) != 2 or arguments[1] is not Ellipsis
    described = metadata.get("described") or (f"a list of {len(arguments)} finite numbers" if counted
                                               else "a list of finite numbers")
    if not isinstance(value, tuple) or (counted and len(value) != len(arguments)):
        raise OptionValueError(name, described, value)
    bounds = metadata.get("items") or ((metadata.get("minimum"), metadata.get("maximum")),) * len(value)
    for index, (item, (minimum, maximum)) in enumerate(zip(value, bounds)):
        _check_real(f"{name}[{index}]", item, minimum, maximum, None, None)
