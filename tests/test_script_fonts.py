"""Arabic and Hebrew runs sized in judged rich text (desktop.script_fonts): the text read never changes, only the
size of those runs; the Latin around them and the markup stay as written."""

import html
import re

import pytest

pytest.importorskip("PySide6")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from PySide6.QtGui import QFont  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from parastudio.desktop.script_fonts import script_sized_html  # noqa: E402

PIECES = st.sampled_from(["the", "dog", " ", "  ", "الكلب", "يجري", "שלום", "&amp;", "&lt;b&gt;", "<b>", "</b>",
                          '<span style="background-color:#ffe08a">', "</span>", ",", "،", "\u200c"])


def read(rich: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", "", rich))


@pytest.fixture(scope="module")
def font(qapp):
    chosen = QFont(QApplication.font())
    chosen.setPointSizeF(12)
    return chosen


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(PIECES, max_size=20))
def test_the_text_read_is_unchanged_and_only_script_runs_are_wrapped(font, pieces):
    text = "".join(pieces)
    sized = script_sized_html(text, font)
    assert read(sized) == read(text)
    added = re.findall(r'<span style="font-size:[0-9.]+pt">(.*?)</span>', sized)
    assert all(re.fullmatch(r"[\u0590-\u06ff\s]+", run) for run in added)
    assert re.sub(r'<span style="font-size:[0-9.]+pt">(.*?)</span>', r"\1", sized) == text

