"""Read-only tables of whole rows: a model over a list of rows with fixed columns, and its view (one row selected
at a time, sortable, told of the current row)."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QAbstractItemModel, QAbstractTableModel, QModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView


class ListRowsModel(QAbstractTableModel):
    """``rows`` (a list, one object per table row) under the headers ``COLUMNS``; a subclass says what ``data`` shows."""

    COLUMNS: tuple[str, ...] = ()

    def __init__(self):
        super().__init__()
        self.rows: list = []

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):  # noqa: N802
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return self.COLUMNS[section]
        return None


def rows_view(model: QAbstractItemModel, on_current_row: Callable[[int], None], *,
              fit_columns: bool = True) -> QTableView:
    """``model`` shown row by row; ``on_current_row(index)`` whenever the current row changes. ``fit_columns``:
    columns sized to their contents (else the user sizes them); the last one takes the space left."""
    view = QTableView()
    view.setModel(model)
    view.setSortingEnabled(True)
    view.setSelectionBehavior(QAbstractItemView.SelectRows)
    view.setSelectionMode(QAbstractItemView.SingleSelection)
    view.setEditTriggers(QAbstractItemView.NoEditTriggers)
    view.verticalHeader().setVisible(False)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents if fit_columns
                                                 else QHeaderView.Interactive)
    view.horizontalHeader().setStretchLastSection(True)
    view.selectionModel().currentRowChanged.connect(lambda current, _: on_current_row(current.row()))
    return view
