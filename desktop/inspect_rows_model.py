"""The Inspect screen's table: every judged candidate of a study, filtered and sorted in plain Python."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from parastudio.core.inspection.candidate_rows import CandidateRow, filter_rows
from parastudio.core.stats.verdicts import ACCEPTED, ADJUDICATED, DISAGREED, REJECTED
from parastudio.desktop.row_views import ListRowsModel

COLOURS = {ACCEPTED: "#d9f2d9", REJECTED: "#f7d4d4", DISAGREED: "#fbe7c2", ADJUDICATED: "#d6e4f5"}
COLUMNS = ("verdict", "systems", "length", "rules", "model score", "true score", "search error", "adjudication",
           "candidate")
ANY = "(any)"


class CandidateRowsModel(ListRowsModel):
    """The filtered, sorted rows of a study.

    Every row is sorted once when the sort changes (keys computed once per row); a filter then keeps the
    sorted rows that pass, in order, so filtering never sorts again (``benchmarks/bench_inspect.py``:
    100,000 rows)."""

    COLUMNS = COLUMNS

    def __init__(self):
        super().__init__()
        self.all_rows: list[CandidateRow] = []
        self.rows: list[CandidateRow] = []
        self._sorted_rows: list[CandidateRow] = []
        self._filters: dict = {}
        self._sort = (0, Qt.AscendingOrder)
        self._by_sentence: dict[str, list[CandidateRow]] | None = None

    def load(self, rows: list[CandidateRow]) -> None:
        self.all_rows = rows
        self._by_sentence = None
        self._sorted_rows = self._in_order(rows)
        self.apply(**self._filters)

    def apply(self, **filters) -> None:
        self.beginResetModel()
        self._filters = filters
        self.rows = filter_rows(self._sorted_rows, **filters) if filters else list(self._sorted_rows)
        self.endResetModel()

    def same_sentence(self, sentence: str) -> list[CandidateRow]:
        """Every loaded row of one source sentence (an index built on first use)."""
        if self._by_sentence is None:
            self._by_sentence = {}
            for row in self.all_rows:
                self._by_sentence.setdefault(row.sentence, []).append(row)
        return self._by_sentence.get(sentence, [])

    @staticmethod
    def value(row: CandidateRow, column: int):
        return _COLUMN_VALUES[column](row)

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        if role == Qt.DisplayRole:
            value = self.value(row, index.column())
            return f"{value:.3f}" if isinstance(value, float) else ("" if value is None else str(value))
        if role == Qt.BackgroundRole:
            return QColor(COLOURS.get(row.shown_verdict, "#ffffff"))
        if role == Qt.ToolTipRole and index.column() == len(COLUMNS) - 1:
            return row.source
        if role == Qt.ToolTipRole and index.column() == 0 and row.adjudications:
            return f"{row.adjudication_text} · settles to {row.verdict or '-'}"
        return None

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        self.beginResetModel()
        self._sort = (column, order)
        self._sorted_rows = self._in_order(self.all_rows)
        self.rows = filter_rows(self._sorted_rows, **self._filters) if self._filters else list(self._sorted_rows)
        self.endResetModel()

    def _in_order(self, rows: list[CandidateRow]) -> list[CandidateRow]:
        """``rows`` by the sort column, stable, rows without a value last in either direction."""
        column, order = self._sort
        of = _COLUMN_VALUES[column]
        present = [row for row in rows if of(row) is not None]
        missing = [row for row in rows if of(row) is None]
        present.sort(key=of, reverse=order == Qt.DescendingOrder)
        return present + missing


# One function per column of COLUMNS: what it shows and sorts by.
_COLUMN_VALUES = (
    lambda row: row.shown_verdict or "-",
    lambda row: ", ".join(row.systems),
    lambda row: row.source_length,
    lambda row: row.rules,
    lambda row: row.model_score,
    lambda row: row.true_score,
    lambda row: "yes" if row.search_error else "",
    lambda row: row.adjudication_text,
    lambda row: row.text,
)


