"""``seed001-approaches --shard I/N`` and ``--from-sets`` (issue 26): a set run in shards, each saved on its own,
joins back into the set one run over it gives, every case at its place; a shard missing, given twice or run on
other files is one line, not a wrong table."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.cat.autoeval import Case, CaseResult
from parastudio.core.errors import InputFormatError
from parastudio.core.experiments.per_sentence import read_per_sentence
from parastudio.core.experiments.seed001_saved_sets import load_sets, save_sets
from parastudio.core.experiments.seed001_shards import join_shards, shard_positions

DEMO = demo_files()
needs_demo = pytest.mark.skipif(not (DEMO.roundtrip_cases.is_file() and DEMO.roundtrip_graph.is_file()),
                                reason="the bundled round-trip cases are missing")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The demo's first 8 round-trip cases (the shards interleave by sentence number) run once
    whole and once as shards 0/2 and 1/2, from a --graphs folder so a data build does not change the files."""
    folder = tmp_path_factory.mktemp("shards")
    graphs = folder / "graphs"
    graphs.mkdir()
    shutil.copyfile(DEMO.roundtrip_cases, graphs / "roundtrip-test.jsonl")
    shutil.copyfile(DEMO.roundtrip_graph, graphs / "roundtrip-test.graph.gz")
    (graphs / "settings.json").write_text(json.dumps({"roundtrip-test.graph.gz": {
        "stack": 10, "options": 20, "every": 1, "sentences": 9, "of_sentences": 9, "cases": 8,
        "decode_seconds": 1.0, "peak_mb": 1.0, "processes": 1, "graph_mb": 1.0}}), encoding="utf-8")
    common = ["experiment", "seed001-approaches", "--cases", "roundtrip", "--set", "test", "--graphs", str(graphs),
              "--limit", "8", "--processes", "1"]
    assert main([*common, "--out", str(folder / "one"), "--save-sets", str(folder / "one.sets")]) == 0
    for index in (0, 1):
        assert main([*common, "--shard", f"{index}/2", "--out", str(folder / f"shard{index}"),
                     "--save-sets", str(folder / f"shard{index}.sets")]) == 0
    return folder


def untimed(result: dict) -> dict:
    """A set with every request's time (measured where it ran) set to 0."""
    def rows(bucket):
        return {name: [dataclasses.replace(row, seconds=0.0) for row in values] for name, values in bucket.items()}

    return {**result, "results": rows(result["results"]), "feedback": rows(result["feedback"]),
            "readings": {reading: rows(bucket) for reading, bucket in result["readings"].items()},
            "seconds": {label: 0.0 for label in result["seconds"]}, "elapsed": 0.0, "command": "c"}


@needs_demo
def test_a_shard_saves_its_share_and_writes_no_report(runs):
    shards = [load_sets(runs / f"shard{index}.sets")[0] for index in (0, 1)]
    # Shard I of N takes the cases of the sentences whose number is I modulo N, in the set's order.
    whole = load_sets(runs / "one.sets")[0]
    for index, shard in enumerate(shards):
        assert [case.id for case in shard["cases"]] == [
            case.id for case in whole["cases"] if case.sentence_id % 2 == index]
    assert {case.sentence_id % 2 for case in whole["cases"]} == {0, 1}  # both shards have work
    assert not (runs / "shard0").exists() and not (runs / "shard1").exists()


@needs_demo
def test_joined_shards_give_the_set_one_run_gives(runs, tmp_path):
    from parastudio.core.experiments.seed001_report import write_report

    whole = load_sets(runs / "one.sets")
    joined = join_shards(load_sets(runs / "shard0.sets") + load_sets(runs / "shard1.sets"), runs / "shard1.sets")
    assert len(joined) == 1 and joined[0]["cases"] == whole[0]["cases"] and joined[0]["shards"]["of"] == 2
    for key in ("results", "feedback", "readings", "spellable", "inputs", "graph_settings"):
        assert untimed(joined[0])[key] == untimed(whole[0])[key], key

    # The report written from the joined shards is the whole run's, byte for byte, once times are set aside.
    texts = []
    for name, sets in (("whole", whole), ("joined", joined)):
        result = {k: v for k, v in untimed(sets[0]).items() if k != "shards"}
        write_report([result], tmp_path / name, command="c", lm=DEMO.lm, seconds=0.0)
        texts.append((tmp_path / name / "seed001-approaches.md").read_text(encoding="utf-8"))
    assert texts[0] == texts[1]

    # And from the command line: the same per-case records, each case at its place.
    assert main(["experiment", "seed001-approaches", "--from-sets", str(runs / "shard1.sets"),
                 str(runs / "shard0.sets"), "--out", str(tmp_path / "cli")]) == 0
    _, records = read_per_sentence(tmp_path / "cli" / "seed001-approaches.jsonl.gz")
    _, expected = read_per_sentence(runs / "one" / "seed001-approaches.jsonl.gz")
    assert [{**r, "seconds": 0} for r in records] == [{**r, "seconds": 0} for r in expected]
    markdown = (tmp_path / "cli" / "seed001-approaches.md").read_text(encoding="utf-8")
    assert "--shard I/2" in markdown and "for I = 0 to 1" in markdown and "summed over 2 shards" in markdown


