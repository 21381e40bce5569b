"""The View menu of the main window: the judge's zoom (:mod:`desktop.zoom`) and the colours (:mod:`desktop.palette`).

Zoom in, out and back are listed with their keys (read by the judging screens themselves, so the window's Ctrl+0
stays the Translator's elsewhere); the colours are System / Light / Dark, remembered, System following the desktop
as it changes.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from parastudio.desktop.palette import SCHEMES, SETTING, TONE, apply_scheme, retoned, tone
from parastudio.desktop.zoom import JudgeZoom


class Appearance(QObject):
    """Zoom and colours of one main window (``window.settings``, ``window.identity``, its judging tabs); a child of
    the window, so the desktop's signal stops reaching it with the window."""

    def __init__(self, window):
        super().__init__(window)
        self.window, self.settings = window, window.settings
        self.app = QApplication.instance()
        self.choice = str(self.settings.value(SETTING, "system"))
        if self.choice not in SCHEMES:
            self.choice = "system"
        self.scheme = apply_scheme(self.app, self.choice)
        self.zoom = JudgeZoom(self.settings, window.identity, window)
        for tab in (window.annotate, window.choice):
            self.zoom.attach(tab.screen)
        self._retone()
        self.app.styleHints().colorSchemeChanged.connect(self._desktop_changed)
        self._menu(window.menuBar().addMenu("&View"))

    def _menu(self, menu) -> None:
        for text, keys, direction in (("Zoom &in", "Ctrl++", 1), ("Zoom &out", "Ctrl+-", -1),
                                      ("&Normal size", "Ctrl+0", 0)):
            # The key shown, not bound: the judging screens read it (see desktop.zoom).
            action = QAction(f"{text}\t{keys}", self.window)
            action.triggered.connect(lambda _=False, d=direction: self.zoom.zoom(d))
            menu.addAction(action)
        menu.addSeparator()
        colours = menu.addMenu("&Colours")
        group = QActionGroup(self.window)
        self.scheme_actions = {}
        for scheme in SCHEMES:
            action = QAction(scheme.capitalize() + (" (as the desktop)" if scheme == "system" else ""), self.window,
                             checkable=True, checked=scheme == self.choice)
            action.triggered.connect(lambda _=False, s=scheme: self.choose(s))
            group.addAction(action)
            colours.addAction(action)
            self.scheme_actions[scheme] = action

    def choose(self, choice: str) -> None:
        """Colours as ``choice`` (one of :data:`SCHEMES`), remembered."""
        self.choice = choice
        self.settings.setValue(SETTING, choice)
        self.scheme_actions[choice].setChecked(True)
        self._apply()

    def _desktop_changed(self, _scheme) -> None:
        if self.choice == "system":
            self._apply()

    def _apply(self) -> None:
        before, self.scheme = self.scheme, apply_scheme(self.app, self.choice)
        self._retone(before)

    def _retone(self, before: str | None = None) -> None:
        for widget in self.window.findChildren(QWidget):
            if "palette(" in widget.styleSheet():  # a style sheet reads the palette once, when it is set
                widget.setStyleSheet(widget.styleSheet())
        for label in self.window.findChildren(QLabel):
            name = label.property(TONE)
            if name:
                label.setStyleSheet(f"color:{tone(name)}")
            elif before is not None and before != self.scheme and label.text():
                text = retoned(label.text(), before, self.scheme)
                if text != label.text():
                    label.setText(text)
