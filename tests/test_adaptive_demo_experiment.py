"""``parastudio experiment adaptive-demo`` on the first demo verses: the adaptive study takes no more judgments
than the full one, its counts add up, and the figures repeat from run to run."""

from __future__ import annotations

import json

from parastudio.core.cli import main


def run(folder, *extra):
    return main(["experiment", "adaptive-demo", "--limit", "30", "--batch", "4", "--out", str(folder), *extra])


def test_the_adaptive_study_against_the_full_one(tmp_path):
    assert run(tmp_path / "one") == 0
    result = json.loads((tmp_path / "one" / "adaptive-demo.json").read_text())
    fixed, adaptive = result["fixed_study"], result["adaptive_study"]
    # Every verse has one candidate per system, two judges each; where both systems give the same string it is one
    # candidate, judged once (credited to both).
    assert fixed["sentences"] == 30 and 2 * 30 < fixed["judgments"] <= 2 * 2 * 30 and fixed["judgments"] % 2 == 0
    assert 2 * adaptive["sentences"] < adaptive["judgments"] <= 2 * 2 * adaptive["sentences"]
    assert adaptive["judgments"] <= fixed["judgments"] and adaptive["judgments"] % 2 == 0
    assert sum(result["batches"]) == adaptive["sentences"] and all(size <= 4 for size in result["batches"])
    assert result["judgments_saved"] == 1 - adaptive["judgments"] / fixed["judgments"]
    assert result["same_decision"] == (adaptive["anytime_winner"] == fixed["anytime_winner"])
    for study in (fixed, adaptive):
        counts = study["fixed"]
        assert counts["wins_a"] + counts["wins_b"] + counts["ties"] == study["sentences"]
        assert study["anytime"]["n"] == counts["n"]
    if adaptive["anytime_winner"] == "undecided":  # stopped only when nothing was left to give out
        # but a verse whose two systems gave the same string, a tie whatever the judges say, is never given out
        identical = (2 * 2 * 30 - fixed["judgments"]) // 2
        assert adaptive["sentences"] == 30 - identical
    text = (tmp_path / "one" / "adaptive-demo.md").read_text()
    assert f"({adaptive['judgments']} of {fixed['judgments']})" in text
    assert run(tmp_path / "two") == 0
    again = json.loads((tmp_path / "two" / "adaptive-demo.json").read_text())
    assert again == result


def test_a_bad_stopping_rule_is_refused(tmp_path, capsys):
    assert run(tmp_path, "--stop", "sometimes") == 2
    assert "--stop: expected a stopping rule" in capsys.readouterr().err
