"""Arabic and Hebrew read as large as the Latin beside them (issue 44).

Why they read smaller: a font without a script's letters (most UI fonts have no Arabic) hands them to a fallback
font at the same point size, and Arabic fonts keep the body of their letters small in the em, to leave room for
the tall alef and lam and for stacked marks. DejaVu Sans, for one, draws the teeth of seen and meem 12 px high at
24 pt where its Latin x-height is 18 px. Each run of these scripts in a judged text is therefore wrapped in a span
whose point size brings its body height to the Latin x-height of the label's own font, measured on the fonts this
machine really uses, capped at :data:`MAX_SCALE` so tall letters do not tower over the Latin ones.
"""

from __future__ import annotations

import re
from functools import lru_cache

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QLabel

# Letters with neither ascender nor descender: the body each script's size is judged by.
LATIN_BODY = "xnmuo"
# Arabic: initial seen, medial meem and seen, a tatweel to keep the last one medial (a final seen dips below).
BODY_OF_SCRIPT = {"arabic": "سمسـ", "hebrew": "שמסם"}
MAX_SCALE = 1.3
MEASURED_AT = 48.0  # points: large enough that whole pixels do not decide the ratio
NOT_WORTH = 1.05  # a script within 5% of the Latin is left as it is
_ARABIC = "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff"
_HEBREW = "\u0590-\u05ff\ufb1d-\ufb4f"
_RUN = {"arabic": re.compile(f"[{_ARABIC}]+(?:\\s+[{_ARABIC}]+)*"),
        "hebrew": re.compile(f"[{_HEBREW}]+(?:\\s+[{_HEBREW}]+)*")}
_TAG = re.compile(r"(<[^>]*>)")


@lru_cache(maxsize=64)
def _scale(font_key: str, script: str) -> float:
    font = QFont()
    font.fromString(font_key)
    font.setPointSizeF(MEASURED_AT)
    metrics = QFontMetricsF(font)
    latin = metrics.tightBoundingRect(LATIN_BODY).height()
    body = metrics.tightBoundingRect(BODY_OF_SCRIPT[script]).height()
    if body <= 0 or latin <= 0 or latin / body < NOT_WORTH:
        return 1.0
    return min(MAX_SCALE, latin / body)


def script_scale(font: QFont, script: str) -> float:
    """How much larger ``script`` ("arabic", "hebrew") is drawn than ``font``'s size (1.0: as large already)."""
    family = QFont(font)
    family.setPointSizeF(MEASURED_AT)  # one measurement per family and style, whatever the zoom
    return _scale(family.toString(), script)


def script_sized_html(text: str, font: QFont) -> str:
    """Rich text ``text`` with every Arabic or Hebrew run (and the spaces between its words) in a span sized so it
    reads as large as the Latin of ``font``; tags and entities are left as they are."""
    size = font.pointSizeF()
    unit = "pt"
    if size <= 0:
        size, unit = float(font.pixelSize()), "px"
    parts = _TAG.split(text)
    for index in range(0, len(parts), 2):  # the even parts lie between tags
        for script, run in _RUN.items():
            scale = script_scale(font, script)
            if scale > 1.0:
                parts[index] = run.sub(lambda m, s=scale: f'<span style="font-size:{size * s:.2f}{unit}">'
                                                          f"{m.group(0)}</span>", parts[index])
    return "".join(parts)


class SentenceLabel(QLabel):
    """A rich-text label of judged text whose Arabic and Hebrew runs are sized as :func:`script_sized_html` says,
    again whenever its font changes (the zoom); :meth:`text` gives back the text as it was set."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._written = ""
        self.setTextFormat(Qt.RichText)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        self._written = text
        super().setText(script_sized_html(text, self.font()))

    def text(self) -> str:
        return self._written

    def changeEvent(self, event) -> None:  # noqa: N802
        if event.type() == QEvent.FontChange:
            super().setText(script_sized_html(self._written, self.font()))
        super().changeEvent(event)
