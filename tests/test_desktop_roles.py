"""A judge's session of the app (issue 38): the judging screens only, no key to a researcher's screen; on
PostgreSQL the role and the name are the server's, and what the screen shows is what the researcher's view of
the same item shows, planted controls included."""

from __future__ import annotations

import uuid

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import make_study, open_window  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QAction  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_qt_settings")

RESEARCHER_KEYS = [f"Ctrl+{n}" for n in range(3, 10)] + ["Ctrl+0"]


def shortcuts(window) -> set[str]:
    return {action.shortcut().toString() for action in window.findChildren(QAction) if not action.shortcut().isEmpty()}


def activate(qtbot, window) -> None:
    """Window shortcuts reach only the active window: make it so (the keys pressed below then mean something)."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=120_000)


def test_a_judges_session_on_sqlite_has_no_researcher_screen_and_no_key_to_one(qtbot, tmp_path):
    path = tmp_path / "study.sqlite"
    make_study(path, repeats=0.25, controls=0.2)
    window = open_window(qtbot, path, "ann", role="judge")
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == ["Annotate  [Ctrl+1]",
                                                                           "Choice task  [Ctrl+2]"]
    keys = shortcuts(window)
    assert not keys & set(RESEARCHER_KEYS) and "Ctrl+Shift+A" not in keys
    assert {"Ctrl+1", "Ctrl+2", "Ctrl+Shift+J"} <= keys  # a SQLite judge still says who judges
    activate(qtbot, window)
    QTest.keyClick(window, Qt.Key_2, Qt.ControlModifier)  # the keys do work here...
    assert window.tabs.currentIndex() == 1
    QTest.keyClick(window, Qt.Key_1, Qt.ControlModifier)
    for key in (Qt.Key_3, Qt.Key_5, Qt.Key_7, Qt.Key_8, Qt.Key_0):  # ...and none of these leads anywhere
        QTest.keyClick(window, key, Qt.ControlModifier)
        assert window.tabs.currentIndex() == 0
    assert window.inspect is None and window.dashboard is None and window.quality is None
    assert "rests on the judges" in window.statusBar().currentMessage()
    window.adjudicate()  # even called directly, a judge's session reads no label
    assert not hasattr(window, "adjudication")
    window.close()


def test_a_researchers_session_keeps_every_screen(qtbot, tmp_path):
    path = tmp_path / "study.sqlite"
    make_study(path)
    window = open_window(qtbot, path, "ann")
    assert window.tabs.count() == 10 and set(RESEARCHER_KEYS) <= shortcuts(window)
    activate(qtbot, window)
    QTest.keyClick(window, Qt.Key_7, Qt.ControlModifier)
    assert window.tabs.currentWidget() is window.inspect
    window.close()


@pytest.fixture
def postgres_study(postgres_url):
    tag = uuid.uuid4().hex[:6]
    judges = (f"ann_{tag}", f"bob_{tag}")
    study_id = make_study(postgres_url, annotators=judges, repeats=0.25, controls=0.2)
    db = open_database(postgres_url)
    urls = {name: ops.invite(db, study_id, "toy", name, "judge").url for name in judges}
    adjudicator = f"adj_{tag}"
    urls[adjudicator] = ops.invite(db, study_id, "toy", adjudicator, "adjudicator").url
    try:
        yield db, study_id, judges, adjudicator, urls
    finally:
        for name in urls:
            ops.revoke(db, study_id, name)
        db.close()


def test_every_item_a_judges_login_reads_is_the_researchers_item(postgres_study):
    db, study_id, judges, _, urls = postgres_study
    annotator = ops.find_annotator(db, study_id, judges[0])
    with open_database(urls[judges[0]]) as judge:
        position, seen = 0, 0
        while (theirs := ops.item_at(judge, annotator, position)) is not None:
            ours = ops.item_at(db, annotator, position)
            assert theirs == ours
            seen += 1
            position += 1
    with db.reading() as session:
        from sqlalchemy import func, select

        from parastudio.core.store.models import Assignment, Candidate

        controls = session.scalar(select(func.count()).select_from(Assignment).join(
            Candidate, Candidate.id == Assignment.candidate_id).where(Assignment.annotator_id == annotator,
                                                                      Candidate.kind == "control"))
    assert seen > 0 and controls > 0  # planted controls among them, shown as the researcher's view shows them


def test_a_judges_window_on_their_own_login_judges_as_the_server_says(qtbot, tmp_path, postgres_study):
    db, study_id, judges, _, urls = postgres_study
    judge_db = open_database(urls[judges[0]])
    window = open_window(qtbot, tmp_path / "ann.toml", judges[0], db=judge_db, role="judge", enforced=True)
    assert window.tabs.count() == 2
    password = judge_db.engine.url.password
    assert password and password not in window.windowTitle() + window.statusBar().currentMessage()
    keys = shortcuts(window)
    assert not keys & set(RESEARCHER_KEYS) and "Ctrl+Shift+A" not in keys and "Ctrl+Shift+J" not in keys
    item = window.annotate.screen.item
    QTest.keyClick(window.annotate.screen, Qt.Key_Y if item.scale == "binary" else Qt.Key_3)
    window.annotate.screen.writer.drain()
    window.close()
    judge_db.close()
    annotator = ops.find_annotator(db, study_id, judges[0])
    stored = [row for row in ops.iter_judgments(db, study_id) if row["assignment_id"] == item.assignment_id]
    assert len(stored) == 1 and ops.item_at(db, annotator, item.position).value is not None


def test_an_adjudicators_window_adjudicates_and_shows_no_researcher_screen(qtbot, tmp_path, postgres_study):
    db, study_id, judges, adjudicator, urls = postgres_study
    adjudicator_db = open_database(urls[adjudicator])
    from parastudio.desktop.main_window import MainWindow

    window = MainWindow(tmp_path / "adj.toml", db=adjudicator_db, annotator=adjudicator, role="adjudicator",
                        enforced=True, table=str(tmp_path / "none.gz"), lm=str(tmp_path / "none.bin"))
    qtbot.addWidget(window)
    assert window.tabs.count() == 2
    keys = shortcuts(window)
    assert "Ctrl+Shift+A" in keys and not keys & set(RESEARCHER_KEYS) and "Ctrl+Shift+J" not in keys
    window.close()
    adjudicator_db.close()


@pytest.mark.parametrize("button, role", [("&Judge", "judge"), ("&Researcher", "researcher"), (None, None)])
def test_the_launch_question_on_sqlite_says_who_sits_here(qtbot, button, role):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

    from parastudio.desktop.app import ask_role

    def answer() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, answer)
            return
        assert "rests on the judges" in box.informativeText()
        if button is None:
            box.reject()  # closed: nobody said who they are, the app does not open
            return
        [chosen] = [b for b in box.findChildren(QPushButton) if b.text() == button]
        chosen.click()

    QTimer.singleShot(0, answer)
    assert ask_role() == role


def test_who_is_judging_takes_a_typed_name_as_typed_and_refuses_a_look_alike(qtbot, tmp_path):
    """Issue 39: typing "john" where "j1" is listed made you j1 (the list was not editable); "Ann2" beside "ann2"
    must not make a second person either."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QComboBox, QInputDialog, QMessageBox

    from parastudio.desktop.judging_tab import ask_annotator

    path = tmp_path / "study.sqlite"
    make_study(path, annotators=("j1", "ann2"))
    typed = ["john", "Ann2", "ann2"]
    warnings = []

    def act() -> None:
        widget = QApplication.activeModalWidget()
        if isinstance(widget, QMessageBox):
            warnings.append(widget.text())
            widget.accept()
        elif isinstance(widget, QInputDialog):
            widget.findChild(QComboBox).setEditText(typed.pop(0))
            widget.accept()
        if typed or isinstance(widget, QMessageBox):
            QTimer.singleShot(20, act)

    with open_database(path) as db:
        QTimer.singleShot(0, act)
        assert ask_annotator(None, db, None) == "john"
        QTimer.singleShot(0, act)
        assert ask_annotator(None, db, None) == "ann2"
    assert typed == []  # after the warning, the name as the study has it
    assert len(warnings) == 1 and "reads as 'ann2'" in warnings[0]
