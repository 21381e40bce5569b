"""Small widget pieces the judging pages share: a key press as text, a titled box of large text, a large label.

Each page (categorical, preference, DA, ESA, translator) reads keys and shows texts the same way; one place
keeps them alike, so a judge meets the same sizes and the keypad's keys behave as the main ones everywhere.
"""

from __future__ import annotations

from PySide6.QtCore import QKeyCombination, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QGroupBox, QSizePolicy, QVBoxLayout

from parastudio.desktop.script_fonts import SentenceLabel

# A widget's font size as a multiple of the application's, read by the zoom (desktop.zoom) to scale it alike.
FONT_SCALE = "parastudio_font_scale"


def pressed_key(event) -> str:
    """A key press as QKeySequence writes it ("Shift+Left", "A"): the keypad's digits and arrows (and every
    arrow on macOS) carry KeypadModifier, so it is dropped and they read as the main keys."""
    return QKeySequence(QKeyCombination(event.modifiers() & ~Qt.KeypadModifier, Qt.Key(event.key()))).toString()


def text_box(title: str) -> tuple[QGroupBox, SentenceLabel]:
    """A titled box holding one wrapped, selectable rich-text label in a larger font (the texts judged), Arabic and
    Hebrew sized to read as large as Latin (:mod:`desktop.script_fonts`)."""
    box = QGroupBox(title)
    label = SentenceLabel()
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextSelectableByMouse)
    enlarge(label, 1.3)
    label.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Minimum)
    QVBoxLayout(box).addWidget(label)
    return box, label


def enlarge(widget, factor: float, *, bold: bool = False):
    """Scale a widget's font by ``factor`` (bold if asked), remembered for the zoom; returns the widget."""
    widget.setProperty(FONT_SCALE, float(widget.property(FONT_SCALE) or 1.0) * factor)
    font = widget.font()
    font.setPointSizeF(font.pointSizeF() * factor)
    font.setBold(bold or font.bold())
    widget.setFont(font)
    return widget
