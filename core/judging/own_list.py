"""A judge's own list (issue 44): the items they may want to revisit, read from their own assignments and answers
only (:func:`core.store.operations.own_items`; on PostgreSQL through what their own login may read, so no other
judge's label can reach it). An item is on it when it is

* ``flagged`` or ``commented`` (its live answer carries a flag or a comment),
* ``skipped``: still open, but before the last item they answered in their order (passed with the arrows),
* ``fast``: answered in under the study's ``fast_seconds`` of judging (:class:`core.judging.pace.PaceSettings`).

The judging screen lists them (Ctrl+L), Enter goes to the item; "go to item N" (Ctrl+G) reaches any item.
"""

from __future__ import annotations

from dataclasses import dataclass

from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database

REASONS = ("flagged", "commented", "skipped", "fast")


@dataclass(frozen=True)
class OwnListRow:
    """One item of the list: its number as the screen shows it (``position + 1``), why it is listed, and what
    the judge gave."""

    position: int
    reasons: tuple[str, ...]
    criterion: str
    value: str | None
    seconds: float | None
    comment: str | None
    candidate: str | None

    @property
    def number(self) -> int:
        return self.position + 1


def reasons_of(item: ops.OwnItem, last_answered: int, fast_ms: float) -> tuple[str, ...]:
    """Why ``item`` is on the list (none: it is not)."""
    answered = item.value is not None
    return tuple(reason for reason, holds in (
        ("flagged", answered and item.flag),
        ("commented", answered and bool(item.comment)),
        ("skipped", not answered and item.position < last_answered),
        ("fast", answered and item.duration_ms is not None and item.duration_ms < fast_ms),
    ) if holds)


def listed(items: list[ops.OwnItem], fast_seconds: float) -> list[OwnListRow]:
    """The items (a judge's assignments in their order) that belong on their own list, in that order."""
    last_answered = max((item.position for item in items if item.value is not None), default=-1)
    rows = []
    for item in items:
        reasons = reasons_of(item, last_answered, fast_seconds * 1000)
        if reasons:
            rows.append(OwnListRow(item.position, reasons, item.criterion, item.value,
                                   None if item.duration_ms is None else item.duration_ms / 1000, item.comment,
                                   item.candidate))
    return rows


def own_list(db: Database, annotator_id: int, fast_seconds: float) -> list[OwnListRow]:
    """The judge's own list as the store holds it now (their own rows only)."""
    return listed(ops.own_items(db, annotator_id), fast_seconds)
