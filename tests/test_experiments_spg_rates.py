"""Seed 004 §5 reproduction: paraphrase rate and replacements by hand and against core.engine.decoders.spg.spg_report."""

import math

import pytest

from parastudio.core.engine.decoders.spg import spg_report
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule
from parastudio.core.experiments import spg_rates as experiment
from parastudio.core.experiments.spg_rates import ApplicationRates, Replacement, SentenceOutcome

SENTENCES = [s.split() for s in
             ("the dog runs after the young cat", "it walks slowly", "the big house near the garden")]
REFERENCES = [s.split() for s in ("the beast runs after the kitten", "it walks slowly", "a big house near a garden")]
RULES = [("the young cat", "the kitten", 0.7), ("dog", "beast", 0.3), ("big house", "home", 0.5), ("near", "by", 0.4)]


def _table():
    table = ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in RULES)
    table.sort()
    return table


def test_rates_of_hand_made_outcomes():
    rates = ApplicationRates("compression", [SentenceOutcome(r, a, s) for r, a, s in
                                             [(0, False, 1.0), (2, True, 2.0), (3, True, 3.0), (0, False, 4.0),
                                              (5, False, 5.0)]])
    assert rates.sentences == 5 and rates.paraphrased == 3
    assert rates.paraphrased_percent == pytest.approx(60.0)
    assert rates.mean_replacements == pytest.approx(2.0)  # 10 / 5
    assert rates.mean_replacements_paraphrased == pytest.approx(10 / 3)
    assert rates.achieves_percent == pytest.approx(40.0)
    assert rates.mean_seconds == pytest.approx(3.0)
    assert math.isnan(ApplicationRates("similarity").paraphrased_percent)


def test_run_without_lm_matches_hand_planning():
    """Without an LM the SPG score is additive, so each planned unit is applied iff it beats self-paraphrasing.

    Compression (mu = bytes saved): "the young cat -> the kitten" (ln 0.7 + 4 > 3 ln c = -3) and in sentence 3
    "big house -> home" (ln 0.5 + 5 > -2) and "near -> by" (ln 0.4 + 2 > -1); "dog -> beast" is longer,
    planned out. Similarity (mu = gain in words of s'): "dog -> beast" (ln 0.3 + 1 > -1) and "the young cat ->
    the kitten" (ln 0.7 + 1 > -3) in sentence 1; in sentence 3 both rules lose reference words.
    """
    compression, similarity = experiment.run(SENTENCES, REFERENCES, [_table()], None,
                                             applications=("compression", "similarity"), progress=False)
    assert [o.replacements for o in compression.outcomes] == [1, 0, 2]
    assert compression.paraphrased_percent == pytest.approx(200 / 3)
    assert compression.mean_replacements == pytest.approx(1.0)
    assert compression.mean_replacements_paraphrased == pytest.approx(1.5)
    assert [o.achieves for o in compression.outcomes] == [True, False, True]
    assert [o.replacements for o in similarity.outcomes] == [2, 0, 0]
    assert similarity.paraphrased_percent == pytest.approx(100 / 3)
    assert similarity.mean_replacements == pytest.approx(2 / 3)
    assert similarity.mean_replacements_paraphrased == pytest.approx(2.0)


def test_run_agrees_with_spg_report(tiny_lm):
    lm = LanguageModel(tiny_lm["binary"])
    tables = [_table()]
    reports = experiment.run(SENTENCES, REFERENCES, tables, lm, progress=False)
    assert [r.application for r in reports] == ["compression", "simplification", "similarity"]
    for rates in reports:
        expected = spg_report(SENTENCES, tables, lm, application=rates.application,
                              references=REFERENCES if rates.application == "similarity" else None)
        assert rates.paraphrased == expected.paraphrased
        assert rates.paraphrased_percent == pytest.approx(expected.paraphrased_percent)
        assert rates.mean_replacements == pytest.approx(expected.mean_replacements)


def test_similarity_needs_aligned_references():
    with pytest.raises(ValueError):
        experiment.run(SENTENCES, REFERENCES[:2], [_table()], None, applications=("similarity",), progress=False)


def test_markdown_puts_paper_figures_beside_ours(tmp_path):
    units = (Replacement(("the", "lord", "said"), ("he", "said")), Replacement(("unto",), ("to",)))
    rates = ApplicationRates("similarity", [SentenceOutcome(2, True, 0.1, ("s",), ("t",), units),
                                            SentenceOutcome(0, False, 0.3)])
    path = tmp_path / "spg.md"
    experiment.write_markdown(path, [rates], {"command": "x"})
    text = path.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| similarity"))
    # Half the replacements shorten; one of two drops a content word ("lord").
    assert row == ("| similarity | 2 | 56.8 % | 50.0 % (1 / 2) | 1.87 | 1.00 | 2.00 | 50.0 % (by construction) "
                   "| 50.0 % | 50.0 % | 0.200 |")
    assert "- source: s" in text and "[the lord said] → [he said]; [unto] → [to]" in text
