"""Who may see what (issue 38), enforced by the real PostgreSQL server: each member's own login, through the
store and through raw SQL, reads and writes exactly what its role allows."""

from __future__ import annotations

import os
import stat
import uuid

import psycopg
import pytest
from sqlalchemy import select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.connection_file import read_connection_file
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Judgment


def libpq(url: str) -> str:
    """The SQLAlchemy URL as libpq takes it (what ``psql`` would be given)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture
def study(postgres_url):
    """A PostgreSQL study with two systems' candidates for three sentences, judged by two invited judges, and
    an invited adjudicator; the logins are dropped afterwards (they are the server's, not the database's)."""
    tag = uuid.uuid4().hex[:6]
    names = {"j1": f"j1_{tag}", "j2": f"j2_{tag}", "adj": f"adj_{tag}"}
    db = open_database(postgres_url, create=True)
    study_id = ops.create_study(db, "blind", criteria=("meaning",))
    rows = [ops.CandidateRow(sentence_id=str(i), text=f"{system} {i}", system=system, source=f"source {i}")
            for i in range(3) for system in ("sys-alpha", "sys-beta")]
    ops.import_candidates(db, study_id, rows)
    ops.assign(db, study_id, [names["j1"], names["j2"]])
    urls = {}
    for key, role in (("j1", "judge"), ("j2", "judge"), ("adj", "adjudicator")):
        urls[key] = ops.invite(db, study_id, "blind", names[key], role).url
    try:
        yield db, study_id, names, urls
    finally:
        for login in names.values():
            ops.revoke(db, study_id, login)
        db.close()


def judge_all(url: str, values) -> list[int]:
    """Answer the judge's items in order with ``values`` on the judge's own login; the judgment ids."""
    with open_database(url) as db:
        [membership] = ops.connection_membership(db).values()
        ids = []
        for value in values:
            item = ops.next_item(db, membership.annotator_id)
            ids.append(ops.record_judgment(db, item.assignment_id, value))
        return ids


def refused(connection, statement: str) -> bool:
    """Whether the server refuses ``statement`` on this connection (insufficient privilege or a row policy)."""
    try:
        connection.execute(statement)
    except (psycopg.errors.InsufficientPrivilege, psycopg.errors.CheckViolation):
        connection.rollback()
        return True
    connection.rollback()
    return False


def test_a_judges_own_login_reads_only_their_judgments_and_no_system_by_raw_sql(study):
    db, study_id, names, urls = study
    judge_all(urls["j1"], ["yes"] * 6)
    judge_all(urls["j2"], ["no"] * 6)
    with open_database(postgres_owner_url(db)) as owner:
        annotators = {name: ops.find_annotator(owner, study_id, name) for name in (names["j1"], names["j2"])}
    with psycopg.connect(libpq(urls["j1"])) as connection:
        judged_by = {row[0] for row in connection.execute("SELECT annotator_id FROM judgment")}
        assert judged_by == {annotators[names["j1"]]}
        assert connection.execute("SELECT count(*) FROM judgment").fetchone()[0] == 6
        assert [row[0] for row in connection.execute("SELECT name FROM annotator")] == [names["j1"]]
        assert connection.execute("SELECT count(*) FROM assignment").fetchone()[0] == 6
        texts = {row[0] for row in connection.execute("SELECT text FROM candidate")}
        assert "sys-alpha 0" in texts  # the items' texts are theirs to read
        for forbidden in ("SELECT * FROM system", "SELECT * FROM candidate_system", "SELECT kind FROM candidate",
                          "SELECT scores FROM candidate", "SELECT params FROM candidate",
                          "SELECT derivation FROM candidate", "SELECT system FROM choice_task",
                          "SELECT left_system FROM preference_pair", "SELECT order_seed FROM preference_pair",
                          "SELECT settings FROM study", "SELECT * FROM study_member", "SELECT * FROM event_log",
                          "SELECT kind FROM assignment"):
            assert refused(connection, forbidden), forbidden
        other = annotators[names["j2"]]
        for forbidden in ("UPDATE judgment SET value = 'no'", "DELETE FROM judgment",
                          "UPDATE judgment SET superseded_by = NULL", "UPDATE assignment SET live_judgment_id = NULL",
                          f"CREATE ROLE intruder_{names['j1']}", "ALTER TABLE judgment DISABLE ROW LEVEL SECURITY",
                          "DELETE FROM annotator_session WHERE true; DELETE FROM study_member"):
            assert refused(connection, forbidden), forbidden
        # Inserting as the other judge, or on the other judge's assignment, is refused by the row policy.
        j1 = annotators[names["j1"]]
        own_assignment = connection.execute("SELECT id FROM assignment LIMIT 1").fetchone()[0]
        insert = ("INSERT INTO judgment (uid, study_id, assignment_id, annotator_id, criterion_id, action, value, "
                  "answered_at, flag, origin) SELECT 'x-{uid}', {study}, {assignment}, {annotator}, id, "
                  "'answer', 'no', now(), false, 'app' FROM criterion LIMIT 1")
        assert refused(connection, insert.format(uid=1, study=study_id, assignment=own_assignment, annotator=other))
    with open_database(postgres_owner_url(db)) as owner:
        with owner.reading() as session:
            others = session.scalars(select(Judgment.assignment_id).where(Judgment.annotator_id == other)).all()
        assert len(others) == 6
    with psycopg.connect(libpq(urls["j1"])) as connection:
        assert refused(connection, insert.format(uid=2, study=study_id, assignment=others[0], annotator=j1))
        # A judgment that does not supersede the assignment's live answer would leave two live: refused.
        assert refused(connection, insert.format(uid=3, study=study_id, assignment=own_assignment, annotator=j1))
    # The other judge's labels are all still there, unchanged.
    with open_database(postgres_owner_url(db)) as owner:
        with owner.reading() as session:
            values = session.scalars(select(Judgment.value).where(Judgment.annotator_id == other)).all()
        assert values == ["no"] * 6


def postgres_owner_url(db) -> str:
    return db.engine.url.render_as_string(hide_password=False)


def test_a_judge_answers_corrects_and_undoes_on_their_own_login(study):
    db, study_id, names, urls = study
    with open_database(urls["j1"]) as judge:
        annotator = ops.connection_membership(judge)[study_id].annotator_id
        first = ops.next_item(judge, annotator)
        assert first.derivation is None or isinstance(first.derivation, list)
        answer = ops.record_judgment(judge, first.assignment_id, "yes")
        assert ops.next_item(judge, annotator).position == first.position + 1
        corrected = ops.record_judgment(judge, first.assignment_id, "no")  # went back and changed it
        assert ops.item_at(judge, annotator, first.position).value == "no"
        assert ops.undo_last(judge, annotator) == first.assignment_id
        assert ops.next_item(judge, annotator).position == first.position
        with pytest.raises(DBAPIError):  # the store's own researcher-only read is refused by the server
            ops.judgment_records(judge, study_id)
    with db.reading() as session:
        rows = session.scalars(select(Judgment).where(Judgment.assignment_id == first.assignment_id)
                               .order_by(Judgment.id)).all()
    assert [(r.action, r.value) for r in rows] == [("answer", "yes"), ("answer", "no"), ("undo", None)]
    assert rows[0].superseded_by == corrected == rows[1].id and rows[1].superseded_by == rows[2].id
    assert rows[2].supersedes == rows[1].id and rows[1].supersedes == answer


def test_an_adjudicator_reads_only_the_disagreements_and_decides_them(study):
    db, study_id, names, urls = study
    judge_all(urls["j1"], ["yes"] * 6)
    judge_all(urls["j2"], ["yes", "no", "yes", "yes", "yes", "yes"])
    with open_database(urls["adj"]) as adjudicator:
        [entry] = ops.disagreements_for(adjudicator, study_id, names["adj"])
        assert entry.labels == {names["j1"]: "yes", names["j2"]: "no"}
        with pytest.raises(ops.NotAnAdjudicator):
            ops.disagreements_for(adjudicator, study_id, names["j1"])
        ops.record_adjudication(adjudicator, study_id, names["adj"], entry.key, "no")
        ops.record_adjudication(adjudicator, study_id, names["adj"], entry.key, "yes")  # changed their mind
        [decided] = ops.disagreements(adjudicator, study_id)
        assert decided.decision == "yes" and decided.adjudicator == names["adj"]
    with psycopg.connect(libpq(urls["adj"])) as connection:
        assert connection.execute("SELECT count(*) FROM judgment").fetchone()[0] == 2  # their two decisions
        assert refused(connection, "SELECT * FROM system")
        assert refused(connection, "UPDATE judgment SET value = 'no'")
    with psycopg.connect(libpq(urls["j1"])) as connection:
        assert connection.execute("SELECT count(*) FROM ps_disagreement_labels(%s)", (study_id,)).fetchone()[0] == 0
        names_read = {row[0] for row in connection.execute("SELECT name FROM annotator")}
        assert names["adj"] not in names_read
    [decided] = ops.disagreements(db, study_id)  # the researcher sees the same decision
    assert decided.decision == "yes" and decided.labels == entry.labels


def test_revoking_ends_the_login_and_keeps_the_judgments(study):
    db, study_id, names, urls = study
    judge_all(urls["j2"], ["no"])
    assert ops.revoke(db, study_id, names["j2"])
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(libpq(urls["j2"])).close()
    assert names["j2"] not in {m.login for m in ops.members(db, study_id)}
    assert len(ops.judgment_records(db, study_id)) == 1
    assert not ops.revoke(db, study_id, names["j2"])


def test_the_cli_invites_with_a_private_file_and_never_prints_the_password(study, tmp_path, capsys):
    db, study_id, names, urls = study
    url = postgres_owner_url(db)
    login = f"ann_{uuid.uuid4().hex[:6]}"
    target = tmp_path / "ann.toml"
    try:
        assert main(["study", "invite", "--db", url, login, "--role", "judge", "-o", str(target)]) == 0
        out = capsys.readouterr()
        assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
        connection = read_connection_file(target)
        password = make_url(connection.url).password
        assert connection.study == "blind" and make_url(connection.url).username == login
        assert password and password not in out.out + out.err
        with db.read_connection() as owner:  # nowhere in the study: not the event log, not the member table
            for table in ("event_log", "study_member", "annotator", "study"):
                rows = owner.execute(text(f"SELECT * FROM {table}")).all()
                assert password not in repr(rows), table
        assert main(["study", "members", "--db", url]) == 0
        assert f"{login:<24} judge" in capsys.readouterr().out
        with open_database(connection.url) as judge:  # the file opens the judge's own connection
            assert ops.connection_membership(judge)[study_id].role == "judge"
        # Every command that takes a study takes the file: a judge's own progress, and nothing more. (j1 is
        # invited again: the same login, a new password, the old file void.)
        again = tmp_path / "j1.toml"
        assert main(["study", "invite", "--db", url, names["j1"], "--role", "judge", "-o", str(again)]) == 0
        assert "password is new" in capsys.readouterr().out
        with pytest.raises(Exception, match="password authentication failed"):
            open_database(urls["j1"]).close()
        assert main(["study", "progress", "--db", str(again)]) == 0
        shown = capsys.readouterr().out
        assert f"{names['j1']:<20}       0 / 6" in shown and names["j2"] not in shown and password not in shown
        assert main(["study", "export-judgments", "--db", str(target)]) != 0  # everyone's labels: refused
        err = capsys.readouterr().err
        assert "refused this to your login" in err and password not in err
        os.chmod(target, 0o644)
        assert main(["study", "progress", "--db", str(target)]) == 2
        err = capsys.readouterr().err
        assert "chmod 600" in err and password not in err
    finally:
        ops.revoke(db, study_id, login)


def test_a_judges_login_cannot_invite_or_upgrade(study, tmp_path):
    db, study_id, names, urls = study
    with open_database(urls["j1"]) as judge:
        with pytest.raises(ops.AccessError, match="researcher"):
            ops.invite(judge, study_id, "blind", f"x_{names['j1']}", "judge")
        with pytest.raises(ops.AccessError, match="researcher"):
            ops.revoke(judge, study_id, names["j2"])


def test_an_annotator_of_an_older_study_becomes_a_member_when_invited(postgres_url):
    from parastudio.core.store.database import create_database_engine, upgrade

    engine = create_database_engine(postgres_url)
    upgrade(engine, "0006")
    engine.dispose()
    db = open_database(postgres_url, upgrade_schema=True)  # the researcher's connection migrates it, asked to
    study_id = ops.create_study(db, "old", criteria=("meaning",))
    ops.import_candidates(db, study_id, [ops.CandidateRow(sentence_id="0", text="a b", system="x", source="a c")])
    ops.assign(db, study_id, ["ann"], judges_per_item=1)
    existing = ops.find_annotator(db, study_id, "ann")
    login = f"ann_{uuid.uuid4().hex[:6]}"
    try:
        with pytest.raises(ValueError, match="cannot be a login"):
            ops.invite(db, study_id, "old", "ann\u200b", "judge")
        with db.transaction() as session:  # the name of the old study's annotator, made a login
            from parastudio.core.store.models import Annotator

            session.get(Annotator, existing).name = login
        invitation = ops.invite(db, study_id, "old", login, "judge")
        with open_database(invitation.url) as judge:
            assert ops.connection_membership(judge)[study_id].annotator_id == existing
            assert ops.next_item(judge, existing).candidate == "a b"
    finally:
        ops.revoke(db, study_id, login)
        db.close()


def test_a_sqlite_study_refuses_invitations(tmp_path, capsys):
    path = tmp_path / "s.sqlite"
    with open_database(path, create=True) as db:
        ops.create_study(db, "toy")
    code = main(["study", "invite", "--db", str(path), "judge1", "--role", "judge", "-o", str(tmp_path / "j.toml")])
    assert code != 0
    assert "keeps no secret" in capsys.readouterr().err
    assert not (tmp_path / "j.toml").exists()


def test_a_members_connection_uses_tls_when_the_server_offers_it(study):
    db, study_id, names, urls = study
    with db.read_connection() as connection:
        if connection.scalar(text("SHOW ssl")) != "on":
            pytest.skip("this PostgreSQL server offers no TLS (packaging/setup.sh turns it on for the tests)")
    encrypted = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
    with open_database(urls["j1"]) as judge, judge.read_connection() as connection:
        assert connection.scalar(text(encrypted)) is True
    with open_database(urls["j1"] + "?sslmode=disable") as judge, judge.read_connection() as connection:
        assert connection.scalar(text(encrypted)) is False  # the URL's sslmode is obeyed


def test_what_a_judge_may_not_do_through_the_store_is_refused_by_the_server(study, tmp_path):
    db, study_id, names, urls = study
    judge_all(urls["j2"], ["no"] * 2)
    other = ops.find_annotator(db, study_id, names["j2"])
    others_item = ops.item_at(db, other, 5)
    with open_database(urls["j1"]) as judge:
        refusals = {
            "everyone's judgments": lambda: ops.judgment_records(judge, study_id),
            "quality control": lambda: ops.quality_control(judge, study_id),
            "the disagreements": lambda: ops.disagreements(judge, study_id),
            "another judge's package": lambda: ops.export_package(judge, study_id, names["j2"], tmp_path / "p.sqlite"),
            "an invitation": lambda: ops.invite(judge, study_id, "blind", "intruder", "judge"),
        }
        for what, attempt in refusals.items():
            with pytest.raises((DBAPIError, ops.AccessError, LookupError)):
                attempt()
                pytest.fail(f"{what} was not refused")
        with pytest.raises(LookupError):  # another judge's assignment does not exist for this login
            ops.record_judgment(judge, others_item.assignment_id, "yes")
        assert ops.item_at(judge, other, 0) is None  # nor do their items
        with pytest.raises(ops.NotAnAdjudicator):
            ops.disagreements_for(judge, study_id, names["j1"])
        ops.set_adjudicators(db, study_id, [names["adj"]])  # the researcher's list: not the judge's to read
        assert ops.adjudicators(judge, study_id) == () and "adjudicators" not in ops.study_settings(judge, study_id)
        assert ops.adjudicators(db, study_id) == (names["adj"],)
    assert not (tmp_path / "p.sqlite").exists()
    assert [r["value"] for r in ops.judgment_records(db, study_id)] == ["no", "no"]
