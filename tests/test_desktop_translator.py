"""The Translator screen, driven by keys on the bundled demo: select by Shift+arrows, suggestions beside the text,
pick by key (stored as a choice judgment), more like this, expand abbreviation, select again after a free edit."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QTextCursor  # noqa: E402

from parastudio.core.demo import demo_files  # noqa: E402
from parastudio.core.inspection.translator_choices import TRANSLATOR_STUDY  # noqa: E402
from parastudio.core.inspection.translator_session import characters_of_tokens  # noqa: E402
from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402

SENTENCE, QUICKLY, LOAVES = 2, 17, 26  # sentence 3 of the demo: "... take quickly three measures ... loaves ..."


pytestmark = pytest.mark.usefixtures("private_qt_settings")


@pytest.fixture
def window(qtbot, tmp_path):
    from parastudio.desktop.main_window import MainWindow

    path = tmp_path / "study.sqlite"
    open_database(path, create=True).close()
    window = MainWindow(path, annotator="translator-1", lm=str(demo_files().lm))
    qtbot.addWidget(window)
    window.show()
    qtbot.wait(50)
    yield window
    window.close()


def select_by_keys(qtbot, screen, token: int) -> None:
    """Put the caret before token ``token`` and extend the selection over it with Shift+Right."""
    text = screen.editor.toPlainText()
    a, b = characters_of_tokens(text, token, token + 1)
    cursor = screen.editor.textCursor()
    cursor.setPosition(a)
    screen.editor.setTextCursor(cursor)
    for _ in range(b - a):
        qtbot.keyClick(screen.editor, Qt.Key_Right, Qt.ShiftModifier)


def suggestions(screen) -> list[str]:
    return [screen.model.row_at(row)[1] for row in range(screen.model.rowCount())]


def translator_on_sentence(qtbot, window, sentence: int):
    """The Translator screen, loaded, showing ``sentence`` (set directly: the key test covers getting there)."""
    window.tabs.setCurrentWidget(window.translator)
    screen = window.translator
    qtbot.waitUntil(lambda: screen.loaded, timeout=60_000)
    screen.session.go(sentence)
    screen.show_sentence()
    return screen


def test_by_keys_select_see_suggestions_pick_more_like_expand_and_edit(qtbot, window):
    qtbot.keyClick(window, Qt.Key_0, Qt.ControlModifier)
    screen = window.translator
    assert window.tabs.currentWidget() is screen
    qtbot.waitUntil(lambda: screen.loaded, timeout=60_000)
    qtbot.waitUntil(screen.editor.hasFocus, timeout=120_000)
    spanish = demo_files().spanish_test_sentences.read_text(encoding="utf-8").splitlines()
    qtbot.keyClick(screen.editor, Qt.Key_PageDown)
    qtbot.keyClick(screen.editor, Qt.Key_Right, Qt.AltModifier)
    assert screen.session.index == SENTENCE and "abraham" in screen.source_label.text()
    assert screen.session.source == spanish[SENTENCE]
    machine = screen.editor.toPlainText()
    assert machine == screen.session.machine_translation and machine.split()[QUICKLY] == "quickly"

    # Shift+arrows select "quickly": up to five suggestions beside it, its Spanish words highlighted.
    with qtbot.waitSignal(screen.suggestions_shown, timeout=120_000) as shown:
        select_by_keys(qtbot, screen, QUICKLY)
    first = suggestions(screen)
    assert 1 <= len(first) <= 5 and first == shown.args[0].texts and "quickly" not in first
    assert "background-color" in screen.source_label.text() and screen.latencies_ms

    # More like suggestion 3 (highlighted with Alt+Down twice): it comes first, the order changes.
    qtbot.keyClick(screen.editor, Qt.Key_Down, Qt.AltModifier)
    qtbot.keyClick(screen.editor, Qt.Key_Down, Qt.AltModifier)
    assert screen.current_number() == 3
    with qtbot.waitSignal(screen.suggestions_shown, timeout=120_000):
        qtbot.keyClick(screen.editor, Qt.Key_M, Qt.ControlModifier)
    liked = suggestions(screen)
    assert liked[0] == first[2] and liked != first and screen.session.shown.request.feedback

    # Expand abbreviation runs (no expansion of "quickly" in the graph: it says so).
    with qtbot.waitSignal(screen.suggestions_shown, timeout=120_000) as expanded:
        qtbot.keyClick(screen.editor, Qt.Key_E, Qt.ControlModifier)
    assert expanded.args[0].request.kind == "expand-abbreviation"
    assert "abbreviation" in screen.suggestions_label.text()

    # Back to plain suggestions, then key 2 picks: the span is replaced and a choice judgment is stored.
    qtbot.keyClick(screen.editor, Qt.Key_Home)
    with qtbot.waitSignal(screen.suggestions_shown, timeout=120_000):
        select_by_keys(qtbot, screen, QUICKLY)
    offered = suggestions(screen)
    with qtbot.waitSignal(screen.choice_recorded, timeout=120_000) as recorded:
        qtbot.keyClick(screen.editor, Qt.Key_2)
    expected = machine.split()
    expected[QUICKLY:QUICKLY + 1] = offered[1].split()
    assert screen.editor.toPlainText().split() == expected
    study = ops.find_study(window.db, TRANSLATOR_STUDY)
    rows = list(ops.iter_judgments(window.db, study))
    assert len(rows) == 1 and rows[0]["judgment_id"] == recorded.args[0].judgment_id
    assert rows[0]["annotator"] == "translator-1" and rows[0]["value"] == "option:2"
    assert rows[0]["text"] == offered[1] and rows[0]["candidate"] == "quickly" and rows[0]["source"] == machine

    # A free edit: a word typed at the start; a selection is still aligned and gets suggestions.
    cursor = screen.editor.textCursor()
    cursor.movePosition(QTextCursor.Start)
    screen.editor.setTextCursor(cursor)
    qtbot.keyClicks(screen.editor, "then ")
    assert screen.session.edited and screen.editor.toPlainText().startswith("then abraham")
    shift = 1 + len(offered[1].split()) - 1
    with qtbot.waitSignal(screen.suggestions_shown, timeout=120_000) as aligned:
        select_by_keys(qtbot, screen, LOAVES + shift)
    assert aligned.args[0].error is None and suggestions(screen)
    assert aligned.args[0].replaced == "loaves"
    # Enter picks the highlighted (first) suggestion; the typed word stays.
    with qtbot.waitSignal(screen.choice_recorded, timeout=120_000):
        qtbot.keyClick(screen.editor, Qt.Key_Return)
    assert screen.editor.toPlainText().startswith("then abraham")
    assert suggestions(screen) == [] and len(list(ops.iter_judgments(window.db, study))) == 2

    # Ctrl+R: the machine translation again; PageUp: the sentence before.
    qtbot.keyClick(screen.editor, Qt.Key_R, Qt.ControlModifier)
    assert screen.editor.toPlainText() == machine
    qtbot.keyClick(screen.editor, Qt.Key_PageUp)
    assert screen.session.index == SENTENCE - 1


def test_a_click_on_a_suggestion_picks_it_and_on_more_like_this_reorders(qtbot, window):
    screen = translator_on_sentence(qtbot, window, SENTENCE)
    with qtbot.waitSignal(screen.suggestions_shown, timeout=120_000):
        screen.select_tokens(LOAVES, LOAVES + 1)
    first = suggestions(screen)
    assert len(first) >= 3
    with qtbot.waitSignal(screen.suggestions_shown, timeout=120_000):
        rect = screen.view.visualRect(screen.model.index(2, 2))
        qtbot.mouseClick(screen.view.viewport(), Qt.LeftButton, pos=rect.center())
    assert suggestions(screen)[0] == first[2]
    chosen = suggestions(screen)[1]
    with qtbot.waitSignal(screen.choice_recorded, timeout=120_000):
        rect = screen.view.visualRect(screen.model.index(1, 1))
        qtbot.mouseClick(screen.view.viewport(), Qt.LeftButton, pos=rect.center())
    assert chosen in screen.editor.toPlainText()
    rows = list(ops.iter_judgments(window.db, ops.find_study(window.db, TRANSLATOR_STUDY)))
    assert rows[-1]["text"] == chosen and "more-like-this" in rows[-1]["systems"][0]


def test_only_the_newest_of_quick_selections_is_shown(qtbot, window):
    screen = translator_on_sentence(qtbot, window, SENTENCE)
    shown = []
    screen.suggestions_shown.connect(shown.append)
    older, newer = screen.session.request(QUICKLY, QUICKLY + 1), screen.session.request(LOAVES, LOAVES + 1)
    screen.ask(older)
    screen.ask(newer)  # asked before the first finished: the first is never shown
    qtbot.waitUntil(lambda: bool(shown), timeout=120_000)
    qtbot.wait(200)
    assert [s.request for s in shown] == [newer] and screen.session.shown.replaced == "loaves"
    # A result for a text the translator has since changed is dropped too.
    screen.ask(screen.session.request(QUICKLY, QUICKLY + 1))
    screen.editor.insertPlainText("x")
    qtbot.wait(300)
    assert len(shown) == 1 and screen.session.shown is None


def test_the_translator_dispatches_every_key_from_its_table():
    """Issue 28 Found 9: the key table was prose while an if-chain dispatched the keys."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeyEvent, QKeySequence

    from parastudio.desktop.translator_keys import KEYS, action_for, key_help
    from parastudio.desktop.translator_screen import TranslatorScreen

    def event(press: str) -> QKeyEvent:
        combination = QKeySequence(press)[0]
        return QKeyEvent(QEvent.KeyPress, combination.key(), combination.keyboardModifiers())

    assert all(f"<b>{key.shown}</b>" in key_help() for key in KEYS if "&" not in key.shown)
    for key in KEYS:
        for press, argument in key.presses:
            assert action_for(event(press), suggestions=True, selection=True) == (key.action, argument), press
            assert callable(getattr(TranslatorScreen, key.action))
    # Digits are typing unless suggestions are shown and a span is selected; Enter unless suggestions are shown.
    assert action_for(event("3"), suggestions=True, selection=False) is None
    assert action_for(event("3"), suggestions=False, selection=True) is None
    assert action_for(event("Return")) is None and action_for(event("PgDown")) == ("step", 1)
    assert action_for(event("Ctrl+Q")) is None


