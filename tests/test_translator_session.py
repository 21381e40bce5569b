"""The translator's view without Qt, on the bundled demo: RV1909 verses, their English machine translation
(the demo's direct graphs), seed 001's suggestions for a selection, picks stored as choice judgments."""

from __future__ import annotations

import pytest

from parastudio.core.demo import demo_files
from parastudio.core.inspection.translator_choices import TRANSLATOR_STUDY, record_pick
from parastudio.core.inspection.translator_session import (
    TranslatorSession,
    characters_of_tokens,
    tokens_of_characters,
)
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database

# Sentence 2 of the demo's direct graphs: "abraham went in haste to the tent ... take quickly three measures ..."
SENTENCE, QUICKLY = 2, 17


@pytest.fixture(scope="module")
def session():
    demo = demo_files()
    session = TranslatorSession.open(demo.direct_graph, demo.spanish_test_sentences, demo.lm)
    yield session
    session.close()


@pytest.fixture
def at_sentence(session):
    session.go(SENTENCE)
    return session


def test_each_sentence_is_its_spanish_source_with_its_machine_translation(session):
    demo = demo_files()
    spanish = demo.spanish_test_sentences.read_text(encoding="utf-8").splitlines()
    assert session.count == len(spanish) == 100
    session.go(0)
    assert session.source == spanish[0] and session.source.startswith("y aparecióle jehová")
    assert session.text == session.machine_translation and "mamre" in session.text and not session.edited
    assert session.step(1) and session.index == 1 and session.source == spanish[1]
    assert not session.step(-2) and session.index == 1
    session.go(99)
    assert not session.step(1) and session.index == 99


def test_character_selections_map_to_tokens_and_back():
    text = "take  quickly three"
    assert tokens_of_characters(text, 7, 9) == (1, 2)  # inside "quickly"
    assert tokens_of_characters(text, 3, 8) == (0, 2)  # across two words
    assert tokens_of_characters(text, 4, 6) is None  # only spaces
    assert characters_of_tokens(text, 1, 3) == (6, 19)
    assert text[slice(*characters_of_tokens(text, 1, 2))] == "quickly"


def test_a_selection_yields_up_to_five_suggestions_for_the_span_it_replaces(at_sentence):
    tokens = at_sentence.text.split()
    assert tokens[QUICKLY] == "quickly"
    shown = at_sentence.select(QUICKLY, QUICKLY + 1)
    assert shown.error is None and at_sentence.shown is shown
    assert 1 <= len(shown.suggestions) <= 5 and len(shown.texts) == 5
    assert shown.span == (QUICKLY, QUICKLY + 1) and shown.replaced == "quickly"
    assert "quickly" not in shown.texts  # the selection itself is not a suggestion
    assert shown.coverage is not None and shown.milliseconds > 0


def test_more_like_this_puts_the_chosen_suggestion_first_and_reorders(at_sentence):
    first = at_sentence.select(QUICKLY, QUICKLY + 1)
    liked = first.texts[3]
    again = at_sentence.more_like(4)
    assert again.request.feedback == tuple(liked.split())
    assert again.texts[0] == liked and again.texts != first.texts
    with pytest.raises(LookupError):
        at_sentence.more_like(9)


def test_expand_abbreviation_keeps_only_expansions_spelled_by_the_selection(at_sentence):
    at_sentence.select(QUICKLY, QUICKLY + 1)
    shown = at_sentence.expand_abbreviation()
    assert shown.request.kind == "expand-abbreviation" and shown.error is None
    for text in shown.texts:  # ABRF (§5.3): several words whose initials spell the selection
        words = text.split()
        assert len(words) > 1 and "".join(w[0] for w in words).lower() == "quickly"


def test_a_pick_replaces_the_span_and_is_stored_as_a_choice_judgment(at_sentence, tmp_path):
    shown = at_sentence.select(QUICKLY, QUICKLY + 1)
    before = at_sentence.text
    pick = at_sentence.pick(2)
    assert pick.chosen == shown.texts[1] and pick.answer == "option:2" and pick.options == tuple(shown.texts)
    expected = before.split()
    expected[QUICKLY:QUICKLY + 1] = pick.chosen.split()
    assert at_sentence.text.split() == expected and at_sentence.shown is None
    assert at_sentence.text[slice(*at_sentence.replaced_characters(pick))] == pick.chosen

    db = open_database(tmp_path / "study.sqlite", create=True)
    try:
        recorded = record_pick(db, pick, "translator-1", corpus="direct-test")
        second = at_sentence.select(QUICKLY + 2, QUICKLY + 3)  # another pick in the same study
        if second.suggestions:
            record_pick(db, at_sentence.pick(1), "translator-1", corpus="direct-test")
        study = ops.find_study(db, TRANSLATOR_STUDY)
        assert study == recorded.study_id
        rows = list(ops.iter_judgments(db, study))
        assert len(rows) == (2 if second.suggestions else 1)
        row = rows[0]
        assert row["annotator"] == "translator-1" and row["criterion"] == "choice" and row["scale"] == "choice"
        assert row["value"] == "option:2" and row["text"] == pick.chosen and row["origin"] == "translator"
        assert row["source"] == " ".join(before.split()) and row["candidate"] == "quickly"
        assert row["systems"] == ["approach-10"] and row["duration_ms"] is not None
        task = [t for t in ops.list_items(db, study) if t["item"] == row["item"]]
        assert task and task[0]["kind"] == "choice" and task[0]["text"] == "quickly"
    finally:
        db.close()


def test_after_a_free_edit_a_selection_is_aligned_to_the_machine_translation(at_sentence):
    tokens = at_sentence.text.split()
    tokens[0:1] = ["then", "abraham"]  # a word added at the start shifts every position
    at_sentence.edit(" ".join(tokens))
    assert at_sentence.edited and at_sentence.shown is None
    shown = at_sentence.select(QUICKLY + 1, QUICKLY + 2)
    assert shown.error is None and shown.suggestions
    assert shown.span == (QUICKLY + 1, QUICKLY + 2) and shown.replaced == "quickly"
    pick = at_sentence.pick(1)
    assert at_sentence.text.split()[:2] == ["then", "abraham"] and at_sentence.text.split()[QUICKLY + 1] \
        == pick.chosen.split()[0]


def test_a_stale_result_is_not_shown(at_sentence):
    request = at_sentence.request(QUICKLY, QUICKLY + 1)
    at_sentence.edit(at_sentence.text + " amen")
    shown = at_sentence.compute(request)
    assert not at_sentence.accept(shown) and at_sentence.shown is None
    request = at_sentence.request(0, 1)
    at_sentence.step(1)
    assert not at_sentence.accept(at_sentence.compute(request))
    assert at_sentence.accept(at_sentence.compute(at_sentence.request(0, 1)))


def test_more_like_this_needs_suggestions_on_screen(session):
    session.go(0)
    with pytest.raises(LookupError):
        session.more_like(1)
    with pytest.raises(LookupError):
        session.pick(1)
