"""The main window's screens: Studies (engine and file, with cancel), Quality
control, Dashboard, and the demo study, on real SQLite files (offscreen Qt)."""

import json

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import SOURCES, make_choice_study, make_study  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from parastudio.core.demo import (  # noqa: E402
    DEMO_CHOICE_STUDY,
    DEMO_STUDY,
    DemoFiles,  # noqa: E402
    open_demo_study,
)
from parastudio.core.progress import Cancelled  # noqa: E402
from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.annotation_queries import progress_counts, study_summaries  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.core.study_builder import EngineChoice, StudyPlan, study_from_engine  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")


@pytest.fixture
def window(qtbot, tmp_path):
    from parastudio.desktop.main_window import MainWindow

    path = tmp_path / "study.sqlite"
    make_study(path, repeats=0.25, controls=0.2)
    make_choice_study(path, annotators=("ann", "bob"))
    window = MainWindow(path, annotator="ann", table=str(tmp_path / "none.gz"), lm=str(tmp_path / "none.bin"))
    qtbot.addWidget(window)
    window.show()
    # A judge first meets the study's instructions (tested on its own below); these tests read them and go on.
    qtbot.waitUntil(lambda: getattr(window, "instructions_dialog", None) is not None, timeout=120_000)
    window.instructions_dialog.accept()
    yield window
    window.close()


def judge_everything(db, study_id, annotator, *, consistent: bool, catch_controls: bool):
    """Answer every assignment of ``annotator`` through the store (the screens read it)."""
    annotator_id = ops.find_annotator(db, study_id, annotator)
    flip = False
    while (item := ops.next_item(db, annotator_id)) is not None:
        value = "yes" if item.scale == "binary" else "3"
        if not consistent:
            flip = not flip
            value = ("no" if flip else "yes") if item.scale == "binary" else ("1" if flip else "3")
        ops.record_judgment(db, item.assignment_id, value)
    if catch_controls:
        # Judge the planted controls bad, as a careful annotator would.
        for row in ops.iter_judgments(db, study_id, include_qc=True):
            if row["annotator"] == annotator and row["kind"] == "control" and row["criterion"] != "fluency":
                ops.record_judgment(db, row["assignment_id"], "no" if row["scale"] == "binary" else "1")


def test_the_window_has_every_screen_and_keys_switch_them(qtbot, window):
    titles = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    assert [t.split("  ")[0] for t in titles] == ["Annotate", "Choice task", "Studies", "Quality control",
                                                  "Dashboard", "Scorer", "Inspect", "Tune", "Suggestions",
                                                  "Translator"]
    # Each judging screen reads its first item off the UI thread; under load the second may still be reading.
    qtbot.waitUntil(lambda: window.annotate.screen.item is not None and window.choice.screen.item is not None,
                    timeout=120_000)
    assert window.annotate.screen.item.scale != "choice"
    assert window.choice.screen.item.scale == "choice"
    for index in range(9):
        qtbot.keyClick(window, getattr(Qt, f"Key_{index + 1}"), Qt.ControlModifier)
        assert window.tabs.currentIndex() == index
    qtbot.keyClick(window, Qt.Key_0, Qt.ControlModifier)
    assert window.tabs.currentWidget() is window.translator
    qtbot.keyClick(window, Qt.Key_1, Qt.ControlModifier)
    screen = window.annotate.screen
    first = screen.item.assignment_id
    qtbot.keyClick(screen, Qt.Key_Y if screen.item.scale == "binary" else Qt.Key_2)
    assert screen.item.assignment_id != first


def test_quality_control_passes_a_careful_annotator_and_fails_a_careless_one(qtbot, window):
    db = window.db
    study_id = window.annotate.current_study()
    judge_everything(db, study_id, "ann", consistent=True, catch_controls=True)
    judge_everything(db, study_id, "bob", consistent=False, catch_controls=False)
    window.tabs.setCurrentWidget(window.quality)
    with qtbot.waitSignal(window.quality.computed, timeout=120_000):
        window.quality.refresh()
    assert window.quality.model.rowCount() == 2
    results = {window.quality.model.row_at(r)[0]: window.quality.model.row_at(r)[5] for r in range(2)}
    reports = {r.annotator: r for r in ops.quality_control(db, study_id)}
    assert results["ann"] == "PASS" and reports["ann"].passed
    assert results["bob"] == "FAIL" and reports["bob"].passed is False
    # A refresh that started before the latest one and ends after it must not replace its rows.
    window.quality._show((window.quality._request - 1, []))
    assert window.quality.model.rowCount() == 2


