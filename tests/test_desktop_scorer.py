"""The scorer window, driven by keys in an offscreen Qt."""

import threading

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402

from parastudio.desktop.scorer_window import ScorerWindow, load_engine  # noqa: E402


@pytest.fixture
def window(qtbot, example1_table_path, tiny_lm):
    window = ScorerWindow(str(example1_table_path), str(tiny_lm["binary"]))
    qtbot.addWidget(window)
    window.show()
    window.start_loading()
    qtbot.waitUntil(lambda: window.scorer is not None, timeout=120_000)
    return window


def test_typing_a_sentence_lists_rules_and_scores_the_candidate(qtbot, window):
    qtbot.keyClicks(window.source_edit, "The dog runs after the young cat")
    assert window.source_tokens == "the dog runs after the young cat".split()
    assert window.match_model.rowCount() == 5
    qtbot.waitUntil(lambda: "true score" in window.scores_label.text(), timeout=120_000)
    assert window.derivation_model.rowCount() == 7  # identity everywhere

    window.candidate_edit.clear()
    qtbot.keyClicks(window.candidate_edit, "the beast runs after the kitten")
    qtbot.waitUntil(lambda: window.derivation_model.rowCount() == 4, timeout=120_000)
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
                    timeout=120_000)
    qtbot.keyClick(window, Qt.Key_R, Qt.ControlModifier)
    assert window.candidate_edit.text() == "the dog runs after the young cat"


def test_what_is_typed_while_the_models_load_stands_and_the_keys_still_work(qtbot, example1_table_path, tiny_lm):
    """Issue 39: the models' late arrival reset the candidate typed meanwhile to the source (as the Inspect screen's
    "open in the scorer" types it), and the loading dialog, once hidden, left no window active, so Ctrl+R went
    nowhere. The load is held until the judge has typed, then released: deterministic, whatever the machine's load."""
    from PySide6.QtWidgets import QApplication

    gate = threading.Event()

    def held_load(report, table_path, lm_path):
        gate.wait()
        return load_engine(report, table_path, lm_path)

    window = ScorerWindow(str(example1_table_path), str(tiny_lm["binary"]))
    qtbot.addWidget(window)
    window.show()
    window.start_loading(load=held_load)
    try:
        qtbot.keyClicks(window.source_edit, "the dog runs after the young cat")
        window.candidate_edit.setText("the beast runs after the kitten")
        assert window.scorer is None and window.load_bar.isVisible()
    finally:
        with qtbot.waitSignal(window._loader.signals.finished, timeout=120_000):
            gate.set()
    assert window.scorer is not None and not window.load_bar.isVisible()
    assert window.candidate_edit.text() == "the beast runs after the kitten"
    assert window.match_model.rowCount() == 5  # the rules of the sentence typed while loading
    qtbot.waitUntil(lambda: window.derivation_model.rowCount() == 4, timeout=120_000)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=120_000)
    qtbot.keyClick(window, Qt.Key_R, Qt.ControlModifier)
    assert window.candidate_edit.text() == "the dog runs after the young cat"


def test_a_late_result_of_an_earlier_load_is_dropped(qtbot, example1_table_path, tiny_lm, tmp_path):
    """The first load's result is on its way to the window when a second load starts (another table): it lands
    first and is dropped, and the window shows the second's models only once they come."""
    from PySide6.QtCore import QThreadPool

    other = tmp_path / "other.txt"
    other.write_text("the dog ||| a hound ||| 0.5\n", encoding="utf-8")
    first_gate, second_gate = threading.Event(), threading.Event()

    def held_by(gate):
        def load(report, table_path, lm_path):
            gate.wait()
            return load_engine(report, table_path, lm_path)
        return load

    window = ScorerWindow(str(example1_table_path), str(tiny_lm["binary"]))
    qtbot.addWidget(window)
    window.start_loading(load=held_by(first_gate))
    delivered = []
    window._loader.signals.finished.connect(delivered.append)
    first_gate.set()
    assert QThreadPool.globalInstance().waitForDone(10_000)  # its result is queued, not yet delivered
    window.table_path = str(other)
    window.start_loading(load=held_by(second_gate))
    try:
        qtbot.waitUntil(lambda: bool(delivered), timeout=120_000)
        assert window.scorer is None and window.table is None and not window.load_bar.isHidden()
    finally:
        second_gate.set()  # never leave a pool thread held
    qtbot.waitUntil(lambda: window.scorer is not None, timeout=120_000)
    assert window.table.stats().rules == 1 and "other.txt" in window.models_label.text()


def test_unreachable_candidate_is_said_so(qtbot, window):
    qtbot.keyClicks(window.source_edit, "the dog runs")
    window.candidate_edit.setText("a cat sleeps")
    qtbot.waitUntil(lambda: "unreachable" in window.scores_label.text(), timeout=120_000)


def test_a_missing_model_is_shown_not_crashed(qtbot, example1_table_path, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *args: shown.append(args[2]))
    window = ScorerWindow(str(example1_table_path), str(tmp_path / "missing.bin"))
    qtbot.addWidget(window)
    window.start_loading()
    qtbot.waitUntil(lambda: bool(shown), timeout=120_000)
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
    qtbot.waitUntil(lambda: window.scorer is not None, timeout=120_000)
    qtbot.keyClicks(window.source_edit, long_source)
    view = window.rules_view
    p_column = window.match_model.columnCount() - 1
    assert window.match_model.rowCount() == 2

    def probability_whole_in_view() -> bool:  # once the columns are laid out (on the event loop, not a timer)
        right = view.columnViewportPosition(p_column) + view.columnWidth(p_column)
        return right <= view.viewport().width() and view.columnWidth(p_column) >= view.sizeHintForColumn(p_column)

    qtbot.waitUntil(probability_whole_in_view, timeout=120_000)
