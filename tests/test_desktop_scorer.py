"""The scorer window, driven by keys in an offscreen Qt."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402

from desktop.scorer_window import ScorerWindow  # noqa: E402


@pytest.fixture
def window(qtbot, example1_table_path, tiny_lm):
    window = ScorerWindow(str(example1_table_path), str(tiny_lm["binary"]))
    qtbot.addWidget(window)
    window.show()
    window.start_loading()
    qtbot.waitUntil(lambda: window.scorer is not None, timeout=10_000)
    return window


def test_typing_a_sentence_lists_rules_and_scores_the_candidate(qtbot, window):
    qtbot.keyClicks(window.source_edit, "The dog runs after the young cat")
    assert window.source_tokens == "the dog runs after the young cat".split()
    assert window.match_model.rowCount() == 5
    qtbot.waitUntil(lambda: "true score" in window.scores_label.text(), timeout=5000)
    assert window.derivation_model.rowCount() == 7  # identity everywhere

    window.candidate_edit.clear()
    qtbot.keyClicks(window.candidate_edit, "the beast runs after the kitten")
    qtbot.waitUntil(lambda: window.derivation_model.rowCount() == 4, timeout=5000)
    assert f"{window.scorer.score(window.source_tokens, 'the beast runs after the kitten'.split()).log10_score:.4f}" \
        in window.scores_label.text()
    assert "<b>the beast</b>" in window.highlight_label.text()


def test_applying_rules_by_keyboard_builds_the_candidate(qtbot, window):
    qtbot.keyClicks(window.source_edit, "the dog runs after the young cat")
    window.rules_view.setFocus()
    proxy = window.match_proxy
    rows = {proxy.data(proxy.index(r, 2)): r for r in range(proxy.rowCount())}
    window.rules_view.setCurrentIndex(proxy.index(rows["the beast"], 0))
    qtbot.keyClick(window.rules_view, Qt.Key_Return)
    window.rules_view.setCurrentIndex(proxy.index(rows["the kitten"], 0))
    qtbot.keyClick(window.rules_view, Qt.Key_Return)
    assert window.candidate_edit.text() == "the beast runs after the kitten"
    qtbot.waitUntil(lambda: "true score" in window.scores_label.text() and window.derivation_model.rowCount() == 4,
                    timeout=5000)
    qtbot.keyClick(window, Qt.Key_R, Qt.ControlModifier)
    assert window.candidate_edit.text() == "the dog runs after the young cat"


def test_unreachable_candidate_is_said_so(qtbot, window):
    qtbot.keyClicks(window.source_edit, "the dog runs")
    window.candidate_edit.setText("a cat sleeps")
    qtbot.waitUntil(lambda: "unreachable" in window.scores_label.text(), timeout=5000)


def test_a_missing_model_is_shown_not_crashed(qtbot, example1_table_path, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *args: shown.append(args[2]))
    window = ScorerWindow(str(example1_table_path), str(tmp_path / "missing.bin"))
    qtbot.addWidget(window)
    window.start_loading()
    qtbot.waitUntil(lambda: bool(shown), timeout=10_000)
    assert "missing.bin" in shown[0]
    assert window.scorer is None


def test_the_probability_column_stays_in_view_beside_long_phrases(qtbot, tmp_path, tiny_lm):
    """Issue 28 Done when (screenshots): at 1024 px the rules table's p column was cut ("0.038" for 0.03811) behind
    wide phrase columns; the phrases give way (elided), the probability stays whole."""
    long_source = "the dog runs after the young cat and the old man walks slowly to the house"
    table = tmp_path / "long.txt"
    table.write_text(f"{long_source} ||| {long_source.replace('the', 'this')} and then some more words ||| 0.03811\n"
                     "the dog ||| the beast ||| 0.25\n", encoding="utf-8")
    window = ScorerWindow(str(table), str(tiny_lm["binary"]))
    qtbot.addWidget(window)
    window.show()
    window.start_loading()
    qtbot.waitUntil(lambda: window.scorer is not None, timeout=10_000)
    qtbot.keyClicks(window.source_edit, long_source)
    qtbot.wait(50)
    view = window.rules_view
    p_column = window.match_model.columnCount() - 1
    assert window.match_model.rowCount() == 2
    right = view.columnViewportPosition(p_column) + view.columnWidth(p_column)
    assert right <= view.viewport().width() and view.columnWidth(p_column) >= view.sizeHintForColumn(p_column)
