"""A generated candidate paraphrase with everything needed to recompute it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from parastudio.core.engine.model.derivation import Segment


@dataclass
class Candidate:
    """One line of ``parastudio generate --json``.

    ``model_score`` is the generator's own log10 score of its best path;
    ``true_score`` the log10 true score under the same table and LM
    (:mod:`core.engine.model.truescore`), ``None`` only if unreachable. ``params`` is
    the run's provenance (options, inputs by sha256, code version and commit:
    :mod:`core.engine.candidates.generation`); ``source`` (and ``reference``) the tokenized
    sentence it was generated from; ``search`` what the search did for this
    sentence (MCPG: eta per decision, decisions, episodes, whether the time cap
    cut it). ``seconds`` (wall time) is not written: equal runs write equal bytes.
    """

    sentence_id: int
    system: str
    rank: int
    text: str
    model_score: float
    true_score: float | None
    derivation: tuple[Segment, ...]
    params: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    reference: str | None = None
    search: dict[str, Any] | None = None
    seconds: float = 0.0

    def to_json(self) -> dict:
        return {
            "sentence_id": self.sentence_id,
            "system": self.system,
            "rank": self.rank,
            "text": self.text,
            "model_score": self.model_score,
            "true_score": self.true_score,
            "derivation": [segment.to_json() for segment in self.derivation],
            "params": self.params,
            **({"source": self.source} if self.source is not None else {}),
            **({"references": [self.reference]} if self.reference is not None else {}),
            **({"search": self.search} if self.search is not None else {}),
        }
