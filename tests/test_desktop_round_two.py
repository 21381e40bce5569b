"""The app as judges and researchers meet it, round two (issue 28): judges never see each other's labels, every
screen fits, the small things say what they do."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from desktop_study_fixtures import make_study  # noqa: E402
from desktop_study_fixtures import open_window as open_study_window  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.adjudicator_role import set_adjudicators  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")


@pytest.fixture
def disagreeing(tmp_path):
    """A study where ann says yes (3) and bob no (1) to their first 12 items: those both judged are disagreements
    (and both still have items to judge)."""
    path = tmp_path / "study.sqlite"
    study = make_study(path)
    with open_database(path) as db:
        for name, binary, scale in (("ann", "yes", "3"), ("bob", "no", "1")):
            annotator = ops.find_annotator(db, study, name)
            for _ in range(12):
                item = ops.next_item(db, annotator)
                ops.record_judgment(db, item.assignment_id, binary if item.scale == "binary" else scale)
    return path, study


def open_window(qtbot, path, annotator):
    """The shared window opener, then the keyboard's focus settled in it (the tests below press keys)."""
    window = open_study_window(qtbot, path, annotator)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=120_000)
    return window


def test_a_judge_is_refused_adjudication_before_any_label_is_shown(qtbot, disagreeing):
    """Issue 28 Found 6: a judge opened the adjudication dialog (Ctrl+Shift+A) and read the other judge's labels."""
    path, _ = disagreeing
    window = open_window(qtbot, path, "ann")
    qtbot.keyClick(window, Qt.Key_A, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.wait(200)
    assert getattr(window, "adjudication", None) is None
    assert not any("said" in getattr(w, "text", lambda: "")() for w in QApplication.allWidgets()
                   if w.isVisible() and hasattr(w, "text") and isinstance(w.text(), str))
    assert "ann is not an adjudicator of this study" in window.statusBar().currentMessage()
    window.close()


def test_an_adjudicator_named_by_the_researcher_sees_both_labels(qtbot, disagreeing):
    path, study = disagreeing
    with open_database(path) as db:
        set_adjudicators(db, study, ["carol"])
    window = open_window(qtbot, path, "carol")
    qtbot.keyClick(window, Qt.Key_A, Qt.ControlModifier | Qt.ShiftModifier)
    dialog = window.adjudication
    qtbot.waitUntil(lambda: bool(dialog.items), timeout=120_000)
    assert "ann</b> said" in dialog.labels.text() and "bob</b> said" in dialog.labels.text()
    dialog.close()
    window.close()


@pytest.mark.parametrize("width,height", [(1024, 700), (1280, 800)])
def test_every_screen_fits_and_is_one_pick_away_at_both_sizes(tmp_path, width, height):
    """Issue 28 Found 7 / Deliver 2: the window (frame included) inside the screen's free area on every screen, every
    screen reachable without a scrolling tab bar, the Inspect table's candidate text visible."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "s", "x": 0, "y": 0, "width": width, "height": height,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "PYTHONPATH": str(root),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, str(root / "tests" / "screen_fit_probe.py")], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["screen"] == [width, height]
    for title, seen in found["screens"].items():
        assert seen["current"], title
        assert all(reach == [0, 0] for reach in seen["overflow"].values()), (title, seen["overflow"])
    inspect = found["screens"]["Inspect"]
    assert inspect["rows"] > 0 and inspect["candidate_column_visible"] >= 200
    assert found["screens"]["Tune"]["path_fields_short_by"] == [0, 0]  # the whole path shows, not only its end
    assert found["screens"]["Studies"]["done_column_cut_by"] == 0  # each study's progress without scrolling


def test_choice_options_read_like_the_readable_sentence_above_them(qtbot, tmp_path):
    """Issue 28 Found 7: the options stayed tokenized and lowercase under a readable sentence."""
    from parastudio.desktop.annotation_screen import AnnotationScreen
    from parastudio.desktop.judgment_writer import JudgmentWriter

    db = open_database(tmp_path / "choice.sqlite", create=True)
    study = ops.create_study(db, "choice", criteria=("choice",), seed=5)
    ops.add_choice_tasks(db, study, [{"id": "t1", "sentence": "the dog doesn 't run after the cat .", "span": [0, 2],
                                      "options": ["a dog 's friend", "the beast"]}])
    ops.assign(db, study, ["ann"])
    writer = JudgmentWriter(db)
    screen = AnnotationScreen(db, writer)
    qtbot.addWidget(screen)
    screen.show()
    with qtbot.waitSignal(screen.open_done, timeout=120_000):
        screen.open(study, "ann", "choice")
    assert [button.text() for button in screen.option_buttons] == ["[1]  A dog's friend", "[2]  The beast"]
    import html
    import re

    assert html.unescape(re.sub(r"<[^>]+>", "", screen.choice_sentence_label.text())) == "The dog doesn't run after the cat."
    qtbot.keyClick(screen, Qt.Key_1)  # a preview (seed 001 Fig. 4.4), read as the sentence reads, not a judgment yet
    assert html.unescape(re.sub(r"<[^>]+>", "", screen.choice_sentence_label.text())) == \
        "A dog's friend doesn't run after the cat."
    qtbot.keyClick(screen, Qt.Key_Return)
    writer.drain()
    assert [row["value"] for row in ops.judgment_records(db, study)] == ["option:1"]
    screen.close_session()
    writer.close()
    db.close()



def test_a_key_of_another_scale_says_which_keys_answer(qtbot, tmp_path, screen_for):
    """Issue 28 Found 8: Y on a 1-3 item was ignored without a word."""
    path = tmp_path / "s.sqlite"
    study = make_study(path, criteria=("usability",))
    db = open_database(path)
    screen = screen_for(db, study)
    item = screen.item
    assert item.scale != "binary"
    qtbot.keyClick(screen, Qt.Key_Y)
    assert screen.item is item  # nothing recorded
    assert "Y is not an answer to this question: press 1 / 2 / 3" in screen.status.text()
    db.close()


def test_a_status_line_goes_with_the_item_it_was_said_on(qtbot, tmp_path, screen_for):
    """Issue 28 Found 8: status lines stayed hundreds of items later."""
    path = tmp_path / "s.sqlite"
    study = make_study(path, criteria=("meaning",))
    db = open_database(path)
    screen = screen_for(db, study)
    qtbot.keyClick(screen, Qt.Key_F)
    assert "flag" in screen.status.text()
    qtbot.keyClick(screen, Qt.Key_Y)
    qtbot.keyClick(screen, Qt.Key_Y)
    assert screen.status.text() == ""
    qtbot.keyClick(screen, Qt.Key_Z, Qt.ControlModifier)  # undo: its message stays on the item it reopens
    qtbot.waitUntil(lambda: "undone" in screen.status.text(), timeout=120_000)
    db.close()


def test_a_judge_already_judging_elsewhere_is_asked_once_not_once_per_screen(qtbot, tmp_path, monkeypatch):
    """Issue 28 Found 8: two refusal dialogs in a row when a judge is already judging (Annotate, then Choice task)."""
    from desktop_study_fixtures import make_choice_study
    from PySide6.QtWidgets import QMessageBox

    path = tmp_path / "study.sqlite"
    make_study(path)
    make_choice_study(path, annotators=("ann", "bob"))
    first = open_window(qtbot, path, "ann")
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *args, **kwargs: asked.append(args[2]) or QMessageBox.No)
    second = open_window(qtbot, path, "ann")
    assert len(asked) == 1 and "already judging" in asked[0]
    for tab in (second.annotate, second.choice):
        assert tab.screen.item is None and "another window" in tab.screen.done_label.text()
    second.close()
    first.close()


def test_the_adjudicator_reads_the_string_the_judges_read(qtbot, tmp_path):
    """Issue 28 Found 5: one display rule; adjudication showed the tokenized form the judges never saw."""
    import html
    import re

    from parastudio.desktop.adjudication_screen import AdjudicationDialog

    path = tmp_path / "s.sqlite"
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "s", criteria=("meaning",))
        ops.import_candidates(db, study, [ops.CandidateRow(sentence_id="0", text="tom &amp; jerry don 't run .",
                                                           system="x", source="tom &amp; jerry do not run .")])
        ops.assign(db, study, ["ann", "bob"])
        for name, value in (("ann", "yes"), ("bob", "no")):
            item = ops.next_item(db, ops.find_annotator(db, study, name))
            ops.record_judgment(db, item.assignment_id, value)
        set_adjudicators(db, study, ["carol"])
    db = open_database(path)
    dialog = AdjudicationDialog(db, study, "s", "carol")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: bool(dialog.items), timeout=120_000)
    paragraphs = [html.unescape(re.sub(r"<[^>]+>", "", part)) for part in dialog.sentences.text().split("<br>")[1:]]
    source, candidate = (part.split("Paraphrase")[0].lower() for part in paragraphs)
    assert (source, candidate) == ("tom &amp; jerry do not run.", "tom &amp; jerry don't run.")  # as judges read them
    dialog.close()
    db.close()


def test_a_named_adjudicator_decides_every_disagreement_by_keys_in_the_app(qtbot, disagreeing):
    """Deliver 1: the adjudicator opens adjudication with Ctrl+Shift+A and decides with the level keys alone (the
    keys as the keyboard delivers them: to whatever has the focus); each decision is stored as theirs, Esc closes and
    the keys go back to the window."""
    path, study = disagreeing
    with open_database(path) as db:
        set_adjudicators(db, study, ["carol"])
    window = open_window(qtbot, path, "carol")
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key_A, Qt.ControlModifier | Qt.ShiftModifier)
    dialog = window.adjudication
    qtbot.waitUntil(lambda: bool(dialog.items), timeout=120_000)
    count = len(dialog.items)
    assert count >= 6
    pressed = {}
    for _ in range(count):
        item = dialog.items[dialog.index]
        key, value = (Qt.Key_Y, "yes") if item.scale == "binary" else (Qt.Key_2, "2")
        qtbot.keyClick(QApplication.focusWidget(), key)
        pressed[item.key] = value
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key_Left)  # back to the last one: its decision shows
    assert "your decision" in dialog.labels.text()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key_Escape)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=120_000)
    with open_database(path) as db:
        stored = {d.key: (d.decision, d.adjudicator) for d in ops.disagreements_for(db, study, "carol")}
    assert len(pressed) == count and stored == {key: (value, "carol") for key, value in pressed.items()}
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.annotate.screen, timeout=120_000)
    window.close()
