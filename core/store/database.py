"""Opening a study database: engine, connection settings, migrations.

A plain path opens SQLite; any SQLAlchemy URL (``postgresql+psycopg://...``)
opens that server with the same code. SQLite runs in WAL mode with
``synchronous=NORMAL``: a committed judgment survives the process being
killed (it is in the WAL the moment ``COMMIT`` returns), readers never block
the writer, and a commit costs no fsync. Write transactions start with
``BEGIN IMMEDIATE`` so two processes sharing one file wait on the busy
timeout instead of failing on a read-to-write lock upgrade.

Opening runs the Alembic migrations up to the newest revision, so a study
database written by an older version opens in a newer one.

The store opens only its own databases and never creates one unless asked
(``create=True``): a SQLite study file carries the application id
:data:`APPLICATION_ID` in its header (``PRAGMA application_id``) and
Alembic's version table; a file that is not SQLite, or another program's
SQLite database, is refused without a byte written; a mistyped path is an
error, not a new empty study. Files made before the application id existed
are recognised by their version table and study tables. A study written by
a newer version (a schema revision this program does not know) and a damaged
SQLite file are refused the same way, naming the file, before anything is
written to them.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import sqlite3
import threading
from pathlib import Path
from typing import Iterator

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event, inspect, make_url
from sqlalchemy.exc import DatabaseError as DBAPIDatabaseError
from sqlalchemy.exc import NoSuchModuleError
from sqlalchemy.orm import Session, sessionmaker

from parastudio.core.errors import InputFileError, StudyUnavailableError
from parastudio.core.store.server_url import checked_url, server_options
from parastudio.core.store.store_errors import read_only_reason, study_error
from parastudio.core.store.study_file import (
    APPLICATION_ID,
    OUR_TABLES,
    check_sqlite_file,
    discard_new_study,
    read_only_uri,
)
from parastudio.core.store.write_retry import begin_when_free

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
BUSY_TIMEOUT_MS = 10_000


def database_url(target: str | os.PathLike) -> str:
    """A SQLAlchemy URL for ``target``: URLs pass through, paths become SQLite; a SQLite URL with a driver
    (``sqlite+pysqlite:///PATH``) is the plain one, so its file gets the checks a path gets."""
    text = str(target)
    if "://" in text:
        url = checked_url(text)
        if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
            # SQLite's in-memory database: a study made or judged there is gone when the command ends.
            raise InputFileError(text, "a study file or a database server",
                                 "SQLite's in-memory database, which nothing outlives")
        if url.get_backend_name() != "sqlite" or url.drivername == "sqlite":
            return text
        text = url.database
    try:
        return f"sqlite:///{Path(text).expanduser().resolve()}"
    except RuntimeError:  # Python 3.11's Path.resolve on a symlink loop; later versions raise OSError
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), text) from None


def _configure_sqlite(engine: Engine, read_only: bool = False) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        # Let SQLAlchemy's "begin" event issue BEGIN itself (pysqlite's own
        # implicit transactions would defer it and break BEGIN IMMEDIATE).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if not read_only:  # setting the journal mode writes the header
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection):
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


def _alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


@functools.lru_cache(maxsize=1)
def head_revision() -> str:
    # The migration scripts do not change while we run; reading them costs more than opening a study.
    return ScriptDirectory.from_config(_alembic_config()).get_current_head()


