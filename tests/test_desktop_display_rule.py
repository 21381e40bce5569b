"""Every judging page shows its texts by the study's one display rule (issue 39): readable ("don't", "know,") when
the study says readable, the tokens as stored ("don 't", "know ,") when it says tokenized; categorical, choice, DA,
preference and ESA alike. ESA marks words of the readable text and they map onto the stored tokens exactly."""

from __future__ import annotations

import html
import json
import re

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt  # noqa: E402
from sqlalchemy import select  # noqa: E402

from parastudio.core.judging.span_rewrites import token_spans  # noqa: E402
from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.core.store.models import Assignment, Judgment  # noqa: E402

SOURCE = "i do not know , he said ."
ROWS = [ops.CandidateRow(sentence_id="0", text="i don 't know , he stated .", system="beam", source=SOURCE, line=1),
        ops.CandidateRow(sentence_id="0", text="i do not know , he stated .", system="mcpg-true", source=SOURCE,
                         line=2)]
TASKS = [{"id": "t", "sentence": "he doesn 't know , she said .", "span": [1, 3], "options": ["can 't", "won 't"]}]
TOKENIZED = re.compile(r" (?:'t|,|\.)")  # what only the stored tokens have: a space before a clitic or a mark


def shown(label) -> str:
    """A label's text as the judge reads it (its rich text without tags)."""
    return html.unescape(re.sub(r"<[^>]+>", "", label.text()))


def open_screen(qtbot, path, criterion: str, display: str):
    from parastudio.desktop.annotation_screen import AnnotationScreen
    from parastudio.desktop.judgment_writer import JudgmentWriter

    db = open_database(path, create=True)
    study = ops.create_study(db, criterion, criteria=[criterion], seed=2)
    if criterion == "choice":
        ops.add_choice_tasks(db, study, TASKS)
    else:
        ops.import_candidates(db, study, ROWS)
    ops.update_study_settings(db, study, display=display)
    ops.assign(db, study, ["ann"])
    writer = JudgmentWriter(db)
    screen = AnnotationScreen(db, writer)
    qtbot.addWidget(screen)
    screen.show()
    with qtbot.waitSignal(screen.open_done, timeout=120_000):
        screen.open(study, "ann", criterion)
    return screen, db


def page_texts(screen) -> list[str]:
    """Every text of the item on the page shown: sentences, the pair, a choice task's options."""
    scale = screen.item.scale
    if scale == "da":
        labels = [screen.da_view.source_label, screen.da_view.candidate_label]
    elif scale == "preference":
        view = screen.preference_view
        labels = [view.source_label, view.left_label, view.right_label]
    elif scale == "esa":
        labels = [screen.esa_view.source_label, screen.esa_view.candidate_label]
    elif scale == "choice":
        return [shown(screen.choice_sentence_label)] + [button.text() for button in screen.option_buttons]
    else:
        labels = [screen.source_label, screen.candidate_label]
    return [shown(label) for label in labels]


@pytest.mark.parametrize("criterion", ["meaning", "choice", "da", "preference", "esa"])
def test_each_page_shows_texts_by_the_studys_display_rule(qtbot, tmp_path, criterion):
    readable_screen, readable_db = open_screen(qtbot, tmp_path / "r.sqlite", criterion, "readable")
    tokenized_screen, tokenized_db = open_screen(qtbot, tmp_path / "t.sqlite", criterion, "tokenized")
    try:
        readable, tokenized = page_texts(readable_screen), page_texts(tokenized_screen)
        assert len(readable) == len(tokenized) >= 2
        for text in readable:
            assert not TOKENIZED.search(text), (criterion, text)
        assert all("know," in text or "n't" in text for text in readable)  # each one a sentence, or an option
        for text in tokenized:
            assert TOKENIZED.search(text), (criterion, text)
    finally:
        for screen, db in ((readable_screen, readable_db), (tokenized_screen, tokenized_db)):
            screen.close_session()
            screen.progress.stop()
            screen.writer.close()
            db.close()


@pytest.mark.parametrize("display, tokens", [("readable", [(1, 3), (6, 8)]), ("tokenized", [(1, 2), (7, 8)])])
def test_a_span_marked_on_the_shown_words_maps_onto_the_right_stored_tokens(qtbot, tmp_path, display, tokens):
    """"i don 't know , he stated ." reads "I don't know, he stated." (5 words over 8 tokens): the second word and
    the last marked are tokens 1-2 ("don 't") and 6-7 ("stated ."); tokenized, the same keys mark tokens 1 and 7."""
    screen, db = open_screen(qtbot, tmp_path / "esa.sqlite", "esa", display)
    try:
        while screen.item.candidate != ROWS[0].text:  # the order is the annotator's seeded one
            screen.next()
        item, words = screen.item, screen.view.words
        assert screen.esa_view.words == [word.text for word in words]
        word = Qt.ControlModifier  # Ctrl+→ walks the words; → moves between items (issue 44)
        for key, modifier in ([(Qt.Key_Right, word), (Qt.Key_J, Qt.NoModifier)] + [(Qt.Key_Right, word)] * 9
                              + [(k, Qt.NoModifier) for k in (Qt.Key_M, Qt.Key_Return, Qt.Key_5, Qt.Key_Return)]):
            qtbot.keyClick(screen, key, modifier)
        screen.writer.drain()
        with db.reading() as session:
            stored = session.scalar(select(Judgment.text).join(Assignment, Assignment.live_judgment_id == Judgment.id)
                                    .where(Assignment.id == item.assignment_id))
        mapped = token_spans(words, json.loads(stored))
        assert [(span["start"], span["end"]) for span in mapped] == tokens
        assert [span["severity"] for span in mapped] == ["major", "minor"]
        marked = [" ".join(item.candidate.split()[start:end]) for start, end in tokens]
        assert marked == (["don 't", "stated ."] if display == "readable" else ["don", "."])
    finally:
        screen.close_session()
        screen.progress.stop()
        screen.writer.close()
        db.close()


@pytest.mark.parametrize("display, quoted", [("readable", "can't"), ("tokenized", "can 't")])
def test_a_choice_pick_is_quoted_as_it_reads_in_place(qtbot, tmp_path, display, quoted):
    screen, db = open_screen(qtbot, tmp_path / "choice.sqlite", "choice", display)
    try:
        qtbot.keyClick(screen, Qt.Key_1)  # previewed, not recorded: the line quotes the pick
        assert f"“{quoted}”" in shown(screen.answer_label)
        qtbot.keyClick(screen, Qt.Key_Return)  # recorded; ← comes back to it, the answer quoted the same way
        qtbot.keyClick(screen, Qt.Key_Left)
        assert f"option:1: {quoted}" in shown(screen.answer_label)
    finally:
        screen.close_session()
        screen.progress.stop()
        screen.writer.close()
        db.close()
