"""Seed 000's open question: how well do model scores predict the human judgment of a paraphrase?

Seed 000 §5 ends: "One could study the relations between scores from the model and subjective evaluations to
create predictive regression models." Here: a logistic regression (scikit-learn, features standardised) from

* ``lm``: log10 P_LM(candidate) (with <s> and </s>);
* ``channel``: the derivation's sum of log10 rule probabilities (identity segments add 0);
* ``true_score``: the record's log10 true score (seed 000);
* ``length``: candidate tokens; ``edit_rate``: word-level Levenshtein distance from the source over the
  source's length; ``rules``: the number of unit replacements;

to the judgment: the record's aggregated label on ``criterion`` (its ``verdict``: positive is yes, or at or
above the middle of a numeric scale; negative is no, or below it), or by default ``acceptable`` (positive on
every exported criterion). Unresolved labels and candidates with no true score are left out (and counted).

Accuracy and ROC AUC are cross-validated (stratified k-fold, out-of-fold predictions), against the majority
baseline (each test fold predicted as its training folds' majority class; AUC 0.5). Coefficients come from a
fit on every row, per standard deviation of each feature.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np

from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.judgment_model import FEATURES, JudgmentModel, feature_vector
from parastudio.core.stats.classification import accuracy, roc_auc
from parastudio.core.tuning.versions import library_versions


def _label(record: dict, criterion: str | None) -> int | None:
    if criterion is None:
        value = record.get("acceptable")
        return None if value is None else int(bool(value))
    entry = next((j for j in record["judgments"] if j["criterion"] == criterion), None)
    if entry is None or entry.get("verdict") not in ("positive", "negative"):
        return None
    return int(entry["verdict"] == "positive")


def feature_rows(records: Sequence[dict], lm: LanguageModel, criterion: str | None = None
                 ) -> tuple[np.ndarray, np.ndarray, dict]:
    """``(X, y, skipped)``: one row of :data:`FEATURES` per usable record."""
    rows, labels, skipped = [], [], {"unresolved": 0, "no_true_score": 0}
    kept: list[dict] = []
    for record in records:
        label = _label(record, criterion)
        if label is None:
            skipped["unresolved"] += 1
            continue
        if record.get("true_score") is None:
            skipped["no_true_score"] += 1
            continue
        source, candidate = record["source"].split(), record["candidate"].split()
        channel = sum(np.log10(s["p"]) for s in record["derivation"] if s.get("p") and not s["identity"])
        rows.append(feature_vector(source, candidate, lm_log10=lm.score(tuple(candidate)), channel_log10=channel,
                                   true_score=record["true_score"], rules=len(record["replacements"])))
        labels.append(label)
        kept.append(record)
    skipped["records"] = kept  # the rows' records, in order (popped by the caller)
    return np.array(rows, dtype=float).reshape(-1, len(FEATURES)), np.array(labels, dtype=int), skipped


def predict_judgments(records: Sequence[dict], lm: LanguageModel, *, criterion: str | None = None, folds: int = 5,
                      seed: int = 0) -> dict:
    """Cross-validated accuracy and AUC of the judgment predictor against the majority baseline."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y, skipped = feature_rows(records, lm, criterion)
    used = skipped.pop("records")
    positives = int(y.sum())
    minority = min(positives, len(y) - positives)
    if minority < 2:
        raise ValueError(f"{len(y)} usable judged candidates, {positives} positive: cross-validation needs at least "
                         "two of each class")
    k = min(folds, minority)
    probabilities = np.zeros(len(y))
    baseline = np.zeros(len(y), dtype=int)
    fold_of = np.zeros(len(y), dtype=int)
    for fold, (train, test) in enumerate(StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(X, y)):
        fold_of[test] = fold
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
        model.fit(X[train], y[train])
        probabilities[test] = model.predict_proba(X[test])[:, 1]
        baseline[test] = int(y[train].mean() >= 0.5)
    full = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, y)
    scaler, logistic = full[0], full[1]
    alone = {}
    for i, name in enumerate(FEATURES):
        alone[name] = roc_auc(y, X[:, i]) if np.ptp(X[:, i]) > 0 else 0.5
    versions = library_versions()
    return {
        "criterion": criterion or "acceptable", "rows": int(len(y)), "positive": positives, "skipped": skipped,
        "folds": k, "seed": seed,
        "model": {"accuracy": accuracy(y, (probabilities >= 0.5).astype(int)), "auc": roc_auc(y, probabilities)},
        "majority_baseline": {"accuracy": accuracy(y, baseline), "auc": 0.5,
                              "class": int(positives * 2 >= len(y))},
        "coefficients": {name: float(c) for name, c in zip(FEATURES, logistic.coef_[0])},
        "intercept": float(logistic.intercept_[0]),
        "feature_means": {name: float(m) for name, m in zip(FEATURES, scaler.mean_)},
        "feature_sds": {name: float(s) for name, s in zip(FEATURES, scaler.scale_)},
        "auc_of_each_feature_alone": alone,
        "predictions": [{"item": r["item"], "source": r["source"], "candidate": r["candidate"], "label": int(label),
                         "p_out_of_fold": float(p), "fold": int(fold), "baseline": int(guess),
                         "features": {name: float(value) for name, value in zip(FEATURES, row)}}
                        for r, label, p, fold, guess, row in zip(used, y, probabilities, fold_of, baseline, X)],
        "signature": "|".join([f"parastudio-predictor:{versions['parastudio']}", f"criterion:{criterion or 'acceptable'}",
                               "model:logistic-regression,standardised", f"cv:stratified-{k}-fold,seed={seed}",
                               f"lm:{Path(str(getattr(lm, 'path', '?'))).name}", f"scikit-learn:{versions.get('scikit-learn')}"]),
    }


def fit_judgment_model(records: Sequence[dict], lm: LanguageModel, *, criterion: str | None = None
                       ) -> JudgmentModel:
    """The predictor fitted on every usable record (no cross-validation): what ``--predictor`` reads from a
    report, made in memory (e.g. one per fold of :mod:`core.experiments.mcpg_steered`)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y, _ = feature_rows(records, lm, criterion)
    if len(set(y.tolist())) < 2:
        raise ValueError(f"{len(y)} usable judged candidates of one class: a predictor needs both")
    full = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, y)
    scaler, logistic = full[0], full[1]
    return JudgmentModel(criterion or "acceptable", tuple(float(c) for c in logistic.coef_[0]),
                         float(logistic.intercept_[0]), tuple(float(m) for m in scaler.mean_),
                         tuple(float(s) for s in scaler.scale_))


def predictor_json(report: dict) -> str:
    return json.dumps(report, indent=2)
