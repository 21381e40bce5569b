"""MQM as a judging protocol (issue 43): the published weights (Freitag et al. 2021, Table 2), the answer the
store accepts and checks, marking by keys, and the registry line."""

from __future__ import annotations

import json

import pytest

from parastudio.core.judging.protocols import PROTOCOLS, protocol_of
from parastudio.core.judging.protocols.mqm import (
    MqmMarking,
    error_tenths,
    parse_errors,
    segment_tenths,
    tenths_of_value,
    value_of_tenths,
)
from parastudio.core.store.mqm_ratings import marked_words


def _error(category, severity, start=0, end=1):
    return {"start": start, "end": end, "category": category, "severity": severity}


def test_the_published_weights():
    assert error_tenths("Accuracy/Mistranslation", "major") == 50
    assert error_tenths("Fluency/Punctuation", "major") == 50  # Major punctuation keeps the standard weight
    assert error_tenths("Accuracy/Mistranslation", "minor") == 10
    assert error_tenths("Fluency/Punctuation", "minor") == 1
    assert error_tenths("Non-translation", "major") == 250
    assert error_tenths("Style/Awkward", "neutral") == 0
    errors = [_error("Fluency/Punctuation", "minor")] * 3 + [_error("Accuracy/Omission", "major", None, None)]
    assert segment_tenths(errors) == 53 and value_of_tenths(53) == "-5.3"  # exact: no 0.30000000000000004
    assert value_of_tenths(0) == "0" and value_of_tenths(250) == "-25"
    assert [tenths_of_value(v) for v in ("-5.3", "0", "-25", "5", "-0.15", "x")] == [53, 0, 250, None, None, None]


def test_the_store_checks_an_answer_against_its_errors():
    mqm = protocol_of("mqm")
    text = json.dumps([_error("Fluency/Grammar", "minor", 2, 4), _error("Accuracy/Addition", "major", 0, 1)])
    value, stored = mqm.check("mqm", (), "", text)
    assert value == "-6" and [e["start"] for e in json.loads(stored)] == [0, 2]
    assert mqm.check("mqm", (), "-6", text)[0] == "-6"
    with pytest.raises(ValueError, match="-6 for these"):
        mqm.check("mqm", (), "-5", text)
    for bad in ('[{"start": 0, "end": 1, "category": "Bad/Thing", "severity": "minor"}]',
                '[{"start": 0, "end": 1, "category": "Other", "severity": "critical"}]',
                '[{"start": 2, "end": 2, "category": "Other", "severity": "minor"}]',
                '[{"start": 0, "end": null, "category": "Other", "severity": "minor"}]', "not json"):
        with pytest.raises(ValueError):
            parse_errors(bad)
    assert mqm.marked_spans(json.dumps([_error("Non-translation", "major", None, None)])) == []
    assert mqm.stored_value("mqm", (), "-5.1") == "-5.1"
    with pytest.raises(ValueError):
        mqm.stored_value("mqm", (), "5.1")


def test_marking_by_keys():
    marking = MqmMarking(5)
    marking.move(1)
    marking.move(2, extend=True)
    marking.choose("Fluency/Grammar")
    marking.mark("minor")
    marking.move(1)
    marking.mark("major")  # a second error on word 4 alone
    assert [(e["start"], e["end"], e["category"], e["severity"]) for e in marking.errors] == [
        (1, 4, "Fluency/Grammar", "minor"), (4, 5, "Fluency/Grammar", "major")]
    assert marking.tenths == 60
    marking.unmark()  # the selection is word 4: the error on it goes, the one on words 1-3 stays
    assert [(e["start"], e["end"]) for e in marking.errors] == [(1, 4)]
    marking.non_translation()
    assert marking.tenths == 250 and json.loads(marking.as_text())[0]["start"] is None


def test_marks_cover_whole_words():
    assert marked_words("Hallo <v>Welt</v>.") == ("Hallo Welt.", (1, 2))
    assert marked_words("Teleskop auf die Himmelskörper<v> zeigte</v>, ist") == (
        "Teleskop auf die Himmelskörper zeigte, ist", (4, 5))
    assert marked_words("Mobilität. <v>?") == ("Mobilität. ?", (1, 2))  # never closed: to the end
    assert marked_words("a<v> </v>b") == ("a b", None)  # covers no word
    assert marked_words("<v>a</v> <v>b</v>") is None and marked_words("a</v> b<v>") is None


def test_registered_under_its_scale():
    assert PROTOCOLS["mqm"].view == "mqm" and "mqm-systems" in PROTOCOLS["mqm"].statistics
    assert PROTOCOLS["mqm"].marks_words and PROTOCOLS["esa"].marks_words and not PROTOCOLS["da"].marks_words