def test_the_dashboard_recomputes_when_judgments_arrive(qtbot, window):
    db = window.db
    study_id = window.annotate.current_study()
    window.tabs.setCurrentWidget(window.dashboard)
    window.dashboard.refresh(force=True)
    qtbot.waitUntil(lambda: not window.dashboard._busy, timeout=120_000)
    assert window.dashboard.report is None or not window.dashboard.report.tables
    judge_everything(db, study_id, "ann", consistent=True, catch_controls=False)
    judge_everything(db, study_id, "bob", consistent=False, catch_controls=False)
    window.dashboard.refresh()  # what the poll timer does: notices the new judgments
    qtbot.waitUntil(lambda: bool(window.dashboard.report is not None and window.dashboard.report.tables),
                    timeout=120_000)
    titles = window.dashboard.tables_model.stringList()
    assert any("Table 1" in title for title in titles)
    assert window.dashboard.model.rowCount() > 0
    assert window.dashboard.signature.text().startswith("signature: stat:")


def test_a_study_from_a_candidates_file_appears_on_every_screen(qtbot, window, tmp_path):
    candidates = tmp_path / "generated.jsonl"
    with open(candidates, "w", encoding="utf-8") as handle:
        for index, source in enumerate(SOURCES[:3]):
            for system in ("beam", "mcpg-true"):
                handle.write(json.dumps({"sentence_id": index, "system": system, "rank": 1,
                                         "text": source.replace("the", "a", 1), "source": source,
                                         "model_score": -3.0, "true_score": -4.0, "derivation": None}) + "\n")
    from parastudio.core.study_builder import study_from_file

    studies = window.studies
    studies.name_edit.setText("imported")
    plan = studies._plan("x")
    with qtbot.waitSignal(studies.studies_changed, timeout=120_000):
        studies.run_build(study_from_file, plan, str(candidates), None, title="importing")
    names = [s.name for s in study_summaries(window.db)]
    assert "imported" in names
    summary = next(s for s in study_summaries(window.db) if s.name == "imported")
    assert summary.candidates == 3  # one string from two systems is judged once
    assert "imported" in window.annotate.study_names


def test_a_study_from_the_engine_in_a_worker(qtbot, window, tmp_path, example1_table_path, tiny_lm):
    test_set = tmp_path / "test.en"
    test_set.write_text("the dog runs after the young cat\nthe young cat runs\n", encoding="utf-8")
    studies = window.studies
    studies.name_edit.setText("from engine")
    studies.test_set_edit.setText(str(test_set))
    studies.tables_edit.setText(str(example1_table_path))
    studies.lm_edit.setText(str(tiny_lm["binary"]))
    for row in range(studies.systems_model.rowCount()):
        item = studies.systems_model.item(row)
        item.setCheckState(Qt.Checked if item.text() == "beam" else Qt.Unchecked)
    progress = []
    with qtbot.waitSignal(studies.studies_changed, timeout=60_000):
        studies.create_from_engine()
        studies.worker.signals.progress.connect(lambda percent, _message: progress.append(percent))
    db = window.db
    study_id = ops.find_study(db, "from engine")
    rows = list(ops.iter_judgments(db, study_id))
    assert rows == []
    counts = progress_counts(db, study_id)
    assert sum(total for _, total in counts.values()) > 0
    annotator = ops.find_annotator(db, study_id, "judge-1")
    item = ops.next_item(db, annotator)
    assert item is not None and item.source in ("the dog runs after the young cat", "the young cat runs")
    assert progress and progress[-1] == 100


def test_cancelling_an_engine_build_leaves_no_study(tmp_path, example1_table_path, tiny_lm):
    test_set = tmp_path / "test.en"
    test_set.write_text("the dog runs after the young cat\n" * 20, encoding="utf-8")
    db = open_database(tmp_path / "s.sqlite", create=True)
    calls = []

    def report(done, total, message=""):
        calls.append(message)
        if "sentence 3 of" in message:
            raise Cancelled()

    try:
        with pytest.raises(Cancelled):
            study_from_engine(report, db, StudyPlan(name="cancelled", annotators=["a"]),
                              EngineChoice(test_set=str(test_set), systems=["beam"],
                                           tables=[str(example1_table_path)], lm=str(tiny_lm["binary"])))
        assert study_summaries(db) == []
        assert any("sentence 2 of 20" in message for message in calls)
    finally:
        db.close()


