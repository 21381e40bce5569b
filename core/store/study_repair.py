"""``parastudio study check --repair`` (issue 39): mend what another program broke where the right answer is certain.

Only two kinds of damage have one right repair, and neither touches a judgment:

* the schema version table holding the same revision twice or more: one row of it is kept;
* an assignment (a judge's queue entry) that no answer refers to, pointing to an item that is not there or
  repeating an assignment that is not there: nobody can judge it, so it is deleted. One that holds answers stays
  (an answer is never deleted) and is listed like the rest.

Everything else (a missing table, a value off its scale, a timestamp that is not one, JSON that does not parse, a
judgment pointing nowhere) has no certain answer: it is listed for the person to restore from a backup. A SQLite
study is first copied beside itself (``FILE.before-repair-N``) with SQLite's backup, so a repair can be undone.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Connection, inspect, text

# The assignment's pointers to items (and to the assignment it repeats) a repair may follow.
ITEM_POINTERS = (("candidate_id", "candidate"), ("choice_task_id", "choice_task"),
                 ("pair_id", "preference_pair"), ("repeat_of", "assignment"))


@dataclass
class RepairReport:
    done: list[str] = field(default_factory=list)
    backup: Path | None = None


def backup_beside(path: Path) -> Path:
    """A consistent copy of the SQLite study at ``path``, beside it under a name no file has."""
    number = 1
    while (target := path.with_name(f"{path.name}.before-repair-{number}")).exists():
        number += 1
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        # "x" mode: the name is taken by us alone, even if another process picks the same number meanwhile.
        with open(target, "xb"):
            pass
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()
    os.chmod(target, os.stat(path).st_mode & 0o777)
    return target


def repair(connection: Connection) -> list[str]:
    """Make the certain repairs on ``connection`` (the caller's transaction); what was done, one line each."""
    done = []
    tables = set(inspect(connection).get_table_names())
    if "alembic_version" in tables:
        revisions = [row[0] for row in connection.execute(text("SELECT version_num FROM alembic_version"))]
        if len(revisions) > 1 and len(set(revisions)) == 1:
            connection.execute(text("DELETE FROM alembic_version"))
            connection.execute(text("INSERT INTO alembic_version (version_num) VALUES (:v)"), {"v": revisions[0]})
            done.append(f"alembic_version: kept one of its {len(revisions)} rows of revision {revisions[0]}")
    if "assignment" in tables and "judgment" in tables:  # without the answers' table, no row is known unanswered
        columns = {column["name"] for column in inspect(connection).get_columns("assignment")}
        # Repeats first point to their original: deleting an original orphans its repeats, so go round until none.
        while True:
            deleted = 0
            answered = " AND id NOT IN (SELECT assignment_id FROM judgment WHERE assignment_id IS NOT NULL)"
            for column, target in ITEM_POINTERS:
                if column not in columns or target not in tables:
                    continue
                result = connection.execute(text(
                    f'DELETE FROM assignment WHERE "{column}" IS NOT NULL AND "{column}" NOT IN '
                    f'(SELECT id FROM "{target}"){answered}'))
                if result.rowcount:
                    done.append(f"assignment: deleted {result.rowcount} row(s) whose {column} points to no "
                                f"{target} row and that hold no answer (nobody could judge them)")
                    deleted += result.rowcount
            if not deleted:
                break
    return done
