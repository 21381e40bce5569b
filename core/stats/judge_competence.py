"""How far each judge can be trusted, and each item's most probable label, from the labels alone: MACE and
Dawid–Skene, fitted by crowd-kit (Ustalov et al.).

* MACE (Hovy, Berg-Kirkpatrick, Vaswani and Hovy 2013, "Learning Whom to Trust with MACE", NAACL): each judge
  either knows the true label and gives it, or spams, drawing a label from a habit of their own; a judge's
  *competence* is the probability that they are not spamming (crowd-kit's ``spamming_[:, 1]``).
* Dawid–Skene (Dawid and Skene 1979, "Maximum likelihood estimation of observer error-rates using the EM
  algorithm", Applied Statistics 28(1)): each judge has a confusion matrix, P(says k | truth c); a judge's
  *competence* here is their expected accuracy, sum over c of P(truth c) P(says c | truth c).

Both read a label as a category: the order of an ordinal scale (3-point, 5-point) is not used. They apply to
scales with labels (binary, replacement, ordinal, categorical), not to a score (direct assessment, ESA), a
preference between two systems or a choice task (each protocol's ``no_competence_model``, :mod:`core.judging.protocols`).

The same figures on every run: the data are handed to crowd-kit in one order (items by key, judges by name),
MACE's starting point is drawn from a fixed seed and Dawid–Skene starts from majority vote; the seed, the
iteration counts and crowd-kit's version are the fit's signature. crowd-kit's MACE draws every restart from the
same seed, so a second restart repeats the first: one restart is the same figure in a tenth of the time.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from importlib.metadata import version
from typing import ClassVar, Hashable, Iterable, Mapping

from parastudio.core.judging.protocols import PROTOCOLS
from parastudio.core.stats.signature import Signed

COMPETENCE_MODELS = ("mace", "dawid-skene")


@dataclass(frozen=True)
class JudgeCompetence:
    annotator: str
    competence: float  # MACE: P(not spamming); Dawid-Skene: expected accuracy
    judgments: int  # this judge's labels in the fit


@dataclass(frozen=True)
class ItemLabel:
    label: str  # the model's most probable true label
    probability: float  # its posterior probability


@dataclass(frozen=True)
class CompetenceFit:
    judges: dict[str, JudgeCompetence]  # by name, in name order
    items: dict[Hashable, ItemLabel]  # by the caller's item key
    judgments: int  # every label the fit read
    signature: str


@dataclass(frozen=True)
class CompetenceModel(Signed):
    """One fit's settings: ``model`` (mace or dawid-skene), MACE's ``seed``, ``iterations`` (MACE: EM
    iterations; Dawid-Skene: at most, stopping earlier when the bound gains less than ``tolerance``)."""

    model: str = "mace"
    seed: int = 0
    iterations: int = 50
    tolerance: float = 1e-5

    name: ClassVar[str] = "judge-competence"

    def __post_init__(self):
        if self.model not in COMPETENCE_MODELS:
            raise ValueError(f"competence model must be one of {', '.join(COMPETENCE_MODELS)}, not {self.model!r}")

    def settings(self) -> dict[str, object]:
        own = ({"seed": self.seed, "iterations": self.iterations, "restarts": 1, "method": "vb"}
               if self.model == "mace" else {"iterations": self.iterations, "tolerance": self.tolerance})
        return {"model": self.model, **own, "crowd-kit": version("crowd-kit")}

    def reason(self, item: ItemLabel) -> str:
        """A model's label as a dev set records it: its probability and what fitted it (an export says so per
        record, having no header of its own)."""
        settings = ", ".join(f"{name} {value}" for name, value in self.settings().items() if name != "model")
        return f"{self.model} probability {item.probability:.6f} ({settings})"

    def crowdkit_model(self):
        """The crowd-kit aggregator these settings describe."""
        from crowdkit.aggregation import MACE, DawidSkene

        if self.model == "mace":
            return MACE(n_restarts=1, n_iter=self.iterations, method="vb", random_state=self.seed)
        return DawidSkene(n_iter=self.iterations, tol=self.tolerance)

    def fit(self, labels: Mapping[Hashable, Mapping[str, str]], **data) -> CompetenceFit:
        """Fit ``labels`` (item key -> judge -> label); ``data`` (e.g. ``criterion``) joins the signature."""
        frame, keys = labels_frame(labels)
        judges = sorted({name for by_judge in labels.values() for name in by_judge})
        signature = self.signature(len(keys), len(judges), **data)
        if frame is None:
            return CompetenceFit({}, {}, 0, signature)
        fitted = self.crowdkit_model()
        with warnings.catch_warnings():  # crowd-kit's own uses of pandas options pandas 3 deprecates: not ours to fix
            warnings.filterwarnings("ignore", module="crowdkit")
            fitted.fit(frame)
        competence = mace_competence(fitted, frame) if self.model == "mace" else dawid_skene_competence(fitted)
        counts = frame["worker"].value_counts()
        items = {keys[task]: ItemLabel(str(label), float(fitted.probas_.loc[task, label]))
                 for task, label in fitted.labels_.items()}
        return CompetenceFit({name: JudgeCompetence(name, competence[name], int(counts[name])) for name in judges},
                             items, len(frame), signature)


def labels_frame(labels: Mapping[Hashable, Mapping[str, str]]):
    """crowd-kit's ``task, worker, label`` frame in one order (items by ``repr`` of their key, then judges by
    name; tasks numbered in that order), and the item keys by task number; (None, []) when there is no label."""
    import pandas as pd

    keys = sorted((key for key, by_judge in labels.items() if by_judge), key=repr)
    rows = [(task, name, str(labels[key][name])) for task, key in enumerate(keys) for name in sorted(labels[key])]
    if not rows:
        return None, []
    return pd.DataFrame(rows, columns=["task", "worker", "label"]), keys


def mace_competence(fitted, frame) -> dict[str, float]:
    """Each judge's P(not spamming): crowd-kit numbers judges in order of first appearance in the frame."""
    import pandas as pd

    _codes, workers = pd.factorize(frame["worker"])
    return {str(name): float(fitted.spamming_[index, 1]) for index, name in enumerate(workers)}


