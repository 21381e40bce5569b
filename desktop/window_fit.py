"""A top-level window kept inside its screen's free area, frame (title bar, borders) included.

Before a window is shown its frame is unknown, so a typical one is assumed; once shown the real frame is read
and the window shrunk and moved again if it still reaches past the free area (issue 28: at 1280 x 800 the
window was 820 px tall with its frame, its status bar below the screen).
"""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget

ASSUMED_FRAME = QSize(16, 40)  # borders and a title bar, before the window system tells us


def fit_to_screen(window: QWidget, wanted: QSize | None = None) -> None:
    """Resize ``window`` to ``wanted`` (default: its size) but no larger than its screen's available geometry
    less its frame, then move it so its frame lies inside that geometry."""
    screen = window.screen()
    if screen is None:
        return
    available = screen.availableGeometry()
    wanted = wanted or window.size()
    frame, inner = window.frameGeometry(), window.geometry()
    extra = (QSize(frame.width() - inner.width(), frame.height() - inner.height()) if window.isVisible()
             else ASSUMED_FRAME)
    width = max(1, min(wanted.width(), available.width() - extra.width()))
    height = max(1, min(wanted.height(), available.height() - extra.height()))
    window.resize(width, height)
    outer_width, outer_height = width + extra.width(), height + extra.height()
    x = min(max(window.frameGeometry().x(), available.x()), available.x() + available.width() - outer_width)
    y = min(max(window.frameGeometry().y(), available.y()), available.y() + available.height() - outer_height)
    window.move(max(available.x(), x), max(available.y(), y))  # move() places the frame's corner


def overflow(window: QWidget) -> tuple[int, int]:
    """How far ``window``'s frame reaches past its screen's available geometry (right, bottom); (0, 0) inside."""
    available = window.screen().availableGeometry()
    frame = window.frameGeometry()
    return (max(0, frame.right() - available.right(), available.left() - frame.left()),
            max(0, frame.bottom() - available.bottom(), available.top() - frame.top()))
