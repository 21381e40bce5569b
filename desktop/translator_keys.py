"""The Translator screen's keys, one table (:data:`KEYS`): the help line is written from it and every key press
is dispatched from it (:func:`action_for` gives the screen method to run and its argument), and the two widgets
that hand their key presses to it (the editable translation, the suggestion list)."""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit

from parastudio.desktop.widget_parts import pressed_key


@dataclass(frozen=True)
class TranslatorKey:
    shown: str  # the keys as the help line shows them
    what: str
    action: str | None  # the screen's method, called with the press's argument (None: the editor's own keys)
    presses: tuple[tuple[str, int | None], ...] = ()  # (key as QKeySequence writes it, argument)
    when_suggested: bool = False  # only while suggestions are shown (else the key is typing)
    when_selected: bool = False  # ... and a span is selected, or the suggestion list has the keys


KEYS = (
    TranslatorKey("Shift+←/→", "select a span of the translation (Ctrl+Shift by word; or the mouse)", None),
    TranslatorKey("1–5", "put that suggestion in place of the span", "pick_by_key",
                  tuple((str(n), n) for n in range(1, 6)), when_suggested=True, when_selected=True),
    TranslatorKey("Enter", "put the highlighted suggestion in place", "pick_by_key",
                  (("Return", None), ("Enter", None)), when_suggested=True),
    TranslatorKey("Alt+↑/↓", "highlight another suggestion", "highlight", (("Alt+Up", -1), ("Alt+Down", 1))),
    TranslatorKey("Ctrl+M", "more like the highlighted suggestion", "more_like", (("Ctrl+M", None),)),
    TranslatorKey("Ctrl+E", "expand the selection as an abbreviation", "expand_abbreviation", (("Ctrl+E", None),)),
    TranslatorKey("Ctrl+R", "back to the machine translation", "restore", (("Ctrl+R", None),)),
    TranslatorKey("PgUp/PgDn, Alt+←/→", "previous / next sentence", "step",
                  (("PgUp", -1), ("PgDown", 1), ("Alt+Left", -1), ("Alt+Right", 1))),
)
_BY_PRESS = {press: (key, argument) for key in KEYS for press, argument in key.presses}


def key_help() -> str:
    return " · ".join(f"<b>{html.escape(key.shown)}</b> {html.escape(key.what)}" for key in KEYS)


def action_for(event, *, suggestions: bool = False, selection: bool = False) -> tuple[str, int | None] | None:
    """(screen method, argument) for a key press, from :data:`KEYS`; None: not the screen's (typing).
    Without ``suggestions`` and ``selection`` only the keys that always act are matched."""
    found = _BY_PRESS.get(pressed_key(event))
    if found is None:
        return None
    key, argument = found
    if (key.when_suggested and not suggestions) or (key.when_selected and not selection):
        return None
    return key.action, argument


class TranslationEdit(QPlainTextEdit):
    """The editable translation: one paragraph (Enter never breaks it); the screen's keys come first."""

    def __init__(self, screen):
        super().__init__()
        self.screen = screen
        self.setTabChangesFocus(True)

    def event(self, event) -> bool:
        # Page keys would scroll the editor before any shortcut saw them: claim them for sentence navigation.
        if event.type() == QEvent.ShortcutOverride and action_for(event) is not None:
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if self.screen.handle_key(event, from_editor=True):
            return
        if event.key() in (Qt.Key_Return, Qt.Key_Enter):
            return  # the translation stays one paragraph
        super().keyPressEvent(event)

    def insertFromMimeData(self, source) -> None:  # noqa: N802
        self.insertPlainText(" ".join(source.text().split()))  # a pasted line break becomes a space


class ListKeys(QObject):
    """The suggestion list's keys: the same table as the editor's."""

    def __init__(self, screen):
        super().__init__(screen)
        self.screen = screen

    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        if event.type() == QEvent.KeyPress:
            return self.screen.handle_key(event, from_editor=False)
        return False