@functools.lru_cache(maxsize=1)
def known_revisions() -> frozenset[str]:
    """Every schema revision this program can read (and migrate from)."""
    return frozenset(script.revision for script in ScriptDirectory.from_config(_alembic_config()).walk_revisions())


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Run migrations up to ``revision`` (used on open and by the migration test)."""
    config = _alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


class Database:
    """An engine plus short-lived sessions: one session per operation. A ``with`` block on a SQLite study that
    :func:`open_database` made removes it when the block fails (:func:`core.store.study_file.discard_new_study`)."""

    def __init__(self, engine: Engine, read_only: str | None = None, made: tuple[Path, bool] | None = None):
        self.engine = engine
        self._made = made  # the SQLite file this open made (and whether it was an empty file), kept only on success
        self.read_only = read_only  # why this study opened for reading only (None: it is writable)
        self.is_sqlite = engine.dialect.name == "sqlite"
        self._writer = engine.execution_options(sqlite_begin="IMMEDIATE") if self.is_sqlite else engine
        self._read_sessions = sessionmaker(engine, expire_on_commit=False)
        self._write_sessions = sessionmaker(self._writer, expire_on_commit=False)
        self._in_use = 0  # operations running now, in any thread (reopen() waits for none)
        self._in_use_changed = threading.Condition()

    @contextlib.contextmanager
    def _operation(self) -> Iterator[None]:
        with self._in_use_changed:
            self._in_use += 1
        try:
            yield
        finally:
            with self._in_use_changed:
                self._in_use -= 1
                self._in_use_changed.notify_all()

    def reopen(self) -> None:
        """Close every connection, once no operation is using one, so the next ones open the files on disk
        afresh (:mod:`core.store.wal_file`: after another program deleted the log this process wrote into)."""
        with self._in_use_changed:
            self._in_use_changed.wait_for(lambda: self._in_use == 0)
            self.engine.dispose()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Session]:
        """A write transaction: committed on normal exit, rolled back on error; a locked study is waited for
        (:func:`core.store.write_retry.begin_when_free`)."""
        with self._operation(), begin_when_free(self._begun_write_session) as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    @contextlib.contextmanager
    def reading(self) -> Iterator[Session]:
        """A read-only transaction that never blocks or waits for writers."""
        with self._operation(), self._read_sessions() as session:
            yield session

    @contextlib.contextmanager
    def write_connection(self) -> Iterator[Connection]:
        """A Core write transaction, for the hot paths where ORM bookkeeping costs more than the SQL."""
        with self._operation(), begin_when_free(self._begun_write_connection) as connection:
            try:
                yield connection
                connection.commit()
            except BaseException:
                connection.rollback()
                raise

    def _begun_write_session(self) -> Session:
        # Taking the connection now sends BEGIN (IMMEDIATE on SQLite): the write lock is had before any work.
        session = self._write_sessions()
        try:
            session.begin()
            session.connection()
        except BaseException:
            session.close()
            raise
        return session

    def _begun_write_connection(self) -> Connection:
        connection = self._writer.connect()
        try:
            connection.begin()
        except BaseException:
            connection.close()
            raise
        return connection

    @contextlib.contextmanager
    def read_connection(self) -> Iterator[Connection]:
        with self._operation(), self.engine.connect() as connection:
            yield connection

    @functools.cached_property
    def is_member_login(self) -> bool:
        """Whether this is a study member's own PostgreSQL login rather than the owner of the tables: the server
        then keeps it to its role's rows (revision 0007), and the store leaves to the server's trigger the two
        updates a member may not make (:mod:`core.store.study_members`). A SQLite file never is."""
        if self.is_sqlite:
            return False
        with self.read_connection() as connection:
            return not owns_the_tables(connection)

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, exc_type, *_exc) -> None:
        self.close()
        if exc_type is not None and self._made is not None:  # making the study failed: no empty study is left
            discard_new_study(*self._made)


def owns_the_tables(connection: Connection) -> bool:
    """Whether this PostgreSQL connection's user owns the store's tables (or is a member of the role that does)."""
    return bool(connection.exec_driver_sql(
        "SELECT coalesce(pg_has_role(current_user, c.relowner, 'USAGE'), true) FROM pg_class c "
        "WHERE c.oid = to_regclass('judgment')").scalar() in (True, None))


def create_database_engine(target: str | os.PathLike, *, read_only: bool = False) -> Engine:
    """The engine of a study; ``read_only`` (SQLite) opens the file for reading, as a study in a read-only
    folder must be: ``mode=ro`` when its ``-wal`` is there (a writer may be using it), else ``immutable=1``,
    since SQLite cannot make the ``-shm`` it needs to read a WAL study otherwise and no writer can be at work
    without a ``-wal`` (SQLite's "WAL mode", §"Read-Only Databases")."""
    url = database_url(target)
    path = sqlite_path(target)
    if read_only and path is not None:
        url = f"sqlite:///{read_only_uri(path)}&uri=true"
    try:
        engine = create_engine(url, **server_options(url))
    except (ImportError, NoSuchModuleError) as error:  # mysql://, a driver not installed: no study server of ours
        raise InputFileError(_shown(target), "a study file, or a PostgreSQL server (postgresql+psycopg://...)",
                             f"a database this program has no driver for ({error})") from None
    if engine.dialect.name == "sqlite":
        _configure_sqlite(engine, read_only=read_only)
    return engine


def sqlite_path(target: str | os.PathLike) -> Path | None:
    url = database_url(target)
    return Path(url[len("sqlite:///"):]) if url.startswith("sqlite:///") else None


def _check_server_database(engine: Engine, create: bool) -> bool:
    """Whether the server's database is to be made a study (empty, and ``create``); raise if it is not ours."""
    tables = set(inspect(engine).get_table_names())
    if OUR_TABLES <= tables:
        return False
    if not tables and create:
        return True
    if not tables:
        raise InputFileError(engine.url.render_as_string(hide_password=True),
                             "a study database (this one is empty: create the study with --create)")
    raise InputFileError(engine.url.render_as_string(hide_password=True), "a Paraphrase Studio study database",
                         f"a database with other tables ({', '.join(sorted(tables)[:6])}); it was left untouched")


def _refuse_newer_schema(target, revision: str | None) -> None:
    """A study written by a newer version of this program: its schema is not ours to read or migrate."""
    if revision is None or revision in known_revisions():
        return
    raise InputFileError(_shown(target), f"a study database of schema version {head_revision()} or older "
                         "(open this one with the newer Paraphrase Studio that wrote it)",
                         f"a study of schema version {revision}, newer than this program's {head_revision()}")


def _refuse_upgrade_by_member(engine: Engine, target, revision: str | None) -> None:
    """A member's login cannot change the schema; say whose step it is instead of failing halfway."""
    with engine.connect() as connection:
        if owns_the_tables(connection):
            return
    raise StudyUnavailableError(_shown(target), f"this study is at schema version {revision} and must be upgraded "
                                f"to {head_revision()} by its researcher (who owns its tables) before members open it")


@contextlib.contextmanager
def _damage_as_input_error(target) -> Iterator[None]:
    """SQLite's "file is damaged" (SQLITE_CORRUPT, SQLITE_NOTADB) as an InputFileError naming the file; a full
    disk, a lock, a read-only folder as what they are (:func:`core.store.store_errors.study_error`), never damage."""
    try:
        yield
    except (sqlite3.DatabaseError, DBAPIDatabaseError) as error:
        damaged = study_error(_shown(target), error)
        if damaged is None:
            raise
        raise damaged from None


def _shown(target) -> str:
    path = sqlite_path(target)
    return str(path) if path is not None else make_url(str(target)).render_as_string(hide_password=True)


def shown_study_name(target) -> str:
    """How a message names the study at ``target``: its absolute path, or its URL without the password."""
    return _shown(target)


def open_database(target: str | os.PathLike, *, create: bool = False, migrate: bool = True,
                  writing: bool = True, upgrade_schema: bool = False) -> Database:
    """Open the study database at a path or URL; make a new one only with ``create`` (module docstring).

    A study of a newer schema than this program's, or a damaged SQLite file, is refused with
    an :class:`InputFileError` before anything is written to it; so is one whose insides another program changed
    (:mod:`core.store.study_check`). An older study is upgraded only when asked (``upgrade_schema``: `parastudio
    study upgrade`, or the app once the person agreed), since older versions cannot open it afterwards; else
    :class:`StudyNeedsUpgradeError`. ``writing=False`` (a reading command) opens a SQLite study read-only: not a
    byte of it changes."""
    path = sqlite_path(target)
    was_empty = path is not None and path.is_file()  # a new study made in an empty file leaves it empty on failure
    new = check_sqlite_file(path, create) if path is not None else False
    read_only = read_only_reason(path) if path is not None else None
    if read_only is not None and new:
        raise StudyUnavailableError(_shown(target), f"{read_only}; a new study cannot be made there")
    if read_only is None and not writing and not new and path is not None:
        read_only = "opened for reading"
    engine = create_database_engine(target, read_only=read_only is not None)
    try:
        with _damage_as_input_error(target):
            if path is None:
                new = _check_server_database(engine, create)
            if migrate:
                revision = None if new else recorded_revision(engine, target)
                _refuse_newer_schema(target, revision)
                if not new and revision != head_revision():
                    if not upgrade_schema:
                        raise StudyNeedsUpgradeError(_shown(target), revision)
                    if read_only is not None:
                        raise StudyUnavailableError(_shown(target), f"{read_only}; this study of schema version "
                                                    f"{revision} must be upgraded to be read, a write: copy it to a "
                                                    "writable folder")
                    if path is None:
                        _refuse_upgrade_by_member(engine, target, revision)
                    _upgrade_or_leave(engine, target, revision)
                elif new:
                    upgrade(engine)
                if not new:
                    _refuse_changed_insides(engine, target)
            if path is not None and read_only is None:
                with engine.begin() as connection:
                    if connection.exec_driver_sql("PRAGMA application_id").scalar() != APPLICATION_ID:
                        connection.exec_driver_sql(f"PRAGMA application_id={APPLICATION_ID}")
    except BaseException:
        engine.dispose()
        if new and path is not None:
            discard_new_study(path, was_empty)
        raise
    return Database(engine, read_only, made=(path, was_empty) if new and path is not None else None)


class StudyNeedsUpgradeError(InputFileError):
    """A study written by an older version: its schema is upgraded only when asked (``parastudio study upgrade``,
    or the app's question), since older versions of the program cannot open it afterwards."""

    def __init__(self, shown: str, revision: str | None):
        self.revision = revision
        super().__init__(shown, f"a study database of schema version {head_revision()} (upgrade this one with "
                         f"`parastudio study upgrade --db {shown}`: older versions of Paraphrase Studio cannot open "
                         "it afterwards)", f"a study of schema version {revision}, left as it is")


def recorded_revision(engine: Engine, target) -> str:
    """The study's schema version, or InputFileError when its version table is empty or holds several."""
    from alembic.util import CommandError

    try:
        revision = current_revision(engine)
    except CommandError:
        raise InputFileError(_shown(target), "a study database with one schema version in alembic_version",
                             "a version table holding several rows (another program changed it; `parastudio study "
                             "check --repair` mends rows that repeat one version, else restore the study from a "
                             "backup)") from None
    if revision is None:
        gone = not inspect(engine).has_table("alembic_version")
        raise InputFileError(_shown(target), "a study database with its schema version in alembic_version",
                             f"{'no version table' if gone else 'an empty version table'} (another program changed "
                             "it; restore the study from a backup)")
    return revision


def _upgrade_or_leave(engine: Engine, target, revision: str) -> None:
    """Run the migrations in one transaction; when they fail (tables another program changed), nothing is kept."""
    try:
        upgrade(engine)
    except (DBAPIDatabaseError, sqlite3.DatabaseError) as error:
        if study_error(_shown(target), error) is not None:
            raise
        raise InputFileError(_shown(target), f"a study of schema version {revision} that upgrades to "
                             f"{head_revision()}", f"tables that do not match that version (the upgrade failed and "
                             f"was undone: {str(getattr(error, 'orig', error)).splitlines()[0]})") from None


def _refuse_changed_insides(engine: Engine, target) -> None:
    from parastudio.core.store.study_check import study_problems

    with engine.connect() as connection:
        if connection.dialect.name != "sqlite" and not owns_the_tables(connection):
            return  # a member's login reads too little to check; its owner's connection does
        problems = study_problems(connection, first_only=True)
    if problems:
        shown = _shown(target)
        raise InputFileError(shown, "a study whose tables hold what Paraphrase Studio wrote",
                             f"{problems[0]} (another program changed it; `parastudio study check --db {shown}` "
                             "lists every problem, and with --repair mends those that have one certain repair)")
