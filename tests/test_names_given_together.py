"""Names given together (issue 39): a list of annotators (``study assign``, ``assign-next``, the Studies screen's
new study), of adjudicators or of system pairs is cleaned before its names are compared, so two spellings of one
name ("zoë" composed and decomposed, "Åsa" with the Angstrom sign, Hangul in jamo, a trailing space, a look-alike)
are refused in one line naming both, and the study is left byte for byte as it was."""

from __future__ import annotations

import hashlib
import unicodedata

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from parastudio.core.adaptive_assignment import StoppingRule, assign_next
from parastudio.core.cli import main
from parastudio.core.errors import BadNameError
from parastudio.core.person_names import name_key
from parastudio.core.progress import no_progress
from parastudio.core.store import operations as ops
from parastudio.core.store.adjudicator_role import adjudicators, set_adjudicators
from parastudio.core.store.annotation_queries import annotator_names, study_summaries
from parastudio.core.store.database import open_database
from parastudio.core.store.preference_pairs import parse_system_pairs
from parastudio.core.study_builder import StudyPlan, study_from_file

NAME = st.text(st.characters(categories=("Lu", "Ll", "Nd"), max_codepoint=0x2FFF), min_size=1, max_size=10)
COMPOSED = st.sampled_from(["\u00e9", "\u00e5", "\u00f1", "\u00fc", "\u00c5", "\u00e7", "\ud55c", "\u1e69"])
# A second spelling of one name: equal once cleaned (stripped, composed), or only reading alike.
SPELLINGS = {
    "decomposed": lambda name: unicodedata.normalize("NFD", name),
    "angstrom-sign": lambda name: name.replace("\u00c5", "\u212b"),
    "trailing-space": lambda name: name + " ",
    "upper-case": str.upper,
    "fullwidth": lambda name: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in name),
}
many = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def study(tmp_path):
    path = tmp_path / "s.sqlite"
    with open_database(path, create=True) as db:
        study_id = ops.create_study(db, "toy", criteria=("meaning",))
        ops.import_candidates(db, study_id, [ops.CandidateRow(sentence_id=str(i), text=f"a {i}", system=system,
                                                              source=f"s {i}")
                                             for i in range(3) for system in ("x", "y")])
    return path


@many
@given(NAME, COMPOSED, NAME, st.sampled_from(sorted(SPELLINGS)))
def test_two_spellings_of_one_annotator_are_refused_naming_both(study, capsys, head, letter, tail, family):
    name = unicodedata.normalize("NFC", head + letter + tail)
    other = SPELLINGS[family](name)
    assume(other != name and name_key(other) == name_key(name) and "," not in other)
    before = _sha256(study)
    assert main(["study", "assign", "--db", str(study), "--annotators", f"{name},{other}"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    assert ascii(name) in err and ascii(other) in err
    assert _sha256(study) == before


def test_one_decomposed_name_is_assigned_and_reported_as_stored(study, capsys):
    assert main(["study", "assign", "--db", str(study), "--annotators", "zoe\u0308, bob"]) == 0
    out = capsys.readouterr().out
    assert "  zo\u00eb: " in out and "zoe\u0308" not in out and ": 0 assignments" not in out
    with open_database(study) as db:
        assert annotator_names(db, ops.find_study(db)) == ["bob", "zo\u00eb"]


def test_assign_next_refuses_before_it_changes_the_study(study):
    before = _sha256(study)
    with open_database(study) as db:
        with pytest.raises(BadNameError, match="'zo\\\\xeb' and 'zoe\\\\u0308'"):
            assign_next(db, ops.find_study(db), ["zo\u00eb", "zoe\u0308"], sentences=1, criterion="meaning",
                        rule=StoppingRule.parse("decided"))
    assert _sha256(study) == before


def test_a_new_study_with_two_spellings_of_one_annotator_is_never_made(tmp_path):
    candidates = tmp_path / "c.jsonl"
    candidates.write_text('{"sentence_id": 0, "system": "x", "text": "a b", "source": "a c"}\n', encoding="utf-8")
    with open_database(tmp_path / "s.sqlite", create=True) as db:
        with pytest.raises(BadNameError, match="one name given twice"):
            study_from_file(no_progress, db, StudyPlan("new", ["\u00c5sa", "\u212bsa"]), str(candidates))
        assert study_summaries(db) == []


def test_adjudicators_are_stored_as_annotators_are(study):
    with open_database(study) as db:
        study_id = ops.find_study(db)
        set_adjudicators(db, study_id, ["zoe\u0308", "zo\u00eb"])
        assert adjudicators(db, study_id) == ("zo\u00eb",)
        with pytest.raises(BadNameError, match="reads as 'zo\\\\xeb'"):
            set_adjudicators(db, study_id, ["zo\u00eb", "ZO\u00cb"])
        assert adjudicators(db, study_id) == ("zo\u00eb",)


def test_a_system_pair_of_one_system_spelled_twice_is_refused():
    assert parse_system_pairs("caf\u00e9:x") == [("caf\u00e9", "x")] == parse_system_pairs("cafe\u0301:x")
    with pytest.raises(ValueError, match="two different systems"):
        parse_system_pairs("caf\u00e9:cafe\u0301")
