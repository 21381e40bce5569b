"""``parastudio experiment judgment-predictor`` on a small copy of the demo: the first table of its Markdown
recomputed from judgment-predictor.jsonl with plain Python (issue 23, Deliver 5)."""

from __future__ import annotations

import json

import pytest

from parastudio.core.cli import main
from parastudio.core.demo import demo_files
from parastudio.core.experiments.per_sentence import read_per_sentence

DEMO = demo_files()
pytestmark = pytest.mark.skipif(bool(DEMO.missing()) or not (DEMO.directory / "candidates.jsonl").is_file(),
                                reason="the bundled demo is missing")
VERSES = 40


@pytest.fixture
def small_demo(tmp_path, monkeypatch):
    """The demo's table and LM with its first VERSES verses and their bundled candidates."""
    folder = tmp_path / "demo"
    folder.mkdir()
    for path in (DEMO.table, DEMO.lm):
        (folder / path.name).symlink_to(path)
    for path in (DEMO.test_sentences, DEMO.test_references, DEMO.test_originals):
        lines = path.read_text(encoding="utf-8").splitlines()[:VERSES]
        (folder / path.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    kept = [line for line in (DEMO.directory / "candidates.jsonl").read_text(encoding="utf-8").splitlines()
            if int(json.loads(line)["sentence_id"]) < VERSES]
    (folder / "candidates.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")
    monkeypatch.setenv("PARASTUDIO_DEMO", str(folder))
    return folder


def auc(labels: list[int], scores: list[float]) -> float:
    """The share of (positive, negative) pairs ranked right, ties counting one half."""
    positives = [s for s, y in zip(scores, labels) if y]
    negatives = [s for s, y in zip(scores, labels) if not y]
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def test_the_table_is_recomputed_from_the_per_candidate_file(small_demo, tmp_path):
    out = tmp_path / "results"
    assert main(["experiment", "judgment-predictor", "--out", str(out)]) == 0
    markdown = (out / "judgment-predictor.md").read_text(encoding="utf-8")
    header, records = read_per_sentence(out / "judgment-predictor.jsonl")
    assert header["inputs"]["input"]["path"] == str(small_demo / "test.en")
    assert header["inputs"]["input"]["bytes"] == (small_demo / "test.en").stat().st_size
    assert "`judgment-predictor.jsonl`" in markdown
    rows = {}
    for line in markdown.split("Coefficients")[0].splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] in ("meaning", "fluency", "acceptable"):
            rows[cells[0]] = cells[1:]
    assert sorted(rows) == ["acceptable", "fluency", "meaning"]
    for judgment, cells in rows.items():
        mine = [r for r in records if r["judgment"] == judgment]
        labels = [r["label"] for r in mine]
        model = sum((r["p_out_of_fold"] >= 0.5) == r["label"] for r in mine)
        baseline = sum(r["baseline"] == r["label"] for r in mine)
        assert cells == [str(len(mine)), str(sum(labels)), str(1 + max(r["fold"] for r in mine)),
                         f"{100 * model / len(mine):.1f}", f"{100 * baseline / len(mine):.1f}",
                         f"{auc(labels, [r['p_out_of_fold'] for r in mine]):.3f}"]
        # Every candidate of the study once per judgment, each in one fold.
        assert len({r["item"] for r in mine}) == len(mine) == 2 * VERSES
    # "AUC alone" of the edit rate, from the recorded features.
    meaning = [r for r in records if r["judgment"] == "meaning"]
    edit_rate = [line for line in markdown.splitlines() if line.startswith("| edit_rate |")][0]
    alone = auc([r["label"] for r in meaning], [r["features"]["edit_rate"] for r in meaning])
    assert edit_rate.split("|")[3].strip() == f"{alone:.3f}"
