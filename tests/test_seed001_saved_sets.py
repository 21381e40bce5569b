"""``seed001-approaches --save-sets`` / ``--from-sets`` (issue 26, item 3): sets run by separate commands go into
one results file, each set's tables as its own run wrote them, every set's per-case records kept, and each set
naming the command that ran it."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.demo import demo_files
from parastudio.core.experiments.per_sentence import read_per_sentence

DEMO = demo_files()
pytestmark = pytest.mark.skipif(not (DEMO.roundtrip_cases.is_file() and DEMO.roundtrip_graph.is_file()),
                                reason="the bundled round-trip cases are missing")


def sections(markdown: str) -> dict[str, str]:
    """Each case set's section (from its ``## name: N cases`` heading to the next ``## ``)."""
    parts = re.split(r"^## ", markdown, flags=re.M)[1:]
    return {part.split(":")[0]: part for part in parts if re.match(r"[^\n]*: \d+ cases\n", part)}


def test_sets_run_apart_are_written_into_one_file_as_each_run_made_them(tmp_path):
    runs = {}
    for kind in ("roundtrip", "webkjv"):
        out = tmp_path / kind
        assert main(["experiment", "seed001-approaches", "--cases", kind, "--limit", "3", "--processes", "1",
                     "--out", str(out), "--save-sets", str(tmp_path / f"{kind}.sets")]) == 0
        header, records = read_per_sentence(out / "seed001-approaches.jsonl.gz")
        runs[kind] = (sections((out / "seed001-approaches.md").read_text(encoding="utf-8")), header, records)

    joined = tmp_path / "joined"
    assert main(["experiment", "seed001-approaches", "--from-sets", str(tmp_path / "roundtrip.sets"),
                 str(tmp_path / "webkjv.sets"), "--out", str(joined)]) == 0
    markdown = (joined / "seed001-approaches.md").read_text(encoding="utf-8")
    header, records = read_per_sentence(joined / "seed001-approaches.jsonl.gz")

    own = {**runs["roundtrip"][0], **runs["webkjv"][0]}
    assert len(own) == 2 and sections(markdown) == own  # every table of each set as its own run wrote it
    assert records == runs["roundtrip"][2] + runs["webkjv"][2]  # every set's per-case outputs
    for name, (_, run_header, _) in ((name, runs[kind]) for kind in runs for name in runs[kind][0]):
        assert f"- {name}: `{run_header['command']}`" in markdown
        assert header["set_commands"][name] == run_header["command"]
    assert "then written into this file by `" in markdown and "--from-sets" in header["command"]


