"""One label per item out of its judges' labels: by agreement, by majority, or by an adjudicator's decision.

Rules (``rule``; ``min_judges`` is the study's judges per item, 2 by default):

* every rule: fewer than ``min_judges`` labels is ``unresolved`` ("too few judges"; no label at all, "no
  judgments"), unless the rule is ``adjudicated`` and an adjudicator decided; labels all equal (and at least
  ``min_judges`` of them) is ``agree``;
* ``agree``: judges who differ leave the item ``unresolved`` ("disagreement");
* ``majority``: the label more than half of the judges gave is the ``majority`` label; otherwise (a tie, or a
  split with no label above half) ``unresolved`` ("tie");
* ``adjudicated``: judges who differ are settled by the adjudicator's decision (``adjudicated``); with none
  yet the item is ``unresolved`` ("disagreement"). An adjudication never overrides judges who agree.

Unresolved items are kept and marked, never dropped: a dev set says how each label was reached.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Mapping

AGGREGATION_RULES = ("agree", "majority", "adjudicated")
STATUSES = ("agree", "majority", "adjudicated", "unresolved")


@dataclass(frozen=True)
class AggregatedLabel:
    label: str | None  # None when unresolved
    status: str  # one of STATUSES
    reason: str | None = None  # why it is unresolved

    @property
    def resolved(self) -> bool:
        return self.status != "unresolved"

    def to_json(self) -> dict:
        return {"label": self.label, "status": self.status, "reason": self.reason}


def aggregate_labels(labels: Mapping[str, str], rule: str, *, adjudication: str | None = None,
                     min_judges: int = 2) -> AggregatedLabel:
    """The label of one item from ``labels`` (annotator -> label) by ``rule`` (see the module docstring)."""
    if rule not in AGGREGATION_RULES:
        raise ValueError(f"aggregation must be one of {', '.join(AGGREGATION_RULES)}, not {rule!r}")
    values = list(labels.values())
    decided = rule == "adjudicated" and adjudication is not None
    if len(values) < max(1, min_judges):
        if decided:
            return AggregatedLabel(adjudication, "adjudicated")
        return AggregatedLabel(None, "unresolved", "no judgments" if not values else "too few judges")
    counts = Counter(values)
    if len(counts) == 1:
        return AggregatedLabel(values[0], "agree")
    if rule == "majority":
        label, top = max(counts.items(), key=lambda kv: kv[1])
        if top * 2 > len(values):
            return AggregatedLabel(label, "majority")
        return AggregatedLabel(None, "unresolved", "tie")
    if decided:
        return AggregatedLabel(adjudication, "adjudicated")
    return AggregatedLabel(None, "unresolved", "disagreement")