def _edited(source, target, edit):
    sets = load_sets(source)
    edit(sets[0])
    save_sets(sets, target)
    return target


@needs_demo
@pytest.mark.parametrize("fault", ["a shard missing", "a shard twice", "other files", "other places"])
def test_shards_that_do_not_make_one_set_are_a_one_line_error(runs, tmp_path, capsys, fault):
    first, second = runs / "shard0.sets", runs / "shard1.sets"
    if fault == "a shard missing":
        given_files = [first]
    elif fault == "a shard twice":
        given_files = [first, first, second]
    elif fault == "other files":
        given_files = [first, _edited(second, tmp_path / "x.sets",
                                      lambda s: s["inputs"]["cases"].update(sha256="0" * 64))]
    else:
        given_files = [first, _edited(second, tmp_path / "x.sets",
                                      lambda s: s["shard"]["positions"].__setitem__(0, 2))]
    assert main(["experiment", "seed001-approaches", "--from-sets", *map(str, given_files),
                 "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err.strip()
    assert f"{given_files[-1]}:1: expected every shard of a set, each saved once, from the same inputs" in error
    assert "\n" not in error and not (tmp_path / "out").exists()


@pytest.mark.parametrize("arguments", [["--shard", "0/2"], ["--shard", "2/2", "--save-sets", "x"],
                                       ["--shard", "a/b", "--save-sets", "x"], ["--shard", "0/0", "--save-sets", "x"]])
def test_a_shard_without_its_sets_file_or_of_no_share_is_refused(tmp_path, capsys, arguments):
    try:
        code = main(["experiment", "seed001-approaches", "--out", str(tmp_path / "out"), *arguments])
    except SystemExit as stop:  # argparse's own refusal of the value
        code = stop.code
    assert code == 2
    assert "--shard" in capsys.readouterr().err and not (tmp_path / "out").exists()


def _synthetic_set(sentence_ids: list[int], flags: list[bool]) -> dict:
    cases = [Case(f"c{n}", sentence, ("a", "b"), (0, 1), (f"g{n}",)) for n, sentence in enumerate(sentence_ids)]

    def rows(salt):
        return [CaseResult(case, flag != salt, (f"s{n}",), float(n)) for n, (case, flag) in enumerate(zip(cases, flags))]

    return {"name": "s", "command": "c", "cases_file": "f", "graph": "g", "cases": cases,
            "results": {"approach-1": rows(False), "approach-2": rows(True)}, "feedback": {"approach-7": rows(True)},
            "readings": {"printed": {"approach-2": rows(False)}}, "seconds": {"approach-1": 2.0},
            "spellable": {case.id: flag for case, flag in zip(cases, flags)}, "elapsed": 4.0}


def _share(whole: dict, shard: tuple[int, int]) -> dict:
    """What a run of ``shard`` saves: its cases and results, in the file's order, and their places."""
    places = shard_positions([case.sentence_id for case in whole["cases"]], shard)

    def pick(bucket):
        return {name: [rows[p] for p in places] for name, rows in bucket.items()}

    return {**whole, "cases": [whole["cases"][p] for p in places], "results": pick(whole["results"]),
            "feedback": pick(whole["feedback"]), "readings": {r: pick(b) for r, b in whole["readings"].items()},
            "spellable": {whole["cases"][p].id: whole["spellable"][whole["cases"][p].id] for p in places},
            "shard": {"index": shard[0], "of": shard[1], "positions": places}}


@given(st.lists(st.integers(0, 30), min_size=1, max_size=40).flatmap(
    lambda ids: st.tuples(st.just(ids), st.lists(st.booleans(), min_size=len(ids), max_size=len(ids)),
                          st.integers(1, 6), st.randoms(use_true_random=False))))
def test_any_shards_in_any_order_join_into_the_whole_set(drawn):
    sentence_ids, flags, count, random = drawn
    whole = _synthetic_set(sentence_ids, flags)
    shards = [_share(whole, (index, count)) for index in range(count)]
    random.shuffle(shards)
    joined, = join_shards(shards, "x.sets")
    for key in ("cases", "results", "feedback", "readings", "spellable"):
        assert joined[key] == whole[key], key
    assert joined["elapsed"] == 4.0 * count and joined["seconds"] == {"approach-1": 2.0 * count}


def test_a_shard_record_not_as_a_run_writes_it_is_refused():
    whole = _synthetic_set([1, 2], [True, False])
    broken = _share(whole, (0, 2))
    broken["shard"]["positions"] = ["0"]
    with pytest.raises(InputFormatError, match="a shard record not as a run writes it"):
        join_shards([broken, _share(whole, (1, 2))], "x.sets")


def test_the_joined_command_names_every_shard_once_and_a_single_shard_as_it_ran():
    from parastudio.core.experiments.seed001_shards import _joined_command

    command = "parastudio experiment seed001-approaches --cases roundtrip --shard 0/8 --save-sets r.sets"
    assert _joined_command([command], 8) == command.replace("0/8", "I/8") + " for I = 0 to 7"
    single = command.replace("0/8", "0/1")
    assert _joined_command([single], 1) == single
