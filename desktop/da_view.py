"""The judging page of a direct assessment item (issue 30): source, paraphrase, a 0-100 score set by keys.

The keys and where they move the score are :mod:`core.judging.protocols.direct_assessment`', read by
:class:`core.judging.desk.JudgingDesk` (which holds the score until Enter records it); this page paints the score
it holds. The slider shows the score and takes a mouse drag, which it hands on as ``dragged``.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSlider, QVBoxLayout, QWidget

from parastudio.core.judging.view import JudgingView
from parastudio.core.vocabulary import DA_HIGHEST, DA_LOWEST
from parastudio.desktop.widget_parts import enlarge, text_box


class DAView(QWidget):
    """``dragged`` carries the score a mouse drag set (the desk takes it as the score to record)."""

    dragged = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.score: int | None = None
        layout = QVBoxLayout(self)
        self.source_box, self.source_label = text_box("Source sentence")
        self.candidate_box, self.candidate_label = text_box("Paraphrase")
        layout.addWidget(self.source_box)
        layout.addWidget(self.candidate_box)
        row = QHBoxLayout()
        row.addWidget(QLabel(str(DA_LOWEST)))
        self.slider = QSlider(Qt.Horizontal, minimum=DA_LOWEST, maximum=DA_HIGHEST)
        self.slider.setFocusPolicy(Qt.NoFocus)  # keys go to the screen
        self.slider.sliderMoved.connect(self.dragged)
        row.addWidget(self.slider, 1)
        row.addWidget(QLabel(str(DA_HIGHEST)))
        self.score_label = enlarge(QLabel(), 1.6, bold=True)
        self.score_label.setMinimumWidth(self.score_label.fontMetrics().horizontalAdvance("100 ✓ "))
        row.addWidget(self.score_label)
        layout.addLayout(row)
        layout.addStretch(1)

    def show_item(self, view: JudgingView) -> None:
        """The item's texts as the study shows them (its display rule), unmarked: a score is about the whole."""
        self.source_box.setTitle(view.source_title)
        self.source_label.setText(html.escape(view.source.reading) if view.source is not None else "")
        self.candidate_label.setText(html.escape(view.candidate.reading))

    def paint(self, score: int | None) -> None:
        self.score = score
        self.slider.setValue(DA_LOWEST if score is None else score)
        self.score_label.setText("–" if score is None else str(score))