def dawid_skene_competence(fitted) -> dict[str, float]:
    """Each judge's expected accuracy under the fitted class priors and their confusion matrix (a label a judge
    never gave has probability 0 in it)."""
    errors, priors = fitted.errors_, fitted.priors_
    accuracy: dict[str, float] = {}
    for (worker, said), row in errors.iterrows():
        if said in priors.index:
            accuracy[str(worker)] = accuracy.get(str(worker), 0.0) + float(priors[said]) * float(row[said])
        else:
            accuracy.setdefault(str(worker), 0.0)
    return accuracy


def not_applicable(scale: str) -> str | None:
    """The one line saying why the models do not fit a criterion of ``scale``; None when they do."""
    protocol = PROTOCOLS.get(scale)
    return None if protocol is None else protocol.no_competence_model


@dataclass(frozen=True)
class CriterionCompetence:
    """One criterion's fit, or the line saying why the models do not apply to it (``fit`` None)."""

    criterion: str
    scale: str
    fit: CompetenceFit | None
    note: str | None = None


def competence_by_criterion(rows: Iterable[tuple[str, str, Hashable, str, str]],
                            model: CompetenceModel) -> list[CriterionCompetence]:
    """One fit per criterion, in first-seen order, of ``rows`` (criterion, scale, item, annotator, label):
    a judge's competence on one question says nothing of another."""
    scales: dict[str, str] = {}
    labels: dict[str, dict[Hashable, dict[str, str]]] = {}
    for criterion, scale, item, annotator, label in rows:
        scales.setdefault(criterion, scale)
        labels.setdefault(criterion, {}).setdefault(item, {})[annotator] = label
    return [CriterionCompetence(name, scale, None, not_applicable(scale)) if not_applicable(scale) else
            CriterionCompetence(name, scale, model.fit(labels[name], criterion=name))
            for name, scale in scales.items()]


def judges_below(results: Iterable[CriterionCompetence], minimum: float) -> list[tuple[str, str, float]]:
    """(judge, criterion, competence) for every fitted competence under ``minimum``, by judge then criterion."""
    return sorted((judge.annotator, result.criterion, judge.competence) for result in results
                  if result.fit is not None for judge in result.fit.judges.values() if judge.competence < minimum)
