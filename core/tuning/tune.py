"""Tuning a decoder's weights on a labelled dev set by MERT (seed 004 §3.6), with a held-out check.

The dev set's sentences are split (seeded) into a tuning part and a held-out part. MERT
(:func:`core.tuning.mert.mert`) runs on the tuning part only; rp, rr, rf, recall, F1 and accuracy of the
1-best are measured on both parts with the starting weights ("before") and the tuned ones ("after"). The
report is what ``weights.json`` holds, signed (sacrebleu-style) from the options that ran.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np

from parastudio.core.code_identity import code_version
from parastudio.core.progress import Progress, no_progress, scaled
from parastudio.core.tuning.dev_labels import DevLabels, DevSentence, split_sentences
from parastudio.core.tuning.mert import Hypothesis, mert
from parastudio.core.tuning.objectives import figures, make_objective
from parastudio.core.tuning.tuned_decoders import TunedDecoder
from parastudio.core.tuning.versions import library_versions

WEIGHTS_FORMAT = "parastudio-weights/1"


@dataclass(frozen=True)
class TuneOptions:
    objective: str = "rf"
    unlabelled: str = "incorrect"
    heldout: float = 0.25
    seed: int = 0
    restarts: int = 5
    random_directions: int = 3
    iterations: int = 10

    def signature(self, system: str, devset_sha256: str | None, extra: str = "") -> str:
        """What a figure was computed with, in one line (as sacrebleu prints a metric's signature)."""
        parts = [f"parastudio-tune:{code_version()}", f"system:{system}", f"objective:{self.objective}",
                 f"unlabelled:{self.unlabelled}", f"devset:sha256={(devset_sha256 or 'unknown')[:16]}",
                 f"heldout:{self.heldout:g}", f"seed:{self.seed}",
                 f"mert:restarts={self.restarts},directions={self.random_directions},iterations={self.iterations}"]
        if extra:
            parts.append(extra)
        versions = library_versions()
        parts += [f"{name}:{versions[name]}" for name in ("numpy", "scipy") if versions.get(name)]
        return "|".join(parts)


def _hypotheses(decoder: TunedDecoder, labels: DevLabels, weights: np.ndarray, sentences: Sequence[DevSentence],
                progress: Progress) -> list[list[Hypothesis]]:
    decoded = decoder.decode(weights, sentences, progress)
    out = []
    for sentence, outputs in zip(sentences, decoded):
        out.append([Hypothesis(" ".join(tokens) + "\t" + ",".join(f"{x:.9g}" for x in features), features,
                               labels.stats(sentence, tokens, segments))
                    for tokens, segments, features in outputs])
    return out


def _one_best_figures(decoded: list[list[Hypothesis]], options: TuneOptions, correct_known: int) -> dict:
    rows = [sentence[0].stats for sentence in decoded if sentence]
    totals = np.sum(rows, axis=0) if rows else np.zeros(7)
    return figures(totals, unlabelled=options.unlabelled, correct_known=correct_known)


def tune_decoder(records: Sequence[dict], decoder: TunedDecoder, options: TuneOptions = TuneOptions(), *,
                 devset: dict | None = None, progress: Progress = no_progress,
                 should_stop: Callable[[], bool] | None = None) -> dict:
    """MERT on ``records`` (a dev set) for ``decoder``; returns the report ``weights.json`` holds."""
    started = time.perf_counter()
    labels = DevLabels.from_records(records)
    tuning, heldout = split_sentences(labels.sentences, options.heldout, options.seed)
    if not tuning:
        raise ValueError("the dev set has no sentence to tune on")
    known = {"dev": labels.correct_known(tuning), "heldout": labels.correct_known(heldout)}
    objective = make_objective(options.objective, unlabelled=options.unlabelled, correct_known=known["dev"])
    parts = {"dev": tuning, "heldout": heldout}

    def measure(weights: np.ndarray, low: int, high: int) -> dict:
        return {name: _one_best_figures(_hypotheses(decoder, labels, weights, sentences,
                                                    scaled(progress, low, high) if name == "dev" else no_progress),
                                        options, known[name]) if sentences else None
                for name, sentences in parts.items()}

    start = decoder.start()
    progress(0, 100, "before: decoding with the starting weights")
    before = measure(start, 0, 10)
    iteration_share = 80 / max(1, options.iterations)
    counter = {"round": 0}

    def decode(weights: np.ndarray) -> list[list[Hypothesis]]:
        low = 10 + int(iteration_share * counter["round"])
        counter["round"] += 1
        return _hypotheses(decoder, labels, weights, tuning, scaled(progress, low, int(low + iteration_share)))

    result = mert(decode, start, objective, max_iterations=options.iterations, restarts=options.restarts,
                  random_directions=options.random_directions, seed=options.seed, should_stop=should_stop)
    progress(90, 100, "after: decoding with the tuned weights")
    after = measure(result.weights, 90, 100)
    progress(100, 100, "done")
    return {
        "format": WEIGHTS_FORMAT, "system": decoder.name,
        "weights": {decoder.name: decoder.weights_json(result.weights)},
        "vector": {"names": list(decoder.feature_names), "start": [float(x) for x in start],
                   "tuned": [float(x) for x in result.weights]},
        "objective": options.objective, "unlabelled": options.unlabelled,
        "devset": {**(devset or {}), "records": len(records), "sentences": len(labels.sentences),
                   "tuning_sentences": len(tuning), "heldout_sentences": len(heldout),
                   "labelled_replacements": len(labels.replacements),
                   "correct_replacements": {name: count for name, count in known.items()}},
        "before": before, "after": after,
        "mert": {"iterations": [i.to_json() for i in result.iterations], "converged": result.converged,
                 "start_value": result.start_value, "final_value": result.final_value,
                 "nbest": getattr(decoder, "nbest", None), "options": asdict(options)},
        "seconds": round(time.perf_counter() - started, 2),
        "versions": library_versions(),
        "signature": options.signature(decoder.name, (devset or {}).get("sha256"),
                                       f"nbest:{getattr(decoder, 'nbest', '-')}"),
    }
