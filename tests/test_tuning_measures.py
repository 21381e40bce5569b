"""rp, rr, rf (seed 004 §3.6), set P/R/F (seed 002 §3.4), label aggregation rules, AUC against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from parastudio.core.stats.classification import accuracy, majority_baseline, roc_auc
from parastudio.core.stats.label_aggregation import aggregate_labels
from parastudio.core.stats.replacement_measures import ReplacementCounts, set_precision_recall_f
from parastudio.core.tuning.objectives import figures, make_objective


def test_rp_rr_rf_by_hand():
    # 3 sentences of 10, 5 and 5 words; 4 replacements, 3 correct, covering 2 + 1 + 1 + 2 = 6 source words.
    counts = ReplacementCounts(correct=3, incorrect=1, replaced_words=6, source_words=20)
    assert counts.rp() == 0.75 and counts.rr() == 0.3
    assert counts.rf() == pytest.approx(2 * 0.75 * 0.3 / 1.05)
    with_unknown = counts + ReplacementCounts(unlabelled=2, replaced_words=2)
    assert with_unknown.rp("incorrect") == 0.5 and with_unknown.rp("skip") == 0.75
    assert with_unknown.rr() == 0.4  # rr needs no label
    assert ReplacementCounts().rf() == 0.0


def test_seed002_set_measures():
    p, r, f = set_precision_recall_f({"a", "b", "c", "d"}, {"a", "b", "e"})
    assert (p, r) == (0.5, 2 / 3) and f == pytest.approx(4 / 7)


def test_objectives_read_the_summed_statistics():
    totals = np.array([[3, 1, 2, 8, 20, 4, 5]], dtype=float)
    assert make_objective("rf")(totals)[0] == pytest.approx(2 * 0.5 * 0.4 / 0.9)
    assert make_objective("rf", unlabelled="skip")(totals)[0] == pytest.approx(2 * 0.75 * 0.4 / 1.15)
    assert make_objective("f1", correct_known=6)(totals)[0] == pytest.approx(0.5)
    assert make_objective("accuracy")(totals)[0] == 0.8
    shown = figures(totals[0], correct_known=6)
    assert shown["rp"] == 0.5 and shown["rr"] == 0.4 and shown["recall"] == 0.5 and shown["accuracy"] == 0.8


@pytest.mark.parametrize("labels, rule, adjudication, expected", [
    ({"a": "yes", "b": "yes"}, "agree", None, ("yes", "agree", None)),
    ({"a": "yes", "b": "no"}, "agree", None, (None, "unresolved", "disagreement")),
    ({"a": "yes", "b": "no"}, "majority", None, (None, "unresolved", "tie")),
    ({"a": "yes", "b": "no", "c": "yes"}, "majority", None, ("yes", "majority", None)),
    ({"a": "1", "b": "2", "c": "3"}, "majority", None, (None, "unresolved", "tie")),
    ({"a": "yes", "b": "no"}, "adjudicated", "no", ("no", "adjudicated", None)),
    ({"a": "yes", "b": "no"}, "adjudicated", None, (None, "unresolved", "disagreement")),
    ({"a": "yes", "b": "yes"}, "adjudicated", "no", ("yes", "agree", None)),  # never overrides agreement
    ({"a": "yes"}, "majority", None, (None, "unresolved", "too few judges")),
    ({"a": "yes"}, "adjudicated", "no", ("no", "adjudicated", None)),
    ({}, "agree", None, (None, "unresolved", "no judgments")),
])
def test_aggregation_rules(labels, rule, adjudication, expected):
    result = aggregate_labels(labels, rule, adjudication=adjudication)
    assert (result.label, result.status, result.reason) == expected


def test_one_judge_is_enough_when_the_study_asks_one():
    assert aggregate_labels({"a": "no"}, "agree", min_judges=1).label == "no"


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(-3, 3)), min_size=2, max_size=40))
@settings(max_examples=200, deadline=None)
def test_auc_equals_scikit_learn(pairs):
    labels = [label for label, _ in pairs]
    assume(0 < sum(labels) < len(labels))
    scores = [score for _, score in pairs]
    assert roc_auc(labels, scores) == pytest.approx(roc_auc_score(labels, scores))


def test_accuracy_and_majority_baseline():
    assert accuracy([1, 0, 1, 1], [1, 1, 1, 0]) == 0.5
    assert majority_baseline([1, 0, 0]) == (0, 2 / 3)
    with pytest.raises(ValueError):
        roc_auc([1, 1], [0.2, 0.3])
