"""Light and dark colours (issue 44 item 4): View ▸ Colours sets the palette and is remembered, and every colour a
judging page paints (changed words, marks, the flag warning, muted help) reads at WCAG contrast 4.5:1 or more on
the palette in use, while a judge works through every kind of page by keys. Studies made by the CLI."""

import re

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from cli_judging_studies import PAGES, judging_studies  # noqa: E402
from desktop_study_fixtures import open_window  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtGui import QColor, QPalette  # noqa: E402
from PySide6.QtWidgets import QApplication, QLabel  # noqa: E402

STYLE = re.compile(r"style\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")


@pytest.fixture(autouse=True)
def light_again(private_qt_settings):
    """The app's palette and remembered colours as a fresh start would find them, before and after."""
    QSettings().remove("appearance")
    yield
    QSettings().remove("appearance")
    app = QApplication.instance()
    app.setPalette(app.style().standardPalette())


def luminance(colour: QColor) -> float:
    """WCAG 2 relative luminance."""
    def linear(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * linear(colour.red()) + 0.7152 * linear(colour.green()) + 0.0722 * linear(colour.blue())


def contrast(one: QColor, other: QColor) -> float:
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def declared(style: str) -> dict[str, str]:
    pairs = (part.split(":", 1) for part in style.split(";") if ":" in part)
    return {name.strip().lower(): value.strip() for name, value in pairs}


def painted_pairs(window) -> set[tuple[str, str]]:
    """(text colour, background) of every colour a visible label of the judging screens paints: its rich text's
    styles and its style sheet; no background given is the palette's window and base (both are checked)."""
    palette = QApplication.palette()
    text = palette.color(QPalette.WindowText).name()
    grounds = {palette.color(QPalette.Window).name(), palette.color(QPalette.Base).name()}
    found = set()
    for tab in (window.annotate, window.choice):
        for label in tab.findChildren(QLabel):
            if not label.isVisibleTo(window):
                continue
            styles = [a or b for a, b in STYLE.findall(label.text())] + [label.styleSheet()]
            for style in filter(None, styles):
                given = declared(style)
                colour = given.get("color", text)
                background = given.get("background-color", given.get("background"))
                if "color" in given or background:
                    for ground in ([background] if background else grounds):
                        found.add((QColor(colour).name(), QColor(ground).name()))
    return found


def judge_a_little(qtbot, screen, name: str) -> None:
    """Keys a judge gives on the page: flag the item (a warning shows), mark words on ESA, pick a choice."""
    qtbot.keyClick(screen, Qt.Key_F)
    if name == "esa":
        qtbot.keyClick(screen, Qt.Key_M)
        qtbot.keyClick(screen, Qt.Key_Right, Qt.ControlModifier)  # Ctrl+→ walks the words (→ moves on)
        qtbot.keyClick(screen, Qt.Key_Right, Qt.ControlModifier)
        qtbot.keyClick(screen, Qt.Key_J)
    if name == "choice":
        qtbot.keyClick(screen, Qt.Key_1)


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_every_colour_a_judge_reads_has_contrast_on_the_palette(qtbot, tmp_path, scheme):
    window = open_window(qtbot, judging_studies(tmp_path), "ann")
    window.appearance.scheme_actions[scheme].trigger()  # View ▸ Colours ▸ Dark (or Light)
    window_colour = QApplication.palette().color(QPalette.Window)
    assert (luminance(window_colour) < 0.1) == (scheme == "dark")
    assert contrast(QApplication.palette().color(QPalette.WindowText), window_colour) >= 7
    seen, problems = set(), []
    for name in [*PAGES, "choice"]:
        tab = window.choice if name == "choice" else window.annotate
        window.tabs.setCurrentWidget(tab)
        with qtbot.waitSignal(tab.screen.open_done, timeout=120_000):
            tab.open_study(tab.study_ids[tab.study_names.index(name)])
        for _ in range(2):  # the page as it first shows, then after the judge's keys
            pairs = painted_pairs(window)
            seen |= pairs
            problems += [(name, fg, bg, round(contrast(QColor(fg), QColor(bg)), 2)) for fg, bg in pairs
                         if contrast(QColor(fg), QColor(bg)) < 4.5]
            judge_a_little(qtbot, tab.screen, name)
    assert not problems
    # The test saw what the pages paint: changed words on their background, the flag, the muted lines.
    assert any(bg not in (QApplication.palette().color(role).name() for role in (QPalette.Window, QPalette.Base))
               for _fg, bg in seen)
    assert len({fg for fg, _bg in seen}) >= 3


def test_the_item_shown_takes_the_new_colours_at_once(qtbot, tmp_path):
    window = open_window(qtbot, judging_studies(tmp_path), "ann")
    screen = window.annotate.screen
    item = screen.item.assignment_id
    qtbot.keyClick(screen, Qt.Key_F)  # flagged: the warning shows, in the light palette's red
    for scheme in ("dark", "light", "dark"):
        window.appearance.scheme_actions[scheme].trigger()
        low = [(fg, bg) for fg, bg in painted_pairs(window) if contrast(QColor(fg), QColor(bg)) < 4.5]
        assert not low, scheme
    assert screen.item.assignment_id == item  # the same item, repainted in place


def test_the_colours_chosen_are_remembered(qtbot, tmp_path):
    path = judging_studies(tmp_path)
    window = open_window(qtbot, path, "ann")
    window.appearance.scheme_actions["dark"].trigger()
    window.close()
    QApplication.instance().setPalette(QApplication.style().standardPalette())
    again = open_window(qtbot, path, "ann")
    assert again.appearance.scheme_actions["dark"].isChecked()
    assert luminance(QApplication.palette().color(QPalette.Window)) < 0.1
    again.appearance.scheme_actions["system"].trigger()  # offscreen the desktop says nothing: light
    assert luminance(QApplication.palette().color(QPalette.Window)) > 0.5
