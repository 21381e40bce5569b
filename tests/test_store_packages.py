"""Two judges on two laptops: export a package each, judge, merge back, report conflicts."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Candidate, EventLog, Judgment, System


def build_master(path):
    db = open_database(path, create=True)
    # Without blind phases the criteria of an item are consecutive (the positions below rely on it).
    study_id = ops.create_study(db, "two laptops", seed=2, blind_phases=False)
    rows = [ops.CandidateRow(sentence_id=str(s), system=system, text=f"cand {s} {r}", source=f"source {s}", rank=r)
            for s in range(6) for system in ("beam", "mcpg") for r in range(2)]
    ops.import_candidates(db, study_id, rows)
    ops.assign(db, study_id, ["ann", "bob"])
    return db, study_id


def judge(db, annotator_name: str, count: int, answer: str = "yes") -> list[int]:
    study_id = ops.find_study(db)
    annotator = ops.find_annotator(db, study_id, annotator_name)
    ids = []
    for _ in range(count):
        item = ops.next_item(db, annotator)
        ids.append(ops.record_judgment(db, item.assignment_id, answer if item.scale == "binary" else "2"))
    return ids


def test_packages_round_trip(tmp_path):
    master, study_id = build_master(tmp_path / "master.db")
    judge(master, "ann", 2)  # judged before export: travels in the package, not duplicated on return
    for name in ("ann", "bob"):
        assert ops.export_package(master, study_id, name, tmp_path / f"{name}.pkg") == 24 * 3 // 2 * 1
    assert not (tmp_path / "ann.pkg-wal").exists()

    with open_database(tmp_path / "ann.pkg", create=True) as package:
        with package.reading() as session:
            assert session.scalar(select(func.count(System.id))) == 0  # blind
            assert all(c.scores == {} for c in session.scalars(select(Candidate)))
        study = ops.find_study(package)
        ann = ops.find_annotator(package, study, "ann")
        assert ops.next_item(package, ann).position == 2  # resumes after the two judged in the master
        judge(package, "ann", 6)
        ops.undo_last(package, ann)
    with open_database(tmp_path / "bob.pkg", create=True) as package:
        judge(package, "bob", 4, answer="no")

    first = ops.merge_package(master, tmp_path / "ann.pkg")
    assert (first.applied, first.already_present, first.conflicts) == (6, 2, [])
    second = ops.merge_package(master, tmp_path / "bob.pkg")
    assert second.applied == 4 and second.conflicts == []
    progress = ops.study_progress(master, study_id).per_annotator
    assert progress["ann"][0] == 7 and progress["bob"][0] == 4
    ann = ops.find_annotator(master, study_id, "ann")
    assert ops.next_item(master, ann).position == 7
    # Merging the same package again changes nothing.
    again = ops.merge_package(master, tmp_path / "ann.pkg")
    assert again.applied == 0 and again.conflicts == [] and again.already_present == 9
    with master.reading() as session:
        assert session.scalar(select(func.count(Judgment.id)).where(Judgment.action == "undo")) == 1
    master.close()


def test_same_assignment_judged_differently_in_two_packages_is_a_conflict(tmp_path):
    master, study_id = build_master(tmp_path / "master.db")
    ops.export_package(master, study_id, "ann", tmp_path / "laptop1.pkg")
    ops.export_package(master, study_id, "ann", tmp_path / "laptop2.pkg")
    with open_database(tmp_path / "laptop1.pkg", create=True) as package:
        judge(package, "ann", 3, answer="yes")
    with open_database(tmp_path / "laptop2.pkg", create=True) as package:
        judge(package, "ann", 3, answer="no")
    assert ops.merge_package(master, tmp_path / "laptop1.pkg").applied == 3
    report = ops.merge_package(master, tmp_path / "laptop2.pkg")
    assert report.applied == 0
    # Positions 0 and 1 are the binary fluency/meaning of the first item: yes vs no;
    # position 2 is the 3-point usability, answered "2" on both laptops.
    assert report.duplicates == 1
    assert [(c["master"], c["package"]) for c in report.conflicts] == [("yes", "no"), ("yes", "no")]
    assert {c["annotator"] for c in report.conflicts} == {"ann"}
    with master.reading() as session:
        logged = session.scalars(select(EventLog).where(EventLog.kind == "merge_conflict")).all()
        assert len(logged) == 2 and logged[0].payload["rows"][0]["value"] == "no"  # nothing lost
    assert [r["value"] for r in ops.judgment_records(master, study_id)] == ["yes", "yes", "2"]
    master.close()


def test_package_of_another_study_is_refused(tmp_path):
    master, study_id = build_master(tmp_path / "master.db")
    other, other_id = build_master(tmp_path / "other.db")
    ops.export_package(other, other_id, "ann", tmp_path / "other.pkg")
    with pytest.raises(ValueError, match="not in this database"):
        ops.merge_package(master, tmp_path / "other.pkg")
    master.close()
    other.close()


def test_a_package_read_with_sqlite3_names_no_system_no_other_judge_and_no_control(tmp_path):
    """Issue 38: a judge on another machine without PostgreSQL gets a package that keeps them blind, whatever
    program reads it: no system name anywhere in its bytes, no other judge's label or name, no planted control
    or repeat told apart, none of the researcher's settings."""
    import sqlite3

    path = tmp_path / "study.sqlite"
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "blind", criteria=("meaning", "fluency"))
        rows = [ops.CandidateRow(sentence_id=str(s), text=f"cand {s} {r}", system=system, source=f"source {s}",
                                 rank=r) for s in range(6) for system in ("zeta-system", "omega-system")
                for r in range(2)]
        ops.import_candidates(db, study, rows)
        ops.assign(db, study, ["ann", "otherjudge"], control_fraction=0.3, repeat_fraction=0.3)
        ops.set_adjudicators(db, study, ["secretadjudicator"])
        for name, value in (("ann", "yes"), ("otherjudge", "no")):
            annotator = ops.find_annotator(db, study, name)
            while (item := ops.next_item(db, annotator)) is not None:
                ops.record_judgment(db, item.assignment_id, value)
        ops.export_package(db, study, "ann", tmp_path / "ann.sqlite")
    data = (tmp_path / "ann.sqlite").read_bytes()
    for secret in (b"zeta-system", b"omega-system", b"otherjudge", b"secretadjudicator"):
        assert secret not in data
    connection = sqlite3.connect(tmp_path / "ann.sqlite")
    try:
        assert connection.execute("SELECT count(*) FROM system").fetchone() == (0,)
        assert connection.execute("SELECT count(*) FROM candidate_system").fetchone() == (0,)
        assert connection.execute("SELECT DISTINCT name FROM annotator").fetchall() == [("ann",)]
        assert {row[0] for row in connection.execute("SELECT value FROM judgment")} == {"yes"}
        assert connection.execute("SELECT DISTINCT kind FROM candidate").fetchall() == [("candidate",)]
        assert connection.execute("SELECT DISTINCT kind FROM assignment").fetchall() == [("normal",)]
        assert connection.execute("SELECT count(*) FROM assignment WHERE repeat_of IS NOT NULL").fetchone() == (0,)
        assert connection.execute("SELECT count(*) FROM candidate WHERE derivation LIKE '%control%'").fetchone() == (0,)
        [(settings,)] = connection.execute("SELECT settings FROM study").fetchall()
        assert "adjudicators" not in settings
    finally:
        connection.close()
    # The package still merges back whole into the master study.
    with open_database(path) as db:
        report = ops.merge_package(db, tmp_path / "ann.sqlite")
        assert not report.conflicts and report.already_present > 0
