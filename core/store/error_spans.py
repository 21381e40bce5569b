"""Error spans (:mod:`core.judging.protocols.error_spans`) onto a candidate's derivation: which unit replacement
each marked span blames, for rule blame and unit labels."""

from __future__ import annotations

from parastudio.core.judging.protocols.error_spans import SEVERITIES
from parastudio.core.store.items import replacement_units


def blamed_units(derivation, spans: list[dict]) -> list[str | None]:
    """Per unit replacement of the derivation (left to right), the worst severity of the spans over the stored
    tokens that overlap its target tokens, None when no mark touches it."""
    blame: list[str | None] = []
    for unit in replacement_units(derivation):
        start, end = unit["tgt"]
        touching = [s["severity"] for s in spans if s["start"] < end and start < s["end"]]
        blame.append(max(touching, key=SEVERITIES.index) if touching else None)
    return blame