def test_the_cancel_button_stops_a_running_build(qtbot, window, tmp_path, example1_table_path, tiny_lm):
    test_set = tmp_path / "test.en"
    test_set.write_text("the dog runs after the young cat near the young cat\n" * 3000, encoding="utf-8")
    studies = window.studies
    studies.name_edit.setText("to cancel")
    studies.test_set_edit.setText(str(test_set))
    studies.tables_edit.setText(str(example1_table_path))
    studies.lm_edit.setText(str(tiny_lm["binary"]))
    studies.sentences_spin.setValue(3000)
    studies.create_from_engine()
    from PySide6.QtWidgets import QPushButton

    cancel_button = studies.dialog.findChild(QPushButton)
    assert cancel_button.text() == "Cancel"
    with qtbot.waitSignal(studies.worker.signals.cancelled, timeout=60_000):
        qtbot.mouseClick(cancel_button, Qt.LeftButton)
    assert studies.last_result == "cancelled"
    assert "to cancel" not in [s.name for s in study_summaries(window.db)]


def test_the_demo_study_is_made_once_from_the_demo_files(tmp_path, example1_table_path, tiny_lm):
    demo_dir = tmp_path / "demo"
    demo_dir.mkdir()
    sentences = ["the dog runs after the young cat", "the young cat runs after the dog"]
    (demo_dir / "test.en").write_text("\n".join(sentences) + "\n", encoding="utf-8")
    (demo_dir / "test.ref.en").write_text("the hound runs\nthe kitten runs\n", encoding="utf-8")
    (demo_dir / "paraphrase-table.gz").write_bytes(__import__("gzip").compress(example1_table_path.read_bytes()))
    (demo_dir / "lm.bin").write_bytes(tiny_lm["binary"].read_bytes())
    (demo_dir / "testcases.jsonl").write_text(
        json.dumps({"id": "c1", "sentence": sentences[0], "span": [0, 2], "gold": "the beast"}) + "\n",
        encoding="utf-8")
    demo = DemoFiles(demo_dir)
    target = tmp_path / "data" / "demo.sqlite"
    # No candidates.jsonl: generated with the beam decoder from the demo table and LM.
    assert open_demo_study(target, demo) == target
    db = open_database(target, create=True)
    try:
        names = {s.name: s for s in study_summaries(db)}
        assert set(names) == {DEMO_STUDY, DEMO_CHOICE_STUDY}
        assert names[DEMO_STUDY].candidates >= 2 and names[DEMO_STUDY].annotators == 2
        task = ops.next_item(db, ops.find_annotator(db, names[DEMO_CHOICE_STUDY].id, "judge-1"))
        assert task.span == (0, 2) and task.options == ["the beast"]
        item = ops.next_item(db, ops.find_annotator(db, names[DEMO_STUDY].id, "judge-1"))
        assert item.references in (["the hound runs"], ["the kitten runs"])
    finally:
        db.close()
    before = target.stat().st_mtime_ns
    assert open_demo_study(target, demo) == target and target.stat().st_mtime_ns == before


def test_the_demo_study_prefers_the_bundled_candidates_file(tmp_path):
    demo_dir = tmp_path / "demo"
    demo_dir.mkdir()
    (demo_dir / "test.en").write_text("a b c\nd e f\n", encoding="utf-8")
    (demo_dir / "candidates.jsonl").write_text(
        json.dumps({"sentence_id": 0, "system": "beam", "rank": 1, "text": "a x c", "model_score": -1,
                    "true_score": -2, "derivation": None, "params": {}}) + "\n", encoding="utf-8")
    target = tmp_path / "demo.sqlite"
    open_demo_study(target, DemoFiles(demo_dir))
    db = open_database(target, create=True)
    try:
        [summary] = study_summaries(db)
        assert (summary.name, summary.candidates) == (DEMO_STUDY, 1)
    finally:
        db.close()
    with pytest.raises(FileNotFoundError, match="test.en"):
        open_demo_study(tmp_path / "other.sqlite", DemoFiles(tmp_path / "nowhere"))


