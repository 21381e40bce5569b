"""``parastudio experiment mcpg-steered`` on a small copy of the demo (issue 24, item 5): the Markdown's figures
recomputed from mcpg-steered.jsonl with plain Python, and the cross-validated judge never trained on its verse."""

from __future__ import annotations

import json
from math import comb

import pytest
from test_experiments_judgment_predictor import small_demo  # noqa: F401 (a fixture)

from parastudio.core.cli import main
from parastudio.core.demo import demo_files
from parastudio.core.experiments.per_sentence import read_per_sentence

DEMO = demo_files()
pytestmark = pytest.mark.skipif(bool(DEMO.missing()) or not (DEMO.directory / "candidates.jsonl").is_file(),
                                reason="the bundled demo is missing")
SYSTEMS = ("beam", "mcpg-true-score", "mcpg-predictor")


def two_sided_sign_p(wins_a: int, wins_b: int) -> float:
    """The exact two-sided binomial p of a sign test, by counting (no scipy)."""
    n = wins_a + wins_b
    if n == 0:
        return 1.0
    tail = sum(comb(n, k) for k in range(min(wins_a, wins_b) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def test_the_report_is_recomputed_from_its_per_sentence_file(small_demo, tmp_path):  # noqa: F811
    out = tmp_path / "results"
    assert main(["experiment", "mcpg-steered", "--limit", "4", "--episodes-per-step", "20", "--out", str(out)]) == 0
    header, records = read_per_sentence(out / "mcpg-steered.jsonl")
    assert header["command"].startswith("parastudio experiment mcpg-steered ") and "--limit 4" in header["command"]
    assert [(r["verse"], r["system"]) for r in records] == [(v, s) for v in range(4) for s in SYSTEMS]
    markdown = (out / "mcpg-steered.md").read_text(encoding="utf-8")
    for system in SYSTEMS:
        done = [r for r in records if r["system"] == system and r["candidate"] is not None]
        assert all(r["acceptable"] == (r["meaning"] and r["fluency"]) for r in done)
        percent = [f"{100 * sum(r[name] for r in done) / len(done):.1f}" for name in ("meaning", "fluency",
                                                                                      "acceptable")]
        p_cv = f"{sum(r['p_cross_validated'] for r in done) / len(done):.3f}"
        assert f"| {system} | {len(done)} | {' | '.join(percent)} | {p_cv} |" in markdown
    by = {(r["verse"], r["system"]): r for r in records}
    for a, b in (("beam", "mcpg-predictor"), ("mcpg-true-score", "mcpg-predictor")):
        pairs = [(by[v, a]["p_cross_validated"], by[v, b]["p_cross_validated"]) for v in range(4)
                 if by[v, a]["candidate"] is not None and by[v, b]["candidate"] is not None]
        wins_a, wins_b = sum(x > y for x, y in pairs), sum(y > x for x, y in pairs)
        row = (f"| predictor, cross-validated | {a} | {b} | {len(pairs)} | {wins_a} | {wins_b} | "
               f"{len(pairs) - wins_a - wins_b} | {two_sided_sign_p(wins_a, wins_b):.3g} |")
        assert row in markdown


def test_the_cross_validated_judge_of_a_verse_never_saw_its_items(small_demo, tmp_path):  # noqa: F811
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.experiments.judgment_predictor import demo_devset
    from parastudio.core.experiments.mcpg_steered import fit_predictors

    records, _ = demo_devset(tmp_path)
    lm = LanguageModel(small_demo / "lm.bin")
    verses = 1 + max(r["sentence_id"] for r in records)
    before = fit_predictors(records, lm, verses, 5, seed=0)
    # Every judged item of verse 3 with its verdict reversed.
    flipped = json.loads(json.dumps(records))
    for record in flipped:
        if record["sentence_id"] == 3:
            record["acceptable"] = not record["acceptable"]
    after = fit_predictors(flipped, lm, verses, 5, seed=0)
    own = before["folds"][3]
    assert after["folds"] == before["folds"]
    assert after["judges"][own] == before["judges"][own]
    assert all(after["judges"][k] != before["judges"][k] for k in range(5) if k != own)
    assert after["steering"] != before["steering"]

    # run() judges each verse's outputs by its own fold's judge, and steers by the predictor fitted on all.
    from parastudio.core.engine.model.judgment_model import PredictorReward
    from parastudio.core.engine.model.truescore import TrueScorer
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
    from parastudio.core.experiments.mcpg_steered import run
    from parastudio.core.textio import read_token_lines

    sentences = read_token_lines(small_demo / "test.en")[:3]
    references = (small_demo / "test.ref.en").read_text(encoding="utf-8").splitlines()[:3]
    table = ParaphraseTable.load_for(str(DEMO.table), sentences)
    results, fitted = run(sentences, references, table, lm, records, profile="faithful", episodes_per_step=10,
                          folds=2, seed=0, processes=1)
    expected = fit_predictors(records, lm, 3, 2, seed=0)  # folds over the 3 verses run
    scorer = TrueScorer(table, lm)
    steering = PredictorReward(expected["steering"], scorer, lm)
    for verse, source in enumerate(map(tuple, sentences)):
        judge = PredictorReward(expected["judges"][expected["folds"][verse]], scorer, lm)
        for output in results[verse].values():
            assert output.candidate is not None
            assert output.values["p_cross_validated"] == judge(output.candidate, source)
            assert output.values["p_steering"] == steering(output.candidate, source)
