"""The study a command names, opened in one place: its database and the study's id, or one clear error.

Every command that reads a study (``study ...``, ``inspect``, ``agreement`` and
its siblings on a database) calls :func:`open_study`. A database that holds no
study by that name, several studies and no ``--study``, or no database named at
all raise :class:`StudyChoiceError`, which :func:`core.cli.main` reports as
``parastudio: error: ...`` with exit status 1, as these commands always did;
a subcommand no longer catches it itself.
"""

from __future__ import annotations


class StudyChoiceError(Exception):
    """Which study a command means cannot be told (module docstring)."""


def open_study(target: str | None, name: str | None = None, *, writing: bool = True):
    """``(database, study id)`` of study ``name`` (the only one when None) in the database at ``target`` (a SQLite
    file or a SQLAlchemy URL); the caller closes the database (``with db:``). A reading command passes
    ``writing=False``: its study is opened read-only and left byte for byte as it was (issue 39)."""
    from parastudio.core.store.connection_file import is_connection_file, read_connection_file
    from parastudio.core.store.database import open_database
    from parastudio.core.store.operations import find_study

    if not target:
        raise StudyChoiceError("name the study database (a SQLite file, a URL, or a connection file)")
    if is_connection_file(target):  # a member's own login (issue 38): the file names its study
        connection = read_connection_file(target)
        target, name = connection.url, name or connection.study
    db = open_database(target, writing=writing)
    try:
        return db, find_study(db, name)
    except LookupError as error:
        db.close()
        raise StudyChoiceError(str(error)) from None
