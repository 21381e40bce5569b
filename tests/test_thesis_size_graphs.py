"""Larger graphs of a sample of the build's sentences (issue 26, item 1): ``benchmarks/decode_thesis_graphs.py``
makes the sample's round-trip cases from its graph's 1-best as the build does, and the experiment's ``--graphs``
uses them and says which size they are."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from parastudio.core.experiments.seed001_approaches import BUILD, case_sets
from parastudio.core.experiments.seed001_report import graph_note
from parastudio.core.experiments.seed001_variants import graph_size

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not (BUILD / "roundtrip" / "roundtrip-dev.graph.gz").is_file(),
                                reason="no data build (evaldata/build)")


def decoder_script():
    spec = importlib.util.spec_from_file_location("decode_thesis_graphs", ROOT / "benchmarks" / "decode_thesis_graphs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_at_the_builds_settings_the_sample_has_the_builds_cases_and_the_experiment_names_its_size(tmp_path):
    script = decoder_script()
    # Two shards of sentences 0, 5 and 10, decoded at the build's pass-2 settings, then merged.
    for shard in ("0/2", "1/2"):
        script.main(["--part", "dev", "--every", "5", "--limit", "3", "--stack", "10", "--options", "20",
                     "--out", str(tmp_path), "--shard", shard])
    script.main(["--part", "dev", "--every", "5", "--limit", "3", "--stack", "10", "--options", "20",
                 "--out", str(tmp_path), "--merge", "2"])
    made = (tmp_path / "roundtrip-dev.jsonl").read_text(encoding="utf-8").splitlines()
    built = [line for line in (BUILD / "testcases" / "roundtrip-dev.jsonl").read_text(encoding="utf-8").splitlines()
             if json.loads(line)["sentence_id"] in {0, 5, 10}]
    assert [json.loads(line) for line in made] == [json.loads(line) for line in built]
    assert {json.loads(line)["sentence_id"] for line in made} == {0, 5, 10}

    sets = case_sets("both", "dev", tmp_path)
    assert sets[0] == ("roundtrip (dev, stack 10 / 20 options, 3 of 1000 sentences)",
                       tmp_path / "roundtrip-dev.jsonl", tmp_path / "roundtrip-dev.graph.gz")
    assert sets[1][0] == "webkjv (dev, build)"  # no direct graph in the folder: the build's
    size = graph_size(sets[0][2])
    assert (size["every"], size["cases"]) == (5, len(made))
    note = "\n".join(graph_note([{"name": name, "graph": str(graph)} for name, _, graph in sets]))
    assert "- roundtrip (dev, stack 10 / 20 options, 3 of 1000 sentences): stack 10 with 20 options per span, " \
           "every 5th sentence of the part (3 of 1000)" in note
    assert "- webkjv (dev, build): the data build's `roundtrip` stage" in note
    # The note names the commands that decode the sample's graph again (it is not committed).
    decode = "python3 benchmarks/decode_thesis_graphs.py --part dev --every 5 --stack 10 --options 20 --out DIR"
    assert f"`{decode} --shard 0/2` and `{decode} --shard 1/2` (one process each), then `{decode} --merge 2`" in note
    assert "stands in for the thesis's size" not in note  # said only of stack 200 and above
