"""Answers of a judge on another machine survive the server going away (issue 38): they wait on the judge's disk
in order and are written exactly once when the server is back. The server is the real PostgreSQL one, stopped
and started by the test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid

import pytest
from sqlalchemy import select

from parastudio.core.store import operations as ops
from parastudio.core.store.answer_outbox import AnswerOutbox, Outgoing, send_once
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Judgment


def local_cluster() -> list[str] | None:
    """``[version, name]`` of the local PostgreSQL cluster the tests use, when this process may stop and start it."""
    if os.geteuid() != 0 or shutil.which("pg_lsclusters") is None:
        return None
    rows = [line.split() for line in subprocess.run(["pg_lsclusters", "--no-header"], capture_output=True,
                                                    text=True).stdout.splitlines()]
    online = [row[:2] for row in rows if len(row) > 3 and row[3] == "online"]
    return online[0] if len(online) == 1 else None


def server(action: str, cluster: list[str]) -> None:
    subprocess.run(["pg_ctlcluster", *cluster, action, *(["-m", "fast"] if action == "stop" else [])], check=True,
                   capture_output=True, timeout=120)


@pytest.fixture
def judge(postgres_url, tmp_path):
    from desktop_study_fixtures import make_study

    login = f"ann_{uuid.uuid4().hex[:6]}"
    study_id = make_study(postgres_url, annotators=(login,))
    owner = open_database(postgres_url)
    url = ops.invite(owner, study_id, "toy", login, "judge").url
    member = open_database(url)
    try:
        yield owner, member, ops.connection_membership(member)[study_id].annotator_id
    finally:
        member.close()
        ops.revoke(owner, study_id, login)
        owner.close()


def stored(owner, annotator_id) -> list[Judgment]:
    with owner.reading() as session:
        return list(session.scalars(select(Judgment).where(Judgment.annotator_id == annotator_id)
                                    .order_by(Judgment.id)))


def open_positions(member, annotator_id, count) -> list:
    items, position = [], 0
    while len(items) < count:
        item = ops.item_at(member, annotator_id, position)
        if item is not None and item.value is None:
            items.append(item)
        position += 1
    return items


def test_an_entry_sent_twice_is_written_once(judge, tmp_path):
    owner, member, annotator_id = judge
    item = ops.next_item(member, annotator_id)
    entry = Outgoing("answer", str(uuid.uuid4()), {"assignment_id": item.assignment_id, "value": "yes"})
    first = send_once(member, entry)
    assert first[0] == "sent" and send_once(member, entry) == ("there already", first[1])
    undo = Outgoing("undo", str(uuid.uuid4()), {"annotator_id": annotator_id})
    assert send_once(member, undo) == ("sent", item.assignment_id)
    assert send_once(member, undo) == ("there already", item.assignment_id)
    assert [(j.action, j.value) for j in stored(owner, annotator_id)] == [("answer", "yes"), ("undo", None)]


def test_the_outbox_keeps_what_waits_in_order_and_forgets_what_was_written(tmp_path):
    outbox = AnswerOutbox(tmp_path / "outbox.jsonl")
    entries = [Outgoing("answer", f"u{i}", {"assignment_id": i, "value": "yes"}) for i in range(4)]
    for entry in entries:
        outbox.add(entry)
    outbox.done("u1")
    assert [e.uid for e in outbox.waiting()] == ["u0", "u2", "u3"]
    assert os.stat(tmp_path / "outbox.jsonl").st_mode & 0o777 == 0o600
    with open(tmp_path / "outbox.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"kind": "answer", "uid": "half')  # a process killed while writing its last line
    assert [e.uid for e in outbox.waiting()] == ["u0", "u2", "u3"]
    for uid in ("u0", "u2", "u3"):
        outbox.done(uid)
    assert outbox.waiting() == [] and (tmp_path / "outbox.jsonl").stat().st_size == 0


@pytest.mark.skipif(local_cluster() is None, reason="stopping the server needs root and one local cluster")
def test_answers_given_while_the_server_restarts_are_written_exactly_once_in_order(judge, tmp_path, qtbot):
    from parastudio.desktop.judgment_writer import JudgmentWriter

    owner, member, annotator_id = judge
    cluster = local_cluster()
    outbox = AnswerOutbox(tmp_path / "outbox.jsonl")
    writer = JudgmentWriter(member, outbox=outbox)
    said = []
    writer.offline.connect(said.append)
    items = open_positions(member, annotator_id, 9)
    for item in items[:3]:
        writer.answer(item.assignment_id, "yes")
    assert writer.drain(timeout_s=60)
    server("stop", cluster)
    try:
        for item in items[3:7]:
            writer.answer(item.assignment_id, "no")
        qtbot.waitUntil(lambda: writer.offline_waiting == 4, timeout=60000)
        assert [json.loads(line).get("kind") for line in outbox.path.read_text().splitlines()][-4:] == ["answer"] * 4
    finally:
        server("start", cluster)
    assert writer.drain(timeout_s=120)
    qtbot.waitUntil(lambda: said and said[-1] == 0, timeout=120_000)
    rows = stored(owner, annotator_id)
    assert [(r.assignment_id, r.value) for r in rows] == [(i.assignment_id, "yes") for i in items[:3]] + [
        (i.assignment_id, "no") for i in items[3:7]]
    assert len({r.uid for r in rows}) == 7 and outbox.waiting() == []

    # A window closed while offline: its answers wait on disk and go first at the next start, once.
    server("stop", cluster)
    try:
        for item in items[7:9]:
            writer.answer(item.assignment_id, "yes")
        qtbot.waitUntil(lambda: writer.offline_waiting == 2, timeout=60000)
        writer.close()
        assert len(outbox.waiting()) == 2
    finally:
        server("start", cluster)
    again = JudgmentWriter(member, outbox=AnswerOutbox(tmp_path / "outbox.jsonl"))
    assert again.drain(timeout_s=120)
    again.close()
    rows = stored(owner, annotator_id)
    assert [r.assignment_id for r in rows[7:]] == [i.assignment_id for i in items[7:9]] and len(rows) == 9
    assert outbox.waiting() == []
