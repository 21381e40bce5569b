"""Names people give (annotators, systems, studies): one spelling each, no look-alikes, nothing invisible (issue 39).

A name is kept in Unicode's composed form (NFC), so "José" typed on two keyboards is one name. Two names that
read the same (:func:`name_key`: NFKC compatibility form, then case folded: "ａnn", "Ann" and "ann") are one
name to compare: a new name that looks like one the study has is refused, naming the one it looks like, never
made a second person. A name holding an invisible character (zero-width space and joiners, soft hyphen), a
bidirectional control (which reorders what a researcher reads around it) or a control character is refused.

The same rules hold for names that arrive together, outside any study: a list typed on a command line
(:func:`distinct_names`: each name once) and the names of one file (:class:`Spellings`: a name spelled one way
throughout), so a judgments CSV and the study it was exported from count the same people.
"""

from __future__ import annotations

import unicodedata

from parastudio.core.errors import BadNameError

# Unicode's format characters (Cf: zero-width space, joiners, soft hyphen, bidi controls and marks, ...),
# controls (Cc), line and paragraph separators, unassigned and private-use code points.
_REFUSED_CATEGORIES = {"Cf", "Cc", "Zl", "Zp", "Cn", "Co", "Cs"}
MAX_NAME_LENGTH = 200

# Controls have no Unicode name (a tab is "a control character", not unassigned).
_UNNAMED = {"Cc": "a control character", "Cs": "a lone surrogate"}


class NameCharacterError(BadNameError):
    """A name holding a character no name may hold; ``character`` says which and where."""

    def __init__(self, what: str, text: str, character: str):
        self.character = character
        super().__init__(f"{what} {ascii(text)} holds {character}: invisible, control and direction characters are "
                         "not allowed in names")


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
        category = unicodedata.category(character)
        if category in _REFUSED_CATEGORIES:
            label = unicodedata.name(character, _UNNAMED.get(category, "an unassigned or private code point"))
            raise NameCharacterError(what, text, f"U+{ord(character):04X} ({label}) at character {position + 1}")
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


class Spellings:
    """The names met so far in one list or file, one spelling each: a later name equal to one of them after
    :func:`clean_name` is that name; one that only reads like it (:func:`name_key`) is refused, naming both."""

    def __init__(self, what: str = "name"):
        self.what = what
        self._first: dict[str, tuple[str, str, str]] = {}  # name_key -> (name as stored, as given, where given)

    def take(self, name: str, where: str = "") -> str:
        """``name`` as stored; :class:`LookAlikeNameError` when it reads as a name taken before but is spelled
        otherwise (``where``: where this one is, said when a later one reads like it)."""
        cleaned = clean_name(name, self.what)
        kept, given, first_where = self._first.setdefault(name_key(cleaned), (cleaned, name, where))
        if kept != cleaned:
            raise LookAlikeNameError(self.what, name, given, first_where)
        return cleaned


class LookAlikeNameError(BadNameError):
    """Two spellings of one name in one list or file: ``earlier`` was given first (at ``where``)."""

    def __init__(self, what: str, name: str, earlier: str, where: str):
        self.earlier, self.where = earlier, where
        at = f" ({where})" if where else ""
        super().__init__(f"{what} {ascii(name)} reads as {ascii(earlier)}{at} but is spelled otherwise: one name, "
                         "one spelling")


def distinct_names(names, what: str = "name") -> list[str]:
    """``names`` as stored, in their order; BadNameError naming both spellings when two of them are one name (the
    same once cleaned, or look-alikes): a list of people names each of them once."""
    spellings = Spellings(what)
    given: dict[str, str] = {}  # name as stored -> as given
    for name in names:
        cleaned = spellings.take(name, "earlier in the list")
        if cleaned in given:
            raise BadNameError(f"{what}s {ascii(given[cleaned])} and {ascii(name)} are one name given twice: "
                               "give it once")
        given[cleaned] = name
    return list(given)
