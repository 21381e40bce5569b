"""``seed001-approaches --independent FILE`` (issue 26): the independent counter's file stands beside the set it
counted in the results file, its counts in the stage table's columns and every case where it disagrees with the
pipeline named; a file on other inputs, or not as the counter writes it, is one line, not a table."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.demo import demo_files
from parastudio.core.errors import InputFormatError
from parastudio.core.experiments.per_sentence import file_input
from parastudio.core.experiments.seed001_accounting import _approach, stage_counts, stage_names
from parastudio.core.experiments.seed001_approaches import spellable_cases
from parastudio.core.experiments.seed001_independent import read_counter_file
from parastudio.core.experiments.seed001_report import write_report
from parastudio.core.experiments.seed001_saved_sets import load_sets, save_sets

DEMO = demo_files()
pytestmark = pytest.mark.skipif(not (DEMO.roundtrip_cases.is_file() and DEMO.es_en_table.is_file()),
                                reason="the bundled round-trip cases are missing")
COUNTER = Path(__file__).resolve().parents[1] / "benchmarks" / "seed001_independent_counts.py"


def counter():
    spec = importlib.util.spec_from_file_location("seed001_independent_counts", COUNTER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The demo's first 30 round-trip cases run once (saved), their spellable count and recorded table set to the
    demo's table whatever table the machine has, and the counter's file on the same files."""
    folder = tmp_path_factory.mktemp("independent")
    graphs = folder / "graphs"
    graphs.mkdir()
    lines = DEMO.roundtrip_cases.read_text(encoding="utf-8").splitlines(keepends=True)[:30]
    (graphs / "roundtrip-test.jsonl").write_text("".join(lines), encoding="utf-8")
    shutil.copyfile(DEMO.roundtrip_graph, graphs / "roundtrip-test.graph.gz")
    (graphs / "settings.json").write_text(json.dumps({"roundtrip-test.graph.gz": {
        "stack": 10, "options": 20, "every": 1, "sentences": 9, "of_sentences": 9, "cases": 30,
        "decode_seconds": 1.0, "peak_mb": 1.0, "processes": 1, "graph_mb": 1.0}}), encoding="utf-8")
    assert main(["experiment", "seed001-approaches", "--cases", "roundtrip", "--set", "test", "--graphs",
                 str(graphs), "--processes", "1", "--out", str(folder / "run"),
                 "--save-sets", str(folder / "run.sets")]) == 0
    sets = load_sets(folder / "run.sets")
    sets[0]["spellable"] = spellable_cases(DEMO.es_en_table, sets[0]["results"]["approach-1"])
    sets[0]["inputs"]["table"] = file_input(DEMO.es_en_table)
    save_sets(sets, folder / "demo-table.sets")
    assert counter().main([str(graphs / "roundtrip-test.jsonl"), str(graphs / "roundtrip-test.graph.gz"),
                           "--table", str(DEMO.es_en_table), "--out", str(folder / "counts.json")]) == 0
    return folder


def report(run, counts: Path, name: str) -> str:
    out = run / name
    assert main(["experiment", "seed001-approaches", "--from-sets", str(run / "demo-table.sets"),
                 "--independent", str(counts), "--out", str(out)]) == 0
    return (out / "seed001-approaches.md").read_text(encoding="utf-8")


def table_rows(markdown: str) -> dict[str, dict[str, str]]:
    """The stage table's rows by approach name, each cell by its column."""
    section = markdown.split("### Stage counts", 1)[1].split("\n\n")[2]
    header, _, *rows = section.splitlines()
    columns = [c.strip() for c in header.strip("|").split("|")]
    return {cells[0]: dict(zip(columns, cells)) for cells in
            ([c.strip() for c in row.strip("|").split("|")] for row in rows)}


def test_the_independent_count_stands_beside_the_set_and_agrees_case_by_case(run):
    markdown = report(run, run / "counts.json", "agree")
    rows = table_rows(markdown)
    sets = load_sets(run / "demo-table.sets")
    for name in ("approach-1", "approach-2"):
        ours = stage_counts(sets[0]["results"][name], _approach(name))
        theirs = rows[f"*{name}, independent*"]
        counted = [stage for stage in stage_names(_approach(name)) if theirs.get(stage)]
        assert counted[-1] == ("after PTPF" if name == "approach-1" else "after SDPF")
        assert {stage: int(theirs[stage]) for stage in counted} == {stage: ours[stage] for stage in counted}
        assert theirs["spellable by the table"] == str(sum(sets[0]["spellable"].values()))
    assert "agrees with ours case by case, through the partial filters and on what the table can spell" in markdown


