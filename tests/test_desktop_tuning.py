"""The replacement task on the annotation screen, the adjudication dialog and the Tune screen, with real widgets."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402

from parastudio.core.demo import demo_files  # noqa: E402
from parastudio.core.experiments.silver_judges import judge_study  # noqa: E402
from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.adjudication import disagreements  # noqa: E402
from parastudio.core.store.adjudicator_role import set_adjudicators  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.core.store.models import Judgment  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))

DEMO = demo_files()


pytestmark = pytest.mark.usefixtures("private_qt_settings")


def _demo_study(path: Path, sentences: int = 8) -> int:
    """A replacement-task study of the demo's first beam candidates (with derivations)."""
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "replacements", criteria=["meaning", "replacement"], seed=4)
        rows = [r for r in ops.read_candidates_jsonl(DEMO.directory / "candidates.jsonl")
                if int(r.sentence_id) < sentences]
        references = {k: [v] for k, v in ops.read_sources(DEMO.test_references).items()}
        ops.import_candidates(db, study, rows, sources=ops.read_sources(DEMO.test_sentences), references=references)
        ops.assign(db, study, ["judge-1", "judge-2"])
        return study


pytestmark = pytest.mark.skipif(bool(DEMO.missing()), reason="the bundled demo is missing")


def test_the_replacement_task_highlights_one_unit_and_takes_y_and_n(qtbot, tmp_path):
    from parastudio.desktop.annotation_screen import AnnotationScreen
    from parastudio.desktop.judgment_writer import JudgmentWriter

    path = tmp_path / "s.sqlite"
    study = _demo_study(path, sentences=2)
    db = open_database(path)
    writer = JudgmentWriter(db)
    screen = AnnotationScreen(db, writer)
    qtbot.addWidget(screen)
    with qtbot.waitSignal(screen.open_done, timeout=120_000):
        screen.open(study, "judge-1", "replacements")
    seen = 0
    while screen.item is not None and seen < 40:
        item = screen.item
        if item.scale == "replacement":
            assert "replacement" in screen.source_box.title() and f"{item.unit + 1} of" in screen.source_box.title()
            assert screen.source_label.text().count("<span") == 1  # only this unit is marked
            assert screen.candidate_label.text().count("<span") == 1
            key = Qt.Key_Y if item.unit % 2 == 0 else Qt.Key_N
        else:
            key = Qt.Key_Y
        qtbot.keyClick(screen, key)
        seen += 1
    writer.drain()
    with db.reading() as session:
        rows = session.query(Judgment).filter(Judgment.unit.is_not(None)).all()
    assert rows and all(r.value == ("yes" if r.unit % 2 == 0 else "no") for r in rows)
    screen.close_session()
    writer.close()
    db.close()


def test_adjudication_dialog_shows_both_labels_and_records_a_third_annotators_decision(qtbot, tmp_path):
    from parastudio.desktop.adjudication_screen import AdjudicationDialog

    path = tmp_path / "s.sqlite"
    study = _demo_study(path, sentences=3)
    with open_database(path) as db:
        for name, answer in (("judge-1", "yes"), ("judge-2", "no")):
            annotator = ops.find_annotator(db, study, name)
            while (item := ops.next_item(db, annotator)) is not None:
                ops.record_judgment(db, item.assignment_id, answer)
    db = open_database(path)
    set_adjudicators(db, study, ["adjudicator"])  # the researcher names the role
    dialog = AdjudicationDialog(db, study, "replacements", "adjudicator")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: bool(dialog.items), timeout=120_000)
    total = len(dialog.items)
    assert "judge-1</b> said <b>yes" in dialog.labels.text() and "judge-2</b> said <b>no" in dialog.labels.text()
    first = dialog.items[0]
    qtbot.keyClick(dialog, Qt.Key_N)
    assert dialog.items[0].decision == "no"
    qtbot.keyClick(dialog, Qt.Key_Left)
    assert dialog.index == 0
    left = disagreements(db, study, include_decided=False)
    assert len(left) == total - 1 and first.key not in {d.key for d in left}
    dialog.close()
    db.close()


