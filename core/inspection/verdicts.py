"""A candidate's verdict from its judges: accepted, rejected, or disagreed.

Per criterion, each judge's label is positive or negative: yes / no on a yes/no
criterion; on a numeric scale, a label at or above the scale's midpoint is
positive (on seed 004's 3-point scales "generally preserved", 2, already
counts as acceptable; on a 5-point scale 3 and up). A criterion's verdict is
*accepted* when every judge's label is positive, *rejected* when every one is
negative, *disagreed* otherwise. A candidate's verdict over several criteria
is rejected when any criterion is rejected, accepted when all are accepted,
disagreed otherwise: the colour of its row (green, red, amber).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from core.vocabulary import NO_WORDS, YES_WORDS

ACCEPTED, REJECTED, DISAGREED = "accepted", "rejected", "disagreed"
VERDICTS = (ACCEPTED, REJECTED, DISAGREED)


def is_positive(label: str, scale_values: Sequence[str] = ()) -> bool | None:
    """Whether one judge's label accepts the candidate; None when the label says nothing (unknown word)."""
    low = label.strip().lower()
    numeric_scale = bool(scale_values) and all(_is_number(v) for v in scale_values)
    if not numeric_scale:  # a yes/no criterion (or a label the scale does not say more about)
        if low in YES_WORDS:
            return True
        if low in NO_WORDS:
            return False
    if not _is_number(low):
        return None
    value = float(low)
    numbers = [float(v) for v in scale_values if _is_number(v)] or [value]
    return value >= (min(numbers) + max(numbers)) / 2


def _is_number(text: str) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def criterion_verdict(labels: Iterable[str], scale_values: Sequence[str] = ()) -> str | None:
    """Accepted, rejected or disagreed for one criterion's labels; None when no label counts."""
    return verdict_of_votes([is_positive(label, scale_values) for label in labels])


def verdict_of_votes(votes: Iterable[bool | None]) -> str | None:
    """Accepted when every counted vote is positive, rejected when every one is negative, else disagreed."""
    counted = {vote for vote in votes if vote is not None}
    if not counted:
        return None
    if counted == {True}:
        return ACCEPTED
    if counted == {False}:
        return REJECTED
    return DISAGREED


def candidate_verdict(per_criterion: Iterable[str | None]) -> str | None:
    """Over the criteria: rejected if any is, accepted if all are, else disagreed."""
    verdicts = [verdict for verdict in per_criterion if verdict is not None]
    if not verdicts:
        return None
    if REJECTED in verdicts:
        return REJECTED
    if all(verdict == ACCEPTED for verdict in verdicts):
        return ACCEPTED
    return DISAGREED
