"""The shape of a report: tables of typed columns, each with a signature saying how its numbers were computed.

A signature follows sacrebleu's (``stat:...|opt:...|items:N|judges:J|version:V``),
so a figure pasted into a paper can be recomputed; it is read from the statistic that computed the table
(:mod:`core.stats.signature`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from parastudio.core.stats.signature import signature  # noqa: F401  (the tables' signature line; re-exported)


@dataclass(frozen=True)
class Column:
    """A table column; ``kind`` says how to show its numbers:
    text, count, percent (a share in [0, 1]), kappa, p."""

    name: str
    kind: str = "text"


@dataclass(frozen=True)
class PlotSpec:
    kind: str  # "bar" or "line"
    label_column: int
    value_columns: tuple[int, ...]
    y_label: str


@dataclass
class ReportTable:
    key: str
    title: str
    columns: list[Column]
    rows: list[list]
    signature: str
    note: str = ""
    plot: PlotSpec | None = None


@dataclass
class Report:
    title: str
    tables: list[ReportTable] = field(default_factory=list)
