"""SIGKILL an annotating process mid-session: no committed judgment is lost and
the resume point is exactly the first unjudged item."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from sqlalchemy import func, select, text

from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Assignment, Judgment

ROOT = Path(__file__).resolve().parent.parent

ANNOTATOR_SCRIPT = textwrap.dedent("""
    import sys
    from parastudio.core.store import operations as ops
    from parastudio.core.store.database import open_database

    db = open_database(sys.argv[1], create=True)
    study = ops.find_study(db)
    ann = ops.find_annotator(db, study, sys.argv[2] if len(sys.argv) > 2 else "ann")
    count = 0
    while (item := ops.next_item(db, ann)) is not None:
        value = "yes" if item.scale == "binary" else "2"
        judgment_id = ops.record_judgment(db, item.assignment_id, value)
        count += 1
        # Every 7th answer is undone and given again, as an annotator would.
        if count % 7 == 0:
            ops.undo_last(db, ann)
            judgment_id = ops.record_judgment(db, item.assignment_id, value)
        print(judgment_id, item.assignment_id, item.position, flush=True)
""")


def test_sigkill_mid_session_loses_nothing(tmp_path):
    path = tmp_path / "study.db"
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "crash", seed=4)
        rows = [ops.CandidateRow(sentence_id=str(s), system="beam", text=f"candidate {s} {r}", source=f"source {s}")
                for s in range(100) for r in range(2)]
        ops.import_candidates(db, study, rows)
        ops.assign(db, study, ["ann", "bob"])
    script = tmp_path / "annotate.py"
    script.write_text(ANNOTATOR_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, str(script), str(path)], stdout=subprocess.PIPE, text=True, env=env)
    reported = []
    for line in child.stdout:
        reported.append(tuple(int(x) for x in line.split()))
        if len(reported) == 150:
            child.send_signal(signal.SIGKILL)
            break
    # Lines the child wrote before it died may still sit in the pipe: they were committed too.
    reported += [tuple(int(x) for x in line.split()) for line in child.stdout if line.strip()]
    child.wait()
    assert child.returncode == -signal.SIGKILL

    with open_database(path, create=True) as db:
        with db.reading() as session:
            assert session.execute(text("PRAGMA integrity_check")).scalar() == "ok"
            stored = set(session.scalars(select(Judgment.id)))
            # Every judgment the process saw committed is there.
            assert {judgment_id for judgment_id, _a, _p in reported} <= stored
            ann = ops.find_annotator(db, ops.find_study(db), "ann")
            judged_positions = sorted(session.scalars(select(Assignment.position).where(
                Assignment.annotator_id == ann, Assignment.live_judgment_id.is_not(None))))
            live = session.scalar(select(func.count(Judgment.id)).where(
                Judgment.annotator_id == ann, Judgment.action == "answer", Judgment.superseded_by.is_(None)))
        # At most the one answer in flight when the kill came may be there unreported.
        assert len(reported) <= len(judged_positions) <= len(reported) + 1
        assert live == len(judged_positions)
        assert judged_positions == list(range(len(judged_positions)))
        resume = ops.next_item(db, ann)
        assert resume.position == len(judged_positions)
        assert resume.position >= reported[-1][2] + 1


def test_two_processes_share_one_database(tmp_path):
    """Two annotators on one SQLite file at once (a shared local disk): both finish, nothing locked out."""
    path = tmp_path / "shared.db"
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "shared", seed=4)
        rows = [ops.CandidateRow(sentence_id=str(s), system="beam", text=f"candidate {s}", source=f"source {s}")
                for s in range(40)]
        ops.import_candidates(db, study, rows)
        ops.assign(db, study, ["ann", "bob"])
    script = tmp_path / "annotate.py"
    script.write_text(ANNOTATOR_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    children = [subprocess.Popen([sys.executable, str(script), str(path), name], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env) for name in ("ann", "bob")]
    outputs = [child.communicate(timeout=120) for child in children]
    assert [child.returncode for child in children] == [0, 0], [err for _out, err in outputs]
    assert [len(out.splitlines()) for out, _err in outputs] == [120, 120]
    with open_database(path, create=True) as db:
        assert ops.study_progress(db, ops.find_study(db)).done == 240
