"""The Suggestions screen (Ctrl+9), driven by keys on the bundled round-trip cases: two approaches evaluated, green
and red rows, filters, the gold's fate, both approaches side by side, the plot exported, a case sent to a choice task."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("PySide6")

from desktop_study_fixtures import make_study, open_window  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402

from parastudio.core.inspection.suggestion_study import DEFAULT_STUDY, choice_tasks_of  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.desktop.suggestion_inspect_screen import GREEN, RED  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")


@pytest.fixture
def window(qtbot, tmp_path):

    path = tmp_path / "study.sqlite"
    make_study(path)  # judges ann and bob
    window = open_window(qtbot, path)
    yield window
    window.close()


@pytest.fixture(scope="module")
def expected():
    """The screen's counts computed apart from it: the bundled round-trip cases under both approaches."""
    from parastudio.core.demo import demo_files
    from parastudio.core.engine.decoders.cat.approaches import APPROACHES
    from parastudio.core.engine.decoders.cat.autoeval import evaluate
    from parastudio.core.engine.decoders.cat.graph_store import open_graph
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.inspection.suggestion_cases import load_case_set

    case_set, lm = load_case_set("roundtrip"), LanguageModel(demo_files().lm)
    with open_graph(case_set.graph) as store:
        found = {name: evaluate(store, case_set.cases, APPROACHES[name], lm=lm).successes
                 for name in ("approach-1", "approach-10")}
    return len(case_set.cases), found


def backgrounds(screen) -> set[str]:
    model = screen.model
    return {model.data(model.index(row, 0), Qt.BackgroundRole).name() for row in range(model.rowCount())}


def test_by_keys_see_why_approach_1_fails_where_approach_10_succeeds(qtbot, window, tmp_path, expected):
    cases, found = expected
    qtbot.keyClick(window, Qt.Key_9, Qt.ControlModifier)
    screen = window.suggestions
    assert window.tabs.currentWidget() is screen
    assert screen.worker is not None  # the first visit evaluates approach 1 against approach 10 in a worker
    qtbot.waitUntil(lambda: screen.evaluated, timeout=120_000)
    assert screen.cancel_button.isEnabled() is False and screen.evaluate_button.isEnabled()
    assert screen.model.rowCount() == 2 * cases
    assert backgrounds(screen) == {QColor(GREEN).name(), QColor(RED).name()}
    assert f"approach-1: {found['approach-1']} of {cases}" in screen.status.text()
    assert f"approach-10: {found['approach-10']} of {cases}" in screen.status.text()

    # Filters narrow the list: approach 10's successes, then the cases where the two approaches disagree.
    screen.approach_filter.setCurrentText("approach-10")
    screen.success_filter.setCurrentText("found")
    assert screen.model.rowCount() == found["approach-10"]
    assert all(row.success and row.approach == "approach-10" for row in screen.model.rows)
    assert backgrounds(screen) == {QColor(GREEN).name()}
    screen.split_only.setChecked(True)
    wins = screen.model.rows
    assert 0 < len(wins) < found["approach-10"]
    screen.max_length.setValue(1)
    assert all(row.length <= 1 for row in screen.model.rows)
    screen.max_length.setValue(1000)

    # The details: the sentence, the gold, the suggestions with scores, the gold's fate.
    qtbot.keyClick(screen, Qt.Key_L, Qt.ControlModifier)
    qtbot.keyClick(screen.view, Qt.Key_Down)
    row = screen.current()
    assert row is not None and row.success and row.approach == "approach-10"
    details = screen.details.toPlainText()
    assert row.gold in details and row.fate_text in details and "shown" in details and "LMBS" in details
    assert row.suggestions[0].text in details and f"{row.suggestions[0].fsm_score:.4f}" in details

    # Side by side: approach 1 failed this case, and the pane says how.
    qtbot.keyClick(screen, Qt.Key_B, Qt.ControlModifier)
    assert screen.side.currentIndex() == 1
    both = screen.both.toPlainText()
    assert "approach-1: not found" in both and "approach-10: found" in both
    assert window.suggestions.model.all_rows  # both rows of the case come from the evaluated rows
    one = next(r for r in screen.model.all_rows if r.case_id == row.case_id and r.approach == "approach-1")
    assert one.fate_text in both

    # A failure of approach 1 says where its gold went.
    screen.split_only.setChecked(False)
    screen.approach_filter.setCurrentText("approach-1")
    screen.success_filter.setCurrentText("not found")
    assert screen.model.rowCount() == cases - found["approach-1"]
    screen.view.selectRow(0)
    assert screen.current().fate in screen.details.toPlainText()

    # The plot: exported as PNG and SVG files that exist and parse.
    qtbot.keyClick(screen, Qt.Key_P, Qt.ControlModifier)
    assert screen.side.currentIndex() == 2
    assert screen.plot_label.pixmap() is not None and not screen.plot_label.pixmap().isNull()
    assert "not in graph" in screen.fates_label.text()
    screen.export_plot(str(tmp_path / "fig43.png"))
    qtbot.waitUntil(lambda: bool(getattr(screen, "exported", None)), timeout=120_000)
    png, svg = (tmp_path / "fig43.png"), (tmp_path / "fig43.svg")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    assert ET.parse(svg).getroot().tag.endswith("svg")
    assert str(png) in screen.status.text()

    # Ctrl+T: the selected case becomes a choice task in the study "suggestion-cases", judged by ann and bob.
    screen.view.setFocus()
    selected = screen.current()
    qtbot.keyClick(screen.view, Qt.Key_T, Qt.ControlModifier)
    qtbot.waitUntil(lambda: getattr(screen, "last_sent", None) is not None, timeout=120_000)
    assert DEFAULT_STUDY in screen.status.text() and selected.case_id in screen.status.text()
    db = open_database(window.study_path)
    try:
        tasks = choice_tasks_of(db)
    finally:
        db.close()
    assert tasks == [{"id": f"roundtrip/{selected.case_id}", "sentence": " ".join(selected.case.sentence),
                      "span": list(selected.case.span), "options": [s.text for s in selected.suggestions],
                      "system": "approach-1"}]
    assert screen.last_sent.judges == ("ann", "bob")
    qtbot.waitUntil(lambda: DEFAULT_STUDY in window.choice.study_names, timeout=120_000)


