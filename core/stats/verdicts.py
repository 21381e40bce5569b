"""A candidate's verdict from its judges: accepted, rejected, disagreed, or adjudicated.

Per criterion, each judge's label is positive or negative: yes / no on a yes/no
criterion; on a numeric scale, a label at or above the scale's midpoint is
positive (on seed 004's 3-point scales "generally preserved", 2, already
counts as acceptable; on a 5-point scale 3 and up). A 0-100 score (DA, ESA)
has no levels, so no midpoint: it gives no verdict. A criterion's verdict is
*accepted* when every judge's label is positive, *rejected* when every one is
negative, *disagreed* otherwise. A candidate's verdict over several criteria
is rejected when any criterion is rejected, accepted when all are accepted,
disagreed otherwise: the colour of its row (green, red, amber).

An adjudicator's decision settles a criterion whose judges gave different labels (the dev set's
``adjudicated`` rule, :mod:`core.stats.label_aggregation`: a decision never overrides judges who agree): the
criterion then counts as the decision says (:func:`settled_verdict`) and reads *adjudicated*. A candidate
reads adjudicated (blue) when the decisions make its verdict other than the judges' labels alone make it
(:func:`shown_verdict`); what rule blame, the plots and the rejected counts read is the settled verdict.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from parastudio.core.vocabulary import NO_WORDS, YES_WORDS

ACCEPTED, REJECTED, DISAGREED, ADJUDICATED = "accepted", "rejected", "disagreed", "adjudicated"
VERDICTS = (ACCEPTED, REJECTED, DISAGREED, ADJUDICATED)


def is_positive(label: str, scale_values: Sequence[str] | None = ()) -> bool | None:
    """Whether one judge's label accepts the candidate; None when the label says nothing (unknown word), or when
    ``scale_values`` is None: a score criterion's (DA, ESA), whose "0" and "1" are scores, not no and yes."""
    if scale_values is None:
        return None
    low = label.strip().lower()
    numeric_scale = bool(scale_values) and all(_is_number(v) for v in scale_values)
    if not numeric_scale:  # a yes/no criterion (or a label the scale does not say more about)
        if low in YES_WORDS:
            return True
        if low in NO_WORDS:
            return False
    if not _is_number(low):
        return None
    numbers = [float(v) for v in scale_values if _is_number(v)]
    if not numbers:  # a score with no levels (DA, ESA 0-100): no midpoint makes it an acceptance or a rejection
        return None
    return float(low) >= (min(numbers) + max(numbers)) / 2


def _is_number(text: str) -> bool:
    try:
        float(text)
    except (TypeError, ValueError):
        return False
    return True


def criterion_verdict(labels: Iterable[str], scale_values: Sequence[str] | None = ()) -> str | None:
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


def settled_verdict(labels: Sequence[str], decision: str | None, scale_values: Sequence[str] | None = ()
                    ) -> str | None:
    """The verdict an adjudicator's ``decision`` gives a criterion whose judges' ``labels`` differ; None when it
    settles nothing (no decision, judges who agree, or a decision that says nothing)."""
    if decision is None or len(set(labels)) < 2:
        return None
    return verdict_of_votes([is_positive(decision, scale_values)])


def shown_verdict(settled: str | None, judges_alone: str | None) -> str | None:
    """What a candidate's row reads: adjudicated when the decisions changed its verdict, else that verdict."""
    return ADJUDICATED if settled != judges_alone else settled
