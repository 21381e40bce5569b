"""MQM by keys on the app's annotation screen (issue 43): errors marked with categories and severities on the ESA
page, recorded with their score; real SQLite study, offscreen."""

import json

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from desktop_study_fixtures import judging_screen  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402
from sqlalchemy import select  # noqa: E402

from parastudio.core.store.models import Assignment, Judgment  # noqa: E402

CTRL, CTRL_SHIFT, NONE = Qt.ControlModifier, Qt.ControlModifier | Qt.ShiftModifier, Qt.NoModifier


def test_errors_by_keys_are_stored_with_their_score(qtbot, tmp_path):
    with judging_screen(qtbot, tmp_path / "mqm.sqlite", "mqm") as (screen, db):
        item = screen.item
        assert screen.pages.currentWidget() is screen.esa_view
        for key, modifier in [(Qt.Key_Right, CTRL), (Qt.Key_Right, CTRL_SHIFT), (Qt.Key_5, NONE), (Qt.Key_J, NONE),
                              (Qt.Key_Right, CTRL), (Qt.Key_6, NONE), (Qt.Key_M, NONE)]:
            qtbot.keyClick(screen, key, modifier)
        assert screen.item.assignment_id == item.assignment_id  # nothing recorded while marking
        assert "MQM 5.1" in screen.esa_view.score_label.text()
        assert "Fluency/Punctuation" in screen.esa_view.score_label.text()
        qtbot.keyClick(screen, Qt.Key_Return)
        assert screen.item is None or screen.item.assignment_id != item.assignment_id
        screen.writer.drain()
        with db.reading() as session:
            value, text = session.execute(select(Judgment.value, Judgment.text)
                                          .join(Assignment, Assignment.live_judgment_id == Judgment.id)
                                          .where(Assignment.id == item.assignment_id)).one()
    assert value == "-5.1"
    assert json.loads(text) == [{"start": 1, "end": 3, "category": "Fluency/Grammar", "severity": "major"},
                                {"start": 3, "end": 4, "category": "Fluency/Punctuation", "severity": "minor"}]
