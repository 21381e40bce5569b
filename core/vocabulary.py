"""The words every layer shares, defined once.

* The three applications of SPG (seed 004 §3.2): what a paraphrase is for.
* The names of the preset judgment criteria (``core.store.criteria`` defines
  each) and the default set a study gets, named here so that the CLI can offer
  them without importing the store.
* The words read as yes and as no wherever a yes/no answer comes in (the
  annotation screen's keys, imported judgments, CSV files); stored answers are
  always ``"yes"`` or ``"no"``.
"""

from __future__ import annotations

from typing import Literal

Application = Literal["compression", "simplification", "similarity"]
APPLICATIONS: tuple[Application, ...] = ("compression", "simplification", "similarity")

PRESET_CRITERIA = ("fluency", "meaning", "adequacy", "fluency3", "usability", "quality5", "choice")
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