def _service_answer(server, sentence: int, text: str, span: tuple[int, int], **more) -> dict:
    from serve_support import post

    status, answer = post(server, "/suggest", {"sentence": sentence, "span": list(span), "text": text,
                                               "approach": "approach-10", **more})
    assert status == 200, answer
    return answer


def _on_screen(shown) -> list[tuple[str, float]]:
    return [(s.text, s.fsm_score) for s in shown.suggestions]


def _answered(answer: dict) -> list[tuple[str, float]]:
    return [(row["text"], row["fsm_score"]) for row in answer["suggestions"]]


def test_the_screen_shows_what_the_service_answers_a_cat_tool_for_the_same_request(qtbot, window):
    """One engine for the screen and ``parastudio serve`` (issue 45, item 6): the same selection, more like
    this, and a selection after a free edit give on screen the suggestions, in their order and with their
    scores, that the running service answers over HTTP for the same request on the same graphs and LM."""
    from serve_support import running_server

    demo = demo_files()
    screen = translator_on_sentence(qtbot, window, SENTENCE)
    with running_server("--graph", str(demo.direct_graph), "--lm", str(demo.lm)) as server:
        machine = screen.editor.toPlainText()
        with qtbot.waitSignal(screen.suggestions_shown, timeout=120_000) as shown:
            screen.select_tokens(LOAVES, LOAVES + 1)
        served = _service_answer(server, SENTENCE, machine, (LOAVES, LOAVES + 1))
        assert len(served["suggestions"]) >= 3 and _on_screen(shown.args[0]) == _answered(served)
        assert list(shown.args[0].span) == served["alignment"]["span"]

        second = shown.args[0].suggestions[1]
        with qtbot.waitSignal(screen.suggestions_shown, timeout=120_000) as again:
            screen.ask(screen.session.more_like_request(2))
        served = _service_answer(server, SENTENCE, machine, (LOAVES, LOAVES + 1), feedback=second.text)
        assert _on_screen(again.args[0]) == _answered(served) and served["suggestions"][0]["text"] == second.text

        screen.editor.moveCursor(QTextCursor.Start)
        qtbot.keyClicks(screen.editor, "then ")
        edited = screen.editor.toPlainText()
        with qtbot.waitSignal(screen.suggestions_shown, timeout=120_000) as aligned:
            screen.select_tokens(LOAVES + 1, LOAVES + 2)
        served = _service_answer(server, SENTENCE, edited, (LOAVES + 1, LOAVES + 2))
        assert served["alignment"]["fuzzy"] and _on_screen(aligned.args[0]) == _answered(served)
        assert _answered(served)
