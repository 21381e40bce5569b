"""Seed 002 §3.4 on pattern tables: λ1..λ4 and T of Eq. 3 (summed over pivot patterns) tuned on labelled
pattern pairs, the re-scored table written and read again, and the labels taken from a judged pattern study."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from parastudio.core.cli import main
from parastudio.core.engine.tables.patterns.pattern_table import PatternTable
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.study_builder import PatternModels, StudyPlan, study_from_pattern_table
from parastudio.core.tablebuild.patterns.scoring import DEFAULT_LAMBDAS, log_score
from parastudio.core.tablebuild.patterns.table_builder import build_pattern_table
from parastudio.core.tablebuild.patterns.table_file import read_meta, read_table, scored_pair, write_table
from parastudio.core.tuning.devset_files import read_devset
from parastudio.core.tuning.line_search import choose_gamma, sweep
from parastudio.core.tuning.pivot_tuning import PairSet, PatternTableSource, labelled_pairs, pair_objective, tune_pivot
from tests.pattern_fixtures import figure_sentences
from tests.test_pivot_tuning import _totals_along

# (e1, e2, label or None for a pair nobody judged, [(pivot, (h1, h2, h3, h4)), ...]). The correct pairs have
# good lexical weights (h3, h4 near 0); "bad-1" has the best MLE features of all, so the MLE-model ranks it
# first, and with λ = 1 it still outranks two correct pairs: only weights that lean on h3 and h4 separate them.
PAIRS = [
    ("take [NN_1] into account", "consider [NN_1]", True,
     [("tener en cuenta [NN_1]", (-0.5, -0.7, -0.2, -0.3)), ("considerar [NN_1]", (-1.5, -2.0, -0.4, -0.5))]),
    ("the [JJ_1] king", "the [JJ_1] monarch", True, [("el rey [JJ_1]", (-1.0, -1.2, -0.3, -0.2))]),
    ("[NNS_1] went away", "[NNS_1] departed", True,
     [("[NNS_1] se fueron", (-2.0, -2.5, -0.1, -0.4)), ("[NNS_1] partieron", (-2.2, -1.9, -0.5, -0.2)),
      ("se fueron [NNS_1]", (-3.0, -3.0, -0.3, -0.3))]),
    ("all the [NNS_1]", "all [NNS_1]", True, [("todos los [NNS_1]", (-2.5, -2.0, -0.6, -0.5))]),
    ("the [NN_1] of god", "the [NN_1]", False, [("el [NN_1]", (-0.1, -0.1, -1.5, -1.2))]),
    ("[NNP_1] said", "[NNP_1] was", False,
     [("[NNP_1] dijo", (-0.6, -0.4, -2.0, -3.5)), ("dijo [NNP_1]", (-1.0, -1.1, -2.5, -2.0))]),
    ("a [JJ_1] man", "a [JJ_1] woman", False, [("un [JJ_1] hombre", (-1.5, -1.0, -4.0, -3.0))]),
    ("[VB_1] the land", "[VB_1] the people", False, [("[VB_1] la tierra", (-3.0, -3.0, -2.0, -2.2))]),
    ("in the [NN_1]", "into the [NN_1]", None, [("en el [NN_1]", (-0.3, -0.9, -0.8, -0.4))]),
    ("in the [NN_1]", "on the [NN_1]", None, [("en el [NN_1]", (-1.9, -0.4, -1.1, -2.6))]),
]


@pytest.fixture
def pattern_table(tmp_path):
    path = tmp_path / "fixture.pattern-table.gz"
    pairs = [scored_pair(e1, e2, pivots, DEFAULT_LAMBDAS) for e1, e2, _, pivots in PAIRS]
    pairs.sort(key=lambda p: (p.e1, -p.score, p.e2))
    write_table(iter(pairs), path, {"lambdas": list(DEFAULT_LAMBDAS), "threshold": None})
    return path


def _records():
    """A dev set as export-devset writes a pattern study's: one replacement e1 -> e2 per judged pair."""
    return [{"id": str(i), "source": e1, "candidate": e2, "derivation": [], "judgments": [],
             "replacements": [{"source": e1, "target": e2, "label": "correct" if good else "incorrect",
                               "src": [0, len(e1.split())], "tgt": [0, len(e2.split())]}]}
            for i, (e1, e2, good, _) in enumerate(PAIRS) if good is not None]


def _pair_set(table) -> PairSet:
    labels = labelled_pairs(_records())
    found = PatternTableSource(str(table)).features(set(labels))
    keys = sorted(found)
    return PairSet(keys, [found[k] for k in keys], [labels[k] for k in keys])


