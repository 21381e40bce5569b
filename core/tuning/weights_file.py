"""``weights.json``: what ``parastudio tune`` writes and ``parastudio generate --weights`` reads.

Fields: ``format`` (``parastudio-weights/1``), ``system`` (beam, spg or pivot), ``weights`` (by system:
``beam``: ``alpha_phi, alpha_lm, alpha_w``; ``spg``: ``lambda_k`` list, ``lambda_self``, ``lambda_lm``,
``lambda_um``, ``spg_application``; ``pivot``: ``lambda`` (four), ``T``), the dev set's path and sha256, the
objective, the before/after figures, the MERT iterations, library versions and a one-line ``signature``.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from parastudio.core.engine.decoders.spg import SPGWeights
from parastudio.core.engine.model.scoring import ScoreWeights
from parastudio.core.errors import InputFileError
from parastudio.core.file_fingerprint import sha256_of
from parastudio.core.structured_text import parse_json
from parastudio.core.textio import atomic_output, open_text_maybe_gzip

FORMAT = "parastudio-weights/1"
SYSTEM_OF_GENERATOR = {"beam": "beam", "spg-compression": "spg", "spg-simplification": "spg",
                       "spg-similarity": "spg"}


def write_weights(report: dict, path: str | os.PathLike, *, inputs=()) -> None:
    with atomic_output(path, inputs=inputs) as handle:
        json.dump(report, handle, indent=2, sort_keys=False)
        handle.write("\n")


def _number(value, path, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputFileError(path, f"a finite number in {field}", repr(value))
    return float(value)


def read_weights(path: str | os.PathLike) -> dict:
    """The weights file, checked: a clear error naming the file and the field when it is not one."""
    path = Path(path)
    with open_text_maybe_gzip(path) as handle:  # not UTF-8, NUL, an overlong line: file:line: expected ...
        text = handle.read()
    data = parse_json(text, path, "a JSON weights file (parastudio tune -o)")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputFileError(path, f'a weights file with "format": "{FORMAT}"')
    system = data.get("system")
    weights = (data.get("weights") or {}).get(system)
    if system not in ("beam", "spg", "pivot") or not isinstance(weights, dict):
        raise InputFileError(path, 'a "system" (beam, spg or pivot) and its "weights"')
    return data


def weights_provenance(path: str | os.PathLike, data: dict) -> dict:
    """What a generated candidate records about the weights it was made with."""
    digest = sha256_of(path)
    return {"file": str(path), "sha256": digest, "system": data["system"], "objective": data.get("objective"),
            "signature": data.get("signature")}


def beam_weights(data: dict, path: str | os.PathLike = "weights.json") -> ScoreWeights:
    w = data["weights"]["beam"]
    return ScoreWeights(phrase=_number(w.get("alpha_phi"), path, "weights.beam.alpha_phi"),
                        lm=_number(w.get("alpha_lm"), path, "weights.beam.alpha_lm"),
                        word_penalty=_number(w.get("alpha_w"), path, "weights.beam.alpha_w"))


def spg_weights(data: dict, path: str | os.PathLike = "weights.json") -> SPGWeights:
    w = data["weights"]["spg"]
    tables = w.get("lambda_k")
    if not isinstance(tables, list):
        raise InputFileError(path, "a list in weights.spg.lambda_k")
    return SPGWeights(tables=tuple(_number(x, path, "weights.spg.lambda_k") for x in tables),
                      self_table=_number(w.get("lambda_self"), path, "weights.spg.lambda_self"),
                      lm=_number(w.get("lambda_lm"), path, "weights.spg.lambda_lm"),
                      usability=_number(w.get("lambda_um"), path, "weights.spg.lambda_um"))


def check_applies(data: dict, generator: str, path: str | os.PathLike) -> None:
    """ValueError when the weights were tuned for another system than ``generator``."""
    wanted = SYSTEM_OF_GENERATOR.get(generator)
    if data["system"] == "pivot":
        raise ValueError(f"{path} holds pivot-table weights: they re-score a table (use the table `tune "
                         "--system pivot` wrote with --table), not a decoder")
    if wanted != data["system"]:
        raise ValueError(f"{path} holds {data['system']} weights; --system {generator} takes "
                         + ("none (its weights are not tuned)" if wanted is None else f"{wanted} weights"))
    tuned_for = data["weights"][data["system"]].get("spg_application")
    if wanted == "spg" and tuned_for and generator != f"spg-{tuned_for}":
        raise ValueError(f"{path} was tuned for spg-{tuned_for}, not {generator}")
