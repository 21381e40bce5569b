"""Names people give (annotators, systems, studies): one spelling each, no look-alikes, nothing invisible (issue 39).

A name is kept in Unicode's composed form (NFC), so "José" typed on two keyboards is one name. Two names that
read the same (:func:`name_key`: NFKC compatibility form, then case folded: "ａnn", "Ann" and "ann") are one
name to compare: a new name that looks like one the study has is refused, naming the one it looks like, never
made a second person. A name holding an invisible character (zero-width space and joiners, soft hyphen), a
bidirectional control (which reorders what a researcher reads around it) or a control character is refused.
"""

from __future__ import annotations

import unicodedata

from core.errors import BadNameError

# Unicode's format characters (Cf: zero-width space, joiners, soft hyphen, bidi controls and marks, ...),
# controls (Cc), line and paragraph separators, unassigned and private-use code points.
_REFUSED_CATEGORIES = {"Cf", "Cc", "Zl", "Zp", "Cn", "Co", "Cs"}
MAX_NAME_LENGTH = 200


def clean_name(name: str, what: str = "name") -> str:
    """``name`` as stored: stripped, NFC; ValueError naming the character when it holds one it may not."""
    if not isinstance(name, str):
        raise BadNameError(f"a {what} is text, not {type(name).__name__}")
    text = unicodedata.normalize("NFC", name.strip())
    if not text:
        raise BadNameError(f"a {what} cannot be empty")
    if len(text) > MAX_NAME_LENGTH:
        raise BadNameError(f"a {what} has at most {MAX_NAME_LENGTH} characters, not {len(text)}")
    for position, character in enumerate(text):
        if unicodedata.category(character) in _REFUSED_CATEGORIES:
            label = unicodedata.name(character, "an unassigned or private code point")
            raise BadNameError(f"{what} {ascii(text)} holds U+{ord(character):04X} ({label}) at character "
                             f"{position + 1}: invisible, control and direction characters are not allowed in "
                             "names")
    return text


def name_key(name: str) -> str:
    """What two names are compared by: NFKC, case folded (look-alikes give one key)."""
    # Normalized again after folding: a fold can leave a string that is not in normal form (Greek with accents).
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def look_alike(name: str, existing) -> str | None:
    """The name among ``existing`` that reads as ``name`` but is spelled otherwise (None: none, or the same)."""
    key = name_key(name)
    return next((other for other in existing if other != name and name_key(other) == key), None)


def name_problem(name: str, existing) -> str | None:
    """Why ``name`` cannot be a new or existing name beside ``existing`` (None: it can)."""
    try:
        cleaned = clean_name(name)
    except BadNameError as error:
        return str(error)
    similar = look_alike(cleaned, existing)
    if similar is not None and cleaned not in existing:
        return f"{cleaned!r} reads as {similar!r}, a name already here: pick that one, or a name unlike it"
    return None
