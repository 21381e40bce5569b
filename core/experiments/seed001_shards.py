"""One seed 001 set run in shards (``seed001-approaches --shard I/N``) and joined again by ``--from-sets``.

At the thesis's graph size a set's 31 runs take hours; a shard is a share of the set's sentences (sentence id
modulo N, so a sentence's cases stay together and its graph is read by one shard), run and saved on its own, so
the work survives a stopped machine and spreads over sessions. Joining puts every case back at its place in the
cases file: the joined set's cases, results and per-case records are the ones one run over the whole set gives
(each request's time aside, measured where it ran), which ``tests/test_seed001_shards.py`` checks.
"""

from __future__ import annotations

import re
from pathlib import Path

from parastudio.core.errors import InputFormatError

_EXPECTED = "every shard of a set, each saved once, from the same inputs"


def parse_shard(text: str) -> tuple[int, int]:
    """``I/N`` with 0 <= I < N."""
    match = re.fullmatch(r"(\d+)/(\d+)", text, re.ASCII)  # as typed: no "１/２", no space around it
    if not match or not int(match[1]) < int(match[2]):
        raise ValueError(f"expected I/N with 0 <= I < N, got {text!r}")
    return int(match[1]), int(match[2])


def shard_positions(sentence_ids: list[int], shard: tuple[int, int]) -> list[int]:
    """The places (in the cases file, after ``--limit``) of the cases whose sentence falls in ``shard``."""
    index, count = shard
    return [place for place, sentence in enumerate(sentence_ids) if sentence % count == index]


def _in_place(pieces: list[tuple[list[int], list]]) -> list:
    """Items of each shard, each at its place in the whole set."""
    placed = sorted((place, n, item) for n, (places, items) in enumerate(pieces) for place, item in zip(places, items))
    return [item for _, _, item in placed]


def _same_inputs(shards: list[dict]) -> bool:
    def digests(result: dict) -> tuple:
        inputs = result.get("inputs") or {}
        return tuple((inputs.get(key) or {}).get("sha256") for key in ("cases", "graph", "lm", "table"))

    return len({digests(result) for result in shards}) == 1


def _joined_command(commands: list[str], count: int) -> str:
    """The shards' command once, with ``--shard I/N for I = 0 to N-1`` (a single shard's command as it ran)."""
    first = commands[0]
    mark = f"--shard 0/{count}"
    if count == 1 or mark not in first:
        return first
    return first.replace(mark, f"--shard I/{count}") + f" for I = 0 to {count - 1}"


def join_shards(sets: list[dict], source: Path) -> list[dict]:
    """``sets`` with each sharded set's N shards joined into one, at the place of its first shard; a set with a
    shard missing, given twice or run on other inputs is ``source:1: expected ...``."""
    groups: dict[str, list[dict]] = {}
    for result in sets:
        if "shard" in result:
            groups.setdefault(result["name"], []).append(result)
    joined: list[dict] = []
    done: set[str] = set()
    for result in sets:
        if "shard" not in result:
            joined.append(result)
            continue
        name = result["name"]
        if name in done:
            continue
        done.add(name)
        shards = groups[name]
        if not all(_shard_record(r["shard"]) for r in shards):
            raise InputFormatError(source, 1, _EXPECTED, f"set {name!r}: a shard record not as a run writes it")
        shards.sort(key=lambda r: r["shard"]["index"])
        count = shards[0]["shard"]["of"]
        indices = [r["shard"]["index"] for r in shards]
        if indices != list(range(count)) or any(r["shard"]["of"] != count for r in shards):
            raise InputFormatError(source, 1, _EXPECTED, f"set {name!r} with shards {indices} of {count}")
        if not _same_inputs(shards):
            raise InputFormatError(source, 1, _EXPECTED, f"set {name!r} with shards run on different files")
        problem = next(filter(None, map(_shard_problem, shards)), None) or _cover_problem(shards)
        if problem:
            raise InputFormatError(source, 1, _EXPECTED, f"set {name!r}: {problem}")
        joined.append(_join(shards, count))
    return joined


def _shard_record(shard) -> bool:
    def whole(value) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    return (isinstance(shard, dict) and whole(shard.get("index")) and whole(shard.get("of"))
            and 0 <= shard["index"] < shard["of"] and isinstance(shard.get("positions"), list)
            and all(whole(place) and place >= 0 for place in shard["positions"]))


def _buckets(result: dict) -> list[dict]:
    return [result["results"], result["feedback"], *result["readings"].values()]


def _shard_problem(result: dict) -> str | None:
    size = len(result["shard"]["positions"])
    if len(result["cases"]) != size or any(len(rows) != size for bucket in _buckets(result) for rows in bucket.values()):
        return f"shard {result['shard']['index']} holds other numbers of places, cases and results"
    return None


def _cover_problem(shards: list[dict]) -> str | None:
    """Whether the shards hold each place of the set once, and the same approaches and readings."""
    places = sorted(place for r in shards for place in r["shard"]["positions"])
    if places != list(range(len(places))):
        return "shards whose places do not cover the set once"
    shape = [(list(r["readings"]), [sorted(bucket) for bucket in _buckets(r)], sorted(r["seconds"])) for r in shards]
    if any(other != shape[0] for other in shape):
        return "shards run with other approaches"
    return None


def _join(shards: list[dict], count: int) -> dict:
    places = [r["shard"]["positions"] for r in shards]

    def placed(per_shard: list[list]) -> list:
        return _in_place(list(zip(places, per_shard)))

    def per_approach(bucket: list[dict]) -> dict:
        return {name: placed([b[name] for b in bucket]) for name in bucket[0]}

    first = shards[0]
    codes = [r.get("code") for r in shards]
    joined = {**first}
    del joined["shard"]
    cases = placed([r["cases"] for r in shards])
    joined.update(
        cases=cases,
        results=per_approach([r["results"] for r in shards]),
        feedback=per_approach([r["feedback"] for r in shards]),
        readings={reading: per_approach([r["readings"][reading] for r in shards]) for reading in first["readings"]},
        seconds={label: sum(r["seconds"][label] for r in shards) for label in first["seconds"]},
        spellable=_spellable(shards, cases),
        elapsed=sum(r["elapsed"] for r in shards),
        command=_joined_command([r["command"] for r in shards], count),
        shards={"of": count, "commands": [r["command"] for r in shards],
                "elapsed": [r["elapsed"] for r in shards]},
        code=codes[0] if all(code == codes[0] for code in codes) else {"shards": codes},
    )
    return joined


def _spellable(shards: list[dict], cases: list) -> dict[str, bool] | None:
    """The shards' spellability in the whole set's case order. A shard whose cases carried no source words has
    None where one run over the set has False for them (:func:`~core.experiments.seed001_approaches.spellable_cases`)."""
    if all(r["spellable"] is None for r in shards):
        return None
    known = {case: value for r in shards if r["spellable"] is not None for case, value in r["spellable"].items()}
    return {case.id: known.get(case.id, False) for case in cases}
