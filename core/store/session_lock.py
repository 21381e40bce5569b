"""One live judging session per annotator and study, on SQLite and PostgreSQL alike.

:func:`acquire` writes (or takes over) the annotator's lock row in one
transaction; the app calls :func:`heartbeat` every few seconds and
:func:`release` when it closes. Another session finding a row whose
heartbeat is younger than :data:`STALE_AFTER` is refused with who holds it
(:class:`SessionTaken`); ``take_over=True`` replaces it (the user said so in
a dialog), and a stale row is taken over silently: its process died. So is a
row of a process on this same machine that no longer exists (the app was
killed and started again: no need to wait for its heartbeat to age).
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from parastudio.core.store.clock import aware, now
from parastudio.core.store.database import Database
from parastudio.core.store.events import log_event
from parastudio.core.store.models import AnnotatorSession

HEARTBEAT_SECONDS = 10
STALE_AFTER = timedelta(seconds=3 * HEARTBEAT_SECONDS)


class SessionTaken(RuntimeError):
    """Another live session holds this annotator on this study."""

    def __init__(self, holder: str, seconds_ago: float):
        self.holder = holder
        self.seconds_ago = seconds_ago
        super().__init__(f"already judging in another session ({holder}, last seen {seconds_ago:.0f} s ago)")


@dataclass(frozen=True)
class SessionLock:
    study_id: int
    annotator_id: int
    token: str


def this_process() -> str:
    return f"{socket.gethostname()} pid {os.getpid()}"


def holder_is_gone(holder: str) -> bool:
    """Whether ``holder`` names a process of this machine that is no longer running."""
    host, _, pid = holder.rpartition(" pid ")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # it exists, under another user
        return False
    return False


def acquire(db: Database, study_id: int, annotator_id: int, *, take_over: bool = False,
            holder: str | None = None) -> SessionLock:
    """The lock of ``annotator_id`` on ``study_id`` for this session; :class:`SessionTaken` when held elsewhere."""
    try:
        return _acquire(db, study_id, annotator_id, take_over, holder or this_process())
    except IntegrityError:
        # Two sessions inserted the first row at once (PostgreSQL): the loser reads the winner's row.
        return _acquire(db, study_id, annotator_id, take_over, holder or this_process())


def _acquire(db: Database, study_id: int, annotator_id: int, take_over: bool, holder: str) -> SessionLock:
    token = str(uuid.uuid4())
    with db.transaction() as session:
        row = session.scalar(select(AnnotatorSession).where(AnnotatorSession.study_id == study_id,
                                                            AnnotatorSession.annotator_id == annotator_id)
                             .with_for_update())
        moment = now()
        if row is None:
            session.add(AnnotatorSession(study_id=study_id, annotator_id=annotator_id, token=token, holder=holder,
                                         started_at=moment, heartbeat_at=moment))
        else:
            age = (moment - aware(row.heartbeat_at)).total_seconds()
            if age < STALE_AFTER.total_seconds() and not take_over and not holder_is_gone(row.holder):
                raise SessionTaken(row.holder, max(0.0, age))
            log_event(session, study_id, "session_taken_over", {"annotator": annotator_id, "from": row.holder,
                                                                  "to": holder, "seconds_since_heartbeat": age})
            row.token, row.holder, row.started_at, row.heartbeat_at = token, holder, moment, moment
    return SessionLock(study_id, annotator_id, token)


def heartbeat(db: Database, lock: SessionLock) -> bool:
    """Keep the lock fresh; False when another session has taken it over (this one must stop judging)."""
    with db.transaction() as session:
        row = session.scalar(select(AnnotatorSession).where(AnnotatorSession.study_id == lock.study_id,
                                                            AnnotatorSession.annotator_id == lock.annotator_id))
        if row is None or row.token != lock.token:
            return False
        row.heartbeat_at = now()
        return True


def release(db: Database, lock: SessionLock, sitting: dict | None = None) -> None:
    """End the session: its row goes, unless another session has taken it over meanwhile. ``sitting``: how long
    the judge judged and how much (:meth:`core.judging.pace.Sitting.summary`), logged as a ``judging_sitting``
    event (a judge's own login may add events, never read them)."""
    with db.transaction() as session:
        if sitting is not None:
            log_event(session, lock.study_id, "judging_sitting", {"annotator": lock.annotator_id, **sitting})
        row = session.scalar(select(AnnotatorSession).where(AnnotatorSession.study_id == lock.study_id,
                                                            AnnotatorSession.annotator_id == lock.annotator_id))
        if row is not None and row.token == lock.token:
            session.delete(row)
