"""Direct assessment by keys (issue 30): where each key moves the 0-100 score before Enter records it.

WMT's Appraise shows a slider; here the judge never needs the mouse. ← and → move by 1, Shift+← / Shift+→
and Page Down / Page Up by 10, a digit d jumps to 10·d, Home to 0 and End to 100. A score not yet touched
starts from the middle (50), as Appraise's slider does. The screen asks :func:`da_score_after_key` (through :mod:`core.store.operations`) and shows the result.
"""

from __future__ import annotations

from parastudio.core.vocabulary import DA_HIGHEST, DA_LOWEST

DA_START = (DA_LOWEST + DA_HIGHEST) // 2
# Key (as Qt's QKeySequence writes it) -> step.
DA_STEPS = {"Left": -1, "Right": 1, "Shift+Left": -10, "Shift+Right": 10, "PgDown": -10, "PgUp": 10}
DA_JUMPS = {"Home": DA_LOWEST, "End": DA_HIGHEST, **{str(d): 10 * d for d in range(10)}}
DA_RECORD_KEYS = ("Return", "Enter")


def da_score_after_key(score: int | None, key: str) -> int | None:
    """The score after ``key`` (clamped to the scale), or None when the key does not move it."""
    if key in DA_JUMPS:
        return DA_JUMPS[key]
    if key in DA_STEPS:
        start = DA_START if score is None else score
        return max(DA_LOWEST, min(DA_HIGHEST, start + DA_STEPS[key]))
    return None
