"""Judge competence (MACE, Dawid-Skene): the same figures as crowd-kit called directly on the same labels, the
same on every run whatever order the labels come in, one line for scales the models do not fit, and planted
judges (two good, one random, one always "yes") ranked as planted in at least 95 of 100 simulated studies."""

from __future__ import annotations

import random

import pandas as pd
import pytest
from crowdkit.aggregation import MACE, DawidSkene

from parastudio.core.stats.judge_competence import (
    CompetenceModel,
    competence_by_criterion,
    judges_below,
    not_applicable,
)

JUDGES = ("good1", "good2", "random", "yes")
# crowd-kit's own uses of pandas options that pandas 3 deprecates, from the direct calls here.
pytestmark = pytest.mark.filterwarnings("ignore:::crowdkit")


def planted_study(seed: int, items: int = 20, accuracy: float = 0.95) -> dict[int, dict[str, str]]:
    """Two judges right with probability ``accuracy``, one answering at random, one always "yes"; true labels
    yes or no with equal chance."""
    rng = random.Random(seed)
    labels = {}
    for item in range(items):
        truth = rng.choice(("yes", "no"))
        other = "no" if truth == "yes" else "yes"
        labels[item] = {"good1": truth if rng.random() < accuracy else other,
                        "good2": truth if rng.random() < accuracy else other,
                        "random": rng.choice(("yes", "no")), "yes": "yes"}
    return labels


def three_level_study(seed: int) -> dict[str, dict[str, str]]:
    """A 3-point criterion, five judges, not every judge on every item: keys are strings, as a study's items."""
    rng = random.Random(seed)
    labels = {}
    for item in range(25):
        truth = rng.choice("123")
        judges = rng.sample(["a", "b", "c", "d", "e"], rng.choice((2, 3, 4)))
        labels[f"item{item}"] = {j: truth if rng.random() < (0.9 if j < "d" else 0.4) else rng.choice("123")
                                 for j in judges}
    return labels


def direct_frame(labels) -> tuple[pd.DataFrame, list]:
    """The frame crowd-kit reads, built here apart from the module: rows by item (sorted by repr) then judge."""
    keys = sorted(labels, key=repr)
    rows = [(task, judge, labels[key][judge]) for task, key in enumerate(keys) for judge in sorted(labels[key])]
    return pd.DataFrame(rows, columns=["task", "worker", "label"]), keys


@pytest.mark.parametrize("labels", [planted_study(3), three_level_study(7)], ids=["binary", "three-level"])
def test_mace_is_crowdkit_mace(labels):
    fit = CompetenceModel("mace", seed=4, iterations=30).fit(labels)
    frame, keys = direct_frame(labels)
    direct = MACE(n_restarts=1, n_iter=30, method="vb", random_state=4).fit(frame)
    workers = list(dict.fromkeys(frame["worker"]))  # crowd-kit numbers judges in order of first appearance
    for index, name in enumerate(workers):
        assert fit.judges[name].competence == pytest.approx(direct.spamming_[index, 1], abs=1e-12)
        assert fit.judges[name].judgments == int((frame["worker"] == name).sum())
    for task, key in enumerate(keys):
        assert fit.items[key].label == direct.labels_[task]
        assert fit.items[key].probability == pytest.approx(direct.probas_.loc[task].max(), abs=1e-12)
    assert fit.judgments == len(frame)


@pytest.mark.parametrize("labels", [planted_study(3), three_level_study(7)], ids=["binary", "three-level"])
def test_dawid_skene_is_crowdkit_dawid_skene(labels):
    fit = CompetenceModel("dawid-skene", iterations=40).fit(labels)
    frame, keys = direct_frame(labels)
    direct = DawidSkene(n_iter=40).fit(frame)
    for name in set(frame["worker"]):
        # Expected accuracy: sum over true labels c of P(c) P(judge says c | c), from crowd-kit's own matrices.
        expected = sum(direct.priors_[c] * direct.errors_.loc[(name, c), c] for c in direct.priors_.index
                       if (name, c) in direct.errors_.index)
        assert fit.judges[name].competence == pytest.approx(expected, abs=1e-12)
    for task, key in enumerate(keys):
        assert fit.items[key].label == direct.labels_[task]
        assert fit.items[key].probability == pytest.approx(direct.probas_.loc[task, direct.labels_[task]],
                                                           abs=1e-12)


@pytest.mark.parametrize("model", ["mace", "dawid-skene"])
def test_the_same_figures_whatever_order_the_labels_come_in(model):
    labels = three_level_study(11)
    shuffled_items = list(labels.items())
    random.Random(1).shuffle(shuffled_items)
    shuffled = {key: dict(sorted(by_judge.items(), reverse=True)) for key, by_judge in shuffled_items}
    first, second = CompetenceModel(model).fit(labels), CompetenceModel(model).fit(shuffled)
    assert first.judges == second.judges and first.items == second.items
    assert first.signature == second.signature


def test_the_signature_records_the_seed_and_the_iterations():
    labels = planted_study(0, items=6)
    signature = CompetenceModel("mace", seed=9, iterations=12).fit(labels, criterion="fluency").signature
    assert "model:mace" in signature and "seed:9" in signature and "iterations:12" in signature
    assert "crowd-kit:" in signature and "criterion:fluency" in signature and "items:6" in signature
    assert "seed" not in CompetenceModel("dawid-skene").fit(labels).signature  # no seed: nothing drawn


@pytest.mark.parametrize("scale", ["da", "esa", "preference", "choice"])
def test_scales_the_models_do_not_fit_say_so_in_one_line(scale):
    rows = [("q", scale, 1, "ann", "50"), ("q", scale, 1, "bob", "60"),
            ("fluency", "binary", 1, "ann", "yes"), ("fluency", "binary", 1, "bob", "no")]
    results = competence_by_criterion(rows, CompetenceModel("mace", iterations=5))
    assert [(r.criterion, r.fit is None) for r in results] == [("q", True), ("fluency", False)]
    assert results[0].note == not_applicable(scale) and "do not apply" in results[0].note
    assert "\n" not in results[0].note
    assert not_applicable("binary") is None and not_applicable("3-point") is None


def test_judges_below_a_minimum_are_named():
    results = competence_by_criterion([("fluency", "binary", item, judge, label)
                                       for item, by_judge in planted_study(2, items=30).items()
                                       for judge, label in by_judge.items()], CompetenceModel("dawid-skene"))
    competences = {j.annotator: j.competence for j in results[0].fit.judges.values()}
    minimum = sorted(competences.values())[2]  # between the second and the third
    assert [name for name, _criterion, _c in judges_below(results, minimum)] == sorted(
        name for name, c in competences.items() if c < minimum)


@pytest.mark.slow  # 200 fits through crowd-kit's pandas EM: about 0.4-0.6 CPU s each (about 100 s in all)
@pytest.mark.parametrize("model", ["mace", "dawid-skene"])
def test_planted_judges_rank_as_planted_in_95_of_100_studies(model):
    ranked = 0
    for seed in range(100):
        fit = CompetenceModel(model).fit(planted_study(seed))
        competence = {name: judge.competence for name, judge in fit.judges.items()}
        ranked += min(competence["good1"], competence["good2"]) > max(competence["random"], competence["yes"])
    assert ranked >= 95
