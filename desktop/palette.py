"""Light or dark colours for the app (issue 44): as the desktop says (Qt 6.5's ``QStyleHints.colorScheme``, followed
when it changes), or chosen in View ▸ Colours and remembered (QSettings ``appearance/colours``).

The judging screens paint a few colours of their own in rich text (a muted help line, a flag warning); they ask
:func:`tone` for them at paint time, so each reads at WCAG contrast 4.5:1 or more on the palette in use. Highlights
carry their own background and text colour (:mod:`desktop.changed_spans`), readable on either palette.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel

SCHEMES = ("system", "light", "dark")
SETTING = "appearance/colours"
# Text colours painted in rich text, per palette: each >= 4.5:1 against its palette's window and base.
TONES = {
    "light": {"muted": "#555555", "warning": "#b00000", "good": "#1b6b1b"},
    "dark": {"muted": "#b8b8b8", "warning": "#ff8a80", "good": "#8fdc8f"},
}
_DARK = {
    QPalette.Window: "#2b2b2b", QPalette.WindowText: "#e8e8e8", QPalette.Base: "#1e1e1e",
    QPalette.AlternateBase: "#2f2f2f", QPalette.Text: "#e8e8e8", QPalette.Button: "#3a3a3a",
    QPalette.ButtonText: "#e8e8e8", QPalette.BrightText: "#ffffff", QPalette.Highlight: "#3d6fb4",
    QPalette.HighlightedText: "#ffffff", QPalette.ToolTipBase: "#3a3a3a", QPalette.ToolTipText: "#e8e8e8",
    QPalette.PlaceholderText: "#9a9a9a", QPalette.Link: "#8ab4f8", QPalette.LinkVisited: "#c58af9",
    QPalette.Light: "#4a4a4a", QPalette.Midlight: "#3f3f3f", QPalette.Mid: "#333333", QPalette.Dark: "#202020",
    QPalette.Shadow: "#101010",
}
_LIGHT = {
    QPalette.Window: "#efefef", QPalette.WindowText: "#000000", QPalette.Base: "#ffffff",
    QPalette.AlternateBase: "#f5f5f5", QPalette.Text: "#000000", QPalette.Button: "#efefef",
    QPalette.ButtonText: "#000000", QPalette.BrightText: "#ffffff", QPalette.Highlight: "#308cc6",
    QPalette.HighlightedText: "#ffffff", QPalette.ToolTipBase: "#ffffdc", QPalette.ToolTipText: "#000000",
    QPalette.PlaceholderText: "#6e6e6e", QPalette.Link: "#0000ff", QPalette.LinkVisited: "#ff00ff",
}
# A choice option: a left-aligned button in the palette's own colours (a style sheet of bare padding painted it
# white on the dark palette), the pick in the highlight colours.
OPTION_STYLE = ("QPushButton { text-align:left; padding:6px; background:palette(base); color:palette(text); "
                "border:1px solid palette(mid); border-radius:3px } "
                "QPushButton:checked { background:palette(highlight); color:palette(highlighted-text) }")
TONE = "parastudio_tone"  # a label whose whole text is in one tone (restyled when the colours change)
_state = {"scheme": "light", "native": None}


def built_palette(scheme: str) -> QPalette:
    """The light or dark palette this app sets (disabled text dimmed from its own colours)."""
    palette = QPalette()
    for role, colour in (_DARK if scheme == "dark" else _LIGHT).items():
        palette.setColor(role, QColor(colour))
    dimmed = QColor("#7f7f7f") if scheme == "dark" else QColor("#a0a0a0")
    for role in (QPalette.Text, QPalette.WindowText, QPalette.ButtonText):
        palette.setColor(QPalette.Disabled, role, dimmed)
    return palette


def desktop_is_dark(app: QApplication) -> bool:
    return app.styleHints().colorScheme() == Qt.ColorScheme.Dark


def shown_scheme(choice: str, app: QApplication) -> str:
    """"light" or "dark": the ``choice`` of :data:`SCHEMES`, "system" as the desktop is now."""
    if choice in ("light", "dark"):
        return choice
    return "dark" if desktop_is_dark(app) else "light"


def apply_scheme(app: QApplication, choice: str) -> str:
    """Set the app's palette for ``choice``; returns "light" or "dark". The desktop's own palette is kept when it
    already is the one asked for (a system light theme stays native)."""
    if _state["native"] is None:
        _state["native"] = QPalette(app.palette())
    scheme = shown_scheme(choice, app)
    native_fits = shown_scheme("system", app) == scheme
    app.setPalette(QPalette(_state["native"]) if native_fits and scheme == "light" else built_palette(scheme))
    _state["scheme"] = scheme
    return scheme


def current_scheme() -> str:
    return _state["scheme"]


def tone(name: str) -> str:
    """A text colour of :data:`TONES` ("muted", "warning", "good") for the palette in use."""
    return TONES[_state["scheme"]][name]



def retoned(text: str, before: str, after: str) -> str:
    """Rich text painted with the tones of the ``before`` scheme, in those of ``after`` (the item on screen when
    the colours change, without painting it again, which would restart its judging clock)."""
    for name, colour in TONES[before].items():
        text = text.replace(colour, TONES[after][name])
    return text


def toned(label: QLabel, name: str) -> QLabel:
    """``label`` in the tone ``name``; :class:`desktop.appearance.Appearance` restyles it when the colours change."""
    label.setProperty(TONE, name)
    label.setStyleSheet(f"color:{tone(name)}")
    return label
