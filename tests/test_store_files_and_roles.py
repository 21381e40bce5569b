"""The store opens only its own databases, creates one only when asked, assigns again after position 0, and keeps
planted controls and repeats out of every statistic whatever path their judgments came in by."""

from __future__ import annotations

import sqlite3

import pytest
from broken_studies import FUTURE_REVISION, damage, make_newer

from parastudio.core.cli import main
from parastudio.core.errors import InputFileError
from parastudio.core.store import operations as ops
from parastudio.core.store.database import APPLICATION_ID, head_revision, open_database
from parastudio.core.study_judgments import study_judgment_records


def small_study(path, sentences=3, annotators=("a",), **assign):
    db = open_database(path, create=True)
    study = ops.create_study(db, "s", criteria=["meaning"])
    rows = [ops.CandidateRow(sentence_id=str(s), text=f"candidate {s}", system="beam", source=f"source sentence {s}")
            for s in range(sentences)]
    ops.import_candidates(db, study, rows)
    ops.assign(db, study, list(annotators), **assign)
    return db, study


def test_assigning_again_after_an_only_assignment_at_position_0(tmp_path):
    db, study = small_study(tmp_path / "s.sqlite", sentences=1)
    try:
        ann = ops.find_annotator(db, study, "a")
        assert ops.next_item(db, ann).position == 0
        ops.import_candidates(db, study, [ops.CandidateRow(sentence_id="9", text="late", system="beam",
                                                           source="a late sentence")])
        report = ops.assign(db, study, ["a"])  # failed with a UNIQUE constraint error: 0 read as "no position"
        assert report.assignments == {"a": 1}
        positions = [ops.item_at(db, ann, p).position for p in (0, 1)]
        assert positions == [0, 1]
    finally:
        db.close()


def test_a_mistyped_path_is_an_error_not_a_new_study(tmp_path, capsys):
    missing = tmp_path / "typo.sqlite"
    with pytest.raises(InputFileError, match="no such file"):
        open_database(missing)
    assert not missing.exists()
    assert main(["study", "progress", "--db", str(missing)]) == 2
    assert "expected a study database" in capsys.readouterr().err and not missing.exists()


def test_another_programs_sqlite_file_is_refused_and_left_byte_for_byte(tmp_path, capsys):
    other = tmp_path / "notes.sqlite"
    connection = sqlite3.connect(other)
    connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    connection.execute("INSERT INTO notes (body) VALUES ('keep me')")
    connection.commit()
    connection.close()
    before = other.read_bytes()
    for create in (False, True):
        with pytest.raises(InputFileError, match="another program's SQLite database"):
            open_database(other, create=create)
    assert main(["study", "progress", "--db", str(other)]) == 2
    assert main(["report", str(other)]) == 2
    assert other.read_bytes() == before
    assert not (tmp_path / "notes.sqlite-wal").exists()


def test_a_file_that_is_not_sqlite_is_refused(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"just some text, not a database\n")
    with pytest.raises(InputFileError, match="not SQLite"):
        open_database(junk, create=True)
    assert junk.read_bytes() == b"just some text, not a database\n"


def test_a_study_of_a_newer_schema_is_refused_and_left_untouched(tmp_path, capsys):
    small_study(tmp_path / "future.sqlite")[0].close()
    path = make_newer(tmp_path / "future.sqlite")
    before = path.read_bytes()
    with pytest.raises(InputFileError, match=rf"schema version {FUTURE_REVISION}, newer than this program's "
                                             + head_revision()):
        open_database(path)
    assert main(["study", "progress", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "newer Paraphrase Studio" in err and "Traceback" not in err
    assert path.read_bytes() == before


def test_a_damaged_study_file_is_refused_with_its_name(tmp_path, capsys):
    small_study(tmp_path / "damaged.sqlite")[0].close()
    path = damage(tmp_path / "damaged.sqlite")
    before = path.read_bytes()
    with pytest.raises(InputFileError, match="damaged SQLite file"):
        open_database(path)
    for argv in (["study", "progress", "--db", str(path)], ["report", str(path)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"{path}: expected a Paraphrase Studio study database; got a damaged SQLite file" in err
    assert path.read_bytes() == before


def test_damage_found_only_by_a_later_query_is_named_too(tmp_path, capsys):
    small_study(tmp_path / "deep.sqlite")[0].close()
    path = damage(tmp_path / "deep.sqlite", table="study", pages=1)
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: expected a Paraphrase Studio study database; got a damaged SQLite file" in err


def test_an_empty_file_is_named_an_empty_file(tmp_path, capsys):
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    with pytest.raises(InputFileError, match="an empty file, not a study database"):
        open_database(empty)
    assert main(["study", "progress", "--db", str(empty)]) == 2
    assert "an empty file, not a study database" in capsys.readouterr().err
    assert empty.read_bytes() == b""
    open_database(empty, create=True).close()  # asked to: an empty file becomes a new study


def test_our_files_carry_the_application_id(tmp_path):
    db, _study = small_study(tmp_path / "ours.sqlite")
    db.close()
    connection = sqlite3.connect(tmp_path / "ours.sqlite")
    assert connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    connection.close()
    open_database(tmp_path / "ours.sqlite").close()  # and open again without create


def test_controls_and_repeats_imported_from_a_csv_keep_their_role(tmp_path):
    db, study = small_study(tmp_path / "s.sqlite", sentences=6, annotators=("a", "b"), control_fraction=0.5,
                            repeat_fraction=0.5)
    try:
        items = ops.list_items(db, study)
        controls = [row["item"] for row in items if row["kind"] == "control"]
        normal = [row["item"] for row in items if row["kind"] == "candidate"]
        assert controls, "the assignment planted controls"
        csv_path = tmp_path / "judged.csv"
        lines = ["item,annotator,criterion,value,kind"]
        lines += [f"{item},c,meaning,yes," for item in normal]
        lines += [f"{item},c,meaning,no," for item in controls]
        lines += [f"{normal[0]},c,meaning,no,repeat"]
        csv_path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        report = ops.import_judgments_csv(db, study, csv_path)
        assert report.applied == len(normal) + len(controls) + 1 and not report.conflicts
        records = study_judgment_records(db, study)
        counted = {item for item, annotator in zip(records.items, records.annotators) if annotator == "c"}
        assert counted == set(normal)  # no control, and the repeat did not replace the first answer
        values = {item: value for item, annotator, value in zip(records.items, records.annotators, records.values)
                  if annotator == "c"}
        assert values[normal[0]] == "yes"
        quality = {r.annotator: r for r in ops.quality_control(db, study)}
        assert quality["c"].controls_judged == len(controls) and quality["c"].repeat_pairs == 1
        assert quality["c"].consistency == 0.0 and quality["c"].control_pass_rate == 1.0
    finally:
        db.close()


def test_exported_judgments_read_alone(tmp_path):
    db, study = small_study(tmp_path / "s.sqlite", sentences=2)
    try:
        ann = ops.find_annotator(db, study, "a")
        while (item := ops.next_item(db, ann)) is not None:
            ops.record_judgment(db, item.assignment_id, "yes")
        out = tmp_path / "j.csv"
        ops.export_judgments(db, study, out)
    finally:
        db.close()
    import csv

    rows = list(csv.DictReader(open(out, newline="", encoding="utf-8")))
    assert {(row["candidate"], row["source"], row["systems"]) for row in rows} == {
        ("candidate 0", "source sentence 0", "beam"), ("candidate 1", "source sentence 1", "beam")}