def _brute_force_f1(pairs: PairSet) -> float:
    """The best F over λ_i in {-1, 0, 1, 2} and, for each λ, every threshold that decides differently."""
    objective = pair_objective("f1")
    best = 0.0
    for lambdas in itertools.product((-1.0, 0.0, 1.0, 2.0), repeat=4):
        scores = np.sort(pairs.log_scores(np.array([*lambdas, 0.0])))
        cuts = np.concatenate([[scores[0] - 1], (scores[:-1] + scores[1:]) / 2])
        for cut in cuts:
            best = max(best, float(objective(pairs.totals(np.array([*lambdas, cut]))[None, :])[0]))
    return best


def test_the_source_gives_every_pivots_features_and_eq3(pattern_table):
    pairs = _pair_set(pattern_table)
    assert len(pairs) == 8
    expected = {(e1, e2): pivots for e1, e2, good, pivots in PAIRS if good is not None}
    theta = np.array([0.3, 1.2, -0.5, 2.0, 0.0])
    for key, score, mask in zip(pairs.keys, pairs.log_scores(theta), pairs.mask):
        assert mask.sum() == len(expected[key])  # one feature vector per pivot pattern: Eq. 3's sum over c
        assert score == pytest.approx(math.log(sum(math.exp(np.dot(theta[:4], h)) for _, h in expected[key])))


def test_line_searches_on_the_pattern_table_equal_brute_force(pattern_table):
    pairs = _pair_set(pattern_table)
    objective = pair_objective("f1")
    start = np.array([1.0, 1.0, 1.0, 1.0, -20.0])
    directions = [np.eye(5)[i] for i in range(5)] + [np.array([0.0, 0.0, 1.0, 1.0, 0.5]),
                                                      np.array([-1.0, -1.0, 2.0, 1.0, 0.0])]
    grid = np.linspace(-100, 100, 200001) + 1.234567e-4
    for direction in directions:
        gamma, value = choose_gamma(*sweep(pairs.pieces(start, direction), objective))
        assert objective(pairs.totals(start + gamma * direction)[None, :])[0] == pytest.approx(value, abs=1e-12)
        # The exact search finds the best value a fine grid finds (no interval here is narrower than its step).
        assert value == pytest.approx(objective(_totals_along(pairs, start, direction, grid)).max(), abs=1e-12)


def test_tune_on_the_pattern_table_matches_brute_force_and_the_table_reads_again(pattern_table, tmp_path):
    pairs = _pair_set(pattern_table)
    best = _brute_force_f1(pairs)
    out = tmp_path / "tuned.pattern-table.gz"
    report = tune_pivot(_records(), PatternTableSource(str(pattern_table)), objective="f1", heldout=0.0,
                        restarts=3, table_out=str(out))
    assert report["before"]["dev"]["f1"] < 1.0  # λ = 1, T below every pair: the wrong pairs are kept too
    assert report["after"]["dev"]["f1"] == best == 1.0
    assert report["features"]["kind"] == "pattern-table" and "features:pattern-table" in report["signature"]
    lambdas, threshold = report["weights"]["pivot"]["lambda"], report["weights"]["pivot"]["T"]
    # The written table: read by the pattern-table reader and by the engine, every pair of the input table
    # (judged or not) whose Eq. 3 under the tuned λ exceeds T, scored under the tuned λ, its sidecar saying so.
    written = list(read_table(out))
    expected = {(p.e1, p.e2) for p in read_table(pattern_table) if log_score(p.features, lambdas) > threshold}
    assert {(p.e1, p.e2) for p in written} == expected and report["table_out"]["pairs"] == len(written)
    for pair in written:
        assert math.log(pair.score) == pytest.approx(log_score(pair.features, lambdas))
    kept_labels = {(e1, e2): good for e1, e2, good, _ in PAIRS if (e1, e2) in expected and good is not None}
    assert all(kept_labels.values()) and len(kept_labels) == 4  # exactly the correct pairs of the dev set
    meta = read_meta(out)
    assert meta["lambdas"] == pytest.approx(lambdas) and meta["threshold"] == pytest.approx(threshold)
    assert len(PatternTable.load(out)) == len(written)


def _judge(db_path, study):
    """Two scripted judges who agree: a pair is correct iff its e2 has a form of 'consider'."""
    with open_database(db_path) as db:
        for name in ("a", "b"):
            annotator = ops.find_annotator(db, study, name)
            while (item := ops.next_item(db, annotator)) is not None:
                good = any(word.startswith("consider") for word in item.candidate.split())
                ops.record_judgment(db, item.assignment_id,
                                    ("yes" if good else "no") if item.criterion == "correct" else "replacement")


