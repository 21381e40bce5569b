"""The judging page of a pairwise preference item (issue 30): the source, two paraphrases side by side.

Keys: A or 1 the left one is better, B or 3 the right one, E or 2 no difference; the arrows move between items as
on every protocol (issue 44), and an answer moves on. The systems are never named. The words in which the two differ are highlighted in both (the word-level alignment the
meaning items use to mark changes, :func:`core.engine.text.changed_words.changed_by_diff`). The keys are
:data:`core.judging.protocols.preference.PREFERENCE_KEYS`, the preference protocol's key table, read by the
judging desk; the line under the screen is written from the same table.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from parastudio.core.judging.keys import keys_text as _keys_text
from parastudio.core.judging.protocols.preference import PREFERENCE_KEYS
from parastudio.core.judging.view import JudgingView
from parastudio.desktop.changed_spans import sentence_html
from parastudio.desktop.widget_parts import text_box


class PreferenceView(QWidget):
    """Source above, left and right paraphrases below, one button per answer; ``answered`` carries the
    answer of a clicked button (keys are read by :class:`core.judging.desk.JudgingDesk` from
    :data:`core.judging.protocols.preference.PREFERENCE_KEYS`)."""

    answered = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        self.source_box, self.source_label = text_box("Source sentence")
        layout.addWidget(self.source_box)
        sides = QHBoxLayout()
        self.left_box, self.left_label = text_box(f"Left paraphrase  [{_keys_text(PREFERENCE_KEYS[0][0])}]")
        self.right_box, self.right_label = text_box(f"Right paraphrase  [{_keys_text(PREFERENCE_KEYS[2][0])}]")
        sides.addWidget(self.left_box, 1)
        sides.addWidget(self.right_box, 1)
        layout.addLayout(sides)
        buttons = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for keys, value, label in PREFERENCE_KEYS:
            button = QPushButton(f"{label}  [{_keys_text(keys)}]")
            button.setCheckable(True)
            button.setFocusPolicy(Qt.NoFocus)  # keys go to the screen, never to a focused button
            button.clicked.connect(lambda _=False, v=value: self.answered.emit(v))
            buttons.addWidget(button)
            self.buttons[value] = button
        layout.addLayout(buttons)
        layout.addStretch(1)

    def show_item(self, view: JudgingView) -> None:
        """The source and the pair as the study shows them (its display rule), the words in which they differ
        marked in both; the answer given is pressed."""
        item = view.item
        left, right = view.pair
        self.source_label.setText(html.escape(view.source.reading))
        self.left_label.setText(sentence_html(left))  # the words where the two differ, marked in both
        self.right_label.setText(sentence_html(right))
        for value, button in self.buttons.items():
            button.setChecked(item.value == value)
