"""The words every layer shares, defined once.

* The three applications of SPG (seed 004 §3.2): what a paraphrase is for.
* The pattern-pair study of seed 002 §3.4, §4.1 and §4.4: its two models, its
  two criteria and the five types of paraphrase pattern (Table 3); and the slot
  token ``[TAG_n]`` that pattern tables write and the engine reads back
  (docs/pattern-table.md).
* The names of the preset judgment criteria (``core.store.criteria`` defines
  each) and the default set a study gets, named here so that the CLI can offer
  them without importing the store.
* The words read as yes and as no wherever a yes/no answer comes in (the
  annotation screen's keys, imported judgments, CSV files); stored answers are
  always ``"yes"`` or ``"no"``.
"""

from __future__ import annotations

import re
from typing import Literal

Application = Literal["compression", "simplification", "similarity"]
APPLICATIONS: tuple[Application, ...] = ("compression", "simplification", "similarity")

PRESET_CRITERIA = ("fluency", "meaning", "adequacy", "fluency3", "usability", "quality5", "replacement", "choice",
                   "preference", "da", "esa", "mqm")
# Direct assessment (issue 30, WMT's DA): a whole-number score from 0 to 100.
DA_LOWEST, DA_HIGHEST = 0, 100
DEFAULT_CRITERIA = ("fluency", "meaning", "usability")

YES = "yes"
NO = "no"
YES_WORDS = ("yes", "y", "true", "1")
NO_WORDS = ("no", "n", "false", "0")


def yes_or_no(word: str) -> str | None:
    """``"yes"`` or ``"no"`` for a word of either vocabulary (case and spaces ignored), else ``None``."""
    low = str(word).strip().lower()
    if low in YES_WORDS:
        return YES
    if low in NO_WORDS:
        return NO
    return None


# Pairwise preference (issue 30): the stored answers, worst to best for the left candidate, and the words read
# as each (the screen's keys A/B/T among them).
PREFER_LEFT, PREFER_TIE, PREFER_RIGHT = "left", "tie", "right"
PREFERENCE_LABELS = (PREFER_RIGHT, PREFER_TIE, PREFER_LEFT)
_PREFERENCE_WORDS = {PREFER_LEFT: ("left", "a", "l"), PREFER_RIGHT: ("right", "b", "r"),
                     PREFER_TIE: ("tie", "t", "e", "equal", "same", "no difference")}


def preference(word: str) -> str | None:
    """``"left"``, ``"right"`` or ``"tie"`` for a word of the preference vocabulary (case and spaces ignored)."""
    low = str(word).strip().lower()
    return next((label for label, words in _PREFERENCE_WORDS.items() if low in words), None)


# Seed 002 §4.1: pairs of the log-linear model and of the MLE model (Bannard and Callison-Burch) judged blind.
PATTERN_MODELS = ("LL-model", "MLE-model")
PATTERN_CORRECT = "correct"  # yes/no: "they can generate paraphrase fragments by filling the slots with identical words"
PATTERN_TYPE = "type"  # one of the five types of seed 002 §4.4, Table 3
PATTERN_TYPES: tuple[tuple[str, str], ...] = (
    ("trivial", "trivial change"),
    ("replacement", "phrase replacement"),
    ("reordering", "phrase reordering"),
    ("structural", "structural paraphrase"),
    ("information", "information + or -"),
)


_SLOT = re.compile(r"^\[([A-Z$]+)_([1-9][0-9]*)\]$")


def slot_token(tag: str, number: int) -> str:
    """A pattern's slot as tables write it: ``[NN_1]``."""
    return f"[{tag}_{number}]"


def parse_slot(token: str) -> tuple[str, int] | None:
    """``(tag, number)`` of a slot token, None for a word."""
    found = _SLOT.match(token)
    return (found.group(1), int(found.group(2))) if found else None


def is_slot(token: str) -> bool:
    return _SLOT.match(token) is not None

# Judges per choice task when a study is made without saying (seed 001 §4.2.1: four annotators, A to D).
CHOICE_STUDY_JUDGES = 4
