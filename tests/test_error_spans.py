"""Error span annotation (issue 30): spans checked, marked by keys (core), stored, mapped onto rewrites."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.judging.protocols.error_spans import SEVERITIES, SpanMarking, parse_spans
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.store.error_spans import blamed_units
from parastudio.core.tuning.comparison_devset import da_records


def test_bad_spans_are_refused_with_what_a_span_must_be():
    assert parse_spans(None) == [] and parse_spans("[]") == []
    assert parse_spans('[{"start": 3, "end": 4, "severity": "major"}, {"start": 0, "end": 2, "severity": "minor"}]') \
        == [{"start": 0, "end": 2, "severity": "minor"}, {"start": 3, "end": 4, "severity": "major"}]
    for bad in ("{", '{"start": 0}', '[{"start": 2, "end": 2, "severity": "minor"}]',
                '[{"start": 0, "end": 1, "severity": "critical"}]', '[{"start": 0, "end": 1}]',
                '[{"start": true, "end": 1, "severity": "minor"}]'):
        with pytest.raises(ValueError, match="span"):
            parse_spans(bad)
    with pytest.raises(ValueError, match="do not overlap"):
        parse_spans('[{"start": 0, "end": 3, "severity": "minor"}, {"start": 2, "end": 4, "severity": "major"}]')


@st.composite
def derivation_and_spans(draw):
    """A derivation tiling a candidate of n words (some segments rewrites), and non-overlapping spans."""
    cuts = sorted(draw(st.sets(st.integers(1, 11), max_size=5)))
    n = draw(st.integers(max(cuts, default=0) + 1, 12))
    bounds = [0, *cuts, n]
    derivation = []
    for start, end in zip(bounds, bounds[1:]):
        rewrite = draw(st.booleans())
        derivation.append({"src": [start, end], "tgt": [start, end], "source": f"s{start}",
                           "target": f"t{start}" if rewrite else f"s{start}", "p": 0.5, "identity": not rewrite})
    points = sorted(draw(st.sets(st.integers(0, n), max_size=6)))
    spans = [{"start": a, "end": b, "severity": draw(st.sampled_from(SEVERITIES))}
             for a, b in zip(points[::2], points[1::2])]
    return derivation, spans


@settings(max_examples=150, deadline=None)
@given(derivation_and_spans())
def test_blame_is_the_worst_mark_on_any_word_of_the_rewrite(case):
    derivation, spans = case
    rewrites = [s for s in derivation if not s["identity"]]
    assume(rewrites)
    # Word by word: the severity marked on each word, then the worst over the rewrite's words.
    on_word = {i: s["severity"] for s in spans for i in range(s["start"], s["end"])}
    expected = []
    for segment in rewrites:
        marks = [on_word[i] for i in range(*segment["tgt"]) if i in on_word]
        expected.append("major" if "major" in marks else "minor" if marks else None)
    assert blamed_units(derivation, spans) == expected


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 9), st.lists(st.sampled_from(["left", "right", "shift-left", "shift-right", "minor",
                                                    "major", "unmark"]), max_size=30))
def test_marking_by_keys_keeps_spans_inside_the_candidate_and_apart(words, keys):
    marking = SpanMarking(words)
    for key in keys:
        if key in SEVERITIES:
            start, end = marking.selection
            marking.mark(key)
            if end > start:  # the selection is now exactly one span of that severity
                assert {"start": start, "end": end, "severity": key} in marking.spans
        elif key == "unmark":
            marking.unmark()
        else:
            marking.move(-1 if key.endswith("left") else 1, extend=key.startswith("shift"))
        assert parse_spans(marking.as_text()) == marking.spans  # well formed, sorted, apart
        assert all(s["end"] <= words for s in marking.spans)


def test_spans_are_stored_with_the_score_and_blame_reaches_the_dev_set(tmp_path):
    db = open_database(tmp_path / "esa.sqlite", create=True)
    study_id = ops.create_study(db, "esa", criteria=["esa"], seed=1)
    derivation = [{"src": [0, 2], "tgt": [0, 1], "source": "the dog", "target": "doggy", "p": 0.4, "identity": False},
                  {"src": [2, 3], "tgt": [1, 2], "source": "runs", "target": "runs", "p": 1.0, "identity": True},
                  {"src": [3, 5], "tgt": [2, 4], "source": "very fast", "target": "quickly indeed", "p": 0.2,
                   "identity": False}]
    ops.import_candidates(db, study_id, [ops.CandidateRow(sentence_id="0", text="doggy runs quickly indeed",
                                                          system="beam", source="the dog runs very fast",
                                                          derivation=derivation)])
    ops.assign(db, study_id, ["ann"])
    item = ops.next_item(db, 1)
    with pytest.raises(ValueError, match="span"):
        ops.record_judgment(db, item.assignment_id, "40", text='[{"start": 1, "end": 0, "severity": "minor"}]')
    ops.record_judgment(db, item.assignment_id, "40", text=json.dumps([{"start": 3, "end": 4, "severity": "major"},
                                                                       {"start": 1, "end": 2, "severity": "minor"}]))
    (record,) = da_records(db, study_id)
    (score,) = record["scores"]
    assert score["score"] == 40 and record["criterion"] == "esa"
    assert score["spans"] == [{"start": 1, "end": 2, "severity": "minor"}, {"start": 3, "end": 4, "severity": "major"}]
    assert score["units"] == [None, "major"]  # "doggy" unmarked; "quickly indeed" has a major mark
    db.close()


@pytest.mark.parametrize("criterion, value, text, said", [
    ("esa", "70", '[{"start": 0, "end": 999, "severity": "minor"}]', "error spans within the candidate's 4 words"),
    ("esa", "70", '[{"start": 3, "end": 1000000000000000000000000000000, "severity": "major"}]',
     "error spans within the candidate's 4 words"),
    ("da", "70", '[{"start": 0, "end": 1, "severity": "minor"}]', "takes no text or error spans"),
])
def test_spans_past_the_words_or_on_another_scale_are_refused_on_import(tmp_path, capsys, criterion, value, text,
                                                                        said):
    """Issue 39: such spans were stored (ESA) or dropped without a word (DA)."""
    import csv

    from parastudio.core.cli import main
    from parastudio.core.store import operations as ops
    from parastudio.core.store.database import open_database

    path = tmp_path / "s.sqlite"
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "toy", criteria=(criterion,))
        ops.import_candidates(db, study, [ops.CandidateRow(sentence_id="0", text="one two three four", system="x",
                                                           source="a b c d")])
        ops.assign(db, study, ["ann"], judges_per_item=1)
        [listed] = ops.list_items(db, study)
        item = listed["item"]
    rows = tmp_path / "judgments.csv"
    with open(rows, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["item", "annotator", "criterion", "value", "text"],
                                      [item, "ann", criterion, value, text]])
    assert main(["study", "import-judgments", "--db", str(path), str(rows)]) == 2
    err = capsys.readouterr().err
    assert f"{rows}:2: expected" in err and said in err
    with open_database(path) as db:
        assert ops.judgment_records(db, ops.find_study(db)) == []


def test_a_package_whose_spans_were_edited_past_the_words_is_refused_on_merge(tmp_path, capsys):
    import sqlite3

    from parastudio.core.cli import main
    from parastudio.core.store import operations as ops
    from parastudio.core.store.database import open_database

    path, package = tmp_path / "s.sqlite", tmp_path / "ann.sqlite"
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "toy", criteria=("esa",))
        ops.import_candidates(db, study, [ops.CandidateRow(sentence_id="0", text="one two three four", system="x",
                                                           source="a b c d")])
        ops.assign(db, study, ["ann"], judges_per_item=1)
        ops.export_package(db, study, "ann", package)
    with open_database(package) as db:
        item = ops.next_item(db, ops.find_annotator(db, ops.find_study(db), "ann"))
        ops.record_judgment(db, item.assignment_id, "60", text='[{"start": 1, "end": 2, "severity": "major"}]')
    with sqlite3.connect(package) as connection:  # another program's edit
        connection.execute("""UPDATE judgment SET text = '[{"start": 1, "end": 40, "severity": "major"}]'""")
    assert main(["study", "merge-package", "--db", str(path), str(package)]) == 2
    assert "an error span past the candidate's words" in capsys.readouterr().err
    with open_database(path) as db:
        assert ops.judgment_records(db, ops.find_study(db)) == []
