"""Names people give (issue 39): one spelling each, look-alikes caught, nothing invisible; and bidi controls in
data never reorder what a terminal shows."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.errors import BadNameError
from parastudio.core.person_names import clean_name, look_alike, name_key
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.terminal_text import escape_controls

INVISIBLE = st.sampled_from(["\u200b", "\u200c", "\u200d", "\u00ad", "\u202e", "\u202a", "\u2066", "\u2067",
                             "\u2068", "\u2069", "\u200e", "\u200f", "\u061c", "\ufeff", "\x07", "\x1b", "\u2028"])
NAME = st.text(st.characters(categories=("Lu", "Ll", "Nd"), max_codepoint=0x2FFF), min_size=1, max_size=12)


@given(NAME, INVISIBLE, st.integers(0, 12))
def test_a_name_holding_an_invisible_or_direction_character_is_refused(name, character, at):
    assume(0 < at < len(name))  # inside the name: at its ends, a separator is white space and is stripped
    spoiled = name[:at] + character + name[at:]
    with pytest.raises(BadNameError, match=f"U\\+{ord(character):04X}"):
        clean_name(spoiled)


@given(NAME)
def test_look_alikes_read_as_one_name(name):
    shown = clean_name(name)
    for variant in (unicodedata.normalize("NFD", shown), shown.upper(), shown.lower()):
        if name_key(variant) != name_key(shown):
            continue  # a case mapping that is no look-alike (Turkish dotless i: "ı".upper() is "I")
        cleaned = clean_name(variant)
        assert name_key(cleaned) == name_key(shown)
        # The same name, or one the study would refuse as reading like it; never a second person.
        assert cleaned == shown or look_alike(cleaned, [shown]) == shown


def test_nfc_and_nfd_are_one_annotator_and_look_alikes_are_refused(tmp_path):
    with open_database(tmp_path / "s.sqlite", create=True) as db:
        study = ops.create_study(db, "toy", criteria=("meaning",))
        jose = ops.find_annotator(db, study, "Jos\u00e9", create=True)
        assert ops.find_annotator(db, study, "Jose\u0301", create=True) == jose
        ops.find_annotator(db, study, "ann", create=True)
        for look_alike_name in ("\uff41nn", "Ann", "ANN"):
            with pytest.raises(BadNameError, match="reads as the study's annotator 'ann'"):
                ops.find_annotator(db, study, look_alike_name, create=True)
        for spoiled in ("ann\u200b", "an\u200dn", "\u202eann", "an\u00adn"):
            with pytest.raises(BadNameError):
                ops.find_annotator(db, study, spoiled, create=True)
        with pytest.raises(BadNameError, match="reads as the study"):
            ops.create_study(db, "TOY")


def test_the_cli_refuses_look_alike_annotators_in_one_line(tmp_path, capsys):
    path = tmp_path / "s.sqlite"
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "toy", criteria=("meaning",))
        ops.import_candidates(db, study, [ops.CandidateRow(sentence_id="0", text="a b", system="x", source="a c")])
    for names in ("ann,\uff41nn", "ann,ann\u200b", "bob,\u202ebob"):
        assert main(["study", "assign", "--db", str(path), "--annotators", names]) == 2
        err = capsys.readouterr().err
        assert err.startswith("parastudio: error:") and "Traceback" not in err and len(err.splitlines()) == 1
    with open_database(path) as db:
        assert ops.study_progress(db, ops.find_study(db)).total == 0  # nothing was assigned


def test_nfc_and_nfd_candidates_are_one_candidate_credited_to_both_systems(tmp_path):
    with open_database(tmp_path / "s.sqlite", create=True) as db:
        study = ops.create_study(db, "toy", criteria=("meaning",))
        report = ops.import_candidates(db, study, [
            ops.CandidateRow(sentence_id="0", text="un caf\u00e9", system="a", source="a coffee"),
            ops.CandidateRow(sentence_id="0", text="un cafe\u0301", system="b", source="a coffee")])
        assert report.candidates_added == 1 and report.credited_to_existing == 1


@settings(max_examples=50)
@given(st.text(max_size=20), st.sampled_from(["\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f"]))
def test_bidi_controls_from_data_are_shown_escaped(text, control):
    shown = escape_controls(text + control + text)
    assert control not in shown and f"\\u{ord(control):04x}" in shown