def test_every_case_where_the_counts_disagree_is_named(run):
    record = json.loads((run / "counts.json").read_text(encoding="utf-8"))
    in_graph = [case for case, reached in record["per_case"].items() if reached["approach-2"] != "not the selection"]
    moved = in_graph[0]
    flipped = next(case for case in record["per_case"] if case != moved)
    record["per_case"][moved]["approach-2"] = "not the selection"
    record["per_case"][flipped]["spellable by the table"] ^= True
    (run / "changed.json").write_text(json.dumps(record), encoding="utf-8")
    markdown = report(run, run / "changed.json", "disagree")
    assert re.search(rf"- approach-2: [^\n]* against not the selection, 1 case: `{re.escape(moved)}`", markdown)
    assert re.search(rf"- spellable by the table: [^\n]*, 1 case: `{re.escape(flipped)}`", markdown)
    assert "It disagrees with ours in 2 cases" in markdown
    assert int(table_rows(markdown)["*approach-2, independent*"]["in graph"]) \
        == int(table_rows(report(run, run / "counts.json", "again"))["*approach-2, independent*"]["in graph"]) - 1


def test_a_count_on_another_table_leaves_the_spellable_count_uncompared(run, tmp_path):
    record = json.loads((run / "counts.json").read_text(encoding="utf-8"))
    record["inputs"]["table"]["sha256"] = "0" * 64
    for reached in record["per_case"].values():
        reached["spellable by the table"] ^= True
    (tmp_path / "other-table.json").write_text(json.dumps(record), encoding="utf-8")
    markdown = report(run, tmp_path / "other-table.json", "other-table")
    assert table_rows(markdown)["*approach-1, independent*"]["spellable by the table"] == "–"
    assert "is not compared" in markdown and "It agrees with ours case by case, through the partial filters." \
        in markdown


@pytest.mark.parametrize("which", ["cases", "graph"])
def test_a_count_on_other_files_is_one_line_and_no_report(run, tmp_path, capsys, which):
    record = json.loads((run / "counts.json").read_text(encoding="utf-8"))
    record["inputs"][which]["sha256"] = "f" * 64
    (tmp_path / "other.json").write_text(json.dumps(record), encoding="utf-8")
    code = main(["experiment", "seed001-approaches", "--from-sets", str(run / "demo-table.sets"),
                 "--independent", str(tmp_path / "other.json"), "--out", str(tmp_path / "out")])
    error = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in error and "which no set ran on" in error and "other.json" in error
    assert not (tmp_path / "out").exists()


def _mangled(record: dict, how: str):
    case = next(iter(record["per_case"]))
    if how == "list":
        return [record]
    if how == "no per_case":
        return {**record, "per_case": {}}
    if how == "no graph sha":
        return {**record, "inputs": {**record["inputs"], "graph": {"path": "g"}}}
    if how == "a stage no approach has":
        record["per_case"][case]["approach-1"] = "after FWPF"  # approach 1 runs PTPF only
        return record
    if how == "an approach it does not count":
        record["per_case"][case]["approach-7"] = "retrieved"
        return record
    if how == "counts not an object":
        return {**record, "counts": [1]}
    if how == "spellable not a boolean":
        record["per_case"][case]["spellable by the table"] = 1
        return record
    raise AssertionError(how)


HOWS = ["list", "no per_case", "no graph sha", "a stage no approach has", "an approach it does not count",
        "spellable not a boolean", "counts not an object"]


@pytest.mark.parametrize("how", HOWS)
def test_a_file_not_as_the_counter_writes_it_is_one_line(run, tmp_path, capsys, how):
    record = json.loads((run / "counts.json").read_text(encoding="utf-8"))
    (tmp_path / "bad.json").write_text(json.dumps(_mangled(record, how)), encoding="utf-8")
    code = main(["experiment", "seed001-approaches", "--from-sets", str(run / "demo-table.sets"),
                 "--independent", str(tmp_path / "bad.json"), "--out", str(tmp_path / "out")])
    error = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in error and error.startswith("parastudio: error: ") and "bad.json:1: expected" \
        in error
    assert not (tmp_path / "out").exists()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=200))
