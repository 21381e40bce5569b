"""A judge's long session (issue 44 items 1-3), by keys on the real main window over a study the command line made
(`study create`, `import-candidates`, `assign`, `pace`): the pace beside the progress, a break reminder after the
study's number of answers that only its key dismisses, the sitting in the event log, the judge's own list (Ctrl+L,
Enter goes to the item) and "go to item N" (Ctrl+G); the Studies screen's per-judge pace and the Dashboard's pace
table for the researcher."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from cli_judging_studies import cli, write_candidates  # noqa: E402
from desktop_study_fixtures import candidate_rows, open_window  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QSpinBox  # noqa: E402
from sqlalchemy import select  # noqa: E402

from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.core.store.models import EventLog  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")


@pytest.fixture
def study(tmp_path):
    """One yes/no study made as a researcher makes it: ann and bob judge; a break after 3 answers; any answer
    under 10 minutes counts as fast (so the test never depends on how quickly keys are pressed)."""
    database = tmp_path / "study.sqlite"
    candidates = write_candidates(tmp_path / "candidates.csv", [r for r in candidate_rows() if r.rank == 0])
    cli("study", "create", "long", "--db", database, "--criteria", "fluency", "--seed", 2)
    cli("study", "import-candidates", "--db", database, candidates)
    cli("study", "assign", "--db", database, "--annotators", "ann,bob")
    cli("study", "pace", "--db", database, "--break-items", "3", "--fast-seconds", "600")
    return database


def key(qtbot, screen, pressed, modifier=Qt.NoModifier):
    qtbot.keyClick(screen, pressed, modifier)


def test_pace_beside_the_progress_and_a_break_after_the_studys_answers(qtbot, study):
    window = open_window(qtbot, study, "ann")
    screen = window.annotate.screen
    qtbot.waitUntil(lambda: screen.sitting is not None and screen.sitting.settings.break_items == 3, timeout=120_000)
    assert "this sitting: 0" in screen.progress.pace.text()
    for answered in (1, 2):
        key(qtbot, screen, Qt.Key_Y)
        assert f"this sitting: {answered} ·" in screen.progress.pace.text()
        assert "s per item" in screen.progress.pace.text() and "left" in screen.progress.pace.text()
    key(qtbot, screen, Qt.Key_N)  # the third answer: the break is due
    assert screen.on_break and "Time for a break" in screen.done_label.text()
    assert screen.pages.currentIndex() == 2 and not screen.clock.running
    due = screen.item.assignment_id
    key(qtbot, screen, Qt.Key_Y)  # an answer key does nothing during the break
    key(qtbot, screen, Qt.Key_Right)
    assert screen.on_break and screen.item.assignment_id == due
    key(qtbot, screen, Qt.Key_Return, Qt.ControlModifier)  # dismissed by its key
    assert not screen.on_break and screen.item.assignment_id == due and screen.clock.running
    assert "this sitting: 3 ·" in screen.progress.pace.text()
    window.close()
    db = open_database(study)
    with db.reading() as session:
        logged = [e.payload for e in session.scalars(select(EventLog).where(EventLog.kind == "judging_sitting"))]
    db.close()
    assert len(logged) == 1 and logged[0]["answers"] == 3 and logged[0]["break_reminders"] == 1
    assert logged[0]["breaks"] == 1 and logged[0]["seconds"] >= logged[0]["judging_seconds"] >= 0


def test_own_list_and_go_to_item_by_keys(qtbot, study):
    window = open_window(qtbot, study, "ann")
    screen = window.annotate.screen
    qtbot.waitUntil(lambda: screen.sitting is not None and screen.sitting.settings.break_items == 3, timeout=120_000)
    first = screen.item.position
    key(qtbot, screen, Qt.Key_F)  # flagged, then answered
    key(qtbot, screen, Qt.Key_Y)
    key(qtbot, screen, Qt.Key_Right)  # the second item skipped
    key(qtbot, screen, Qt.Key_N)  # the third answered (fast, as every answer here)
    skipped, third = first + 1, first + 2
    key(qtbot, screen, Qt.Key_L, Qt.ControlModifier)
    qtbot.waitUntil(lambda: screen.own_list_dialog is not None and screen.own_list_dialog.isVisible(), timeout=120_000)
    rows = {row.position: row.reasons for row in screen.own_list_dialog.rows}
    assert rows == {first: ("flagged", "fast"), skipped: ("skipped",), third: ("fast",)}
    dialog = screen.own_list_dialog
    dialog.view.setCurrentIndex(dialog.model.index(1, 0))
    qtbot.keyClick(dialog.view, Qt.Key_Return)
    assert not dialog.isVisible() and screen.item.position == skipped and screen.item.value is None
    qtbot.waitUntil(lambda: QApplication.focusWidget() is screen, timeout=120_000)
    key(qtbot, screen, Qt.Key_G, Qt.ControlModifier)
    qtbot.waitUntil(lambda: screen.go_to_dialog is not None and screen.go_to_dialog.isVisible(), timeout=120_000)
    field = screen.go_to_dialog.findChild(QSpinBox)
    field.selectAll()
    qtbot.keyClicks(field, str(third + 1))  # the number the header shows
    qtbot.keyClick(field, Qt.Key_Return)
    assert screen.item.position == third and screen.item.value == "no"
    assert f"item {third + 1}" in screen.header_label.text()
    window.close()


def test_own_list_holds_only_the_judges_own_items(qtbot, study):
    window = open_window(qtbot, study, "bob")
    screen = window.annotate.screen
    qtbot.waitUntil(lambda: screen.sitting is not None, timeout=120_000)
    key(qtbot, screen, Qt.Key_F)
    key(qtbot, screen, Qt.Key_Y)
    window.close()
    window = open_window(qtbot, study, "ann")  # ann has judged nothing: bob's flagged answer is not hers
    screen = window.annotate.screen
    key(qtbot, screen, Qt.Key_L, Qt.ControlModifier)
    qtbot.waitUntil(lambda: screen.own_list_dialog is not None and screen.own_list_dialog.isVisible(), timeout=120_000)
    assert screen.own_list_dialog.rows == []
    window.close()


def test_researcher_sees_each_judges_pace_on_studies_and_dashboard(qtbot, study):
    window = open_window(qtbot, study, "ann")
    screen = window.annotate.screen
    qtbot.waitUntil(lambda: screen.sitting is not None, timeout=120_000)
    for _ in range(2):
        key(qtbot, screen, Qt.Key_Y)
    screen.writer.drain()
    studies = window.studies
    window.tabs.setCurrentWidget(studies)
    qtbot.waitUntil(lambda: studies.judges.model.rowCount() == 2
                    and studies.judges.model.row_at(0)[1].startswith("2 / "), timeout=120_000)
    judges = {studies.judges.model.row_at(row)[0]: studies.judges.model.row_at(row) for row in range(2)}
    assert judges["ann"][1].startswith("2 / ") and judges["ann"][2] != "–" and judges["bob"][2] == "–"
    dashboard = window.dashboard
    window.tabs.setCurrentWidget(dashboard)
    qtbot.waitUntil(lambda: dashboard.report is not None and any(t.key == "pace" for t in dashboard.report.tables),
                    timeout=120_000)
    pace = next(t for t in dashboard.report.tables if t.key == "pace")
    assert [c.name for c in pace.columns] == ["block", "answers", "ann"] and len(pace.rows) == 1
    window.close()
