"""The annotation screen: the empty state after a study with items, the undo key from the keys table, keypad keys."""
from desktop_study_fixtures import make_choice_study, make_study
from PySide6.QtCore import Qt

from parastudio.core.judging import keys as judging_keys
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.desktop.annotation_screen import AnnotationScreen
from parastudio.desktop.judgment_writer import JudgmentWriter


def open_screen(qtbot, db, study, annotator="ann", name="toy"):
    writer = JudgmentWriter(db)
    screen = AnnotationScreen(db, writer)
    qtbot.addWidget(screen)
    screen.resize(1000, 700)
    screen.show()
    with qtbot.waitSignal(screen.open_done, timeout=120_000):
        screen.open(study, annotator, name)
    return screen, writer


def test_no_items_after_a_study_with_items_says_no_items(qtbot, tmp_path):
    path = tmp_path / "s.sqlite"
    study = make_study(path)
    db = open_database(path)
    empty = ops.create_study(db, "empty", criteria=["meaning"])
    ops.find_annotator(db, empty, "ann", create=True)
    screen, writer = open_screen(qtbot, db, study)
    qtbot.waitUntil(lambda: screen.progress.my_total > 0, timeout=120_000)
    with qtbot.waitSignal(screen.open_done, timeout=120_000):
        screen.open(empty, "ann", "empty")
    text = screen.done_label.text()
    screen.close_session(); writer.close(); screen.progress.stop(); db.close()
    assert "has no items" in text, text


def test_undo_key_follows_the_table(qtbot, tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite"
    study = make_study(path)
    db = open_database(path)
    keys = tuple(judging_keys.KeyBinding(("U",), "undo", "Undo") if b.action == "undo" else b
                 for b in judging_keys.KEYS)
    monkeypatch.setattr(judging_keys, "KEYS", keys)
    monkeypatch.setattr(judging_keys, "KEY_BY_ACTION", {b.action: b for b in keys})
    screen, writer = open_screen(qtbot, db, study)
    first = screen.item
    qtbot.keyClick(screen, Qt.Key_Y)
    writer.drain()
    qtbot.keyClick(screen, Qt.Key_Z, Qt.ControlModifier)   # no longer the undo key
    writer.drain(); qtbot.wait(50)
    reopened = screen.item.assignment_id == first.assignment_id
    done_text = screen.undo_button.text(), screen.keys_help.text()
    screen.close_session(); writer.close(); screen.progress.stop(); db.close()
    assert "U" in done_text[0]
    assert not reopened, "Ctrl+Z still undoes although the table gives undo to U"


def test_keypad_zero_keeps_the_original_like_the_main_zero(qtbot, tmp_path):
    path = tmp_path / "c.sqlite"
    study = make_choice_study(path)
    db = open_database(path)
    screen, writer = open_screen(qtbot, db, study, name="choice")
    first = screen.item
    qtbot.keyClick(screen, Qt.Key_0, Qt.KeypadModifier)
    qtbot.keyClick(screen, Qt.Key_Enter, Qt.KeypadModifier)  # the keypad's Enter accepts, as Return does
    moved = screen.item is None or screen.item.assignment_id != first.assignment_id
    screen.close_session(); writer.close(); screen.progress.stop(); db.close()
    assert moved, "keypad 0 did nothing on a choice item"


def test_keypad_arrows_move(qtbot, tmp_path):
    path = tmp_path / "s.sqlite"
    study = make_study(path)
    db = open_database(path)
    screen, writer = open_screen(qtbot, db, study)
    first = screen.item
    qtbot.keyClick(screen, Qt.Key_Right, Qt.KeypadModifier)   # how macOS reports arrow keys
    moved = screen.item.assignment_id != first.assignment_id
    screen.close_session(); writer.close(); screen.progress.stop(); db.close()
    assert moved, "an arrow key with the keypad modifier did nothing"