def test_an_evaluation_can_be_cancelled_and_one_approach_alone_is_shown(qtbot, window):
    screen = window.suggestions
    screen.second_combo.setCurrentText("(none)")
    screen.first_combo.setCurrentText("approach-7")
    qtbot.keyClick(window, Qt.Key_9, Qt.ControlModifier)  # the first visit evaluates what is chosen
    assert screen.cancel_button.isEnabled()
    qtbot.keyClick(screen, Qt.Key_Escape)
    qtbot.waitUntil(lambda: screen.worker is None, timeout=60_000)
    assert "cancelled" in screen.status.text() and not screen.evaluated
    qtbot.keyClick(screen, Qt.Key_E, Qt.ControlModifier)
    qtbot.waitUntil(lambda: screen.evaluated, timeout=120_000)
    assert {row.approach for row in screen.model.all_rows} == {"approach-7"}
    assert "approach-7:" in screen.status.text()
    screen.view.selectRow(0)
    assert "second approach" in screen.both.toPlainText()


def test_a_cases_file_of_ones_own_and_a_broken_one(qtbot, window, tmp_path):
    from parastudio.core.demo import demo_files

    cases, graph = demo_files().case_set("roundtrip")
    own = tmp_path / "my-cases.jsonl"
    own.write_text("".join(cases.read_text(encoding="utf-8").splitlines(keepends=True)[:12]), encoding="utf-8")
    screen = window.suggestions
    window.tabs.setCurrentWidget(window.tabs.widget(0))
    screen.second_combo.setCurrentText("(none)")
    screen.choose_cases_file(str(own), str(graph))
    screen.evaluate()
    qtbot.waitUntil(lambda: screen.evaluated, timeout=120_000)
    assert len(screen.model.all_rows) == 12 and screen.status.text().startswith("my-cases.jsonl")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "x", "sentence": "a b", "span": [1, 5], "gold": "c"}\n', encoding="utf-8")
    screen.choose_cases_file(str(broken), str(graph))
    screen.evaluate()
    qtbot.waitUntil(lambda: screen.worker is None, timeout=60_000)
    assert "could not evaluate" in screen.status.text() and "broken.jsonl:1" in screen.status.text()
    assert "Traceback" not in screen.status.text() and len(screen.model.all_rows) == 12
