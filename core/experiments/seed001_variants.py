"""Seed 001's approaches run beside the paper's ten: diagnostic variants and the other reading of each choice the
thesis leaves open, and the size of a larger graph; what the experiment runs and its report names, in one place
below both (the report never imports the experiment)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from parastudio.core.engine.decoders.cat.approaches import APPROACHES, Approach


def diagnostic_approaches() -> dict[str, Approach]:
    ten = APPROACHES["approach-10"]
    return {
        "approach-10, all spans": dataclasses.replace(ten, name="approach-10, all spans",
                                                      parameters={"retrieval": "all-spans"}),
        "approach-10 without FWPF": dataclasses.replace(ten, name="approach-10 without FWPF",
                                                        partial_filters=("PTPF", "SDPF")),
    }


# The other reading of each choice (core.engine.decoders.cat.stages.DEFAULT_PARAMETERS holds the chosen one), and the
# stages whose approaches it changes.
OTHER_READINGS = {"SDSF as printed": ({"sdsf_reading": "as-printed"}, ("SDSF",)),
                  "NLTK stopwords": ({"function_words": "nltk-2013"}, ("FWPF", "FNRF"))}


def reading_approaches(reading: str) -> dict[str, Approach]:
    """The paper's approaches that ``reading`` changes, run under it (same names: the report sets them beside)."""
    parameters, stages = OTHER_READINGS[reading]
    return {name: dataclasses.replace(a, parameters={**a.parameters, **parameters})
            for name, a in APPROACHES.items()
            if set(stages) & {*a.partial_filters, *a.score_functions, *a.filters}}


def graph_size(graph: Path) -> dict | None:
    """The stack, options and sample a larger graph was decoded with (``settings.json`` beside it, written by
    ``benchmarks/decode_thesis_graphs.py``); None for the build's and the demo's graphs."""
    settings = graph.parent / "settings.json"
    if not settings.is_file():
        return None
    return json.loads(settings.read_text(encoding="utf-8")).get(graph.name)
