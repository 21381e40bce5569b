"""Numbers in text files as table tools write them (issue 22).

Python's ``float()`` also takes ``"0.1_5"``, Arabic-Indic and full-width digits (``"٠.٥"``, ``"０.５"``) and
``"0x1p-3"`` is one ``float.fromhex`` away; Moses and every other reader of a phrase table read none of them,
so a score written so is a defect of its line, not a number.
"""

from __future__ import annotations

import re

_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:nan|inf|infinity)", re.ASCII | re.IGNORECASE)


def is_decimal(text: str) -> bool:
    """Whether ``text`` is a number as table tools write it (ASCII digits, no underscore, no hex); NaN and
    infinity pass here, for the caller's own finiteness check to name them."""
    return _DECIMAL.fullmatch(text.strip()) is not None
