"""The study's event log: every operation that changes a study leaves one row saying what it did."""

from __future__ import annotations

from sqlalchemy import insert

from parastudio.core.store.clock import now
from parastudio.core.store.models import EventLog


def log_event(session, study_id: int | None, kind: str, payload: dict, actor: str | None = None) -> None:
    # A plain INSERT, no RETURNING: a member's own login may add an event but read none (revision 0007).
    session.execute(insert(EventLog).values(study_id=study_id, at=now(), actor=actor, kind=kind, payload=payload))