def test_the_tune_screen_tunes_in_a_worker_and_builds_a_study_to_judge_again(qtbot, tmp_path):
    from parastudio.desktop.tune_screen import TuneScreen

    path = tmp_path / "s.sqlite"
    study = _demo_study(path, sentences=8)
    db = open_database(path)
    judge_study(db, study)
    screen = TuneScreen(db)
    qtbot.addWidget(screen)
    screen.show()
    screen.set_study(study, "replacements")
    screen.iterations_spin.setValue(2)
    screen.restarts_spin.setValue(1)
    screen.nbest_spin.setValue(5)
    screen.heldout_spin.setValue(0.25)
    screen.activateWindow()
    screen.setFocus()
    qtbot.waitUntil(screen.hasFocus, timeout=120_000)
    qtbot.keyClick(screen, Qt.Key_T, Qt.ControlModifier)
    qtbot.waitUntil(lambda: screen.last_result is not None, timeout=60000)
    assert isinstance(screen.last_result, dict), screen.last_result
    assert screen.model.rowCount() == 4  # dev and held-out, before and after
    assert screen.plot.pixmap() is not None and not screen.plot.pixmap().isNull()
    weights = json.loads(Path(screen.last_result["files"]["weights"]).read_text())
    assert weights["system"] == "beam" and "signature" in weights
    assert screen.buttons["start_restudy"].isEnabled()
    made = []
    screen.study_made.connect(made.append)
    screen.activateWindow()
    qtbot.waitUntil(screen.hasFocus, timeout=120_000)
    qtbot.keyClick(screen, Qt.Key_B, Qt.ControlModifier)
    qtbot.waitUntil(lambda: bool(made) or isinstance(screen.last_result, str), timeout=60000)
    assert made, screen.last_result
    summaries = {s.id: s for s in __import__("parastudio.core.store.annotation_queries", fromlist=["x"]).study_summaries(db)}
    new = summaries[made[0]]
    assert "tuned beam" in new.name and new.criteria == ["meaning", "replacement"] and new.assigned > 0
    db.close()


def test_cancelling_the_tuning_writes_nothing(qtbot, tmp_path):
    from parastudio.desktop.tune_screen import TuneScreen

    path = tmp_path / "s.sqlite"
    study = _demo_study(path, sentences=4)
    db = open_database(path)
    judge_study(db, study)
    screen = TuneScreen(db)
    qtbot.addWidget(screen)
    screen.set_study(study, "replacements")
    worker = screen.start_tuning()
    worker.cancel()
    qtbot.waitUntil(lambda: screen.last_result is not None, timeout=60000)
    assert screen.last_result == "cancelled"
    folder = Path(str(path)).with_name(f"{path.stem}-study{study}-tuning")
    assert not (folder / "weights.json").exists()
    db.close()


def test_a_cancelled_tuning_leaves_nothing_of_the_previous_run(qtbot, tmp_path):
    """Issue 28 Found 8: after a cancelled tuning the previous run's table and 'New study from re-generated
    candidates' stayed."""
    from parastudio.desktop.tune_screen import TuneScreen

    path = tmp_path / "s.sqlite"
    study = _demo_study(path, sentences=8)
    db = open_database(path)
    judge_study(db, study)
    screen = TuneScreen(db)
    qtbot.addWidget(screen)
    screen.show()
    screen.set_study(study, "replacements")
    screen.iterations_spin.setValue(1)
    screen.restarts_spin.setValue(0)
    screen.nbest_spin.setValue(5)
    screen.start_tuning()
    qtbot.waitUntil(lambda: screen.last_result is not None, timeout=60000)
    assert screen.model.rowCount() == 4 and screen.buttons["start_restudy"].isEnabled()
    worker = screen.start_tuning()
    worker.cancel()  # stops at its first progress report
    qtbot.waitUntil(lambda: screen.last_result is not None, timeout=60000)
    assert screen.last_result == "cancelled"
    assert screen.model.rowCount() == 0 and not screen.buttons["start_restudy"].isEnabled()
    assert screen.result is None and screen.start_restudy() is None
    db.close()
