"""Sentences shown to judges: truecased, detokenized, capitalized, with every token's place in the text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.demo import demo_files
from parastudio.core.engine.text.display_text import (
    SentenceDisplay,
    capitalize_sentences,
    cased_tokens,
    sentence_display,
)
from parastudio.core.engine.text.tokenization import tokenize

DEMO_LINES = demo_files().test_sentences.read_text(encoding="utf-8").splitlines()
WORDS = sorted({word for line in DEMO_LINES for word in line.split()})


def test_the_demo_verses_read_as_written():
    display = sentence_display(str(demo_files().directory / "truecase-model.en"))
    assert display(DEMO_LINES[0]) == ("Yahweh appeared to him by the oaks of Mamre, as he sat in the tent door in "
                                      "the heat of the day.")
    assert display("he said , \" don 't go . \"") == 'He said, "Don\'t go."'


def test_cased_tokens_keep_the_projects_boundaries():
    original = "One of his heads looked like it had been wounded fatally. His fatal wound was healed."
    tokens = tokenize(original).split()
    assert cased_tokens(original, tokens) == ["One", "of", "his", "heads", "looked", "like", "it", "had", "been",
                                              "wounded", "fatally.", "His", "fatal", "wound", "was", "healed", "."]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=25))
def test_every_token_has_its_own_place_in_the_shown_text(words):
    shown = sentence_display(str(demo_files().directory / "truecase-model.en")).show(words)
    assert len(shown.spans) == len(words)
    ends = [0]
    for (start, end), word in zip(shown.spans, words):
        assert start >= ends[-1]  # in order, never overlapping
        if end > start:
            assert shown.text[start:end].lower() == word
        ends.append(end)


@given(st.text(alphabet="abc .?!\"", max_size=40))
def test_capitalizing_never_moves_a_character(text):
    assert len(capitalize_sentences(text)) == len(text)
    assert capitalize_sentences(text).lower() == text.lower()


def test_without_a_model_it_still_detokenizes():
    assert SentenceDisplay(None)("hello , world .") == "Hello, world."


def test_an_entity_in_the_stored_tokens_is_shown_as_stored():
    """The project tokenizes with escape=False: '&amp;' stored is five characters, and judges read those."""
    shown = SentenceDisplay().show("tom &amp; jerry say &lt;hello&gt; .")
    assert shown.text == "Tom &amp; jerry say &lt;hello&gt;."
    assert [shown.text[a:b] for a, b in shown.spans] == ["Tom", "&amp;", "jerry", "say", "&lt;hello&gt;", "."]


def test_a_phrase_reads_in_place_as_the_sentence_around_it_reads():
    display = SentenceDisplay()
    sentence = "the dog doesn 't run after the cat ."
    assert display.show_in_place(sentence, (0, 2), "a dog 's friend") == "A dog's friend"
    assert display.show_in_place(sentence, (2, 4), "can 't") == "can't"
    assert display.show_in_place(sentence, (5, 7), "the kitten") == "the kitten"
