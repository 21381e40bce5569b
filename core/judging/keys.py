"""The judging screen's keys, one table per protocol in which a key means one thing (issue 44, Deliver 5).

:data:`KEYS` holds the keys every item takes (moving, undo, flag, comment) and, by ``scope``, the keys of one
protocol view that are screen actions (a choice task's); each protocol declares the keys that answer its items in
its own module (:meth:`core.judging.protocols.protocol.JudgingProtocol.key_table`). :func:`table_for` joins them:
the desk reads a key press against it (:class:`core.judging.desk.JudgingDesk`), and the buttons, the line under
each screen (:func:`help_line`) and the F1 help (:func:`help_table`) are written from it, never typed beside it.

A key's ``action`` is its meaning, the same wherever it is used (``tests/test_key_table.py`` reads the tables of
every registered protocol and fails when one key has two): ← / ↑ always go to the previous item and → / ↓ to the
next, on every protocol; a digit always answers by number (the level of that number, 1 yes and 0 no, the option of
that number and 0 the original, the preference's button of that number, a score of ten times it); Enter always
records the answer being built (a choice task's pick, a score; on error spans the marks, then the score); Esc
always steps back. Keys are written as Qt's QKeySequence writes them ("Ctrl+Shift+Left", "PgUp", "Y"), without
importing Qt.
"""

from __future__ import annotations

import html

from parastudio.core.judging.protocols.key_binding import DIGITS, KeyBinding, keys_text  # noqa: F401 (re-exported)

# Every item's keys, and the screen actions of one protocol view (the answers are each protocol's key_table).
KEYS = (
    KeyBinding(("Left", "Up"), "previous", "◀ Previous"),
    KeyBinding(("Right", "Down"), "next", "Next ▶"),
    KeyBinding(("Ctrl+Z",), "undo", "Undo"),
    KeyBinding(("F",), "toggle_flag", "Flag"),
    KeyBinding(("C",), "start_comment", "Comment"),
    KeyBinding(("O",), "keep_original", "Keep the original", "choice"),
    KeyBinding(("Return", "Enter"), "confirm", "Accept selection", "choice"),
    KeyBinding(("T",), "start_custom", "Custom paraphrase", "choice"),
    KeyBinding(("Ctrl+L",), "open_own_list", "My list"),
    KeyBinding(("Ctrl+G",), "go_to_item", "Go to item"),
    KeyBinding(("Ctrl+Return", "Ctrl+Enter"), "end_break", "Back to judging", "break"),
)
KEY_BY_ACTION = {binding.action: binding for binding in KEYS}


def table_for(protocol) -> tuple[KeyBinding, ...]:
    """The keys of an item of ``protocol`` (a :class:`core.judging.protocols.protocol.JudgingProtocol`): its own
    answering keys first, then the screen's keys for its view and for every item."""
    return tuple(protocol.key_table()) + tuple(b for b in KEYS if b.scope in ("any", protocol.view))


def binding_for(protocol, key: str) -> KeyBinding | None:
    """What ``key`` means on an item of ``protocol``, None when it means nothing there."""
    return next((binding for binding in table_for(protocol) if key in binding.keys), None)


def _line(bindings) -> str:
    return " · ".join(f"<b>{html.escape(b.shown)}</b> {html.escape(b.label.strip('◀▶ ').lower())}"
                      for b in bindings)


def help_line(protocol=None) -> str:
    """The keys that work on an item of ``protocol`` (None: with no item shown, the keys of every item), as the
    line under the screen."""
    return _line(table_for(protocol) if protocol is not None else [b for b in KEYS if b.scope == "any"])


def help_table(protocols) -> str:
    """The F1 help's key table (HTML) for items of ``protocols``: every item's keys once, then each protocol's own,
    written from the same tables the desk reads."""
    rows = [("every item", b) for b in KEYS if b.scope == "any"]
    seen: set[str] = set()
    for protocol in protocols:
        if protocol.name in seen:
            continue
        seen.add(protocol.name)
        rows += [(protocol.name, b) for b in table_for(protocol) if b.scope != "any"]
    body = "".join(f"<tr><td>{html.escape(where)}</td><td><b>{html.escape(b.shown)}</b></td>"
                   f"<td>{html.escape(b.label.strip('◀▶ '))}</td></tr>" for where, b in rows)
    return f"<table cellpadding='3'><tr><th>on</th><th>keys</th><th>what they do</th></tr>{body}</table>"


def meanings(protocols) -> dict[str, dict[str, list[str]]]:
    """Key -> its action -> the protocols whose key table binds it so, over every item's table of ``protocols``."""
    found: dict[str, dict[str, list[str]]] = {}
    for protocol in protocols:
        for binding in table_for(protocol):
            for key in binding.keys:
                where = found.setdefault(key, {}).setdefault(binding.action, [])
                if protocol.name not in where:
                    where.append(protocol.name)
    return found


def two_meanings(protocols) -> list[str]:
    """Each key that means two things across ``protocols``, said as "T: start_custom (choice), answer_level
    (likert)"; empty when every key means one thing wherever it is used."""
    return [f"{key}: " + ", ".join(f"{action} ({', '.join(names)})" for action, names in actions.items())
            for key, actions in meanings(protocols).items() if len(actions) > 1]
