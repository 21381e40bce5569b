"""AnnotationSession against the store when writes lag: undo and a new answer in flight, the view equals the database."""
from collections import deque

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from parastudio.core.store import operations as ops
from parastudio.core.store.annotation_session import AnnotationSession
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Assignment, Judgment


def make(tmp_path, n=6):
    db = open_database(tmp_path / "s.sqlite", create=True)
    sid = ops.create_study(db, "s", criteria=["meaning"])
    ops.import_candidates(db, sid, [ops.CandidateRow(sentence_id=str(i), text=f"c {i}", system="x",
                                                     source=f"s {i}") for i in range(n)])
    ops.assign(db, sid, ["a"])
    return db, sid, ops.find_annotator(db, sid, "a")


def live_values(db, annotator):
    with db.reading() as s:
        rows = s.execute(select(Assignment.id, Judgment.value).outerjoin(
            Judgment, Judgment.id == Assignment.live_judgment_id).where(Assignment.annotator_id == annotator)).all()
    return {a: v for a, v in rows}


def test_an_answer_given_after_undo_was_pressed_survives_the_undo_signal(tmp_path):
    """Answer B, press Ctrl+Z (queued), go back to B and answer it again before the undo commits."""
    db, sid, ann = make(tmp_path)
    s = AnnotationSession(db, ann)
    queue = deque()
    a = s.first()
    queue.append(("answer", a.assignment_id, "yes"))
    b = s.answered(a, "yes")
    queue.append(("answer", b.assignment_id, "yes"))
    c = s.answered(b, "yes")
    queue.append(("undo",)); s.undo_queued()                      # Ctrl+Z: the writer will reopen b
    back = s.neighbour(c, -1)                    # <- to b, shown with its local answer
    assert back.assignment_id == b.assignment_id and back.value == "yes"
    queue.append(("answer", b.assignment_id, "no"))   # a new key on b, queued after the undo
    s.answered(back, "no")
    shown = None
    while queue:                                  # the writer, in order; the UI hears `undone` afterwards
        task = queue.popleft()
        if task[0] == "answer":
            ops.record_judgment(db, task[1], task[2])
        else:
            reopened = ops.undo_last(db, ann)
    shown = s.undone(reopened)
    assert live_values(db, ann)[b.assignment_id] == "no"          # the store has b answered "no"
    assert shown.value == "no", f"the session shows b as {shown.value!r} while the store has 'no'"


ACTIONS = st.lists(st.sampled_from(["answer", "answer", "answer", "next", "previous", "undo", "commit", "commit"]),
                   min_size=1, max_size=50)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=ACTIONS)
def test_with_undo_lagging_like_any_write_the_session_agrees_with_the_store(tmp_path_factory, actions):
    db, sid, ann = make(tmp_path_factory.mktemp("p"))
    s = AnnotationSession(db, ann)
    queue = deque()
    shown = s.first()

    def commit_one():
        nonlocal shown
        task = queue.popleft()
        if task[0] == "answer":
            ops.record_judgment(db, task[1], task[2])
        else:
            reopened = ops.undo_last(db, ann)
            view = s.undone(reopened)         # the screen's _on_undone, -1 passed as None
            shown = view if view is not None else shown

    for step, action in enumerate(actions):
        if action == "answer" and shown is not None:
            queue.append(("answer", shown.assignment_id, "yes" if step % 2 else "no"))
            shown = s.answered(shown, "yes" if step % 2 else "no")
            assert shown is None or (shown.value is None and all(
                shown.assignment_id != q[1] for q in queue if q[0] == "answer"))
        elif action in ("next", "previous"):
            moved = s.neighbour(shown, 1 if action == "next" else -1)
            shown = moved if moved is not None else shown
        elif action == "undo":
            queue.append(("undo",)); s.undo_queued()           # queued like the screen does; no drain
        elif action == "commit" and queue:
            commit_one()
    while queue:
        commit_one()
    stored = live_values(db, ann)
    seen = {p: s.at(p) for p in range(6)}
    assert {v.assignment_id: v.value for v in seen.values()} == stored
    db.close()
