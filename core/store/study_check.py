"""A study's insides checked when it is opened (issue 39): what another program changed is named, never read on.

A study file is SQLite anyone can edit: a table or a column dropped, a JSON column that no longer parses, a
timestamp ``'yesterday'``, an answer off its criterion's scale (``maybe`` on a yes/no question would become a
category of its own in agreement), a row pointing to one that is not there. Any of them would make a figure
wrong or a command fail halfway. :func:`study_problems` finds every such problem, each derived from the models
(every table, column, JSON column, timestamp and pointer they declare), so a new table is checked without a
line here; opening a study refuses it on the first, and ``parastudio study check`` lists them all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import SimpleNamespace

from sqlalchemy import JSON, Connection, DateTime, inspect, text

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.store.models import Base

# Pointers that are plain integers, not foreign keys (the migrations say why), checked as if they were.
PLAIN_POINTERS = (("assignment", "pair_id", "preference_pair"), ("judgment", "pair_id", "preference_pair"),
                  ("assignment", "live_judgment_id", "judgment"))


@dataclass(frozen=True)
class Problem:
    where: str  # "table", "table.column" or "table row N"
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def study_problems(connection: Connection, *, first_only: bool = False) -> list[Problem]:
    """Every problem of the study on ``connection`` (at the newest schema), in the order tables are declared;
    with ``first_only``, the first one found (opening a study needs no more)."""
    found: list[Problem] = []
    for check in (_missing_tables_and_columns, _bad_json, _bad_times, _dangling_pointers, _answers_off_scale):
        found += check(connection)
        if found and first_only:
            return found[:1]
    return found


def _missing_tables_and_columns(connection: Connection) -> list[Problem]:
    inspector = inspect(connection)
    present = set(inspector.get_table_names())
    problems = []
    for table in Base.metadata.sorted_tables:
        if table.name not in present:
            problems.append(Problem(table.name, "the table is missing"))
            continue
        columns = {column["name"] for column in inspector.get_columns(table.name)}
        problems += [Problem(f"{table.name}.{column.name}", "the column is missing")
                     for column in table.columns if column.name not in columns]
    return problems


def _whole(connection: Connection) -> list:
    """The tables whose every column is there (the other checks read only those)."""
    inspector = inspect(connection)
    present = set(inspector.get_table_names())
    return [table for table in Base.metadata.sorted_tables if table.name in present
            and {c.name for c in table.columns} <= {c["name"] for c in inspector.get_columns(table.name)}]


def _bad_json(connection: Connection) -> list[Problem]:
    if connection.dialect.name != "sqlite":  # a server's JSON type parses what it stores
        return []
    problems = []
    for table in _whole(connection):
        for column in table.columns:
            if isinstance(column.type, JSON):
                row = connection.execute(text(f'SELECT id FROM "{table.name}" WHERE "{column.name}" IS NOT NULL '
                                              f'AND NOT json_valid("{column.name}") LIMIT 1')).first() \
                    if "id" in table.columns else None
                if row is not None:
                    problems.append(Problem(f"{table.name} row {row.id}", f"{column.name} is not JSON"))
                    continue
                shape = _json_shape(table, column)
                row = connection.execute(text(
                    f'SELECT id, json_type("{column.name}") AS kind FROM "{table.name}" WHERE "{column.name}" IS NOT '
                    f'NULL AND json_type("{column.name}") NOT IN (:shape, :empty) LIMIT 1'),
                    {"shape": shape, "empty": "null" if column.nullable else shape}).first() \
                    if shape and "id" in table.columns else None
                if row is not None:  # '42' is JSON, but a criterion's levels are a list
                    found = _JSON_WORDS.get(row.kind, row.kind)
                    problems.append(Problem(f"{table.name} row {row.id}",
                                            f"{column.name} is JSON {found}, not {_JSON_WORDS[shape]}"))
    return problems


_JSON_WORDS = {"array": "a list", "object": "an object", "integer": "a number", "real": "a number", "text": "a string",
               "true": "true", "false": "false", "null": "null"}


def _json_shape(table, column) -> str | None:
    """``array`` or ``object``: what the model declares the JSON column holds (``Mapped[list[...]]`` or
    ``Mapped[dict[...]]``), so the check follows the models."""
    for mapper in Base.registry.mappers:
        if mapper.local_table is table:
            annotation = str(mapper.class_.__annotations__.get(mapper.get_property_by_column(column).key, ""))
            return "object" if annotation.startswith("Mapped[dict") else "array" if annotation.startswith(
                "Mapped[list") else None
    return None


def _bad_times(connection: Connection) -> list[Problem]:
    if connection.dialect.name != "sqlite":  # a server's timestamp type holds only timestamps
        return []
    problems = []
    for table in _whole(connection):
        for column in table.columns:
            if isinstance(column.type, DateTime) and "id" in table.columns:
                row = connection.execute(text(
                    f'SELECT id, "{column.name}" AS value FROM "{table.name}" WHERE "{column.name}" IS NOT NULL '
                    f"AND (typeof(\"{column.name}\") != 'text' OR \"{column.name}\" NOT GLOB "
                    "'[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-6][0-9]*') LIMIT 1")).first()
                if row is not None:
                    problems.append(Problem(f"{table.name} row {row.id}",
                                            f"{column.name} {str(row.value)[:40]!r} is not a time"))
    return problems


def _dangling_pointers(connection: Connection) -> list[Problem]:
    tables = {table.name: table for table in _whole(connection)}
    pointers = [(table.name, key.parent.name, key.column.table.name)
                for table in tables.values() for key in table.foreign_keys]
    pointers += [pointer for pointer in PLAIN_POINTERS if pointer[0] in tables]
    problems = []
    for name, column, target in pointers:
        if target not in tables or "id" not in tables[name].columns:
            continue
        row = connection.execute(text(
            f'SELECT t.id, t."{column}" AS value FROM "{name}" t LEFT JOIN "{target}" r ON r.id = t."{column}" '
            f'WHERE t."{column}" IS NOT NULL AND r.id IS NULL LIMIT 1')).first()
        if row is not None:
            problems.append(Problem(f"{name} row {row.id}", f"{column} {row.value} points to no {target} row"))
    return problems


def _answers_off_scale(connection: Connection) -> list[Problem]:
    names = {table.name for table in _whole(connection)}
    if not {"judgment", "criterion"} <= names:
        return []
    criteria = {}
    for row in connection.execute(text("SELECT id, name, scale, CAST(levels AS TEXT) AS levels FROM criterion")):
        try:  # levels that are not JSON are named by their own check; that criterion's answers are not read
            criteria[row.id] = SimpleNamespace(name=row.name, scale=row.scale, levels=json.loads(row.levels or "[]"))
        except ValueError:
            continue
    problems = []
    answers = connection.execute(text("SELECT criterion_id, value, min(id) AS first FROM judgment "
                                      "WHERE action = 'answer' GROUP BY criterion_id, value"))
    for criterion_id, value, first in answers:
        criterion = criteria.get(criterion_id)
        if criterion is None:
            continue  # a dangling pointer, named by its own check
        try:
            stored = protocol_of(criterion.scale).stored_value(criterion.name, criterion.levels or (), value)
        except (ValueError, TypeError, KeyError, AttributeError):
            stored = None
        if stored != value:
            problems.append(Problem(f"judgment row {first}",
                                    f"value {value!r} is not on criterion {criterion.name!r}'s scale"))
    return problems
