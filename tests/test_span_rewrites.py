"""Error spans mapped onto the derivation's rewrites (issue 30, Deliver 4): the words judges read -> the stored
tokens -> the rewrites; rule blame and dev-set unit labels from what judges marked."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.engine.text.display_text import SentenceDisplay
from parastudio.core.inspection.rule_blame import rule_blame_from_spans
from parastudio.core.judging.protocols.error_spans import SEVERITIES
from parastudio.core.judging.span_rewrites import marked_units, segment_of_tokens, token_spans, word_spans
from parastudio.core.judging.view import judged_words
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database

# "I don't know, he stated." -- the judge reads 5 words over 8 stored tokens:
#   word 0 "I" = token 0; word 1 "don't" = tokens 1-2; word 2 "know," = tokens 3-4; word 3 "he" = token 5;
#   word 4 "stated." = tokens 6-7.
STATED = "i don 't know , he stated ."
STATED_DERIVATION = [
    {"src": [0, 1], "tgt": [0, 1], "source": "i", "target": "i", "p": 1.0, "identity": True},
    {"src": [1, 3], "tgt": [1, 3], "source": "do not", "target": "don 't", "p": 0.3, "identity": False},
    {"src": [3, 6], "tgt": [3, 6], "source": "know , he", "target": "know , he", "p": 1.0, "identity": True},
    {"src": [6, 7], "tgt": [6, 7], "source": "said", "target": "stated", "p": 0.2, "identity": False},
    {"src": [7, 8], "tgt": [7, 8], "source": ".", "target": ".", "p": 1.0, "identity": True}]
# "A large dog." -- 3 words over 4 tokens: word 2 "dog." = tokens 2-3.
LARGE = "a large dog ."
LARGE_DERIVATION = [
    {"src": [0, 1], "tgt": [0, 1], "source": "a", "target": "a", "p": 1.0, "identity": True},
    {"src": [1, 2], "tgt": [1, 2], "source": "big", "target": "large", "p": 0.5, "identity": False},
    {"src": [2, 4], "tgt": [2, 4], "source": "dog .", "target": "dog .", "p": 1.0, "identity": True}]


def span(start, end, severity):
    return {"start": start, "end": end, "severity": severity}


def test_the_words_read_are_the_readable_words_each_over_its_tokens():
    text, words = judged_words(STATED, SentenceDisplay(None))
    assert text == "I don't know, he stated."
    assert [(w.text, list(w.tokens)) for w in words] == [("I", [0]), ("don't", [1, 2]), ("know,", [3, 4]),
                                                         ("he", [5]), ("stated.", [6, 7])]
    # Moses shows "@-@" as "-" glued to both sides, and one right after such a "-" as it is.
    text, words = judged_words("a well @-@ known @-@ @-@ fact", SentenceDisplay(None))
    assert text == "A well-known-@-@ fact"
    assert [(w.text, list(w.tokens)) for w in words] == [("A", [0]), ("well-known-@-@", [1, 2, 3, 4, 5]),
                                                         ("fact", [6])]
    text, words = judged_words("@-@ the the @-@ @-@", SentenceDisplay(None))
    assert text == "-the the-@-@" and [list(w.tokens) for w in words] == [[0, 1], [2, 3, 4]]
    # Shown tokenized (the study's display "tokenized"), each token is a word.
    assert [list(w.tokens) for w in judged_words(STATED, None)[1]] == [[i] for i in range(8)]


def test_marks_on_readable_words_reach_the_rewrites_that_made_them():
    words = judged_words(STATED, SentenceDisplay(None))[1]
    # "stated." (word 4) is tokens 6-7: the rewrite said -> stated (unit 1) and the pass-through "."
    assert marked_units(STATED_DERIVATION, words, [span(4, 5, "major")]) == [None, "major"]
    # "don't" (word 1) is the rewrite do not -> don 't (unit 0); "know," only pass-through words.
    assert marked_units(STATED_DERIVATION, words, [span(1, 2, "minor")]) == ["minor", None]
    assert marked_units(STATED_DERIVATION, words, [span(2, 4, "major")]) == [None, None]
    try:
        marked_units(STATED_DERIVATION, words, [span(4, 6, "minor")])
    except ValueError as error:
        assert "5 words" in str(error)
    else:
        raise AssertionError("a span past the last word judged was accepted")


def _judged_study(tmp_path, url=None):
    """Two candidates, two judges each, judged with spans over the readable words (the default display).

    Judge 1 marks "know," (pass-through only) minor and "stated." major on the first; judge 2 marks "don't"
    minor and "stated." major. Nobody marks anything on "A large dog."
    """
    db = open_database(url or tmp_path / "esa.sqlite", create=True)
    study_id = ops.create_study(db, "esa", criteria=["esa"], seed=3)
    ops.import_candidates(db, study_id, [
        ops.CandidateRow(sentence_id="0", text=STATED, system="beam", source="i do not know , he said .",
                         derivation=STATED_DERIVATION),
        ops.CandidateRow(sentence_id="1", text=LARGE, system="beam", source="a big dog .",
                         derivation=LARGE_DERIVATION)])
    ops.assign(db, study_id, ["judge1", "judge2"])
    marks = {("judge1", STATED): [span(2, 3, "minor"), span(4, 5, "major")],
             ("judge2", STATED): [span(1, 2, "minor"), span(4, 5, "major")]}
    judged = 0
    for annotator_id in (1, 2):
        while (item := ops.next_item(db, annotator_id)) is not None:
            name = f"judge{annotator_id}"
            ops.record_judgment(db, item.assignment_id, "50", text=json.dumps(marks.get((name, item.candidate), [])))
            judged += 1
    assert judged == 4
    return db, study_id


def test_rule_blame_from_spans_counts_the_rewrites_judges_marked(tmp_path):
    db, study_id = _judged_study(tmp_path)
    # By hand: said -> stated marked by both judges (rejected 1); do not -> don 't by one of two (a tie, left
    # out); big -> large by neither (accepted 1). Fisher, one-sided, table [[1, 0], [0, 1]]: p = 1/2.
    (blamed,) = rule_blame_from_spans(db, study_id)
    assert (blamed.source, blamed.target, blamed.rejected, blamed.accepted) == ("said", "stated", 1, 0)
    assert abs(blamed.p_value - 0.5) < 1e-12
    db.close()


def test_rule_blame_from_spans_on_postgresql(tmp_path, postgres_url):
    db, study_id = _judged_study(tmp_path, postgres_url)
    blamed = rule_blame_from_spans(db, study_id)
    assert [(b.source, b.target, b.rejected, b.accepted) for b in blamed] == [("said", "stated", 1, 0)]
    db.close()


def test_the_cli_blames_rules_and_labels_units_from_spans(tmp_path, capsys):
    db, study_id = _judged_study(tmp_path)
    db.close()
    study = str(tmp_path / "esa.sqlite")
    assert main(["inspect-rules", study, "--blame-from", "spans", "--json"]) == 0
    (rule,) = json.loads(capsys.readouterr().out)
    assert (rule["source"], rule["target"], rule["rejected"], rule["accepted"]) == ("said", "stated", 1, 0)
    out = tmp_path / "dev.jsonl"
    assert main(["export-devset", study, "--unit-labels", "spans", "--aggregate", "majority", "-o", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    schema = json.loads((Path(__file__).parent.parent / "docs" / "devset.schema.json").read_text())
    for record in records:
        jsonschema.validate(record, schema)
    units = {(r["candidate"], u["target"]): (u["origin"], u["label"], [label["value"] for label in u["labels"]])
             for r in records for u in r["replacements"]}
    assert units == {(STATED, "don 't"): ("spans", None, ["correct", "incorrect"]),
                     (STATED, "stated"): ("spans", "incorrect", ["incorrect", "incorrect"]),
                     (LARGE, "large"): ("spans", "correct", ["correct", "correct"])}
    # Without --unit-labels spans the labels stay derived from verdicts (no meaning criterion here: none).
    assert main(["export-devset", study, "-o", str(out)]) == 0
    assert {u["origin"] for line in out.read_text().splitlines() for u in json.loads(line)["replacements"]} \
        == {"derived"}


# Tokens the detokenizer joins to their neighbours: punctuation, clitics, Moses' "@-@", quotes.
TOKENS = st.sampled_from(["the", "dog", "don", "'t", "'s", "n't", ",", ".", "?", "(", ")", "\"", "@-@", "$", "5",
                          "l'", "homme", "well", "known", ":", "%"])


@st.composite
def candidate_with_derivation(draw):
    """Tokens, and a derivation tiling them (each segment a rewrite or a pass-through)."""
    tokens = draw(st.lists(TOKENS, min_size=1, max_size=14))
    cuts = sorted(draw(st.sets(st.integers(1, len(tokens) - 1), max_size=6))) if len(tokens) > 1 else []
    bounds = [0, *cuts, len(tokens)]
    derivation = []
    for start, end in zip(bounds, bounds[1:]):
        target = " ".join(tokens[start:end])
        rewrite = draw(st.booleans())
        derivation.append({"src": [start, end], "tgt": [start, end], "source": f"x{start}" if rewrite else target,
                           "target": target, "p": 0.5, "identity": not rewrite})
    return tokens, derivation


@settings(max_examples=300, deadline=None)
@given(candidate_with_derivation(), st.data())
def test_every_marked_word_maps_onto_one_segment_per_token_and_back(case, data):
    tokens, derivation = case
    display = SentenceDisplay(None)
    text, words = judged_words(" ".join(tokens), display)
    # The words are the text's words, and they partition the tokens in order.
    assert [w.text for w in words] == text.split()
    assert [t for w in words for t in w.tokens] == list(range(len(tokens)))
    points = sorted(data.draw(st.sets(st.integers(0, len(words)), max_size=6)))
    spans = [span(a, b, data.draw(st.sampled_from(SEVERITIES))) for a, b in zip(points[::2], points[1::2])]
    assume(spans)
    # Every token of a marked word lies in exactly one segment: a rewrite or a pass-through.
    owner = segment_of_tokens(derivation, len(tokens))
    for s in token_spans(words, spans):
        for token in range(s["start"], s["end"]):
            assert sum(seg["tgt"][0] <= token < seg["tgt"][1] for seg in derivation) == 1
            assert owner[token] is not None
    # Round trip: judged-word spans -> token spans -> the same judged-word spans.
    assert word_spans(words, token_spans(words, spans)) == spans
    # Against the characters: a unit is marked with the worst severity of the marked words whose characters
    # hold one of its tokens' characters (the display's own token spans, not the word grouping).
    placed = display.show(tokens).spans
    expected = []
    for unit in (seg for seg in derivation if not seg["identity"] and seg["source"] != seg["target"]):
        marks = []
        for s in spans:
            first, last = words[s["start"]].chars[0], words[s["end"] - 1].chars[1]
            for token in range(*unit["tgt"]):
                a, b = placed[token]
                # A token with no characters of its own ("@-@" shown as "-") sits at a, where the token before
                # it ended: in the word ending at or running over a (the first word when a is 0).
                if (first <= a < last) if a < b else (first < a <= last or a == first == 0):
                    marks.append(s["severity"])
        expected.append("major" if "major" in marks else "minor" if marks else None)
    assert marked_units(derivation, words, spans) == expected


def test_a_span_past_the_words_read_stops_the_commands_with_a_message(tmp_path, capsys):
    db = open_database(tmp_path / "bad.sqlite", create=True)
    study_id = ops.create_study(db, "esa", criteria=["esa"], seed=3)
    ops.import_candidates(db, study_id, [ops.CandidateRow(sentence_id="0", text=STATED, system="beam",
                                                          source="i do not know , he said .",
                                                          derivation=STATED_DERIVATION)])
    ops.assign(db, study_id, ["judge1"])
    item = ops.next_item(db, 1)
    # 8 tokens, but 5 words read: words 5-6 do not exist.
    ops.record_judgment(db, item.assignment_id, "50", text=json.dumps([span(5, 7, "minor")]))
    db.close()
    study = str(tmp_path / "bad.sqlite")
    for command in (["inspect-rules", study, "--blame-from", "spans"],
                    ["export-devset", study, "--unit-labels", "spans", "-o", str(tmp_path / "dev.jsonl")],
                    ["export-devset", study, "--records", "da", "-o", str(tmp_path / "da.jsonl")]):
        assert main(command) == 2
        assert "an error span over words 5-7 of a candidate shown as 5 words" in capsys.readouterr().err