@pytest.fixture
def judged_pattern_study(tmp_path):
    table = tmp_path / "patterns.gz"
    build_pattern_table(figure_sentences(), table)
    db_path = tmp_path / "study.sqlite"
    with open_database(db_path, create=True) as db:
        plan = StudyPlan(name="patterns", annotators=["a", "b"], seed=1, repeat_fraction=0, control_fraction=0,
                         application=None)
        study = study_from_pattern_table(lambda *_: None, db, plan, str(table),
                                         PatternModels(ll_threshold=-3.0, sample=1000))
    _judge(db_path, study)
    return table, db_path, study


def test_a_judged_pattern_study_gives_labelled_pairs_that_tune_reads(judged_pattern_study, tmp_path, capsys):
    table, db_path, _ = judged_pattern_study
    dev = tmp_path / "dev.jsonl"
    assert main(["export-devset", str(db_path), "-o", str(dev), "--aggregate", "agree"]) == 0
    records = read_devset(dev)
    assert records and all(len(r["replacements"]) == 1 for r in records)
    import jsonschema  # in the test extra

    schema = json.loads((Path(__file__).resolve().parent.parent / "docs" / "devset.schema.json").read_text())
    for record in records:
        jsonschema.validate(record, schema)
    for record in records:
        unit = record["replacements"][0]
        assert (unit["source"], unit["target"]) == (record["source"], record["candidate"])
        assert unit["origin"] == "derived" and unit["criterion"] == "correct"
        assert unit["label"] == ("correct" if "consider" in record["candidate"] or "considers" in record["candidate"]
                                 else "incorrect")
        assert record["derivation"] == [{"src": unit["src"], "tgt": unit["tgt"], "source": unit["source"],
                                         "target": unit["target"], "p": None, "identity": False}]
    capsys.readouterr()
    # No --pattern-table: the dev set names the study's table, which is on this machine.
    weights, out = tmp_path / "weights.json", tmp_path / "tuned.gz"
    assert main(["tune", "--devset", str(dev), "--system", "pivot", "--heldout", "0", "--restarts", "2",
                 "-o", str(weights), "--table-out", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["objective"] == "f1" and report["features"]["kind"] == "pattern-table"
    assert report["devset"]["pairs_in_table"] == len(records)
    assert len(list(read_table(out))) == report["table_out"]["pairs"] > 0
    assert json.loads(weights.read_text())["weights"]["pivot"]["T"] == report["weights"]["pivot"]["T"]
    # A pattern table named with --table is read as one (its lines are not a phrase pivot table's).
    assert main(["tune", "--devset", str(dev), "--system", "pivot", "--heldout", "0", "--restarts", "0",
                 "-o", str(weights), "--table", str(table), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["features"]["kind"] == "pattern-table"
    # Two feature sources at once are refused, not silently chosen between.
    assert main(["tune", "--devset", str(dev), "--system", "pivot", "-o", str(weights), "--pattern-table",
                 str(table), "--table", str(table)]) == 2
    assert "one feature source" in capsys.readouterr().err


def test_the_tune_screens_loop_tunes_a_pattern_study_on_its_own_table(judged_pattern_study, tmp_path):
    from parastudio.core.demo import demo_files
    from parastudio.core.tuning.study_tuning import TuneSettings, tune_study
    from parastudio.core.tuning.tune import TuneOptions

    table, db_path, study = judged_pattern_study
    # The screen's Tables field holds the demo's phrase table by default: the study's pattern table is used.
    settings = TuneSettings(system="pivot", objective="f1", tables=[str(demo_files().table)],
                            options=TuneOptions(objective="f1", heldout=0.0, restarts=1), folder=str(tmp_path / "t"))
    with open_database(db_path) as db:
        result = tune_study(lambda *_: None, db, study, settings)
    assert result["features"] == {**result["features"], "kind": "pattern-table", "path": str(table)}
    assert len(list(read_table(Path(result["table_out"]["path"])))) == result["table_out"]["pairs"]


def test_a_tuned_lambda_beyond_float_range_is_written_capped_and_ordered_exactly(pattern_table, tmp_path):
    from parastudio.core.tablebuild.patterns.rescoring import rescore_table
    from parastudio.core.tablebuild.patterns.table_file import MAX_LOG_SCORE

    # λ1 = -400 on h1 down to -3: ln score up to 1200, past e^709 (a float's range) — the tuner can go there.
    lambdas = (-400.0, 0.0, 0.0, 0.0)
    out = tmp_path / "far.gz"
    assert rescore_table(pattern_table, out, lambdas=lambdas, threshold=0.0)["pairs"] == len(PAIRS)
    written = list(read_table(out))
    assert all(0 < p.score <= math.exp(MAX_LOG_SCORE) for p in written)
    assert any(log_score(p.features, lambdas) > MAX_LOG_SCORE for p in written)
    for e1 in {p.e1 for p in written}:
        values = [log_score(p.features, lambdas) for p in written if p.e1 == e1]
        assert values == sorted(values, reverse=True)  # each e1's pairs by the exact ln score
