"""Seed 000 §4 reproduction: the difference statistics by hand and against numpy, and the pipeline on a tiny table."""

import math

import numpy as np
import pytest
from conftest import EXAMPLE1_RULES
from hypothesis import given
from hypothesis import strategies as st

from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule
from parastudio.core.experiments import mcpg_vs_beam as experiment
from parastudio.core.experiments import mcpg_vs_beam_report as report
from parastudio.core.experiments import mcpg_vs_beam_results as results
from parastudio.core.experiments.mcpg_vs_beam_results import MCPGSystem, SearchSettings, SentenceResult

TRUE_TUNED = MCPGSystem("true-score", "tuned")
TRANSLATOR_TUNED = MCPGSystem("translator", "tuned")


def test_difference_stats_by_hand():
    # Pairs with a missing side are left out: differences 0.5 and -2.0.
    stats = results.difference_stats([-1.0, -3.0, None, 0.5], [-1.5, -1.0, -2.0, None])
    assert (stats.count, stats.missing) == (2, 2)
    assert stats.mean == pytest.approx(-0.75)
    assert stats.sd == pytest.approx(1.25)  # population sd: sqrt(((0.5+0.75)^2 + (-2+0.75)^2) / 2)
    assert stats.at_least == 1 and stats.share_at_least == pytest.approx(0.5)


def test_difference_stats_tolerance_and_empty():
    # KenLM float32 sums: a shortfall within 1e-4 is a tie, so MCPG counts as reaching the beam.
    assert results.difference_stats([-2.00005], [-2.0]).at_least == 1
    assert results.difference_stats([-2.001], [-2.0]).at_least == 0
    empty = results.difference_stats([None], [-1.0])
    assert empty.count == 0 and math.isnan(empty.mean) and math.isnan(empty.share_at_least)
    with pytest.raises(ValueError):
        results.difference_stats([1.0], [])


@given(st.lists(st.tuples(st.floats(-100, 0), st.floats(-100, 0)), min_size=2, max_size=30))
def test_difference_stats_equal_numpy(pairs):
    system, reference = zip(*pairs)
    stats = results.difference_stats(system, reference)
    differences = np.array(system) - np.array(reference)
    assert stats.mean == pytest.approx(float(np.mean(differences)), abs=1e-9)
    assert stats.sd == pytest.approx(float(np.std(differences, ddof=0)), abs=1e-7)
    assert stats.at_least == int(np.sum(differences >= -results.SCORE_TOLERANCE))


def test_beam_references_rerank_by_true_score_and_skip_the_source():
    source = ("a", "b")
    # Decoder order: the source first, a near-tie, then a clearly better one.
    best, is_source, paraphrase = experiment.beam_references(
        [(source, -10.0), (("c", "b"), -10.00005), (("a", "d"), -12.0)], source)
    assert (best, is_source, paraphrase) == (-10.0, True, -10.00005)
    best, is_source, paraphrase = experiment.beam_references(
        [(source, -10.0), (("c", "b"), -9.0), (("a", "d"), None)], source)
    assert (best, is_source, paraphrase) == (-9.0, False, -9.0)
    assert experiment.beam_references([(source, -3.0)], source) == (-3.0, True, None)


def _fake_results():
    rows = [  # beam best, beam best paraphrase, true-score MCPG, translator MCPG
        (-10.0, -11.0, -10.0, -12.0),
        (-20.0, -20.0, -21.0, -25.0),
        (-30.0, None, -29.0, None),
    ]
    results = []
    for beam, paraphrase, true_score, translator in rows:
        result = SentenceResult(("x",), beam_best=beam, beam_best_paraphrase=paraphrase,
                                beam_best_is_source=paraphrase != beam, beam_seconds=0.5)
        result.scores = {TRUE_TUNED: true_score, TRANSLATOR_TUNED: translator}
        result.seconds = {TRUE_TUNED: 1.0, TRANSLATOR_TUNED: 2.0}
        results.append(result)
    return results


def test_summaries_of_hand_made_results(tmp_path):
    results = _fake_results()
    true_summary, translator_summary = report.summarize(results, [TRUE_TUNED, TRANSLATOR_TUNED])
    # true-score vs beam 1-best: 0, -1, +1 -> mean 0, sd sqrt(2/3), 2 of 3 reach it.
    assert true_summary.vs_best.mean == pytest.approx(0.0)
    assert true_summary.vs_best.sd == pytest.approx(math.sqrt(2 / 3))
    assert true_summary.vs_best.at_least == 2
    # vs the best paraphrase != source: +1, -1 (third sentence has none).
    assert (true_summary.vs_paraphrase.count, true_summary.vs_paraphrase.mean) == (2, pytest.approx(0.0))
    # vs the beam 1-best only where that 1-best is a paraphrase (sentence 2): -1.
    where = true_summary.vs_best_where_paraphrase
    assert (where.count, where.mean, where.at_least) == (1, pytest.approx(-1.0), 0)
    assert true_summary.mean_seconds == 1.0 and true_summary.outputs == 3
    # translator: -2, -5, missing -> mean -3.5, sd 1.5.
    assert translator_summary.vs_best.mean == pytest.approx(-3.5)
    assert translator_summary.vs_best.sd == pytest.approx(1.5)
    assert translator_summary.outputs == 2
    boost = report.true_over_translator(results, "tuned")
    assert boost.mean == pytest.approx(3.0) and boost.sd == pytest.approx(1.0)  # +2, +4
    assert report.true_over_translator(results, "faithful") is None

    path = tmp_path / "report.md"
    report.write_markdown(path, results, [TRUE_TUNED, TRANSLATOR_TUNED], {"command": "x"}, SearchSettings())
    text = path.read_text(encoding="utf-8")
    assert "-14.13 ± 19.99" in text and "-42.92 ± 40.14" in text and "+28.79 ± 34.19" in text
    # the paper's figures divided by ln 10
    assert "-6.14 ± 8.68" in text and "-18.64 ± 17.43" in text
    assert "+0.000 ± 0.816" in text and "-3.500 ± 1.500" in text and "+3.000 ± 1.000" in text
    assert "66.7 % (2 / 3)" in text and "does not say in which base" in text
    assert ("MCPG true-score, tuned reaches the beam 1-best on average (+0.000 log10, 2 / 3 at least equal"
            in text)
    assert "on the 1 sentences whose beam 1-best is a paraphrase, not the source, it stays below it (-1.000, 0 / 1)" \
        in text


