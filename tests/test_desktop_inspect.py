"""The Inspect screen, driven by keys on a real judged study: failures listed, explained, compared, blamed."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from desktop_study_fixtures import make_study, open_window  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from parastudio.core.stats.verdicts import REJECTED  # noqa: E402
from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")


@pytest.fixture
def window(qtbot, tmp_path):

    path = tmp_path / "study.sqlite"
    study = make_study(path)
    db = open_database(path)
    for name in ("ann", "bob"):
        annotator = ops.find_annotator(db, study, name)
        while (item := ops.next_item(db, annotator)) is not None:
            # Both judges reject what the 'mcpg-true' rewrites of 'young cat' and 'small' made.
            bad = any(word in (item.candidate or "") for word in ("kitten", "little"))
            value = ("no" if bad else "yes") if item.scale == "binary" else ("1" if bad else "3")
            ops.record_judgment(db, item.assignment_id, value)
    db.close()
    window = open_window(qtbot, path)
    yield window
    window.close()


def test_by_keys_list_the_rejected_see_why_compare_systems_and_export_a_prune_list(qtbot, window, tmp_path):
    qtbot.keyClick(window, Qt.Key_7, Qt.ControlModifier)
    inspect = window.inspect
    assert window.tabs.currentWidget() is inspect
    qtbot.waitUntil(lambda: inspect.loaded, timeout=120_000)
    qtbot.waitUntil(lambda: not inspect.busy.isVisible(), timeout=120_000)  # the busy bar goes when workers end
    qtbot.keyClick(inspect, Qt.Key_V, Qt.AltModifier)  # the verdict filter, by its mnemonic
    assert inspect.verdict_combo.hasFocus()
    while inspect.verdict_combo.currentText() != REJECTED:
        qtbot.keyClick(inspect.verdict_combo, Qt.Key_Down)
    rejected = inspect.model.rows
    assert rejected and all(row.verdict == REJECTED for row in rejected)
    assert all(any(word in row.text for word in ("kitten", "little")) for row in rejected)
    inspect.view.setFocus()
    qtbot.keyClick(inspect.view, Qt.Key_Down)
    qtbot.waitUntil(lambda: "Judges" in inspect.details.toPlainText(), timeout=120_000)
    details = inspect.details.toPlainText()
    assert "Derivation" in details and "ann" in details and "bob" in details
    side_by_side = inspect.sentence_view.toPlainText()
    assert inspect.current().source in side_by_side
    assert "beam" in side_by_side and "mcpg-true" in side_by_side  # both systems' candidates of the sentence
    # The bilingual table behind the pivot table: each rule then shows its pivot phrases.
    bilingual = tmp_path / "bilingual.txt"
    bilingual.write_text("young cat ||| gato joven ||| 0.5 0.5 0.6 0.5\nkitten ||| gato joven ||| 0.4 0.5 0.3 0.5\n"
                         "small ||| pequeño ||| 0.7 0.5 0.8 0.5\nlittle ||| pequeño ||| 0.3 0.5 0.4 0.5\n",
                         encoding="utf-8")
    inspect.choose_bilingual(str(bilingual))
    # (Loaded in a worker; these candidates were imported without derivations, so the pivots of a stored
    # derivation's rules are checked in tests/test_inspection.py.)
    qtbot.waitUntil(lambda: inspect.bilingual is not None, timeout=120_000)
    assert "pivot phrases from" in inspect.status.text()
    qtbot.keyClick(inspect.view, Qt.Key_B, Qt.ControlModifier)  # the blame, worked out the first time
    assert inspect.side.currentIndex() == 2
    qtbot.waitUntil(lambda: bool(inspect.blamed), timeout=120_000)
    assert inspect.blamed[0].target in ("kitten", "little") and inspect.blamed[0].accepted == 0
    written = inspect.export_prune_list(str(tmp_path / "prune.txt"), top=3)
    assert "|||" in open(written).read()
    png = inspect.export_plot(str(tmp_path / "rates.png"))
    assert open(png, "rb").read(4) == b"\x89PNG"
    svg = inspect.export_plot(str(tmp_path / "rates.svg"))
    assert "<svg" in open(svg, encoding="utf-8").read(2000)
    qtbot.waitUntil(lambda: inspect.plot_label.pixmap() is not None and not inspect.plot_label.pixmap().isNull(),
                    timeout=120_000)  # the plot on the screen, drawn in a worker
    # One key sends the selected candidate to the Scorer.
    qtbot.keyClick(inspect.view, Qt.Key_S, Qt.ControlModifier)
    assert window.tabs.currentWidget() is window.scorer_holder
    assert window.scorer.candidate_edit.text() == inspect.current().text


def test_the_model_filters_the_sorted_rows_in_order_and_sorts_missing_values_last(qtbot):
    from parastudio.core.inspection.candidate_rows import CandidateRow, filter_rows
    from parastudio.desktop.inspect_screen import COLUMNS, CandidateRowsModel

    def row(i, verdict, true_score):
        return CandidateRow(candidate_id=i, item=str(i), sentence=str(i % 3), source="a b c", text=f"t{i}",
                            systems=("beam",) if i % 2 else ("spg",), verdict=verdict, criteria={}, labels={},
                            source_length=3, rules=i % 4, model_score=None, true_score=true_score)

    rows = [row(i, ("accepted", "rejected", "disagreed")[i % 3], None if i % 5 == 0 else -(i % 7))
            for i in range(60)]
    model = CandidateRowsModel()
    model.load(rows)
    column = COLUMNS.index("true score")
    for order in (Qt.AscendingOrder, Qt.DescendingOrder):
        model.sort(column, order)
        model.apply(system="beam", verdict="rejected")
        present = [r for r in rows if r.true_score is not None]
        expected = sorted(present, key=lambda r: r.true_score, reverse=order == Qt.DescendingOrder) + \
            [r for r in rows if r.true_score is None]
        assert model.rows == filter_rows(expected, system="beam", verdict="rejected")
        assert model.rows and model.rows[-1].true_score is None or all(r.true_score is not None for r in model.rows)
    assert model.same_sentence("1") == [r for r in rows if r.sentence == "1"]


def test_the_plot_on_screen_follows_the_filters_and_is_the_plot_exported(qtbot, window, tmp_path):
    """Issue 28 Found 2: after a verdict filter the screen showed every row while the export showed the filtered ones."""
    from PySide6.QtGui import QPixmap

    qtbot.keyClick(window, Qt.Key_7, Qt.ControlModifier)
    inspect = window.inspect
    qtbot.waitUntil(lambda: inspect.loaded, timeout=120_000)
    inspect.side.setCurrentIndex(3)  # the Plots tab
    qtbot.waitUntil(lambda: inspect.plot_label.pixmap() is not None and not inspect.plot_label.pixmap().isNull(),
                    timeout=120_000)
    inspect.verdict_combo.setCurrentText(REJECTED)
    assert inspect.model.rows and all(row.verdict == REJECTED for row in inspect.model.rows)
    exported = QPixmap(inspect.export_plot(str(tmp_path / "rejected.png")))

    def screen_shows_the_export() -> bool:
        shown = inspect.plot_label.pixmap()
        return shown.toImage() == exported.scaledToWidth(shown.width(), Qt.SmoothTransformation).toImage()

    qtbot.waitUntil(screen_shows_the_export, timeout=120_000)


def test_inspect_loads_its_own_engine_and_says_so_without_the_scorer_ever_opened(qtbot, tmp_path):
    """Issue 28 Found 1: the LM, channel and exact true score showed '–' until the Scorer (Ctrl+6) was opened."""
    from parastudio.core.demo import demo_files
    from parastudio.desktop.main_window import MainWindow

    demo = demo_files()
    if not (demo.table.is_file() and demo.lm.is_file()):
        pytest.skip("no demo table and LM")
    path = tmp_path / "study.sqlite"
    study = make_study(path)
    db = open_database(path)
    annotator = ops.find_annotator(db, study, "ann")
    while (item := ops.next_item(db, annotator)) is not None:
        ops.record_judgment(db, item.assignment_id, "yes" if item.scale == "binary" else "3")
    db.close()
    window = MainWindow(path, annotator="ann", table=str(demo.table), lm=str(demo.lm))
    qtbot.addWidget(window)
    window.show()
    window.tabs.setCurrentWidget(window.inspect)
    inspect = window.inspect
    assert window.scorer is None
    qtbot.waitUntil(lambda: inspect.loaded and "Judges" in inspect.details.toPlainText(), timeout=120_000)
    qtbot.waitUntil(lambda: "LM: –" not in inspect.details.toPlainText(), timeout=60_000)
    details = inspect.details.toPlainText()
    assert "loading the engine" not in details and "no table or LM" not in details
    assert window.scorer is None  # Inspect's own engine, not the Scorer's
    window.close()


def test_without_engine_files_the_details_say_why_the_scores_are_missing(qtbot, window):
    qtbot.keyClick(window, Qt.Key_7, Qt.ControlModifier)
    inspect = window.inspect
    qtbot.waitUntil(lambda: inspect.loaded and "Judges" in inspect.details.toPlainText(), timeout=120_000)
    details = inspect.details.toPlainText()
    assert "LM: –" in details and "no table or LM at none.gz / none.bin" in details


def test_the_details_show_the_strings_as_the_judges_read_them(qtbot, window):
    """Issue 28 Found 5: one display rule; Inspect showed only the tokenized form the judges never saw."""
    qtbot.keyClick(window, Qt.Key_7, Qt.ControlModifier)
    inspect = window.inspect
    qtbot.waitUntil(lambda: inspect.loaded and "Judges" in inspect.details.toPlainText(), timeout=120_000)
    row = inspect.current()
    shown = inspect.display.show(row.text).text
    assert shown != row.text and shown[0].isupper()
    assert "As the judges read them" in inspect.details.toPlainText() and shown in inspect.details.toPlainText()


def test_the_blame_can_come_from_the_words_judges_marked(qtbot, tmp_path):
    """An error-span study (the one of tests/test_span_rewrites.py): by keys, Alt+M picks the marked words as the
    blame's source, and the rule both judges marked is the one blamed (said -> stated; do not -> don 't was a
    tie, big -> large unmarked)."""
    from test_span_rewrites import _judged_study

    db, _study_id = _judged_study(tmp_path)
    db.close()
    window = open_window(qtbot, tmp_path / "esa.sqlite")
    try:
        qtbot.keyClick(window, Qt.Key_7, Qt.ControlModifier)
        inspect = window.inspect
        qtbot.waitUntil(lambda: inspect.loaded, timeout=120_000)
        qtbot.waitUntil(lambda: not inspect.busy.isVisible(), timeout=120_000)
        inspect.show_blame()
        qtbot.waitUntil(lambda: not inspect.busy.isVisible(), timeout=120_000)
        assert inspect.blamed == []  # no whole-candidate verdict in an error-span study
        qtbot.keyClick(inspect, Qt.Key_M, Qt.AltModifier)
        assert inspect.blame_from.hasFocus()
        qtbot.keyClick(inspect.blame_from, Qt.Key_Down)
        qtbot.waitUntil(lambda: bool(inspect.blamed), timeout=120_000)
        assert [(b.source, b.target, b.rejected, b.accepted) for b in inspect.blamed] == [("said", "stated", 1, 0)]
        assert "marked" in inspect.status.text()
    finally:
        window.close()
