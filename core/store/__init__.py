"""The study store: a SQLite (or PostgreSQL) database of studies, items,
assignments and append-only judgments, and the narrow operations on it.

Open with :func:`core.store.database.open_database`; every function in
:mod:`core.store.operations` is one transaction.
"""
