"""Alembic environment: runs on the connection handed over by
``core.store.database.upgrade`` (or on ``sqlalchemy.url`` from the command line)."""

from alembic import context
from sqlalchemy import create_engine

from parastudio.core.store.models import Base

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only when run through the alembic CLI
    engine = create_engine(context.config.get_main_option("sqlalchemy.url"))
    connection = engine.connect()

# Batch mode lets ALTER-style changes run on SQLite (table copy and rename).
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
