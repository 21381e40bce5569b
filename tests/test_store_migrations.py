"""A study database written at an older schema revision opens with the current code."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import text

from parastudio.core.store import operations as ops
from parastudio.core.store.database import (
    StudyNeedsUpgradeError,
    create_database_engine,
    current_revision,
    head_revision,
    open_database,
    upgrade,
)
from parastudio.core.store.models import Base


def test_models_and_migrations_describe_the_same_schema(tmp_path):
    with open_database(tmp_path / "head.db", create=True) as db:
        with db.engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert differences == []


def test_revision_one_database_with_judgments_opens_and_resumes(tmp_path):
    path = tmp_path / "old.db"
    engine = create_database_engine(path)
    upgrade(engine, "0001")
    assert current_revision(engine) == "0001"
    now = "2025-01-01 10:00:00.000000"
    with engine.begin() as c:
        c.execute(text("INSERT INTO study (id, uid, name, created_at, judges_per_item, seed, application, settings)"
                       " VALUES (1, 'u-1', 'old study', :now, 2, 0, 'simplification', '{}')"), {"now": now})
        c.execute(text("INSERT INTO criterion (id, study_id, name, question, scale, levels, shows_source, position)"
                       " VALUES (1, 1, 'fluency', 'Is the following sentence good English?', 'binary', '[]', 0, 0)"))
        c.execute(text("INSERT INTO annotator (id, study_id, name) VALUES (1, 1, 'ann')"))
        c.execute(text("INSERT INTO source_sentence (id, study_id, external_id, text, \"references\") "
                       "VALUES (1, 1, '0', 'the source', '[]')"))
        for i in range(1, 5):
            c.execute(text("INSERT INTO candidate (id, study_id, source_id, text, kind, scores) "
                           "VALUES (:i, 1, 1, :t, 'candidate', '{}')"), {"i": i, "t": f"candidate {i}"})
            c.execute(text("INSERT INTO assignment (id, study_id, annotator_id, candidate_id, criterion_id, position,"
                           " kind) VALUES (:i, 1, 1, :i, 1, :p, 'normal')"), {"i": i, "p": i - 1})
        # Assignment 1 answered; assignment 2 answered then undone; 3 and 4 open.
        rows = [(1, 1, "answer", "yes", None), (2, 2, "answer", "no", 3), (3, 2, "undo", None, None)]
        for jid, aid, action, value, _superseded_by in rows:
            c.execute(text("INSERT INTO judgment (id, uid, study_id, assignment_id, annotator_id, candidate_id,"
                           " criterion_id, action, value, answered_at, flag, superseded_by, origin) VALUES"
                           " (:j, :u, 1, :a, 1, :a, 1, :act, :v, :now, 0, NULL, 'app')"),
                      {"j": jid, "u": f"j-{jid}", "a": aid, "act": action, "v": value, "now": now})
        c.execute(text("UPDATE judgment SET superseded_by = 3 WHERE id = 2"))
    engine.dispose()

    before = path.read_bytes()
    with pytest.raises(StudyNeedsUpgradeError, match="study upgrade"):  # only when asked (issue 39)
        open_database(path)
    with pytest.raises(StudyNeedsUpgradeError):
        open_database(path, writing=False)
    assert path.read_bytes() == before
    with open_database(path, upgrade_schema=True) as db:
        assert current_revision(db.engine) == head_revision() != "0001"
        study_id = ops.find_study(db)
        ann = ops.find_annotator(db, study_id, "ann")
        resume = ops.next_item(db, ann)
        assert resume.position == 1 and resume.candidate == "candidate 2"
        assert ops.study_progress(db, study_id).done == 1
        ops.record_judgment(db, resume.assignment_id, "yes")
        assert ops.next_item(db, ann).position == 2
        assert [r["value"] for r in ops.judgment_records(db, study_id)] == ["yes", "yes"]
