"""A study's members and their roles, and on PostgreSQL the login each one connects with (issue 38).

A *researcher* owns the study's tables and reads and writes everything; an *adjudicator* judges and decides
the disagreements given to them; a *judge* reads their own assignments and the items' texts and writes their
own judgments. On PostgreSQL each member is a login role made by :func:`invite`: the server itself, through
the row-level security of revision 0007 and the column privileges of :mod:`core.store.access_grants`, keeps a
member's connection (``psql`` included) to what their role allows, and :func:`connection_membership` tells
the app and the CLI who a connection is, so nobody declares a role by typing a name. SQLite keeps no secret
from whoever holds the file: there, the role is declared at launch and the member table is only a record.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

from sqlalchemy import delete, select, text
from sqlalchemy.engine import make_url

from parastudio.core.store.access_grants import grant_statements
from parastudio.core.store.clock import now
from parastudio.core.store.database import Database, owns_the_tables
from parastudio.core.store.events import log_event
from parastudio.core.store.models import MEMBER_ROLES, StudyMember
from parastudio.core.store.studies import annotator_in

# A login is a PostgreSQL role name and the user part of a URL: letters, digits, '_', '-' and '.', a letter
# first, at most 63 bytes (PostgreSQL's NAMEDATALEN - 1); nothing to quote in a URL, nothing that looks alike.
LOGIN_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,62}")
RESERVED_PREFIXES = ("pg_",)


class AccessError(PermissionError):
    """What a connection asked for is not its role's to do; the message says whose it is."""


@dataclass(frozen=True)
class Membership:
    """Who a member's connection is in one study: their role and the annotator row they judge as."""

    study_id: int
    login: str
    role: str
    annotator_id: int | None


@dataclass(frozen=True)
class Invitation:
    """A new member: the URL their own connection opens (password included: it goes to their file only)."""

    login: str
    role: str
    url: str
    study: str
    password_was_reset: bool


def check_login(name: str) -> str:
    """``name`` as a login, or ValueError saying what a login may hold."""
    if not LOGIN_PATTERN.fullmatch(name or "") or name.lower().startswith(RESERVED_PREFIXES):
        raise ValueError(f"{name!r} cannot be a login: expected a letter, then up to 62 letters, digits, '_', '-' "
                         "or '.', not starting with 'pg_'")
    return name


def connection_membership(db: Database) -> dict[int, Membership] | None:
    """The studies this connection is a judge or adjudicator of, by study id; None when it is not a member's
    connection but the owner's (a researcher's) or a SQLite file's, whose role is declared, not enforced."""
    if db.is_sqlite:
        return None
    with db.read_connection() as connection:
        if owns_the_tables(connection):
            return None
        login = connection.scalar(text("SELECT session_user"))
        rows = connection.execute(text("SELECT study_id, role, annotator_id FROM ps_my_membership()")).all()
    return {row.study_id: Membership(row.study_id, login, row.role, row.annotator_id) for row in rows}


def members(db: Database, study_id: int) -> list[StudyMember]:
    """The study's members, by login (the researcher's view)."""
    with db.reading() as session:
        return list(session.scalars(select(StudyMember).where(StudyMember.study_id == study_id)
                                    .order_by(StudyMember.login)))


