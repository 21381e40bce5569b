"""The Studies screen's per-study settings: the instructions editor (Ctrl+E) and how sentences are shown to judges
(readable: detokenized and truecased, or tokenized as stored). Real SQLite studies, offscreen Qt, keys only."""

from __future__ import annotations

import html
import re

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import make_choice_study, make_study  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QDialogButtonBox, QPushButton  # noqa: E402

from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")


@pytest.fixture
def studies(qtbot, tmp_path):
    from parastudio.desktop.studies_screen import StudiesScreen

    path = tmp_path / "study.sqlite"
    toy = make_study(path)
    choice = make_choice_study(path)
    db = open_database(path)
    screen = StudiesScreen(db)
    qtbot.addWidget(screen)
    screen.resize(1000, 680)
    screen.show()
    yield screen, db, toy, choice
    db.close()


def select_study(qtbot, screen, study_id):
    row = [s.id for s in screen.summaries].index(study_id)
    screen.view.setFocus()
    screen.view.selectRow(screen.proxy.mapFromSource(screen.model.index(row, 0)).row())
    assert screen.selected_study() == study_id


def plain(label_html: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", label_html))


def test_ctrl_e_edits_the_instructions_and_examples_judges_then_read(qtbot, studies):
    from parastudio.desktop.instructions import InstructionsDialog, instructions_html

    screen, db, toy, _ = studies
    select_study(qtbot, screen, toy)
    qtbot.keyClick(screen.view, Qt.Key_E, Qt.ControlModifier)
    editor = screen.instructions_editor
    qtbot.waitUntil(editor.isVisible, timeout=120_000)
    assert editor.criteria == ["fluency", "meaning", "usability"]
    qtbot.keyClicks(editor.text_edit, "Read each paraphrase aloud.")
    add = next(b for b in editor.findChildren(QPushButton) if "Add an example" in b.text())
    for criterion, verdict, source, text, reason in (
            ("meaning", "bad", "the dog runs", "the cat sleeps", "another event entirely"),
            ("fluency", "good", "", "the beast runs after the kitten", "reads as English"),
            ("fluency", "bad", "", "", "an empty row is dropped")):
        qtbot.mouseClick(add, Qt.LeftButton)
        row = editor.table.rowCount() - 1
        editor.table.cellWidget(row, 0).setCurrentText(criterion)
        editor.table.cellWidget(row, 1).setCurrentText(verdict)
        for column, value in ((2, source), (3, text), (4, reason)):
            editor.table.item(row, column).setText(value)
    save = editor.findChild(QDialogButtonBox).button(QDialogButtonBox.Save)
    qtbot.mouseClick(save, Qt.LeftButton)
    assert not editor.isVisible()

    stored = ops.study_settings(db, toy)["instructions"]
    assert stored["text"] == "Read each paraphrase aloud."
    assert stored["examples"] == {
        "meaning": [{"good": False, "source": "the dog runs", "text": "the cat sleeps",
                     "reason": "another event entirely"}],
        "fluency": [{"good": True, "source": "", "text": "the beast runs after the kitten",
                     "reason": "reads as English"}]}
    # What judges read (before their first item, and with F1): the text, each question, the examples.
    shown = InstructionsDialog(db, toy)
    qtbot.addWidget(shown)
    read = shown.browser.toPlainText()
    assert "Read each paraphrase aloud." in read
    assert "A good one: the beast runs after the kitten" in read and "Why: reads as English" in read
    assert "A bad one: the cat sleeps" in read and "source: the dog runs" in read
    assert "Asked of the paraphrase alone" in read  # fluency hides the source
    assert "an empty row is dropped" not in instructions_html(db, toy)

    # Reopened, the editor shows what was saved; Esc (Cancel) changes nothing.
    qtbot.keyClick(screen.view, Qt.Key_E, Qt.ControlModifier)
    again = screen.instructions_editor
    qtbot.waitUntil(again.isVisible, timeout=120_000)
    assert again.text_edit.toPlainText() == "Read each paraphrase aloud." and again.table.rowCount() == 2
    again.text_edit.setPlainText("changed my mind")
    qtbot.keyClick(again, Qt.Key_Escape)
    assert not again.isVisible()
    assert ops.study_settings(db, toy)["instructions"]["text"] == "Read each paraphrase aloud."


def test_the_display_switch_is_per_study_and_judges_see_it(qtbot, studies):
    from parastudio.desktop.annotation_screen import AnnotationScreen
    from parastudio.desktop.judgment_writer import JudgmentWriter

    screen, db, toy, choice = studies
    changed = []
    screen.studies_changed.connect(lambda: changed.append(True))
    select_study(qtbot, screen, toy)
    assert screen.display_combo.currentIndex() == 0  # readable by default
    screen.display_combo.setFocus()
    qtbot.keyClick(screen.display_combo, Qt.Key_Down)  # the keyboard's way to choose "tokenized (as stored)"
    assert screen.display_combo.currentIndex() == 1
    assert ops.study_settings(db, toy)["display"] == "tokenized" and changed
    assert ops.study_settings(db, choice).get("display", "readable") == "readable"  # per study
    select_study(qtbot, screen, choice)
    assert screen.display_combo.currentIndex() == 0  # the combo follows the selected study
    select_study(qtbot, screen, toy)
    assert screen.display_combo.currentIndex() == 1

    writer = JudgmentWriter(db)
    judge = AnnotationScreen(db, writer)
    qtbot.addWidget(judge)
    try:
        with qtbot.waitSignal(judge.open_done, timeout=120_000):
            judge.open(toy, "ann", "toy")
        while judge.item.shows_source is False:
            assert plain(judge.candidate_label.text()) == judge.item.candidate  # as stored: tokenized, lowercase
            qtbot.keyClick(judge, Qt.Key_Y if judge.item.scale == "binary" else Qt.Key_2)
        assert plain(judge.source_label.text()) == judge.item.source
        judge.close_session()

        screen.display_combo.setFocus()
        qtbot.keyClick(screen.display_combo, Qt.Key_Up)  # back to readable
        assert ops.study_settings(db, toy)["display"] == "readable"
        with qtbot.waitSignal(judge.open_done, timeout=120_000):
            judge.open(toy, "ann", "toy")
        readable = plain(judge.source_label.text())
        assert readable == judge.display(judge.item.source) and readable != judge.item.source
        assert readable[0].isupper()  # truecased: the sentence starts with a capital
    finally:
        judge.close_session()
        judge.progress.stop()
        writer.close()


def test_ctrl_shift_e_loads_a_guidelines_file_in_a_worker_and_a_bad_one_changes_nothing(qtbot, studies, tmp_path,
                                                                                         monkeypatch):
    from parastudio.desktop import file_dialogs
    from parastudio.desktop.instructions import instructions_html

    screen, db, toy, _ = studies
    good = tmp_path / "guidelines.toml"
    good.write_text('introduction = "Read each one aloud first."\n\n[criteria.meaning]\n'
                    'question = "Same meaning?"\n\n[[criteria.meaning.examples]]\nverdict = "bad"\n'
                    'source = "He ran."\ncandidate = "He slept."\nreason = "another event"\n\n[[training]]\n'
                    'criterion = "meaning"\ncandidate = "He ran."\nanswer = "yes"\nreason = "the same"\n',
                    encoding="utf-8")
    chosen = [good]
    monkeypatch.setattr(file_dialogs, "get_open_file_name", lambda *args, **_: (str(chosen[0]), ""))
    select_study(qtbot, screen, toy)
    qtbot.keyClick(screen.view, Qt.Key_E, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.waitUntil(lambda: screen.last_result is not None, timeout=120_000)
    assert screen.last_result[0] == "introduction: changed" and screen.last_result[-1].startswith(
        "training items: changed (0 before, 1 now")
    assert "meaning: question changed; examples changed (0 before, 1 now)" in screen.last_result
    assert screen.guidelines_box.isVisible() and "meaning: question changed" in screen.guidelines_box.text()
    screen.guidelines_box.accept()
    qtbot.waitUntil(lambda: not screen.guidelines_box.isVisible(), timeout=120_000)
    shown = plain(instructions_html(db, toy))
    assert "Read each one aloud first." in shown and "meaning: Same meaning?" in shown
    assert "A bad one: He slept." in shown and "Why: another event" in shown
    qtbot.keyClick(screen.instructions_button, Qt.Key_Space)  # edited on the screen: the training items stay
    editor = screen.instructions_editor
    qtbot.waitUntil(editor.isVisible, timeout=120_000)
    editor.text_edit.setPlainText("Read each one twice.")
    qtbot.mouseClick(editor.findChild(QDialogButtonBox).button(QDialogButtonBox.Save), Qt.LeftButton)
    stored = ops.study_settings(db, toy)["instructions"]
    assert stored["text"] == "Read each one twice." and stored["training"][0]["reason"] == "the same"
    bad = tmp_path / "bad.toml"
    bad.write_text(good.read_text(encoding="utf-8").replace('verdict = "bad"', 'verdict = "so-so"'), encoding="utf-8")
    chosen[0] = bad
    before = (ops.study_settings(db, toy), [c.question for c in ops.study_criteria(db, toy)])
    qtbot.keyClick(screen.guidelines_button, Qt.Key_Space)  # the message box had the shortcut's window: its button
    qtbot.waitUntil(lambda: isinstance(screen.last_result, str), timeout=120_000)
    assert f"{bad}:7: expected \"good\" or \"bad\" at criteria.meaning.examples[1].verdict" in screen.last_result
    assert "the study is unchanged" in screen.guidelines_box.text()
    assert (ops.study_settings(db, toy), [c.question for c in ops.study_criteria(db, toy)]) == before
