"""The judge's font zoom (issue 44 item 4), by keys on the real main window over studies the CLI made: Ctrl++ /
Ctrl+= / Ctrl+- / Ctrl+0 scale every judging page alike, and each judge's size comes back when they judge again;
Arabic reads as large as the Latin beside it."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from cli_judging_studies import PAGES, cli, write_candidates  # noqa: E402
from cli_judging_studies import judging_studies as make_studies  # noqa: E402
from desktop_study_fixtures import open_window  # noqa: E402
from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtGui import QColor, QImage  # noqa: E402
from PySide6.QtWidgets import QLabel, QPushButton  # noqa: E402

from parastudio.core.store import operations as ops  # noqa: E402


@pytest.fixture(autouse=True)
def no_zoom_remembered(private_qt_settings):
    """The test's own settings; Qt reads where they live once a process, so an earlier test's judges may be
    remembered there: none is."""
    QSettings().remove("zoom")


@pytest.fixture
def studies(tmp_path):
    return make_studies(tmp_path)


def judged_text_labels(screen) -> list[QLabel]:
    """The labels of judged text on the page the screen shows (source, candidate, the pair, a choice sentence)."""
    page = screen.pages.currentWidget()
    return [label for label in page.findChildren(QLabel)
            if label.isVisibleTo(screen) and label.text() and label.wordWrap() and label.textInteractionFlags()]


def sizes(screen) -> dict[str, float]:
    """Point sizes a judge reads: every visible label and button of the screen (texts judged, question, help line,
    options, answer buttons)."""
    labels = judged_text_labels(screen)
    assert labels, "a judging page shows text"
    found = {f"text{i}": label.font().pointSizeF() for i, label in enumerate(labels)}
    found["question"] = screen.question_label.font().pointSizeF()
    shown = [w for kind in (QLabel, QPushButton) for w in screen.findChildren(kind) 
             if w.isVisibleTo(screen) and w.text() and w is not screen.status]  # the status line comes and goes
    found.update({f"{type(w).__name__}:{w.text()[:40]}": w.font().pointSizeF() for w in shown})
    return found


def press(qtbot, screen, key, times=1):
    for _ in range(times):
        qtbot.keyClick(screen, key, Qt.ControlModifier)


def open_study(qtbot, tab, name):
    study = tab.study_ids[tab.study_names.index(name)]
    with qtbot.waitSignal(tab.screen.open_done, timeout=120_000):
        tab.open_study(study)
    assert tab.screen.item is not None


def test_every_judging_page_zooms_by_keys_and_back(qtbot, studies):
    window = open_window(qtbot, studies, "ann")
    for name in [*PAGES, "choice"]:
        tab = window.choice if name == "choice" else window.annotate
        window.tabs.setCurrentWidget(tab)
        open_study(qtbot, tab, name)
        screen = tab.screen
        item = screen.item.assignment_id
        normal = sizes(screen)
        press(qtbot, screen, Qt.Key_Plus)  # 1.1
        press(qtbot, screen, Qt.Key_Equal)  # 1.25: Ctrl+= as Ctrl++ (no Shift needed)
        zoomed = sizes(screen)
        assert zoomed.keys() == normal.keys(), set(zoomed) ^ set(normal)
        for what, points in normal.items():
            assert zoomed[what] == pytest.approx(points * 1.25, rel=0.01), (name, what)
        press(qtbot, screen, Qt.Key_Plus)  # 1.5: still fits a small laptop's 1024 pixels (long lines wrap)
        assert window.minimumSizeHint().width() <= 1024, name
        press(qtbot, screen, Qt.Key_Minus, 2)
        assert sizes(screen)["question"] == pytest.approx(normal["question"] * 1.1, rel=0.01)
        press(qtbot, screen, Qt.Key_0)
        assert sizes(screen) == pytest.approx(normal)
        # The keys only zoomed: the same item, nothing answered, still this screen (Ctrl+0 is no screen switch).
        assert screen.item.assignment_id == item and screen.item.value is None
        assert window.tabs.currentWidget() is tab
    with window.db.reading() as session:
        from sqlalchemy import func, select

        from parastudio.core.store.models import Judgment
        assert session.scalar(select(func.count()).select_from(Judgment)) == 0


def test_a_new_item_and_the_other_tab_keep_the_zoom(qtbot, studies):
    window = open_window(qtbot, studies, "ann")
    open_study(qtbot, window.annotate, "yes-no")
    screen = window.annotate.screen
    normal = sizes(screen)
    press(qtbot, screen, Qt.Key_Plus, 4)  # 1.1, 1.25, 1.5, 1.75
    first = screen.item.assignment_id
    qtbot.keyClick(screen, Qt.Key_Y)
    assert screen.item.assignment_id != first
    assert sizes(screen)["text0"] == pytest.approx(normal["text0"] * 1.75, rel=0.01)
    window.tabs.setCurrentWidget(window.choice)
    open_study(qtbot, window.choice, "choice")
    assert window.choice.screen.question_label.font().pointSizeF() == pytest.approx(normal["question"] * 1.75,
                                                                                    rel=0.01)


def test_each_judge_finds_their_own_zoom_again(qtbot, studies):
    window = open_window(qtbot, studies, "ann")
    open_study(qtbot, window.annotate, "yes-no")
    screen = window.annotate.screen
    normal = sizes(screen)["question"]
    press(qtbot, screen, Qt.Key_Plus, 3)  # 1.5 for ann
    window.identity.set("bob")
    qtbot.waitUntil(lambda: not screen.loading, timeout=120_000)
    assert screen.question_label.font().pointSizeF() == pytest.approx(normal)  # bob never zoomed
    press(qtbot, screen, Qt.Key_Minus)  # 0.9 for bob
    window.close()
    assert QSettings().allKeys()  # remembered in the app's settings, not in the window

    again = open_window(qtbot, studies, "ann")
    open_study(qtbot, again.annotate, "yes-no")
    assert again.annotate.screen.question_label.font().pointSizeF() == pytest.approx(normal * 1.5, rel=0.01)
    again.identity.set("bob")
    qtbot.waitUntil(lambda: not again.annotate.screen.loading, timeout=120_000)
    assert again.annotate.screen.question_label.font().pointSizeF() == pytest.approx(normal * 0.9, rel=0.01)


# Real sentences of each script (no words of the test's making): the middle half of their ink is the body of
# their letters, which is what reads "large" or "small".
ARABIC = ["الكلب يجري خلف القطة الصغيرة", "بيت صغير يقف قرب الحديقة القديمة", "الرجل العجوز يمشي ببطء إلى البيت",
          "وجدت قطة كبيرة في الحديقة"]
LATIN = ["the dog runs after the young cat", "a small house stands near the old garden",
         "the old man walks slowly to the house", "she finds a big cat in the garden"]


def ink_rows(label: QLabel) -> list[int]:
    """Dark pixels per row of ``label`` rendered alone, dark on white."""
    label.setStyleSheet("color:#000000; background:#ffffff")
    image = QImage(label.size(), QImage.Format_ARGB32)
    image.fill(QColor("white"))
    label.render(image)
    return [sum(1 for x in range(image.width()) if QColor(image.pixel(x, y)).lightness() < 128)
            for y in range(image.height())]


def ink_band(rows: list[int], share: float) -> int:
    """Height of the band of rows holding the middle ``1 - 2 * share`` of the ink."""
    total, seen, low, high = sum(rows), 0, None, None
    for y, count in enumerate(rows):
        seen += count
        if low is None and seen >= share * total:
            low = y
        if high is None and seen >= (1 - share) * total:
            high = y
    return high - low + 1


def candidate_ink(qtbot, screen) -> list[int]:
    label = screen.candidate_label
    single = QLabel()  # the same rich text and font, laid out on one line
    single.setFont(label.font())
    single.setText(QLabel.text(label))  # as painted: Arabic runs already sized (desktop.script_fonts)
    qtbot.addWidget(single)
    single.adjustSize()
    return ink_rows(single)


def test_arabic_reads_as_large_as_latin_at_the_same_zoom(qtbot, tmp_path):
    from desktop_study_fixtures import SOURCES

    rows = []
    for index, (arabic, latin) in enumerate(zip(ARABIC, LATIN)):
        for text, source in ((arabic, arabic), (latin, SOURCES[index])):
            rows.append(ops.CandidateRow(sentence_id=f"{index}-{source[:3]}", text=text, system="beam",
                                         source=source, rank=0, line=len(rows) + 1))
    database = tmp_path / "scripts.sqlite"
    cli("study", "create", "scripts", "--db", database, "--criteria", "meaning")
    cli("study", "import-candidates", "--db", database, write_candidates(tmp_path / "scripts.csv", rows))
    cli("study", "assign", "--db", database, "--annotators", "ann")
    window = open_window(qtbot, database, "ann")
    screen = window.annotate.screen
    press(qtbot, screen, Qt.Key_Plus, 2)  # the judge's zoom, 1.25
    bodies = {"arabic": [], "latin": []}
    heights = {"arabic": [], "latin": []}
    while screen.item is not None:
        script = "arabic" if screen.item.candidate in ARABIC else "latin"
        rows_of_ink = candidate_ink(qtbot, screen)
        bodies[script].append(ink_band(rows_of_ink, 0.25))
        heights[script].append(ink_band(rows_of_ink, 0.1))
        qtbot.keyClick(screen, Qt.Key_Y)
    assert len(bodies["arabic"]) == len(bodies["latin"]) == len(ARABIC)
    mean = {script: sum(values) / len(values) for script, values in bodies.items()}
    tall = {script: sum(values) / len(values) for script, values in heights.items()}
    # The body of the Arabic letters within a quarter of the Latin one, and the script not towering over it.
    assert 0.75 <= mean["arabic"] / mean["latin"] <= 1.33, mean
    assert tall["arabic"] / tall["latin"] <= 1.4, tall