def test_parastudio_app_opens_a_study_and_renders_it(tmp_path):
    """``parastudio app --study FILE --screenshot PNG`` through the CLI plugin, in a real process."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    path = tmp_path / "study.sqlite"
    make_study(path)
    png = tmp_path / "window.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(root),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-m", "parastudio", "app", "--study", str(path), "--annotator", "bob",
                           "--screenshot", str(png)], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-800:]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_dashboard_shows_every_agreement_statistic_and_exports_tables_and_plots(qtbot, window, tmp_path):
    from parastudio.core.store import operations as ops

    study_id = window.annotate.current_study()
    db = window.db
    for name in ("ann", "bob"):
        annotator = ops.find_annotator(db, study_id, name)
        for _ in range(30):
            item = ops.next_item(db, annotator)
            if item is None:
                break
            ops.record_judgment(db, item.assignment_id, "yes" if item.scale == "binary" else "2")
    window.tabs.setCurrentWidget(window.dashboard)
    window.dashboard.refresh(force=True)
    qtbot.waitUntil(lambda: bool(window.dashboard.report is not None and window.dashboard.report.tables),
                    timeout=60_000)
    agreement = window.dashboard.report.tables[0]
    assert agreement.key == "agreement"
    assert {"Cohen κ", "fixed-chance κ", "Fleiss κ", "α ordinal", "α interval 95% high"} <= {
        column.name for column in agreement.columns}
    assert "" not in window.dashboard.tables_model.stringList()  # no blank row in the list
    window.dashboard.tables_view.setCurrentIndex(window.dashboard.tables_model.index(0))
    csv_path = window.dashboard.export_table(str(tmp_path / "agreement.csv"))
    md_path = window.dashboard.export_table(str(tmp_path / "agreement.md"))
    assert open(csv_path).readline().startswith("table,row,column,value,signature")
    assert "| criterion |" in open(md_path).read() and "Signature: `stat:agreement" in open(md_path).read()
    plotted = next(i for i, t in enumerate(window.dashboard.report.tables) if t.plot is not None)
    window.dashboard.tables_view.setCurrentIndex(window.dashboard.tables_model.index(plotted))
    png = window.dashboard.export_plot(str(tmp_path / "plot.png"))
    svg = window.dashboard.export_plot(str(tmp_path / "plot.svg"))
    assert open(png, "rb").read(4) == b"\x89PNG" and b"<svg" in open(svg, "rb").read(400)


def test_a_pattern_pair_study_from_the_studies_screen(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from parastudio.core.tablebuild.patterns.scoring import DEFAULT_LAMBDAS
    from parastudio.core.tablebuild.patterns.table_file import scored_pair, write_table
    from parastudio.desktop import file_dialogs

    # Two pairs: seed 002's LL-model (T = -10.002) keeps both, its MLE-model (T' = -5.1) only the first.
    table = tmp_path / "small.pattern-table.gz"
    write_table(iter([scored_pair("take [NN_1] into consideration", "consider [NN_1]",
                                  [("tener en cuenta [NN_1]", (-0.5, -0.7, -0.2, -0.3))], DEFAULT_LAMBDAS),
                      scored_pair("the [NN_1] of god", "the [NN_1]", [("el [NN_1]", (-3.0, -3.0, -0.5, -0.5))],
                                  DEFAULT_LAMBDAS)]), table, {})
    monkeypatch.setattr(file_dialogs, "get_open_file_name", lambda *args: (str(table), ""))
    studies = window.studies
    studies.name_edit.setText("patterns from the app")
    studies.pattern_sample_spin.setValue(5)
    qtbot.keyClick(window, Qt.Key_3, Qt.ControlModifier)  # the Studies screen
    studies.view.setFocus()
    with qtbot.waitSignal(studies.studies_changed, timeout=120_000):
        qtbot.keyClick(studies.view, Qt.Key_P, Qt.ControlModifier)
    db = window.db
    study_id = ops.find_study(db, "patterns from the app")
    settings = ops.study_settings(db, study_id)
    assert settings["kind"] == "pattern-pairs"
    assert {name: m["pairs_extracted"] for name, m in settings["pattern_models"].items()} == {
        "LL-model": 2, "MLE-model": 1}
    assert [s.criteria for s in study_summaries(db) if s.name == "patterns from the app"] == [["correct", "type"]]
    # Both models keeping the same pairs is refused on screen, with the reason, and makes no study.
    same = tmp_path / "same.pattern-table.gz"
    write_table(iter([scored_pair("a [NN_1]", "one [NN_1]", [("un [NN_1]", (-0.1, -0.1, -0.1, -0.1))],
                                  DEFAULT_LAMBDAS)]), same, {})
    monkeypatch.setattr(file_dialogs, "get_open_file_name", lambda *args: (str(same), ""))
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda *args: shown.append(args[2]))
    studies.name_edit.setText("same pairs")
    studies.create_from_pattern_table()
    qtbot.waitUntil(lambda: studies.last_result is not None, timeout=120_000)
    assert shown and "both models extract the same 1 pairs" in shown[0]
    assert "same pairs" not in [s.name for s in study_summaries(db)]
