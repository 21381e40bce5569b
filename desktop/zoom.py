"""The judges' font zoom (issue 44): Ctrl++ (or Ctrl+=) larger, Ctrl+− smaller, Ctrl+0 as the app starts.

A judge who reads for hours sets the size once: it is remembered per judge (QSettings, under the judge's name) and
comes back when they judge again, on every judging page alike (yes/no, 3- and 5-point, DA, ESA, preference,
choice). The screen's own font is set to the zoomed size, which every widget without a size of its own inherits;
a widget :func:`desktop.widget_parts.enlarge` made larger keeps its multiple of it, and one with a style sheet
(which no longer follows its parent's font) is given it; the judged texts size their
Arabic and Hebrew runs from their font again (:mod:`desktop.script_fonts`). The keys are read before the screen
sees them, so Ctrl+0 resets the zoom on a judging screen (elsewhere it still switches to the Translator).
"""

from __future__ import annotations

from urllib.parse import quote

from PySide6.QtCore import QEvent, QObject, QSettings, Qt, Signal
from PySide6.QtGui import QFont, QFontInfo
from PySide6.QtWidgets import QApplication, QWidget

from parastudio.desktop.widget_parts import FONT_SCALE

ZOOM_FACTORS = (0.8, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0)
NORMAL = ZOOM_FACTORS.index(1.0)
# Key -> step; Ctrl++ is Ctrl+Shift+= on most keyboards, and the keypad's keys count as the main ones.
ZOOM_KEYS = {Qt.Key_Plus: 1, Qt.Key_Equal: 1, Qt.Key_Minus: -1, Qt.Key_Underscore: -1, Qt.Key_0: 0}


def zoom_setting(judge: str) -> str:
    """The QSettings key of a judge's zoom: their name, quoted so a "/" in it makes no settings group."""
    return f"zoom/{quote(judge, safe='')}"


def nearest_step(value) -> int:
    """The step of the zoom factor nearest a stored ``value``; a value that is no number is the normal size."""
    try:
        factor = float(value)
    except (TypeError, ValueError):
        return NORMAL
    if factor != factor:  # NaN
        return NORMAL
    return min(range(len(ZOOM_FACTORS)), key=lambda step: abs(ZOOM_FACTORS[step] - factor))


def zoom_step_of_key(event) -> int | None:
    """+1, -1 or 0 (reset) for a zoom key press, None for any other key."""
    if not event.modifiers() & Qt.ControlModifier or event.modifiers() & (Qt.AltModifier | Qt.MetaModifier):
        return None
    return ZOOM_KEYS.get(Qt.Key(event.key()))


class JudgeZoom(QObject):
    """The zoom of the judge of ``identity`` (:class:`desktop.judging_tab.Identity`) on every attached screen."""

    changed = Signal(float)

    def __init__(self, settings: QSettings, identity, parent: QObject | None = None):
        super().__init__(parent)
        self.settings, self.identity = settings, identity
        app_font = QApplication.font()
        self.base_points = app_font.pointSizeF() if app_font.pointSizeF() > 0 else QFontInfo(app_font).pointSizeF()
        self.screens: list[QWidget] = []
        self.step = self._remembered()
        identity.changed.connect(self._judge_changed)

    @property
    def factor(self) -> float:
        return ZOOM_FACTORS[self.step]

    def attach(self, screen: QWidget) -> None:
        """Zoom ``screen`` and read its zoom keys; widgets it makes later (a scale's buttons) are zoomed as each
        item is shown."""
        self.screens.append(screen)
        screen.installEventFilter(self)
        screen.item_shown.connect(lambda _item, screen=screen: self.apply(screen))
        self.apply(screen)

    def zoom(self, direction: int) -> None:
        """One step larger (+1), smaller (-1), or back to normal (0); remembered for the judge."""
        step = NORMAL if direction == 0 else min(max(self.step + direction, 0), len(ZOOM_FACTORS) - 1)
        if step == self.step:
            return
        self.step = step
        if self.identity.name:
            self.settings.setValue(zoom_setting(self.identity.name), self.factor)
        for screen in self.screens:
            self.apply(screen)
        self.changed.emit(self.factor)

    def apply(self, screen: QWidget) -> None:
        points = self.base_points * self.factor
        font = QFont(screen.font())
        font.setPointSizeF(points)
        screen.setFont(font)
        for widget in screen.findChildren(QWidget):
            scale = widget.property(FONT_SCALE)
            # A widget with a style sheet takes its font once, when polished, not from later changes of its parent's.
            if scale or widget.styleSheet():
                own = QFont(widget.font())
                own.setPointSizeF(points * float(scale or 1.0))
                widget.setFont(own)

    def _remembered(self) -> int:
        name = self.identity.name
        return nearest_step(self.settings.value(zoom_setting(name))) if name else NORMAL

    def _judge_changed(self, _name: str) -> None:
        self.step = self._remembered()
        for screen in self.screens:
            self.apply(screen)
        self.changed.emit(self.factor)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind in (QEvent.ShortcutOverride, QEvent.KeyPress) and watched in self.screens:
            direction = zoom_step_of_key(event)
            if direction is not None:
                event.accept()  # a ShortcutOverride accepted: the window's Ctrl+0 shortcut leaves the key to us
                if kind == QEvent.KeyPress:
                    self.zoom(direction)
                return True
        return False
