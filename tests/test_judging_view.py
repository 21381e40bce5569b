"""What a judge sees of an item, worked out without Qt (core/judging/view.py; issue 28 Found 9 / Deliver 3)."""

from __future__ import annotations

from parastudio.core.engine.text.display_text import SentenceDisplay
from parastudio.core.judging.view import judging_view
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database


def _items(tmp_path, criteria, rows=None, tasks=None):
    db = open_database(tmp_path / "s.sqlite", create=True)
    study = ops.create_study(db, "toy", criteria=criteria, seed=1)
    if rows:
        ops.import_candidates(db, study, rows)
    if tasks:
        ops.add_choice_tasks(db, study, tasks)
    ops.assign(db, study, ["ann"])
    annotator = ops.find_annotator(db, study, "ann")
    items = []
    while (item := ops.next_item(db, annotator)) is not None:
        items.append(item)
        ops.record_judgment(db, item.assignment_id, "yes" if item.scale == "binary" else
                            "option:1" if item.scale == "choice" else "2")
    db.close()
    return items


def test_meaning_shows_both_sentences_readable_with_the_changed_words_marked(tmp_path):
    [fluency, meaning] = _items(tmp_path, ("fluency", "meaning"), [ops.CandidateRow(
        sentence_id="0", text="the dog doesn 't run .", system="x", source="the dog does not run .")])
    view = judging_view(meaning, SentenceDisplay())
    assert view.candidate.text == "The dog doesn't run." and view.source.text == "The dog does not run."
    assert {view.candidate.tokens[i] for i in view.candidate.marked} == {"doesn", "'t"}
    assert {view.source.tokens[i] for i in view.source.marked} == {"does", "not"}
    assert sorted((level.value, level.keys) for level in view.levels) == [("no", ("N", "0")), ("yes", ("Y", "1"))]
    assert view.value_of_key("n") == "no" and view.value_of_key("3") is None
    # Form alone: no source and no highlight that would hint at one; tokenized when the study says so.
    alone = judging_view(fluency, None)
    assert alone.source is None and alone.candidate.marked == frozenset() and alone.candidate.text is None
    assert alone.source_title == "Source sentence: not shown for this question"


def test_a_choice_tasks_options_read_in_place_and_a_scale_gives_its_digits(tmp_path):
    [task] = _items(tmp_path, ("choice",), tasks=[{"id": "t", "sentence": "the dog doesn 't run .", "span": [2, 4],
                                                   "options": ["can 't", "won 't"]}])
    view = judging_view(task, SentenceDisplay())
    assert view.options == ("can't", "won't") and view.candidate.marked == frozenset({2, 3})
    assert judging_view(task, None).options == ("can 't", "won 't")
    (tmp_path / "u").mkdir()
    [usability] = _items(tmp_path / "u", ("usability",), [ops.CandidateRow(sentence_id="0", text="a b", system="x",
                                                                         source="a c")])
    keys = [level.keys for level in judging_view(usability, None).levels]
    assert keys == [("1",), ("2",), ("3",)]


def test_one_display_rule_for_every_screen_tokenized_when_the_study_says_so():
    from parastudio.core.judging.view import study_display

    assert study_display({"display": "tokenized"}, None) is None
    readable = study_display({}, "/nonexistent/truecase.model")
    assert readable is not None and readable.show("tom &amp; jerry don 't run .").text == "Tom &amp; jerry don't run."
