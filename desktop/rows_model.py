"""A read-only table model over rows of plain values (studies, QC results, report tables)."""

from __future__ import annotations

from typing import Any, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QColor


class RowsTableModel(QAbstractTableModel):
    """``rows`` are lists of display values; ``sort_keys`` (same shape) sort
    numerically under ``Qt.UserRole``; ``colours`` maps a row to a background."""

    def __init__(self, headers: Sequence[str] = ()) -> None:
        super().__init__()
        self._headers = list(headers)
        self._rows: list[list[Any]] = []
        self._keys: list[list[Any]] = []
        self._colours: list[str | None] = []

    def set_rows(self, rows: Sequence[Sequence[Any]], headers: Sequence[str] | None = None,
                 sort_keys: Sequence[Sequence[Any]] | None = None,
                 colours: Sequence[str | None] | None = None) -> None:
        self.beginResetModel()
        if headers is not None:
            self._headers = list(headers)
        self._rows = [list(row) for row in rows]
        self._keys = [list(row) for row in sort_keys] if sort_keys is not None else self._rows
        self._colours = list(colours) if colours is not None else [None] * len(self._rows)
        self.endResetModel()

    def row_at(self, row: int) -> list[Any]:
        return self._rows[row]

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._headers)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.DisplayRole):  # noqa: N802
        if role == Qt.DisplayRole and orientation == Qt.Horizontal and section < len(self._headers):
            return self._headers[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid():
            return None
        value = self._rows[index.row()][index.column()]
        if role == Qt.DisplayRole:
            return "" if value is None else str(value)
        if role == Qt.UserRole:
            key = self._keys[index.row()][index.column()]
            return key if isinstance(key, (int, float)) else ("" if key is None else str(key))
        if role == Qt.BackgroundRole and self._colours[index.row()]:
            return QColor(self._colours[index.row()])
        if role == Qt.TextAlignmentRole and isinstance(self._keys[index.row()][index.column()], (int, float)):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None
