"""The next-item rules of an annotation session, against a real store and a writer that commits late."""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parastudio.core.store import operations as ops
from parastudio.core.store.annotation_session import AnnotationSession
from parastudio.core.store.database import open_database

ACTIONS = st.lists(st.sampled_from(["answer", "answer", "answer", "next", "previous", "undo", "commit", "commit"]),
                   min_size=1, max_size=60)


@pytest.fixture
def study(tmp_path):
    db = open_database(tmp_path / "s.sqlite", create=True)
    study_id = ops.create_study(db, "s", criteria=["meaning"])
    ops.import_candidates(db, study_id, [ops.CandidateRow(sentence_id=str(i), text=f"c {i}", system="x",
                                                          source=f"s {i}") for i in range(8)])
    ops.assign(db, study_id, ["a"])
    yield db, study_id
    db.close()


class LateWriter:
    """The single writer thread, as a FIFO the test drains when it likes."""

    def __init__(self, db, annotator_id, session):
        self.db, self.annotator_id, self.session = db, annotator_id, session
        self.queue: deque = deque()

    def commit_one(self):
        kind, argument = self.queue.popleft()
        if kind == "answer":
            ops.record_judgment(self.db, *argument)
            return None
        reopened = ops.undo_last(self.db, self.annotator_id)
        return self.session.undone(reopened) if reopened is not None else None


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=ACTIONS)
def test_a_session_never_shows_a_local_answer_as_open_and_undo_reopens_that_item(study, actions):
    db, study_id = study
    with db.transaction() as session_:  # every example starts from an unjudged study
        from sqlalchemy import delete, update

        from parastudio.core.store.models import Assignment, EventLog, Judgment
        session_.execute(update(Assignment).values(live_judgment_id=None))
        session_.execute(delete(Judgment))
        session_.execute(delete(EventLog).where(EventLog.kind != "study_created"))
    annotator = ops.find_annotator(db, study_id, "a")
    session = AnnotationSession(db, annotator)
    writer = LateWriter(db, annotator, session)
    answered: dict[int, str] = {}  # what this annotator answered and has not undone, committed or not
    undo_order: list[int] = []
    shown = session.first()
    for step, action in enumerate(actions):
        if action == "answer" and shown is not None:
            value = "yes" if step % 2 else "no"
            writer.queue.append(("answer", (shown.assignment_id, value)))
            answered[shown.assignment_id] = value
            # A new answer to an item answered before replaces it: undo withdraws the live answers, newest first.
            undo_order = [a for a in undo_order if a != shown.assignment_id] + [shown.assignment_id]
            shown = session.answered(shown, value)
            # The item shown after an answer is open: never one answered here, committed or queued.
            assert shown is None or (shown.assignment_id not in answered and shown.value is None)
        elif action in ("next", "previous"):
            moved = session.neighbour(shown, +1 if action == "next" else -1)
            shown = moved if moved is not None else shown
            if shown is not None:
                assert shown.value == answered.get(shown.assignment_id)  # an answer shows as given here
        elif action == "undo" and undo_order:
            writer.queue.append(("undo", None))
            # The undo is applied in order, after the answers queued before it.
            while writer.queue:
                reopened = writer.commit_one()
            expected = undo_order.pop()
            answered.pop(expected)
            assert reopened is not None and reopened.assignment_id == expected and reopened.value is None
            shown = reopened
        elif action == "commit" and writer.queue:
            writer.commit_one()
    while writer.queue:
        writer.commit_one()
    # A new session (the app reopened) starts at the first position the store has open.
    fresh = AnnotationSession(db, annotator).first()
    positions = {ops.item_at(db, annotator, p).assignment_id: p for p in range(8)}
    open_positions = sorted(p for aid, p in positions.items() if aid not in answered)
    assert (fresh.position if fresh is not None else None) == (open_positions[0] if open_positions else None)


def test_answers_skipped_with_the_arrows_come_back_after_the_last_open_item(study):
    db, study_id = study
    annotator = ops.find_annotator(db, study_id, "a")
    session = AnnotationSession(db, annotator)
    first = session.first()
    second = session.neighbour(first, +1)  # skip the first item
    shown = second
    seen = []
    while shown is not None and shown.assignment_id != first.assignment_id:
        seen.append(shown.position)
        shown = session.answered(shown, "yes")
    assert seen == list(range(1, 8)) and shown.assignment_id == first.assignment_id
    assert session.answered(shown, "no") is None


def test_a_flag_and_comment_given_before_the_answer_go_with_it_and_after_it_are_written_at_once(study):
    """The pending flag and comment live in the session, not the widget (issue 28 Found 9)."""
    db, study_id = study
    session = AnnotationSession(db, ops.find_annotator(db, study_id, "a"))
    item = session.first()
    session.showing(item)
    assert session.remarks(item) == (False, None)
    flagged = session.toggle_flag(item)
    assert (flagged.write_now, flagged.flag) == (False, True)
    commented = session.set_comment(item, "odd word")
    assert (commented.write_now, commented.flag, commented.comment) == (False, True, "odd word")
    assert session.remarks(item) == (True, "odd word")
    session.showing(session.neighbour(item, 1))  # moved away: the pending remarks were for that showing
    assert session.remarks(item) == (False, None)
    session.showing(item)
    session.toggle_flag(item)
    flag, comment = session.remarks(item)
    session.answered(item, "yes", flag=flag, comment=comment)
    answered = session.at(item.position)
    assert (answered.value, answered.flag) == ("yes", True)
    unflagged = session.toggle_flag(answered)
    assert unflagged.write_now and unflagged.flag is False and unflagged.item.flag is False
    assert session.remarks(unflagged.item) == (False, None)
