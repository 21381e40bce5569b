"""The judging page of a pairwise preference item (issue 30): the source, two paraphrases side by side.

Keys: A or ← the left one is better, B or → the right one, T or ↓ no difference. On a preference item these
keys answer (the arrows do not move, as they do elsewhere; ↑ still goes back, and an answer moves on). The
systems are never named. The words in which the two differ are highlighted in both (the word-level alignment the
meaning items use to mark changes, :func:`core.engine.text.changed_words.changed_by_diff`). The keys are
:data:`core.judging.protocols.preference.PREFERENCE_KEYS`, read by the judging desk.
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


def preference_help() -> str:
    """The key line shown under a preference item."""
    parts = [f"<b>{html.escape(_keys_text(keys))}</b> {html.escape(label.lower())}"
             for keys, _value, label in PREFERENCE_KEYS]
    return " · ".join(parts + ["<b>↑</b> previous", "<b>Ctrl+Z</b> undo", "<b>F</b> flag", "<b>C</b> comment"])


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
