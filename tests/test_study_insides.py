"""A study whose insides another program changed (issue 39): refused when opened, naming what is wrong; listed
whole by `study check`; and a reading command leaves a study byte for byte as it was, an older one included."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.database import create_database_engine, head_revision, open_database, upgrade


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def study(tmp_path) -> Path:
    path = tmp_path / "study.sqlite"
    with open_database(path, create=True) as db:
        study_id = ops.create_study(db, "toy", criteria=("meaning", "fluency"))
        rows = [ops.CandidateRow(sentence_id=str(i), text=f"cand {i} {s}", system=s, source=f"source {i}")
                for i in range(4) for s in ("x", "y")]
        ops.import_candidates(db, study_id, rows)
        ops.assign(db, study_id, ["ann", "bob"])
        for name, value in (("ann", "yes"), ("bob", "no")):
            annotator = ops.find_annotator(db, study_id, name)
            for _ in range(5):
                ops.record_judgment(db, ops.next_item(db, annotator).assignment_id, value)
    return path


CHANGES = {
    "judgment table dropped": ("DROP TABLE judgment", "judgment: the table is missing"),
    "assignment table dropped": ("DROP TABLE assignment", "assignment: the table is missing"),
    "a column dropped": ("ALTER TABLE source_sentence DROP COLUMN display", "source_sentence.display: the column"),
    "settings not JSON": ("UPDATE study SET settings = '{oops'", "study row 1: settings is not JSON"),
    "levels not JSON": ("UPDATE criterion SET levels = 'yes,no' WHERE id = 1", "criterion row 1: levels is not JSON"),
    "levels JSON but not a list": ("UPDATE criterion SET levels = '42' WHERE id = 1",
                                   "criterion row 1: levels is JSON a number, not a list"),
    "settings JSON but not an object": ("UPDATE study SET settings = '[1]'",
                                        "study row 1: settings is JSON a list, not an object"),
    "a derivation not JSON": ("UPDATE candidate SET derivation = '[' WHERE id = 2", "candidate row 2: derivation"),
    "a time that is not one": ("UPDATE judgment SET answered_at = 'yesterday' WHERE id = 3",
                               "judgment row 3: answered_at 'yesterday' is not a time"),
    "an answer off its scale": ("UPDATE judgment SET value = 'maybe' WHERE id = 4",
                                "value 'maybe' is not on criterion"),
    "an assignment of no candidate": ("UPDATE assignment SET candidate_id = 99999 WHERE id = 5",
                                      "assignment row 5: candidate_id 99999 points to no candidate row"),
    "a live answer that is not there": ("UPDATE assignment SET live_judgment_id = 88888 WHERE id = 1",
                                        "live_judgment_id 88888 points to no judgment row"),
    "a judgment of no assignment": ("UPDATE judgment SET assignment_id = 77777 WHERE id = 2",
                                    "judgment row 2: assignment_id 77777 points to no assignment row"),
    "the schema version emptied": ("DELETE FROM alembic_version", "an empty version table"),
    "the schema version doubled": ("INSERT INTO alembic_version VALUES ('0006')", "version table holding several rows"),
    "the schema version set back": ("UPDATE alembic_version SET version_num = '0005'", "schema version 0005"),
}


def change(path: Path, statement: str) -> None:
    connection = sqlite3.connect(path)  # as another program would: no foreign keys checked
    try:
        connection.executescript(statement)
    finally:
        connection.close()


@pytest.mark.parametrize("name", CHANGES)
def test_a_changed_study_is_refused_in_one_line_and_left_as_it_was(study, capsys, name):
    statement, said = CHANGES[name]
    change(study, statement)
    before = digest(study)
    for command in (["study", "progress", "--db", str(study)], ["agreement", str(study), "--criterion", "meaning"],
                    ["study", "assign", "--db", str(study), "--annotators", "carol"]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert digest(study) == before


@pytest.mark.parametrize("name", [n for n in CHANGES if "schema version" not in n])
def test_study_check_lists_every_problem(study, capsys, name):
    change(study, CHANGES[name][0])
    if "judgment table" not in name:
        change(study, CHANGES["an answer off its scale"][0])
    assert main(["study", "check", "--db", str(study)]) == 1
    out = capsys.readouterr().out
    assert CHANGES[name][1] in out
    if "dropped" not in name:  # a dropped table or column hides what lay in it
        assert CHANGES["an answer off its scale"][1] in out


@pytest.mark.parametrize("statement, said", [
    (CHANGES["the schema version emptied"][0], "alembic_version: an empty version table"),
    (CHANGES["the schema version doubled"][0], "alembic_version: a version table holding several rows"),
    ("DROP TABLE alembic_version", "alembic_version: no version table"),
])
def test_study_check_lists_a_version_table_it_cannot_read_as_a_problem(study, capsys, statement, said):
    change(study, statement)
    change(study, CHANGES["an answer off its scale"][0])
    assert main(["study", "check", "--db", str(study)]) == 1
    out = capsys.readouterr().out
    assert said in out and CHANGES["an answer off its scale"][1] in out  # the tables are still checked


def test_an_intact_study_checks_clean(study, capsys):
    assert main(["study", "check", "--db", str(study)]) == 0
    assert "no problem found" in capsys.readouterr().out


READING = [
    ["study", "progress", "--db", "{S}"], ["study", "progress", "--db", "{S}", "--json"],
    ["study", "qc", "--db", "{S}"], ["study", "members", "--db", "{S}"],
    ["study", "export-judgments", "--db", "{S}", "-o", "{OUT}/judgments.csv"],
    ["study", "export-scores", "{S}", "--criterion", "meaning", "-o", "{OUT}/scores.csv"],
    ["study", "adjudicators", "--db", "{S}"], ["study", "check", "--db", "{S}"],
    ["agreement", "{S}", "--criterion", "meaning"], ["report", "{S}", "--bootstrap", "0"],
    ["inspect", "{S}"], ["export-devset", "{S}", "-o", "{OUT}/dev.jsonl"],
]


@pytest.mark.parametrize("command", READING, ids=lambda c: " ".join(c[:2]))
def test_a_reading_command_leaves_the_study_byte_for_byte(study, tmp_path, capsys, command):
    out = tmp_path / "out"
    out.mkdir()
    before = digest(study)
    main([word.format(S=study, OUT=out) for word in command])
    capsys.readouterr()
    assert digest(study) == before
    # SQLite may make the empty write-ahead log a reader of a WAL study needs; nothing is written into it.
    log = study.parent / f"{study.name}-wal"
    assert not log.exists() or log.stat().st_size == 0


def test_an_older_study_is_read_by_nothing_and_upgraded_only_when_asked(tmp_path, capsys):
    path = tmp_path / "old.sqlite"
    engine = create_database_engine(path)
    upgrade(engine, "0006")
    engine.dispose()
    with open_database(path, upgrade_schema=True) as db:  # a study in it, then taken back to 0006's schema
        ops.create_study(db, "old", criteria=("meaning",))
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0006'")
        connection.execute("DROP TABLE study_member")  # revision 0007's table
        connection.execute("ALTER TABLE assignment DROP COLUMN system")  # revision 0010's column
    before = digest(path)
    for command in (["study", "progress", "--db", str(path)], ["agreement", str(path)]):
        assert main(command) == 2
        assert "study upgrade" in capsys.readouterr().err
    assert digest(path) == before
    assert main(["study", "upgrade", "--db", str(path)]) == 0
    assert f"upgraded from schema version 0006 to {head_revision()}" in capsys.readouterr().out
    assert main(["study", "upgrade", "--db", str(path)]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert main(["study", "progress", "--db", str(path)]) == 0


def _rows(path: Path, query: str) -> list:
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return connection.execute(query).fetchall()
    finally:
        connection.close()


def test_repair_deletes_an_unanswered_assignment_of_no_item_after_a_copy(study, capsys):
    (unanswered,), *_ = _rows(study, "SELECT id FROM assignment WHERE id NOT IN (SELECT assignment_id FROM judgment) "
                                     "ORDER BY id")
    change(study, f"UPDATE assignment SET candidate_id = 99999 WHERE id = {unanswered}")
    answers = _rows(study, "SELECT * FROM judgment ORDER BY id")
    assert main(["study", "check", "--db", str(study), "--repair"]) == 0
    out = capsys.readouterr().out
    assert "repaired: assignment: deleted 1 row(s) whose candidate_id points to no candidate row" in out
    assert "no problem found" in out
    backup = study.with_name(study.name + ".before-repair-1")
    assert _rows(backup, f"SELECT candidate_id FROM assignment WHERE id = {unanswered}") == [(99999,)]
    assert _rows(study, f"SELECT id FROM assignment WHERE id = {unanswered}") == []
    assert _rows(study, "SELECT * FROM judgment ORDER BY id") == answers
    assert main(["study", "progress", "--db", str(study)]) == 0


@pytest.mark.parametrize("name", [n for n in CHANGES if "schema version" not in n])
def test_repair_never_touches_an_answer_and_leaves_the_uncertain_listed(study, capsys, name):
    """Nothing but an unanswered assignment of no item has one certain repair: the rest stays, listed."""
    (answered,), *_ = _rows(study, "SELECT assignment_id FROM judgment ORDER BY id")
    change(study, CHANGES[name][0] if name != "an assignment of no candidate"
           else f"UPDATE assignment SET candidate_id = 99999 WHERE id = {answered}")
    answers = _rows(study, "SELECT * FROM judgment ORDER BY id") if "judgment table" not in name else None
    assert main(["study", "check", "--db", str(study), "--repair"]) == 1
    out = capsys.readouterr().out
    assert "repaired:" not in out and "problem(s)" in out
    assert not list(study.parent.glob("*.before-repair-*"))
    if answers is not None:
        assert _rows(study, "SELECT * FROM judgment ORDER BY id") == answers