def test_any_bytes_are_a_counter_file_or_one_line(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("bytes") / "any.json"
    path.write_bytes(data)
    try:
        read_counter_file(path)
    except InputFormatError as error:
        assert str(error).startswith(f"{path}:1: expected")


def test_the_report_function_refuses_a_count_before_writing(run, tmp_path):
    """Called from code (not the CLI), a mismatched count raises before any file is written."""
    record = read_counter_file(run / "counts.json")
    record["inputs"] = {**record["inputs"], "cases": {"sha256": "e" * 64}}
    sets = load_sets(run / "demo-table.sets")
    with pytest.raises(ValueError, match="which no set ran on"):
        write_report(sets, tmp_path / "out", command="c", lm=DEMO.lm, seconds=0.0, independent=[record])
    assert not (tmp_path / "out").exists()


def test_a_disagreement_a_tied_derivation_explains_is_marked_tied(run):
    record = json.loads((run / "counts.json").read_text(encoding="utf-8"))
    case, reached = next((c, r) for c, r in record["per_case"].items() if r["approach-1"] != "not the selection")
    ours = reached["approach-1"]
    record["per_case"][case] = {**reached, "approach-1": "not the selection", "tied derivations": [
        {"approach-1": "aligned", "approach-2": "aligned"}, {"approach-1": ours, "approach-2": reached["approach-2"]}]}
    (run / "tied.json").write_text(json.dumps(record), encoding="utf-8")
    markdown = report(run, run / "tied.json", "tied")
    assert f"- approach-1: {ours} against not the selection, *tied*, 1 case: `{case}`" in markdown
    assert "Every one is a tie of derivations" in markdown
    record["per_case"][case]["tied derivations"][1]["approach-1"] = "not the selection"  # explains nothing now
    (run / "untied.json").write_text(json.dumps(record), encoding="utf-8")
    markdown = report(run, run / "untied.json", "untied")
    assert f"- approach-1: {ours} against not the selection, 1 case: `{case}`" in markdown
    assert "tie of derivations" not in markdown


def _node(hyp, stack, back, score, out, span, transition, winner=None):
    return {"hyp": hyp, "stack": stack, "back": back, "score": score, "recombined": winner is not None,
            "winner": winner, "transition": transition, "forward": None, "out": tuple(out.split()), "span": span}


@given(st.floats(min_value=-3.0, max_value=0.0), st.floats(min_value=-3.0, max_value=0.0))
def test_the_counter_finds_every_derivation_of_the_same_words_tied_up_to_the_rounding(gap, second_gap):
    """``a b c d`` as ``a | b | c | d`` (the back pointers' best); ``a b`` recombined into ``b``'s hypothesis and
    ``c d`` into ``d``'s give the other segmentations, alone or together (two recombined hypotheses on one path):
    each a derivation exactly when the path scores within the rounding of the best."""
    module = counter()
    nodes = {0: _node(0, 0, None, 0.0, "", None, 0.0), 1: _node(1, 1, 0, -1.0, "a", (0, 1), -1.0),
             2: _node(2, 2, 1, -2.0, "b", (1, 2), -1.0),
             3: _node(3, 2, 0, -2.0 + gap, "a b", (0, 2), -2.0 + gap, winner=2),
             4: _node(4, 3, 2, -3.0, "c", (2, 3), -1.0), 5: _node(5, 4, 4, -4.0, "d", (3, 4), -1.0),
             6: _node(6, 4, 2, -4.0 + second_gap, "c d", (2, 4), -2.0 + second_gap, winner=5)}
    chain = module.chain_of(nodes)
    assert [phrase for phrase, _ in chain] == [(("a",), (0, 1)), (("b",), (1, 2)), (("c",), (2, 3)), (("d",), (3, 4))]
    a, b, c, d = ((("a",), (0, 1)), (("b",), (1, 2)), (("c",), (2, 3)), (("d",), (3, 4)))
    ab, cd = (("a", "b"), (0, 2)), (("c", "d"), (2, 4))
    tied = {"first": gap >= -module.ROUNDING, "second": second_gap >= -module.ROUNDING,
            "both": gap + second_gap >= -module.ROUNDING}
    expected = [path for path, ok in (([ab, c, d], tied["first"]), ([ab, cd], tied["both"]),
                                      ([a, b, cd], tied["second"])) if ok]
    assert sorted(module.tied_derivations(nodes, chain)) == sorted(expected)
    nodes[3]["out"] = ("a", "x")  # other words: not a derivation of the same sentence
    assert all(ab not in path for path in module.tied_derivations(nodes, chain))


def test_the_counter_refuses_to_write_over_one_of_its_inputs(run, tmp_path):
    cases = tmp_path / "cases.jsonl"
    shutil.copyfile(run / "graphs" / "roundtrip-test.jsonl", cases)
    before = cases.read_bytes()
    with pytest.raises(SystemExit) as stopped:
        counter().main([str(cases), str(run / "graphs" / "roundtrip-test.graph.gz"), "--out", str(cases)])
    assert stopped.value.code == 2 and cases.read_bytes() == before
