"""Every option recorded in a candidate's params is checked, by kind and range, before anything runs (issue 39,
held-out family "reproduce params": a NaN or 1e30 stack size reached the C++ beam, ``alpha_lm: Infinity`` ran).

The fields are read from the options dataclasses themselves (their annotations and declared bounds), and where
each one sits in the params from ``to_json`` (a marker set in the field is looked for in the JSON), so a field
added later is tested without a line here. The candidates are the bundled demo's (evaldata/demo), one sentence.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import types
import typing

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.engine.candidates.generation_options import OPTIONS_OF_SYSTEM, options_for, options_from_json
from parastudio.core.engine.candidates.reproduction import read_runs
from parastudio.core.errors import OptionsError

DEMO = ROOT / "evaldata" / "demo"
pytestmark = pytest.mark.skipif(not (DEMO / "candidates.jsonl").is_file(), reason="evaldata/demo is not built")
MARKER = "\N{SECTION SIGN}marker"
HUGE = "__1e400__"  # written as the JSON number 1e400, which a reader takes as Infinity


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def demo_lines() -> list[dict]:
    """The demo's candidates of its first sentence, their input paths made absolute (the demo stays unwritten)."""
    lines = [json.loads(text) for text in (DEMO / "candidates.jsonl").read_text(encoding="utf-8").splitlines()]
    chosen = [line for line in lines if line["sentence_id"] == lines[0]["sentence_id"]]
    for line in chosen:
        inputs = line["params"]["inputs"]
        for fingerprint in [*inputs["tables"], inputs["lm"]]:
            fingerprint["path"] = str(DEMO / fingerprint["path"])
    return chosen


def leaves(options, prefix: str = ""):
    """(object path, declared kind, declaration) of every field that is not itself a group of fields."""
    hints = typing.get_type_hints(type(options))
    for spec in dataclasses.fields(options):
        value = getattr(options, spec.name)
        if dataclasses.is_dataclass(value):
            yield from leaves(value, f"{prefix}{spec.name}.")
        else:
            yield prefix + spec.name, hints[spec.name], spec.metadata


def with_value(options, path: str, value):
    """A copy of ``options`` holding ``value`` at ``path``, made without any check (only to read its JSON)."""
    head, _, rest = path.partition(".")
    changed = copy.copy(options)
    object.__setattr__(changed, head, with_value(getattr(options, head), rest, value) if rest else value)
    return changed


def params_place(options, path: str) -> str | None:
    """Where ``to_json`` writes the field at ``path`` (``decoder.alpha_lm`` for ``weights.lm``); None: nowhere."""
    kind = leaf_kind(options, path)
    marker = (MARKER,) if typing.get_origin(kind) is tuple else MARKER

    def find(value, where):
        if value == MARKER or value in ([MARKER], (MARKER,)):
            return where
        items = value.items() if isinstance(value, dict) else ()
        return next((found for key, item in items if (found := find(item, f"{where}.{key}".lstrip(".")))), None)

    return find(with_value(options, path, marker).to_json(), "")


def leaf_kind(options, path: str):
    return next(kind for name, kind, _ in leaves(options) if name == path)


def optional(kind) -> tuple[bool, object]:
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        kinds = [arg for arg in typing.get_args(kind) if arg is not type(None)]
        return True, kinds[0]
    return False, kind


def bad_values(name: str, kind, declared) -> list:
    """Values no field of this kind and declaration takes (JSON values, ``HUGE`` for 1e400)."""
    nullable, kind = optional(kind)
    bad = [] if nullable else [None]
    if kind is int:
        bad += [math.nan, math.inf, 1e30, HUGE, 2.5, "200", True, [1]]
        if declared.get("minimum", 0) is not None:
            bad.append(declared.get("minimum", 0) - 1)
        if declared.get("maximum", 1) is not None:
            bad.append(10**30)
    elif kind is float:
        bad += [math.nan, -math.inf, "0.5", True, {}]
        if not declared.get("no_limit"):
            bad += [math.inf, HUGE]
        bad += [declared[key] - 1 for key in ("minimum",) if declared.get(key) is not None]
        bad += [declared[key] + 1 for key in ("maximum",) if declared.get(key) is not None]
        bad += [declared[key] for key in ("above",) if declared.get(key) is not None]
    elif kind is bool:
        bad += [1, 0, "true"]
    elif kind is str or typing.get_origin(kind) is typing.Literal:
        bad += [7, True, ["beam"]]
        if typing.get_origin(kind) is typing.Literal or declared.get("choices") or name == "system":
            bad.append("teleport")
    elif typing.get_origin(kind) is tuple:
        bad += ["text", 5, True, [math.nan, 0.5], [[1.0], 0.5]]
        if typing.get_args(kind)[-1] is not Ellipsis:
            bad.append([0.5])
    else:
        raise AssertionError(f"{name}: a field of a kind this test does not know ({kind!r}): give it bad values")
    return bad


def recorded_fields() -> list[tuple]:
    """(system, object path, params place, bad values) of every option each system records in its params."""
    found = []
    for system in OPTIONS_OF_SYSTEM:
        options = options_for(system)
        for name, kind, declared in leaves(options):
            place = params_place(options, name)
            if place is not None:  # not recorded apart (MCPG's search_options.episodes_per_step: the top-level one)
                found.append((system, name, place, bad_values(name, kind, declared)))
    return found


RECORDED = recorded_fields()


def cases(*, with_system: bool = True):
    return [pytest.param(*case, id=f"{case[0]}-{case[2]}") for case in RECORDED if with_system or case[1] != "system"]