def invite(db: Database, study_id: int, study_name: str, login: str, role: str) -> Invitation:
    """Let ``login`` into the study as ``role``: on PostgreSQL a login role with a new random password, its
    column privileges, and the member row the server's policies read. One transaction: a failure leaves no
    half-made member. A login that exists already (a member of another study on this server) keeps its
    privileges there and gets a new password, which the invitation says."""
    check_login(login)
    if role not in MEMBER_ROLES:
        raise ValueError(f"a role is one of {', '.join(MEMBER_ROLES)}, not {role!r}")
    if db.is_sqlite:
        raise AccessError("a SQLite study file keeps no secret from whoever holds it: invite members on a "
                          "PostgreSQL study (`--db postgresql+psycopg://...`); judges on other machines without "
                          "one get `parastudio study export-package` files")
    password = secrets.token_urlsafe(24)
    with db.write_connection() as connection:
        if not owns_the_tables(connection):
            raise AccessError("only the study's researcher (the owner of its tables) may invite members")
        quoted = connection.dialect.identifier_preparer.quote(login)
        owner = connection.scalar(text("SELECT pg_get_userbyid(relowner) FROM pg_class "
                                       "WHERE oid = to_regclass('judgment')"))
        if login == owner or login == connection.scalar(text("SELECT current_user")):
            raise ValueError(f"{login} owns the study's tables: it is its researcher already")
        existed = connection.scalar(text("SELECT count(*) FROM pg_roles WHERE rolname = :name"),
                                    {"name": login}) > 0
        if existed and connection.scalar(text("SELECT rolsuper OR rolcreaterole OR rolbypassrls FROM pg_roles "
                                              "WHERE rolname = :name"), {"name": login}):
            raise AccessError(f"{login} is a role that may create roles or bypass row security on this server; a "
                              "member must be an ordinary login")
        hashed = _hashed_password(connection, password, login)
        verb = "ALTER" if existed else "CREATE"
        connection.exec_driver_sql(f"{verb} ROLE {quoted} LOGIN PASSWORD '{hashed}'")
        annotator_id = None
        with _orm(connection) as session:
            if role != "researcher":
                annotator_id = annotator_in(session, study_id, login)
            session.execute(delete(StudyMember).where(StudyMember.study_id == study_id, StudyMember.login == login))
            session.add(StudyMember(study_id=study_id, login=login, role=role, annotator_id=annotator_id,
                                    invited_at=now()))
            log_event(session, study_id, "member_invited", {"login": login, "role": role})
            session.flush()
        _revoke_privileges(connection, login)
        if role == "researcher":
            connection.exec_driver_sql(f"GRANT {connection.dialect.identifier_preparer.quote(owner)} TO {quoted}")
        else:
            for statement in grant_statements(role, quoted):
                connection.exec_driver_sql(statement)
        url = make_url(str(db.engine.url)).set(username=login, password=password)
    return Invitation(login, role, url.render_as_string(hide_password=False), study_name, existed)


def revoke(db: Database, study_id: int, login: str) -> bool:
    """End ``login``'s membership of the study: its member row and privileges go, and the login itself when it
    is a member of no other study here (its judgments stay, as every judgment does). False when it was none."""
    check_login(login)
    if db.is_sqlite:
        raise AccessError("a SQLite study file has no logins to revoke")
    with db.write_connection() as connection:
        if not owns_the_tables(connection):
            raise AccessError("only the study's researcher (the owner of its tables) may revoke members")
        quoted = connection.dialect.identifier_preparer.quote(login)
        with _orm(connection) as session:
            removed = session.execute(delete(StudyMember).where(StudyMember.study_id == study_id,
                                                                StudyMember.login == login)).rowcount
            if removed:
                log_event(session, study_id, "member_revoked", {"login": login})
            others = session.scalar(select(StudyMember.id).where(StudyMember.login == login).limit(1))
            session.flush()
        exists = connection.scalar(text("SELECT count(*) FROM pg_roles WHERE rolname = :name"), {"name": login})
        if not removed or not exists or others is not None:
            return bool(removed)
        _revoke_privileges(connection, login)
        connection.exec_driver_sql(f"ALTER ROLE {quoted} NOLOGIN")
        # A login with privileges in another database of this server cannot be dropped from here: it stays,
        # unable to log in.
        savepoint = connection.begin_nested()
        try:
            connection.exec_driver_sql(f"DROP ROLE {quoted}")
            savepoint.commit()
        except Exception:
            savepoint.rollback()
    return True


def _revoke_privileges(connection, login: str) -> None:
    quoted = connection.dialect.identifier_preparer.quote(login)
    schema = connection.dialect.identifier_preparer.quote(connection.scalar(text("SELECT current_schema()")))
    connection.exec_driver_sql(f"REVOKE ALL ON ALL TABLES IN SCHEMA {schema} FROM {quoted}")
    connection.exec_driver_sql(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {schema} FROM {quoted}")
    owner = connection.scalar(text("SELECT pg_get_userbyid(relowner) FROM pg_class "
                                   "WHERE oid = to_regclass('judgment')"))
    if connection.scalar(text("SELECT pg_has_role(:login, :owner, 'MEMBER')"), {"login": login, "owner": owner}):
        connection.exec_driver_sql(f"REVOKE {connection.dialect.identifier_preparer.quote(owner)} FROM {quoted}")


def _hashed_password(connection, password: str, login: str) -> str:
    """The password as the server stores it (SCRAM), made here: the plain one never reaches the server's
    statement log."""
    raw = connection.connection.driver_connection
    algorithm = connection.scalar(text("SHOW password_encryption"))
    return raw.pgconn.encrypt_password(password.encode(), login.encode(), algorithm.encode()).decode()


class _orm:
    """An ORM session on an open Core connection's transaction (flushed, never committed here)."""

    def __init__(self, connection):
        from sqlalchemy.orm import Session

        self.session = Session(bind=connection, join_transaction_mode="create_savepoint")

    def __enter__(self):
        return self.session

    def __exit__(self, error_type, *_):
        if error_type is None:
            self.session.commit()  # releases the savepoint; the connection's own transaction commits later
        self.session.close()