def _tiny_table():
    rules = EXAMPLE1_RULES + [("runs", "walks", 0.5), ("dog", "beast", 0.3), ("after", "before", 0.2),
                              ("sees", "finds", 0.4), ("big", "old", 0.3), ("house", "garden", 0.2)]
    table = ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in rules)
    table.sort()
    return table


def test_pipeline_scores_are_exact_true_scores(tiny_lm):
    lm = LanguageModel(tiny_lm["binary"])
    table = _tiny_table()
    sentences = [s.split() for s in ("the dog runs after the young cat", "the big house", "it sees a small dog")]
    systems = [TRUE_TUNED, TRANSLATOR_TUNED, MCPGSystem("true-score", "faithful")]
    results = experiment.run(table, lm, sentences, systems, time_budget=None, max_episodes=300, processes=1,
                             progress=False)
    scorer = TrueScorer(table, lm)
    for result in results:
        assert result.beam_best is not None
        if result.beam_best_paraphrase is not None:
            assert result.beam_best_paraphrase <= result.beam_best + 1e-9
        for system in systems:
            score = result.scores[system]
            assert score is not None
            assert score == pytest.approx(scorer.score(result.source, result.texts[system].split()).log10_score)
            # These lists hold every reachable sentence (< 100), so the beam's best paraphrase is the optimum.
            assert score <= result.beam_best_paraphrase + 1e-4
    # Same seed, same episodes: same outputs.
    again = experiment.run(table, lm, sentences, systems[:1], time_budget=None, max_episodes=300, processes=1,
                           progress=False)
    assert [r.texts[TRUE_TUNED] for r in again] == [r.texts[TRUE_TUNED] for r in results]


def test_report_states_units_eta_the_polish_share_and_samples(tmp_path):
    bare, faithful = MCPGSystem("true-score", "tuned-no-polish"), MCPGSystem("true-score", "faithful")
    results = _fake_results()
    for result, (no_polish, paced) in zip(results, [(-11.0, -14.0), (-22.0, -26.0), (-29.0, -35.0)]):
        result.scores.update({bare: no_polish, faithful: paced})
        result.texts = {system: f"out {system.profile}" for system in result.scores}
        result.seconds.update({bare: 1.0, faithful: 1.0})
        result.commits = {faithful: [120, 80], bare: [1000]}
        result.beam_text = "beam out"
    systems = [TRUE_TUNED, bare, faithful]
    path = tmp_path / "report.md"
    report.write_markdown(path, results, systems, {"command": "x"}, SearchSettings())
    text = path.read_text(encoding="utf-8")
    assert text.count("**Units.**") == 1 and "log10" in text
    assert "2.0 commits, η ≈ 100" in text and "1.0 commits, η ≈ 1,000" in text
    # vs beam: tuned 0.0, no polish (-1 - 2 + 1) / 3, faithful -5.0 -> the polish brings 0.667 / 5.0 = 13 %.
    assert "without the polish -0.667" in text and "13 % comes from the polish" in text
    assert "## Sample outputs" in text and "- beam 1-best (-30.000): beam out" in text
    assert "- MCPG true-score, faithful (-35.000): out faithful" in text


def test_the_faithful_stop_and_eta_by_count_are_stated(tmp_path):
    faithful = MCPGSystem("true-score", "faithful")
    results = _fake_results()
    for result in results:
        result.source = tuple("w" * 9)  # 9 words: D = 9 + stop = 10
        result.scores[faithful] = result.beam_best
        result.texts = {system: "out" for system in result.scores}
        result.seconds[faithful] = 0.25
        result.commits[faithful] = [300, 200]
        result.cut[faithful] = False
        result.beam_text = "beam out"
    results[2].cut[faithful] = True
    path = tmp_path / "report.md"
    report.write_markdown(path, results, [TRUE_TUNED, faithful], {"command": "x"}, SearchSettings(300, 5.0),
                          input_sentences=7)
    text = path.read_text(encoding="utf-8")
    assert "2.0 decisions per sentence of at most D ≈ 10.0, 0.25 s" in text
    assert "every η = 300 episodes" in text and "a cap of 5 s per search, which cut 1 of 6 searches" in text
    assert "the first 3 of the input's 7 sentences" in text
    # The log-base note names the columns the table really has.
    assert "paper ÷ ln 10" not in text and '"paper, vs MOSES"' in text


def test_inputs_line_writes_checkout_paths_relative():
    from parastudio.core.experiments.provenance import ROOT, inputs_line

    line = inputs_line({"table": str(ROOT / "evaldata" / "demo" / "paraphrase-table.gz"), "rules loaded": 3,
                        "LM": "/elsewhere/lm.bin"})
    assert line == "Inputs: table: `evaldata/demo/paraphrase-table.gz`, rules loaded: `3`, LM: `/elsewhere/lm.bin`"
