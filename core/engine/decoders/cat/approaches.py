"""The ten approaches of seed 001 Fig. 4.2 as named configurations, and user-defined ones from TOML.

An approach is four lists of stage names (partial filters, score functions,
filters, sorters) and parameters; nothing else. Fig. 4.2's rows:

===========  ==============  ==============  =========  ==========  =================
approach     partial filters score functions filters    sorters     paper (of 2,139)
===========  ==============  ==============  =========  ==========  =================
approach-1   PTPF            SDSF                                   135
approach-2   PTPF FWPF SDPF  SDSF                                   161
approach-3   PTPF FWPF SDPF  BFSF                                   159
approach-4   PTPF FWPF SDPF  LMSF                                   211
approach-5   PTPF FWPF SDPF  SDSF BFSF                              161
approach-6   PTPF FWPF SDPF  SDSF LMSF BFSF                         218
approach-7   PTPF FWPF SDPF  SDSF LMSF BFSF  PTRF FNRF  LMBS        574
approach-8   PTPF FWPF SDPF  SDSF LMSF BFSF  PTRF FNRF  CDBS        493
approach-9   PTPF FWPF SDPF  SDSF LMSF BFSF  SBRF       LMBS        661
approach-10  PTPF FWPF SDPF  SDSF LMSF BFSF  SBRF       LMBS CDBS   691
===========  ==============  ==============  =========  ==========  =================

A TOML file adds approaches (``--approaches my.toml``)::

    [approach.my-approach]
    partial_filters = ["PTPF", "SDPF"]
    score_functions = ["LMSF"]
    filters = ["PTRF"]
    sorters = ["LMBS"]
    parameters = { sdpf_threshold = 2 }
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from parastudio.core.engine.decoders.cat.filters import FILTERS
from parastudio.core.engine.decoders.cat.partial_filters import PARTIAL_FILTERS
from parastudio.core.engine.decoders.cat.score_functions import SCORE_FUNCTIONS
from parastudio.core.engine.decoders.cat.sorters import SORTERS
from parastudio.core.engine.decoders.cat.stages import DEFAULT_PARAMETERS
from parastudio.core.errors import InputFileError
from parastudio.core.structured_text import read_toml


@dataclass(frozen=True)
class Approach:
    name: str
    partial_filters: tuple[str, ...]
    score_functions: tuple[str, ...]
    filters: tuple[str, ...] = ()
    sorters: tuple[str, ...] = ()
    parameters: dict[str, Any] = field(default_factory=dict)

    def signature(self) -> str:
        """How its numbers were computed, sacrebleu style: every stage and parameter that ran."""
        parameters = {**DEFAULT_PARAMETERS, **self.parameters}
        stages = "|".join(" ".join(names) or "-" for names in
                          (self.partial_filters, self.score_functions, self.filters, self.sorters))
        return f"{self.name}|{stages}|" + "|".join(f"{k}:{parameters[k]}" for k in sorted(parameters))

    def to_json(self) -> dict:
        return {"name": self.name, "partial_filters": list(self.partial_filters),
                "score_functions": list(self.score_functions), "filters": list(self.filters),
                "sorters": list(self.sorters), "parameters": dict(self.parameters)}


_ALL_PARTIAL = ("PTPF", "FWPF", "SDPF")
_ALL_SCORES = ("SDSF", "LMSF", "BFSF")

APPROACHES: dict[str, Approach] = {a.name: a for a in (
    Approach("approach-1", ("PTPF",), ("SDSF",)),
    Approach("approach-2", _ALL_PARTIAL, ("SDSF",)),
    Approach("approach-3", _ALL_PARTIAL, ("BFSF",)),
    Approach("approach-4", _ALL_PARTIAL, ("LMSF",)),
    Approach("approach-5", _ALL_PARTIAL, ("SDSF", "BFSF")),
    Approach("approach-6", _ALL_PARTIAL, _ALL_SCORES),
    Approach("approach-7", _ALL_PARTIAL, _ALL_SCORES, ("PTRF", "FNRF"), ("LMBS",)),
    Approach("approach-8", _ALL_PARTIAL, _ALL_SCORES, ("PTRF", "FNRF"), ("CDBS",)),
    Approach("approach-9", _ALL_PARTIAL, _ALL_SCORES, ("SBRF",), ("LMBS",)),
    Approach("approach-10", _ALL_PARTIAL, _ALL_SCORES, ("SBRF",), ("LMBS", "CDBS")),
)}

# Fig. 4.2: successes out of 2,139 test cases, and §5.2 with feedback (approaches 1 and 10 only).
PAPER_SUCCESSES = {f"approach-{i}": v for i, v in enumerate((135, 161, 159, 211, 161, 218, 574, 493, 661, 691), 1)}
PAPER_CASES = 2139
PAPER_FEEDBACK_SUCCESSES = {"approach-1": 501, "approach-10": 847}

_KINDS = {"partial_filters": PARTIAL_FILTERS, "score_functions": SCORE_FUNCTIONS, "filters": FILTERS,
          "sorters": SORTERS}


def check_approach(approach: Approach, where: str = "") -> Approach:
    for kind, registry in _KINDS.items():
        for name in getattr(approach, kind):
            if name not in registry:
                raise ValueError(f"{where}approach {approach.name!r}: {kind} has no stage {name!r} "
                                 f"(known: {', '.join(sorted(registry))})")
    unknown = set(approach.parameters) - set(DEFAULT_PARAMETERS)
    if unknown:
        raise ValueError(f"{where}approach {approach.name!r}: unknown parameters {sorted(unknown)} "
                         f"(known: {', '.join(sorted(DEFAULT_PARAMETERS))})")
    for name, allowed in PARAMETER_CHOICES.items():
        if name in approach.parameters and approach.parameters[name] not in allowed:
            raise ValueError(f"{where}approach {approach.name!r}: {name} must be one of {', '.join(allowed)}, "
                             f"not {approach.parameters[name]!r}")
    return approach


# Parameters that name a reading rather than a number (score_functions.sdsf, function_words.FUNCTION_WORD_LISTS).
PARAMETER_CHOICES = {"sdsf_reading": ("source-over-target", "as-printed"),
                     "function_words": ("closed-classes", "nltk-2013")}


def load_approaches(path: str | os.PathLike) -> dict[str, Approach]:
    """The ``[approach.NAME]`` tables of a TOML file (module docstring)."""
    document = read_toml(path, "a TOML file of [approach.NAME] tables")
    tables = document.get("approach")
    if not isinstance(tables, dict) or not tables:
        raise InputFileError(path, "at least one [approach.NAME] table")
    found = {}
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise InputFileError(path, f"[approach.{name}] to be a table")
        unknown = set(table) - set(_KINDS) - {"parameters"}
        if unknown:
            raise InputFileError(path, f"[approach.{name}] keys among {sorted([*_KINDS, 'parameters'])}",
                                 ", ".join(sorted(unknown)))
        try:
            approach = Approach(name, *(tuple(table.get(kind, ())) for kind in _KINDS),
                                parameters=dict(table.get("parameters", {})))
            found[name] = check_approach(approach, f"{path}: ")
        except (TypeError, ValueError) as error:
            raise InputFileError(path, f"[approach.{name}] with known stages and parameters", str(error)) from None
    return found
