"""A key binding as a judging protocol declares it (its ``key_table``) and :mod:`core.judging.keys` joins them: keys
as Qt's QKeySequence writes them, the action they call (their one meaning), the label shown. Here, below the
protocols, so that a protocol's module can declare its keys (the judging layer above reads them)."""

from __future__ import annotations

from dataclasses import dataclass

DIGITS = tuple("0123456789")


@dataclass(frozen=True)
class KeyBinding:
    """Keys (as QKeySequence text), the action they call (their meaning: the desk's or the screen's method of that
    name), the label shown; ``scope`` limits them to the items of one protocol view (a choice task's: "choice")
    or to the break reminder ("break": no item is shown, :mod:`desktop.judging_sitting` reads them) or gives them
    to every item ("any")."""

    keys: tuple[str, ...]
    action: str
    label: str
    scope: str = "any"

    @property
    def shown(self) -> str:
        return keys_text(self.keys)

    def button_text(self) -> str:
        return f"{self.label}  [{self.shown}]"


_KEY_NAMES = {"Right": "→", "Left": "←", "Down": "↓", "Up": "↑", "Return": "Enter", "Ctrl+Left": "Ctrl+←",
              "Ctrl+Right": "Ctrl+→", "Ctrl+Shift+Left": "Ctrl+Shift+←", "Ctrl+Shift+Right": "Ctrl+Shift+→"}
def keys_text(keys: tuple[str, ...]) -> str:
    """Keys as a button shows them: arrows as arrows, Return and Enter once, a run of digits as "1–5"."""
    shown: list[str] = []
    for key in keys:
        name = _KEY_NAMES.get(key, key)
        if name not in shown:
            shown.append(name)
    digits = [key for key in shown if len(key) == 1 and key.isdigit()]
    if len(digits) >= 3 and [int(d) for d in digits] == list(range(int(digits[0]), int(digits[-1]) + 1)):
        at = shown.index(digits[0])
        shown = [key for key in shown if key not in digits]
        shown.insert(at, f"{digits[0]}–{digits[-1]}")
    return " / ".join(shown)
