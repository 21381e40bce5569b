"""The judging screen's keys besides the answer levels, one table (:data:`KEYS`): its buttons, its help line and
its key presses all come from it (the levels' keys come from each criterion's scale:
:func:`core.judging.view.key_for_level`; a protocol's own keys from its module in :mod:`core.judging.protocols`). Keys are
written as Qt's QKeySequence writes them ("Shift+Left", "Ctrl+Z", "Y"), without importing Qt: what a key does is
:class:`core.judging.desk.JudgingDesk`'s, which reads these tables."""

from __future__ import annotations

import html
from dataclasses import dataclass


@dataclass(frozen=True)
class KeyBinding:
    """Keys (as QKeySequence text), the screen's method they call, the button label; ``scope`` limits them to
    the items of one protocol view (a choice task's: "choice"), to the break reminder ("break": no item is shown,
:mod:`desktop.judging_sitting` reads them) or gives them to every item ("any")."""

    keys: tuple[str, ...]
    action: str
    label: str
    scope: str = "any"

    @property
    def shown(self) -> str:
        return keys_text(self.keys)

    def button_text(self) -> str:
        return f"{self.label}  [{self.shown}]"


_KEY_NAMES = {"Right": "→", "Left": "←", "Down": "↓", "Up": "↑"}
# Every key of the screen besides the answer levels (those come from each criterion's scale).
KEYS = (
    KeyBinding(("Left", "Up"), "previous", "◀ Previous"),
    KeyBinding(("Right", "Down"), "next", "Next ▶"),
    KeyBinding(("Ctrl+Z",), "undo", "Undo"),
    KeyBinding(("F",), "toggle_flag", "Flag"),
    KeyBinding(("C",), "start_comment", "Comment"),
    KeyBinding(("0", "O"), "keep_original", "Keep the original", "choice"),
    KeyBinding(("Return", "Enter", "A"), "accept_choice", "Accept selection", "choice"),
    KeyBinding(("T",), "start_custom", "Custom paraphrase", "choice"),
    KeyBinding(("Ctrl+L",), "open_own_list", "My list"),
    KeyBinding(("Ctrl+G",), "go_to_item", "Go to item"),
    KeyBinding(("Ctrl+Return", "Ctrl+Enter"), "end_break", "Back to judging", "break"),
)
KEY_BY_ACTION = {binding.action: binding for binding in KEYS}

def keys_text(keys: tuple[str, ...]) -> str:
    """Keys as a button shows them (arrows as arrows)."""
    return " / ".join(_KEY_NAMES.get(key, key) for key in keys)


def help_line(scope: str) -> str:
    """The keys that work on this kind of item, as one line."""
    return " · ".join(f"<b>{html.escape(b.shown)}</b> {html.escape(b.label.strip('◀▶ ').lower())}"
                      for b in KEYS if b.scope in ("any", scope))