def test_a_file_not_written_by_save_sets_is_a_one_line_error(tmp_path, capsys):
    wrong = tmp_path / "cases.jsonl"
    wrong.write_text('{"id": "x"}\n', encoding="utf-8")
    assert main(["experiment", "seed001-approaches", "--from-sets", str(wrong), "--out", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err.strip()
    assert error.endswith(f"{wrong}:1: expected a file written by seed001-approaches --save-sets; got 'BadGzipFile'")
    assert "\n" not in error and not (tmp_path / "out").exists()


class _WouldRunCode:
    """What a hostile pickle carries: loading it would create ``marker``."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


@pytest.mark.parametrize("body", ["pickle", "json with a case of unknown fields", "json of another format",
                                  "json of a set without its cases"])
def test_a_saved_sets_file_is_data_never_code(tmp_path, capsys, body):
    """A sets file handed over by someone else is read as JSON: a pickle inside is refused, never run."""
    import gzip
    import json
    import pickle

    marker = tmp_path / "ran"
    handed = tmp_path / "handed.sets"
    if body == "pickle":
        payload = pickle.dumps([{"name": "x", "results": {}, "command": "c", "bad": _WouldRunCode(marker)}])
    elif body == "json with a case of unknown fields":
        payload = json.dumps({"format": "parastudio seed001-approaches sets 1",
                              "sets": [{"name": "x", "results": {"a": [{"case": {"shell": "rm"}}]},
                                        "command": "c"}]}).encode()
    elif body == "json of a set without its cases":
        payload = json.dumps({"format": "parastudio seed001-approaches sets 1",
                              "sets": [{"name": "x", "results": {}, "command": "c"}]}).encode()
    else:
        payload = json.dumps({"format": "something else", "sets": []}).encode()
    handed.write_bytes(gzip.compress(payload))
    assert main(["experiment", "seed001-approaches", "--from-sets", str(handed), "--out", str(tmp_path / "o")]) == 2
    error = capsys.readouterr().err.strip()
    assert f"{handed}:1: expected a file written by seed001-approaches --save-sets" in error and "\n" not in error
    assert not marker.exists() and not (tmp_path / "o").exists()


@given(st.lists(st.tuples(st.floats(allow_nan=False, allow_infinity=False), st.booleans(),
                          st.lists(st.text(max_size=5), max_size=3), st.none() | st.text(max_size=8)),
                max_size=4))
def test_saved_sets_come_back_bit_for_bit(rows):
    import math
    import tempfile
    from pathlib import Path

    from parastudio.core.engine.decoders.cat.autoeval import Case, CaseResult
    from parastudio.core.experiments.seed001_saved_sets import load_sets, save_sets

    case = Case("c1", 3, ("a", "b"), (0, 1), ("x",), ("s",))
    results = [CaseResult(case, success, tuple(shown), seconds, fate=fate, coverage=(0, 2))
               for seconds, success, shown, fate in rows]
    sets = [{"name": "s", "command": "c", "cases_file": "c.jsonl", "graph": "g.gz", "cases": [case],
             "results": {"approach-1": results}, "feedback": {}, "readings": {"printed": {"approach-2": results}},
             "spellable": None, "seconds": {"approach-1": 1.5}, "elapsed": 2.0}]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.sets"
        save_sets(sets, path)
        back = load_sets(path)
    assert back == sets
    assert all(math.copysign(1, a.seconds) == math.copysign(1, b.seconds)
               for a, b in zip(back[0]["results"]["approach-1"], results))


def test_joined_sets_record_the_inputs_their_run_read_not_what_is_there_later(tmp_path):
    """--from-sets runs later, when a set's files may have changed or gone: the file records each set's inputs by
    the sha256 its own run read, and the graph settings its run read."""
    import hashlib
    import json
    import shutil

    from parastudio.core.code_identity import code_identity

    graphs = tmp_path / "graphs"
    graphs.mkdir()
    cases, graph = graphs / "roundtrip-test.jsonl", graphs / "roundtrip-test.graph.gz"
    shutil.copyfile(DEMO.roundtrip_cases, cases)
    shutil.copyfile(DEMO.roundtrip_graph, graph)
    settings = {"stack": 200, "options": 100, "every": 1, "sentences": 7, "of_sentences": 7, "cases": 3,
                "decode_seconds": 60.0, "peak_mb": 100.0, "processes": 1, "graph_mb": 1.0}
    (graphs / "settings.json").write_text(json.dumps({graph.name: settings}), encoding="utf-8")
    ran = {path: hashlib.sha256(path.read_bytes()).hexdigest() for path in (cases, graph, DEMO.lm)}
    assert main(["experiment", "seed001-approaches", "--cases", "roundtrip", "--set", "test", "--graphs",
                 str(graphs), "--limit", "3", "--processes", "1", "--out", str(tmp_path / "run"),
                 "--save-sets", str(tmp_path / "run.sets")]) == 0

    with open(cases, "a", encoding="utf-8") as handle:  # the files change after the run...
        handle.write("\n")
    graph.unlink()
    (graphs / "settings.json").unlink()
    joined = tmp_path / "joined"
    assert main(["experiment", "seed001-approaches", "--from-sets", str(tmp_path / "run.sets"),
                 "--out", str(joined)]) == 0
    header, _ = read_per_sentence(joined / "seed001-approaches.jsonl.gz")
    inputs = header["inputs"]  # ...and the joined file still says what the run read
    assert [i["sha256"] for i in inputs["cases"]] == [ran[cases]]
    assert [i["sha256"] for i in inputs["graphs"]] == [ran[graph]]
    assert [i["sha256"] for i in inputs["lm"]] == [ran[DEMO.lm]]
    assert "set_code" not in header and header["commit"] == code_identity()["commit"]
    markdown = (joined / "seed001-approaches.md").read_text(encoding="utf-8")
    assert "stack 200 with 100 options per span" in markdown and "LM for LMSF and LMBS: `lm.bin`" in markdown
