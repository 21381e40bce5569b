"""Fig. 4.4's preview: the sentence with the picked option in place of the highlighted span (no Qt)."""

from parastudio.core.store.choice_preview import preview

SOURCE = "indiana became the first state to impose such a requirement ."
OPTIONS = ["was the first state", "led the first country", "made"]


def test_an_option_replaces_the_span_and_is_the_part_marked():
    shown = preview(SOURCE, (1, 5), OPTIONS, "option:3")
    assert shown.sentence == "indiana made to impose such a requirement ."
    assert shown.sentence.split()[shown.marked.start:shown.marked.stop] == ["made"]
    assert (shown.value, shown.text) == ("option:3", "made")
    two = preview(SOURCE, (1, 5), OPTIONS, "option:2")
    assert two.sentence.split()[two.marked.start:two.marked.stop] == OPTIONS[1].split()


def test_the_original_is_the_sentence_itself_and_a_missing_option_is_no_preview():
    shown = preview(SOURCE, (1, 5), OPTIONS, "original")
    assert shown.sentence == SOURCE and list(shown.marked) == [1, 2, 3, 4] and shown.text is None
    assert preview(SOURCE, (1, 5), OPTIONS, "option:4") is None
    assert preview(SOURCE, (1, 5), OPTIONS, "custom") is None
