"""A read-only table view of whole rows: one row selected at a time, sortable, told of the current row."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QAbstractItemModel
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView


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