def candidates_file(path, lines, system: str, place: str | None = None, value=None):
    """``lines`` with the params of ``system``'s default options (inputs and code as recorded), ``value`` at
    ``place`` when given."""
    params = options_for(system).to_json()
    if place is not None:
        *groups, key = place.split(".")
        target = params
        for group in groups:
            target = target[group]
        target[key] = value
    written = []
    for line in lines:
        recorded = line["params"]
        written.append(json.dumps({**line, "system": system,
                                   "params": {**params, **{key: recorded[key] for key in
                                                           ("inputs", "version", "commit")}}}))
    path.write_text("\n".join(written).replace(json.dumps(HUGE), "1e400") + "\n", encoding="utf-8")
    return path


def test_good_params_still_reproduce_identically(tmp_path, capsys):
    lines = demo_lines()
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert main(["reproduce", str(good), "--processes", "1"]) == 0
    assert "1 identical, 0 different" in capsys.readouterr().out


@pytest.mark.parametrize("system", list(OPTIONS_OF_SYSTEM))
def test_each_systems_default_params_are_read_back_as_its_options(tmp_path, system):
    """The control of the cases below: the file they change is accepted as it is."""
    path = candidates_file(tmp_path / "default.jsonl", demo_lines(), system)
    run, = read_runs(path)
    assert run.options == options_for(system)


def test_every_kind_of_field_is_covered():
    """The cases below reach the groups too: a field moved under another name is still found in the params."""
    places = {place for _, _, place, _ in RECORDED}
    assert {"decoder.stack_size", "decoder.alpha_lm", "nbest", "table_loading.format", "weights.lambda_k",
            "search_options.widening", "seed"} <= places


@pytest.mark.parametrize("system, name, place, values", cases())
def test_a_bad_value_in_any_recorded_option_is_refused_with_its_line_and_field(tmp_path, capsys, system, name,
                                                                               place, values):
    lines = demo_lines()
    for number, value in enumerate(values):
        path = candidates_file(tmp_path / f"bad-{number}.jsonl", lines, system, place, value)
        status = main(["reproduce", str(path), "--processes", "1"])
        out, err = capsys.readouterr()
        said = err.splitlines()
        assert status == 2, (place, value, out, err)
        assert len(said) == 1 and "Traceback" not in err, (place, value, err)
        assert said[0].startswith(f"parastudio: error: {path}:1: expected params this code can run: "), said
        assert place in said[0] or (place == "system" and "unknown system" in said[0]), said
        assert "sentence" not in out  # nothing was run


@pytest.mark.parametrize("system, group, value, named", [
    ("beam", "decoder", 5, "decoder must be an object"), ("mcpg-true", "search_options", None,
                                                          "search_options must be an object"),
    ("beam", "decoder", {"distortion_limit": 6}, "decoder.distortion_limit is not an option this code knows"),
    ("spg-compression", "weights", {"lambda_x": 1.0}, "weights.lambda_x is not an option this code knows"),
    ("mcpg-translator", "table_loading", {"binary": True}, "table_loading.binary is not an option this code knows"),
])
def test_a_group_that_is_not_an_object_or_holds_an_unknown_option_is_refused(tmp_path, capsys, system, group, value,
                                                                              named):
    """An option this code does not know could change the output: refused, not ignored."""
    params = options_for(system).to_json()
    changed = {**params[group], **value} if isinstance(value, dict) else value
    path = candidates_file(tmp_path / "group.jsonl", demo_lines(), system, group, changed)
    assert main(["reproduce", str(path), "--processes", "1"]) == 2
    assert capsys.readouterr().err == f"parastudio: error: {path}:1: expected params this code can run: {named}" + (
        "" if "not an option" in named else f", not {json.dumps(value)}") + "\n"


@pytest.mark.parametrize("system, name, place, values", cases(with_system=False))
def test_the_same_check_guards_the_options_generate_builds(system, name, place, values):
    """``options_for`` (the CLI, the app, a notebook) refuses what reproduce refuses, naming the option."""
    group, _, leaf = name.rpartition(".")
    for value in values:
        value = math.inf if value == HUGE else value
        with pytest.raises(OptionsError) as refused:
            if not group:
                options_for(system, **{name: value})
            else:
                default = getattr(options_for(system), group)
                extra = {"profile": "custom"} if group == "search_options" else {}
                options_for(system, **{group: dataclasses.replace(default, **{leaf: value})}, **extra)
        assert str(refused.value).startswith((name, leaf)), (name, value, str(refused.value))


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                           max_size=2),
                           max_leaves=4)
PLACES = [(system, name, place) for system, name, place, _ in RECORDED]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PLACES), JSON_VALUES)
def test_any_json_value_anywhere_is_taken_as_its_kind_or_refused_by_name(where, value):
    """Open-ended values: read back as a value of the field's declared kind, or refused with the field named."""
    system, name, place = where
    default = options_for(system)
    nullable, kind = optional(leaf_kind(default, name))
    params = options_for(system).to_json()
    if place.startswith("search_options."):
        params["profile"] = "custom"  # the profile's own mix may not be changed (test_generation_options)
    *groups, key = place.split(".")
    target = params
    for group in groups:
        target = target[group]
    assume(target[key] != value)
    target[key] = value
    try:
        options = options_from_json(params)
    except OptionsError as error:
        assert place in str(error) or (place == "system" and "unknown system" in str(error)), str(error)
        return
    taken = _read(options, name)
    if taken is None:
        assert nullable
    elif kind is bool or kind is int:
        assert type(taken) is kind
    elif kind is float:
        assert type(taken) in (int, float) and not math.isnan(taken) and taken != -math.inf
    elif typing.get_origin(kind) is tuple:
        assert isinstance(taken, tuple) and all(type(item) in (int, float) and math.isfinite(item)
                                                for item in taken)
    else:
        assert isinstance(taken, str)


def _read(options, name: str):
    for part in name.split("."):
        options = getattr(options, part)
    return options
