"""One live judging session per annotator and study: refused, taken over on request, stale locks reclaimed."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from parastudio.core.store import operations as ops
from parastudio.core.store import session_lock
from parastudio.core.store.clock import now
from parastudio.core.store.database import open_database
from parastudio.core.store.models import AnnotatorSession


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    if request.param == "sqlite":
        database = open_database(tmp_path / "s.sqlite", create=True)
    else:
        database = open_database(request.getfixturevalue("postgres_url"), create=True)
    yield database
    database.close()


def make_study(db, name):
    study = ops.create_study(db, name, criteria=["meaning"])
    return study, ops.find_annotator(db, study, "judge-2", create=True)


def test_a_second_live_session_is_refused_then_taken_over_only_when_asked(db):
    study, annotator = make_study(db, f"lock-{id(db)}")
    first = session_lock.acquire(db, study, annotator, holder="laptop pid 1")
    with pytest.raises(session_lock.SessionTaken) as taken:
        session_lock.acquire(db, study, annotator, holder="desktop pid 2")
    assert taken.value.holder == "laptop pid 1" and taken.value.seconds_ago < 5
    second = session_lock.acquire(db, study, annotator, take_over=True, holder="desktop pid 2")
    assert not session_lock.heartbeat(db, first)  # the first window learns it lost the session
    assert session_lock.heartbeat(db, second)
    session_lock.release(db, first)  # a loser's release leaves the winner's row alone
    with pytest.raises(session_lock.SessionTaken):
        session_lock.acquire(db, study, annotator)
    session_lock.release(db, second)
    session_lock.release(db, session_lock.acquire(db, study, annotator))  # free again


def test_a_stale_lock_of_a_killed_process_is_reclaimed(db):
    study, annotator = make_study(db, f"stale-{id(db)}")
    dead = session_lock.acquire(db, study, annotator, holder="killed pid 9")
    with db.transaction() as session:
        session.execute(update(AnnotatorSession).values(heartbeat_at=now() - timedelta(seconds=600)))
    alive = session_lock.acquire(db, study, annotator)
    assert alive.token != dead.token and not session_lock.heartbeat(db, dead)


def test_a_lock_of_a_process_of_this_machine_that_died_is_reclaimed_at_once(db):
    import socket
    import subprocess
    import sys

    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True)
    study, annotator = make_study(db, f"dead-{id(db)}")
    session_lock.acquire(db, study, annotator, holder=f"{socket.gethostname()} pid {finished.stdout.strip()}")
    session_lock.acquire(db, study, annotator)  # no SessionTaken: that process is gone
    with pytest.raises(session_lock.SessionTaken):
        session_lock.acquire(db, study, annotator, holder=f"another-host pid {finished.stdout.strip()}")
