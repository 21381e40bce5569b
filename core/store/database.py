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
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterator

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
BUSY_TIMEOUT_MS = 10_000


def database_url(target: str | os.PathLike) -> str:
    """A SQLAlchemy URL for ``target``: URLs pass through, paths become SQLite."""
    text = str(target)
    if "://" in text:
        return text
    return f"sqlite:///{Path(text).expanduser().resolve()}"


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        # Let SQLAlchemy's "begin" event issue BEGIN itself (pysqlite's own
        # implicit transactions would defer it and break BEGIN IMMEDIATE).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
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


def head_revision() -> str:
    return ScriptDirectory.from_config(_alembic_config()).get_current_head()


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
    """An engine plus short-lived sessions: one session per operation."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.is_sqlite = engine.dialect.name == "sqlite"
        self._writer = engine.execution_options(sqlite_begin="IMMEDIATE") if self.is_sqlite else engine
        self._read_sessions = sessionmaker(engine, expire_on_commit=False)
        self._write_sessions = sessionmaker(self._writer, expire_on_commit=False)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Session]:
        """A write transaction: committed on normal exit, rolled back on error."""
        with self._write_sessions.begin() as session:
            yield session

    @contextlib.contextmanager
    def reading(self) -> Iterator[Session]:
        """A read-only transaction that never blocks or waits for writers."""
        with self._read_sessions() as session:
            yield session

    @contextlib.contextmanager
    def write_connection(self) -> Iterator[Connection]:
        """A Core write transaction, for the hot paths where ORM bookkeeping costs more than the SQL."""
        with self._writer.begin() as connection:
            yield connection

    @contextlib.contextmanager
    def read_connection(self) -> Iterator[Connection]:
        with self.engine.connect() as connection:
            yield connection

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


def create_database_engine(target: str | os.PathLike) -> Engine:
    url = database_url(target)
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        _configure_sqlite(engine)
    return engine


def open_database(target: str | os.PathLike, *, migrate: bool = True) -> Database:
    """Open (creating if needed) the study database at a path or URL."""
    engine = create_database_engine(target)
    if migrate and current_revision(engine) != head_revision():
        upgrade(engine)
    return Database(engine)
