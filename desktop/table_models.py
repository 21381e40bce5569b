"""Qt item models over core objects (model/view, never widgets filled by hand)."""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt

from parastudio.core.engine.model.derivation import Segment
from parastudio.core.engine.tables.rules import Match


class MatchTableModel(QAbstractTableModel):
    """The rules applicable to the source sentence, one per row."""

    HEADERS = ("span", "source phrase", "paraphrase", "p")

    def __init__(self) -> None:
        super().__init__()
        self._matches: list[Match] = []

    def set_matches(self, matches: Sequence[Match]) -> None:
        self.beginResetModel()
        self._matches = list(matches)
        self.endResetModel()

    def match_at(self, row: int) -> Match:
        return self._matches[row]

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._matches)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.DisplayRole):
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return self.HEADERS[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid():
            return None
        match = self._matches[index.row()]
        column = index.column()
        if role == Qt.DisplayRole:
            return (
                f"{match.start}-{match.end}",
                " ".join(match.rule.source),
                " ".join(match.rule.target),
                f"{match.rule.prob:.4g}",
            )[column]
        if role == Qt.UserRole:  # sort keys
            return (match.start, " ".join(match.rule.source), " ".join(match.rule.target), match.rule.prob)[column]
        if role == Qt.TextAlignmentRole and column == 3:
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None


class DerivationTableModel(QAbstractTableModel):
    """The segments of the best derivation; identity segments are greyed."""

    HEADERS = ("source span", "target span", "source", "target", "p")

    def __init__(self) -> None:
        super().__init__()
        self._segments: list[Segment] = []

    def set_segments(self, segments: Sequence[Segment]) -> None:
        self.beginResetModel()
        self._segments = list(segments)
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._segments)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.DisplayRole):
        if role == Qt.DisplayRole and orientation == Qt.Horizontal:
            return self.HEADERS[section]
        return None

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole):
        if not index.isValid():
            return None
        segment = self._segments[index.row()]
        if role == Qt.DisplayRole:
            return (
                f"{segment.src_start}-{segment.src_end}",
                f"{segment.tgt_start}-{segment.tgt_end}",
                " ".join(segment.rule.source),
                " ".join(segment.rule.target),
                f"{segment.rule.prob:.4g}",
            )[index.column()]
        if role == Qt.ForegroundRole and segment.identity:
            from PySide6.QtGui import QColor

            return QColor("#888888")
        return None
