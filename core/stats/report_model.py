"""The shape of a report: tables of typed columns, each with a signature saying how its numbers were computed.

A signature follows sacrebleu's (``stat:...|opt:...|items:N|judges:J|version:V``),
so a figure pasted into a paper can be recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core import __version__


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


def signature(statistic: str, n_items: int, n_judges: int, **options) -> str:
    """``stat:<statistic>|<option>:<value>|...|items:N|judges:J|version:V``."""
    parts = [f"stat:{statistic}"]
    parts += [f"{name.replace('_', '-')}:{value}" for name, value in options.items()]
    parts += [f"items:{n_items}", f"judges:{n_judges}", f"version:{__version__}"]
    return "|".join(parts)
