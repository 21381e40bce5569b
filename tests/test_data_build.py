"""Build orchestration: stage order, skips with a reason, the WEB-KJV paraphrase table, the demo manifest."""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from pathlib import Path

import pytest

from parastudio.core.evaldata.build import run_build
from parastudio.core.evaldata.demo_release import DEMO_BUDGET_BYTES, DEMO_FILES
from parastudio.core.tablebuild.table_converters import moses_to_paraphrase_table

DEMO = Path(__file__).resolve().parent.parent / "evaldata" / "demo"


def test_unknown_stage_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown stage"):
        run_build(tmp_path, ["extract", "bake"], say=lambda message: None)


def test_stage_without_inputs_is_skipped_with_a_reason(tmp_path):
    report = run_build(tmp_path, ["testcases", "split", "pivot"], say=lambda message: None)
    assert list(report["stages"]) == ["split", "pivot", "testcases"]  # pipeline order, not argument order
    assert report["stages"]["split"]["status"] == "skipped"
    assert "run the earlier stages first" in report["stages"]["split"]["stats"]["reason"]
    assert json.loads((tmp_path / "build" / "report.json").read_text())["stages"]["pivot"]["status"] == "skipped"


def brute_force_paraphrases(rows, top):
    by_source = {}
    for source, target, scores in rows:
        if source != target:
            by_source.setdefault(source, []).append((target, scores[2]))
    expected = []
    for source in sorted(by_source):
        ranked = sorted(by_source[source], key=lambda item: (-item[1], item[0]))[:top]
        expected += [f"{source} ||| {target} ||| {probability!r}" for target, probability in ranked]
    return expected


@pytest.mark.parametrize("seed", range(5))
def test_webkjv_paraphrase_table_keeps_top_p_e_given_f(tmp_path, seed):
    rng = random.Random(seed)
    words = ["the lord", "yahweh", "you", "thee", "thou", "said", "saith", "to", "unto"]
    rows = []
    for source in words:
        for target in rng.sample(words, rng.randint(1, len(words))):
            # Moses order p(f|e) lex(f|e) p(e|f) lex(e|f); a few ties on p(e|f).
            rows.append((source, target, [rng.random(), rng.random(), rng.choice([0.5, 0.25, rng.random()]),
                                          rng.random()]))
    moses = tmp_path / "web-kjv.gz"
    with gzip.open(moses, "wt", encoding="utf-8") as handle:
        for source, target, scores in rows:
            handle.write(f"{source} ||| {target} ||| {' '.join(map(repr, scores))} ||| 0-0 ||| 1 1 1\n")
    output = tmp_path / "para.gz"
    stats = moses_to_paraphrase_table(moses, output, top=3)
    got = gzip.open(output, "rt", encoding="utf-8").read().splitlines()
    assert got == brute_force_paraphrases(rows, 3)
    assert stats["phrase_pairs_in"] == len(rows) and stats["paraphrase_pairs_out"] == len(got)


@pytest.mark.skipif(not (DEMO / "MANIFEST").exists(), reason="evaldata/demo is not built")
def test_committed_demo_matches_its_manifest_and_budget():
    manifest = dict(reversed(line.split("  ", 1)) for line in (DEMO / "MANIFEST").read_text().splitlines())
    assert sorted(manifest) == sorted(DEMO_FILES)
    for name, digest in manifest.items():
        assert hashlib.sha256((DEMO / name).read_bytes()).hexdigest() == digest, name
    assert sum((DEMO / name).stat().st_size for name in DEMO_FILES) <= DEMO_BUDGET_BYTES
    test = (DEMO / "test.en").read_text(encoding="utf-8").splitlines()
    reference = (DEMO / "test.ref.en").read_text(encoding="utf-8").splitlines()
    assert len(test) == len(reference) == 100
    sentences = set(test)
    for line in (DEMO / "testcases.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        assert set(case) == {"id", "sentence", "span", "gold", "sentence_id"}
        start, end = case["span"]
        assert case["sentence"] in sentences and 0 <= start < end <= len(case["sentence"].split())
        assert test[case["sentence_id"]] == case["sentence"]  # the verse's line: the direct graph's sentence


def test_demo_pruning_keeps_short_sources_top_k_above_threshold(tmp_path):
    from parastudio.core.errors import InputFormatError
    from parastudio.core.tablebuild.table_converters import prune_paraphrase_table

    table = tmp_path / "para.gz"
    rows = [("a", "b", 0.5), ("a", "c", 0.3), ("a", "d", 0.2), ("a", "e", 0.005), ("a b c d", "x", 0.9),
            ("f", "g", 0.123456789)]
    with gzip.open(table, "wt", encoding="utf-8") as handle:
        for source, target, probability in rows:
            handle.write(f"{source} ||| {target} ||| {probability!r} -1.0 -2.0 -3.0 -4.0\n")
    output = tmp_path / "demo.gz"
    stats = prune_paraphrase_table(table, output, max_source_length=3, top=2, min_prob=0.01, significant_digits=3)
    assert gzip.open(output, "rt").read().splitlines() == [
        "a ||| b ||| 0.5 -1 -2 -3 -4", "a ||| c ||| 0.3 -1 -2 -3 -4", "f ||| g ||| 0.123 -1 -2 -3 -4"]
    assert stats == {"pairs_in": 6, "pairs_kept": 3}
    with gzip.open(table, "wt", encoding="utf-8") as handle:
        handle.write("a ||| b ||| 0.1\na ||| c ||| 0.2\n")
    with pytest.raises(InputFormatError, match=":2: expected p"):
        prune_paraphrase_table(table, output, max_source_length=3, top=2, min_prob=0.0, significant_digits=3)


@pytest.mark.skipif(not (DEMO / "paraphrase-table.gz").exists(), reason="evaldata/demo is not built")
def test_demo_table_is_gzipped_once():
    with gzip.open(DEMO / "paraphrase-table.gz", "rt", encoding="utf-8") as handle:
        first = handle.readline()
    assert first.count(" ||| ") == 2 and len(first.split(" ||| ")[2].split()) == 5
