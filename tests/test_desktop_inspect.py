"""The Inspect screen, driven by keys on a real judged study: failures listed, explained, compared, blamed."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QSettings, Qt  # noqa: E402

from core.inspection.verdicts import REJECTED  # noqa: E402
from core.store import operations as ops  # noqa: E402
from core.store.database import open_database  # noqa: E402
from desktop_study_fixtures import make_study  # noqa: E402


@pytest.fixture(autouse=True)
def private_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    QSettings.setDefaultFormat(QSettings.IniFormat)


@pytest.fixture
def window(qtbot, tmp_path):
    from desktop.main_window import MainWindow

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
    window = MainWindow(path, annotator="ann", table="none.gz", lm="none.bin")
    qtbot.addWidget(window)
    window.show()
    qtbot.wait(100)
    dialog = getattr(window, "instructions_dialog", None)
    if dialog is not None:
        dialog.accept()
    yield window
    window.close()


def test_by_keys_list_the_rejected_see_why_compare_systems_and_export_a_prune_list(qtbot, window, tmp_path):
    qtbot.keyClick(window, Qt.Key_7, Qt.ControlModifier)
    inspect = window.inspect
    assert window.tabs.currentWidget() is inspect
    qtbot.waitUntil(lambda: inspect.loaded, timeout=10_000)
    inspect.verdict_combo.setCurrentText(REJECTED)
    rejected = inspect.model.rows
    assert rejected and all(row.verdict == REJECTED for row in rejected)
    assert all(any(word in row.text for word in ("kitten", "little")) for row in rejected)
    inspect.view.setFocus()
    qtbot.keyClick(inspect.view, Qt.Key_Down)
    details = inspect.details.toPlainText()
    assert "Derivation" in details and "Judges" in details and "ann" in details and "bob" in details
    assert inspect.current().source in inspect.sentence_view.toPlainText()
    inspect.compute_blame()
    qtbot.waitUntil(lambda: bool(inspect.blamed), timeout=10_000)
    assert inspect.blamed[0].target in ("kitten", "little") and inspect.blamed[0].accepted == 0
    written = inspect.export_prune_list(str(tmp_path / "prune.txt"), top=3)
    assert "|||" in open(written).read()
    png = inspect.export_plot(str(tmp_path / "rates.png"))
    assert open(png, "rb").read(4) == b"\x89PNG"
    # One key sends the selected candidate to the Scorer.
    qtbot.keyClick(inspect.view, Qt.Key_S, Qt.ControlModifier)
    assert window.tabs.currentWidget() is window.scorer_holder
    assert window.scorer.candidate_edit.text() == inspect.current().text
