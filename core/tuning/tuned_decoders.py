"""The decoders MERT tunes: each turns a weight vector into n-best lists whose candidates carry feature vectors.

* ``beam`` (:class:`BeamTuning`): the beam decoder's log-linear weights ``alpha_phi, alpha_LM, alpha_W``
  (:mod:`core.engine.model.scoring`); a candidate's features are ``sum log10 p(rule)``, ``log10 P_LM(t)`` and
  ``-|t|``, so ``w . h`` is the decoder's score of its path.
* ``spg`` (:class:`SPGTuning`): SPG's ``lambda_k`` per table, ``lambda_self`` (the self-paraphrase table is one
  of seed 004's K tables), ``lambda_lm`` and ``lambda_um`` (:func:`core.engine.decoders.spg.feature_vector`). Seed 004
  counts a unit found in several tables from the one with the largest weighted score, so which table a unit
  counts from depends on the weights: features are taken as the decoder chose them under the weights it ran
  with (as Moses' n-best lists record the features of the path found), and the next decoding re-chooses.

Both expose ``feature_names``, ``start()``, ``decode(weights, sentences)`` (per sentence, the n-best as
``(tokens, segments, features)``, best first) and ``weights_json(weights)`` for ``weights.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Protocol, Sequence

import numpy as np

from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.decoders.spg import (
    SPGWeights,
    Usability,
    feature_vector,
    generate_spg,
    plan,
    weight_vector,
    weights_from_vector,
)
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.scoring import ScoreWeights
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.progress import Progress, no_progress
from parastudio.core.tuning.dev_labels import DevSentence
from parastudio.core.vocabulary import APPLICATIONS

Output = tuple[tuple[str, ...], tuple, np.ndarray]  # tokens, segments, features


class TunedDecoder(Protocol):
    name: str
    feature_names: tuple[str, ...]

    def start(self) -> np.ndarray: ...

    def decode(self, weights: np.ndarray, sentences: Sequence[DevSentence],
               progress: Progress = no_progress) -> list[list[Output]]: ...

    def weights_json(self, weights: np.ndarray) -> dict: ...


@dataclass
class BeamTuning:
    table: ParaphraseTable
    lm: LanguageModel | None
    nbest: int = 20
    settings: DecoderSettings = DecoderSettings()
    name: str = "beam"
    feature_names: tuple[str, ...] = ("alpha_phi", "alpha_lm", "alpha_w")

    def start(self) -> np.ndarray:
        weights = self.settings.weights
        return np.array([weights.phrase, weights.lm, weights.word_penalty], dtype=float)

    @staticmethod
    def score_weights(weights: np.ndarray) -> ScoreWeights:
        return ScoreWeights(phrase=float(weights[0]), lm=float(weights[1]), word_penalty=float(weights[2]))

    def features(self, tokens: Sequence[str], segments) -> np.ndarray:
        lm = self.lm.score(tuple(tokens)) if self.lm is not None else 0.0
        return np.array([sum(s.rule.log10_prob for s in segments), lm, -float(len(tokens))])

    def decode(self, weights, sentences, progress=no_progress) -> list[list[Output]]:
        decoder = BeamDecoder(self.table, self.lm, replace(self.settings, weights=self.score_weights(weights)))
        out = []
        for done, sentence in enumerate(sentences, 1):
            entries = decoder.decode(sentence.tokens).nbest(self.nbest)
            out.append([(e.tokens, e.segments, self.features(e.tokens, e.segments)) for e in entries])
            progress(done, len(sentences), "decoding")
        return out

    def weights_json(self, weights) -> dict:
        return self.score_weights(weights).to_json()


@dataclass
class SPGTuning:
    tables: Sequence[ParaphraseTable]
    lm: LanguageModel | None
    application: str
    nbest: int = 20
    settings: DecoderSettings = DecoderSettings()
    initial: SPGWeights = SPGWeights()
    name: str = "spg"

    def __post_init__(self) -> None:
        if self.application not in APPLICATIONS:
            raise ValueError(f"SPG's application must be one of {', '.join(APPLICATIONS)}, not {self.application!r}")

    @property
    def feature_names(self) -> tuple[str, ...]:
        return tuple(f"lambda_{k + 1}" for k in range(len(self.tables))) + ("lambda_self", "lambda_lm", "lambda_um")

    def start(self) -> np.ndarray:
        return np.array(weight_vector(self.initial, len(self.tables)), dtype=float)

    def spg_weights(self, weights) -> SPGWeights:
        return weights_from_vector(list(weights), len(self.tables))

    def decode(self, weights, sentences, progress=no_progress) -> list[list[Output]]:
        spg = self.spg_weights(weights)
        out = []
        for done, sentence in enumerate(sentences, 1):
            reference = tuple(sentence.references[0].split()) if sentence.references else None
            if self.application == "similarity" and reference is None:
                raise ValueError(f"spg-similarity needs a reference for sentence {sentence.sentence_id}")
            usability = Usability.of(self.application, reference)
            found = generate_spg(sentence.tokens, list(self.tables), self.lm, application=self.application,
                                 reference=reference, nbest=self.nbest, weights=spg, settings=self.settings)
            planned = plan(sentence.tokens, list(self.tables), usability, spg)
            out.append([(tokens, segments, np.array(feature_vector(sentence.tokens, tokens, segments, self.tables,
                                                                   self.lm, usability, spg, planned)))
                        for tokens, _score, segments in found])
            progress(done, len(sentences), "decoding")
        return out

    def weights_json(self, weights) -> dict:
        return {"spg_application": self.application, **self.spg_weights(weights).to_json()}


def application_of(sentences: Sequence[DevSentence]) -> str | None:
    """The SPG application the dev set's candidates were generated for (their ``spg_application``), if any."""
    for sentence in sentences:
        try:
            params = json.loads(sentence.params) or {}
        except (TypeError, ValueError):
            continue
        if not isinstance(params, dict):
            continue
        application = params.get("spg_application") or str(params.get("system", "")).removeprefix("spg-")
        if application in APPLICATIONS:
            return application
    return None
