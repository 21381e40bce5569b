"""A study another program keeps locked: every write of the store waits and retries, a bounded number of times
(core/store/write_retry.py), for the app's writer and the CLI's commands alike. Real SQLite locks throughout;
the pause between attempts is where the test lets the other program go, so nothing depends on timing."""

from __future__ import annotations

import sqlite3

import pytest
from desktop_study_fixtures import make_study

from parastudio.core.store import database, write_retry
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database


@pytest.fixture
def study(tmp_path):
    path = tmp_path / "study.sqlite"
    return path, make_study(path)


def holding_the_write_lock(path) -> sqlite3.Connection:
    """Another program in the middle of a write transaction."""
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    return holder


def begin_without_waiting(path):
    def begin() -> sqlite3.Connection:
        connection = sqlite3.connect(path, isolation_level=None, timeout=0)
        try:
            connection.execute("BEGIN IMMEDIATE")
        except BaseException:
            connection.close()
            raise
        return connection
    return begin


def test_a_lock_let_go_during_the_second_pause_is_had_on_the_third_attempt(study, monkeypatch):
    path, _ = study
    holder = holding_the_write_lock(path)
    pauses = []

    def pause(seconds):
        pauses.append(seconds)
        if len(pauses) == 2:
            holder.rollback()

    monkeypatch.setattr(write_retry, "pause", pause)
    connection = write_retry.begin_when_free(begin_without_waiting(path))
    assert connection.in_transaction and pauses == list(write_retry.RETRY_DELAYS_S[:2])
    connection.rollback()
    connection.close()
    holder.close()


def test_a_lock_held_through_every_attempt_is_raised_after_the_last_pause(study, monkeypatch):
    path, _ = study
    holder = holding_the_write_lock(path)
    pauses = []
    monkeypatch.setattr(write_retry, "pause", pauses.append)
    with pytest.raises(sqlite3.OperationalError, match="locked") as raised:
        write_retry.begin_when_free(begin_without_waiting(path))
    assert write_retry.is_locked(raised.value)
    assert pauses == list(write_retry.RETRY_DELAYS_S)
    holder.close()


def test_any_other_error_is_raised_at_once(tmp_path, monkeypatch):
    pauses = []
    monkeypatch.setattr(write_retry, "pause", pauses.append)
    (tmp_path / "folder").mkdir()

    def begin():
        return sqlite3.connect(tmp_path / "folder")  # a directory: "unable to open database file"

    with pytest.raises(sqlite3.OperationalError, match="unable to open") as raised:
        write_retry.begin_when_free(begin)
    assert not write_retry.is_locked(raised.value) and pauses == []


@pytest.mark.parametrize("operation", ["record_judgment", "update_study_settings"])
def test_the_store_s_writes_wait_for_a_study_locked_past_the_busy_timeout(study, monkeypatch, operation):
    """Both kinds of write transaction (Core for answers, ORM for the rest) go through the one helper."""
    path, study_id = study
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 0)  # SQLite gives up at once: only the retry can wait
    db = open_database(path)
    try:
        annotator = ops.find_annotator(db, study_id, "ann")
        item = ops.next_item(db, annotator)
        holder = holding_the_write_lock(path)
        pauses = []

        def pause(seconds):
            pauses.append(seconds)
            holder.rollback()

        monkeypatch.setattr(write_retry, "pause", pause)
        if operation == "record_judgment":
            ops.record_judgment(db, item.assignment_id, "yes" if item.scale == "binary" else "2")
            assert ops.next_item(db, annotator).position == item.position + 1
        else:
            ops.update_study_settings(db, study_id, note="written after the wait")
            assert ops.study_settings(db, study_id)["note"] == "written after the wait"
        assert pauses == [write_retry.RETRY_DELAYS_S[0]]
        holder.close()
    finally:
        db.close()
