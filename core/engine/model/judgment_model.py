"""The judgment predictor read at decode time: a candidate's features and the probability that judges accept it.

``parastudio judgment-predictor --json`` (:mod:`core.tuning.judgment_predictor`, seed 000 §5's open question)
fits a logistic regression on a judged dev set and prints, beside its cross-validated figures, the fit on every
row: ``coefficients`` (log-odds per standard deviation), ``intercept``, ``feature_means`` and ``feature_sds``.
That report is the model file: :meth:`JudgmentModel.read` takes those four fields (and ``criterion``,
``signature``) and :meth:`JudgmentModel.probability` is scikit-learn's ``StandardScaler`` then
``LogisticRegression.predict_proba``, ``1 / (1 + exp(-(b + sum_i c_i (x_i - m_i) / s_i)))``.

:class:`PredictorReward` makes it an MCPG reward (issue 24, item 5): the features of a whole final sentence
(its LM score, its best derivation's rules and true score, its length and edit rate from the source), the
kind of global feature seed 003 §3 says MCPG may use because it scores only final states.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Sequence

from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.derivation import Segment, changed_segments
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.errors import InputFileError

# The predictor's inputs, in this order: lm and true_score in log10, channel the sum of log10 rule
# probabilities of the derivation (identity segments add nothing), length in tokens, edit_rate word edits over
# source words, rules the number of unit replacements.
FEATURES = ("lm", "channel", "true_score", "length", "edit_rate", "rules")
REPORT_EXPECTED = ("a judgment-predictor --json report: coefficients, feature_means and feature_sds of "
                   + ", ".join(FEATURES) + ", and an intercept")


def feature_vector(source: Sequence[str], candidate: Sequence[str], *, lm_log10: float, channel_log10: float,
                   true_score: float, rules: int) -> list[float]:
    """The :data:`FEATURES` of one candidate (the two read from the words themselves are computed here)."""
    import Levenshtein

    edit_rate = Levenshtein.distance(list(source), list(candidate)) / max(1, len(source))
    return [lm_log10, channel_log10, true_score, float(len(candidate)), edit_rate, float(rules)]


def derivation_features(derivation: Sequence[Segment]) -> tuple[float, int]:
    """``(channel_log10, rules)`` of a derivation, as the dev set's records give them to the predictor."""
    channel = sum(math.log10(s.rule.prob) for s in derivation if not s.identity and s.rule.prob > 0)
    return channel, len(changed_segments(derivation))


@dataclass(frozen=True)
class JudgmentModel:
    """A fitted logistic regression over standardised :data:`FEATURES` (module docstring)."""

    criterion: str
    coefficients: tuple[float, ...]
    intercept: float
    means: tuple[float, ...]
    sds: tuple[float, ...]
    signature: str = ""

    def probability(self, features: Sequence[float]) -> float:
        """The predicted probability that judges say yes (accept, on ``criterion``)."""
        z = self.intercept + sum(c * (x - m) / s for c, x, m, s in zip(self.coefficients, features, self.means,
                                                                         self.sds))
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)  # no overflow for very negative z
        return e / (1.0 + e)

    @classmethod
    def from_report(cls, report: dict) -> "JudgmentModel":
        """The model of a ``judgment-predictor --json`` report; a missing or bad field raises ``ValueError``
        whose message is what was missing."""
        try:
            values = [[float(report[key][name]) for name in FEATURES]
                      for key in ("coefficients", "feature_means", "feature_sds")]
            intercept = float(report["intercept"])
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"missing or not a number: {error}") from None
        coefficients, means, sds = values
        if not all(math.isfinite(v) for v in [*coefficients, *means, intercept]) \
                or not all(math.isfinite(s) and s > 0 for s in sds):
            raise ValueError("coefficients, means or feature_sds not finite, or a feature_sd not positive")
        return cls(str(report.get("criterion", "acceptable")), tuple(coefficients), intercept, tuple(means),
                   tuple(sds), str(report.get("signature", "")))

    @classmethod
    def read(cls, path: str | os.PathLike) -> "JudgmentModel":
        """The model in a file written by ``parastudio judgment-predictor --json > FILE``."""
        from parastudio.core.structured_text import parse_json
        from parastudio.core.textio import open_text_maybe_gzip

        with open_text_maybe_gzip(path) as handle:
            text = handle.read()
        report = parse_json(text, path, "a judgment-predictor --json report (a JSON object)")
        try:
            if not isinstance(report, dict):
                raise ValueError(f"a JSON {type(report).__name__}, not an object")
            return cls.from_report(report)
        except ValueError as error:
            raise InputFileError(path, REPORT_EXPECTED, str(error)) from None


class PredictorReward:
    """MCPG's whole-sentence reward: the probability that judges accept the candidate (``SentenceReward``).

    The features are those the predictor was trained on, computed for a sentence MCPG reached: its best
    derivation and true score from ``scorer`` (seed 000, the same table and LM as the search), ``lm`` its LM
    score. A sentence the table cannot reach gets 0 (MCPG's finals are always reachable).
    """

    def __init__(self, model: JudgmentModel, scorer: TrueScorer, lm: LanguageModel):
        self.model, self.scorer, self.lm = model, scorer, lm

    def features(self, candidate: Sequence[str], source: Sequence[str]) -> list[float] | None:
        truth = self.scorer.score(source, candidate)
        if not truth.reachable:
            return None
        channel, rules = derivation_features(truth.derivation)
        return feature_vector(source, candidate, lm_log10=self.lm.score(tuple(candidate)), channel_log10=channel,
                              true_score=truth.log10_score, rules=rules)

    def __call__(self, candidate: Sequence[str], source: Sequence[str]) -> float:
        features = self.features(candidate, source)
        return 0.0 if features is None else self.model.probability(features)
