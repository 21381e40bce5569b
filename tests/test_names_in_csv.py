"""Names in a judgments CSV follow the study's rules (issue 39): ``agreement`` and ``report`` reading a CSV count
the people the study would count. Two spellings of one name (composed and decomposed) are one annotator; a name
holding an invisible, direction or control character, or a second spelling that only reads like the first (case,
fullwidth, superscript), is refused with its ``file:line``, never counted as another annotator."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.errors import InputFormatError
from parastudio.core.person_names import clean_name, name_key
from parastudio.core.stats.judgment_records import read_judgments, read_scores

INVISIBLE = st.sampled_from(["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\u202e", "\u2066", "\u200f",
                             "\u061c", "\t", "\x1b", "\u2028"])
# Letters and digits (a tab or a quote would be another family), from scripts with case, compatibility forms and
# compositions; the first letter keeps the name from being all white space.
NAME = st.text(st.characters(categories=("Lu", "Ll", "Nd"), max_codepoint=0x2FFF), min_size=1, max_size=10)
COMPOSED = st.sampled_from(["\u00e9", "\u00e5", "\u00f1", "\u00fc", "\u00c5", "\u00e7", "\ud55c", "\u1e69"])
# (annotator, item, label): two annotators, four items, as the benchmark's clean file.
ROWS = [("first", 1, "yes"), ("other", 1, "yes"), ("first", 2, "no"), ("other", 2, "yes"),
        ("first", 3, "no"), ("other", 3, "no"), ("first", 4, "yes"), ("other", 4, "yes")]
# Where the second spelling goes: the third judgment of "first", line 6 of the file (line 1 is the header).
SPELLED_ROW, SPELLED_LINE = 4, 6
HEADER = "item,annotator,system,criterion,value\n"
once = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def judgments_csv(first: str, spelled: str | None = None, other: str = "zed", system: str = "beam",
                  spelled_system: str | None = None) -> str:
    """The clean file (``spelled`` None), or the same with ``first`` spelled ``spelled`` on line 6."""
    lines = []
    for index, (who, item, label) in enumerate(ROWS):
        name, program = (first if who == "first" else other), system
        if index == SPELLED_ROW:
            name = spelled if spelled is not None else name
            program = spelled_system if spelled_system is not None else system
        lines.append(f"{item},{_cell(name)},{_cell(program)},fluency,{label}\n")
    return HEADER + "".join(lines)


def _output(tmp_path, capsys, text: str, command: list[str]) -> tuple[int, str, str]:
    """One command on ``text`` written to one path (reports name their file: the same name for both)."""
    path = tmp_path / "judgments.csv"
    path.write_text(text, encoding="utf-8")
    status = main([*command[:1], str(path), *command[1:]])
    out, err = capsys.readouterr()
    return status, out, err


def _file(tmp_path_factory, text: str) -> str:
    """A file of its own for one hypothesis example (the session's folder factory: no fixture shared by them)."""
    path = tmp_path_factory.mktemp("names") / "judgments.csv"
    path.write_text(text, encoding="utf-8")
    return str(path)


def _assert_refused_at_line_6(error: InputFormatError, column: str) -> None:
    assert error.line_number == SPELLED_LINE and f"'{column}' column" in error.expected


@given(NAME, INVISIBLE, st.integers(1, 9))
def test_a_name_holding_an_invisible_character_is_refused_with_its_line(tmp_path_factory, name, character, at):
    assume(at < len(name) and name_key(name) != name_key("zed"))
    spoiled = name[:at] + character + name[at:]
    with pytest.raises(InputFormatError) as refused:
        read_judgments(_file(tmp_path_factory, judgments_csv(name, spoiled)))
    _assert_refused_at_line_6(refused.value, "annotator")
    assert f"U+{ord(character):04X}" in refused.value.expected


@given(NAME, st.sampled_from(["upper", "lower", "title", "fullwidth", "superscript"]))
@example("\u1fbe", "upper")  # NFC changes it: the message shows the file's spelling
def test_a_look_alike_spelling_is_refused_naming_both(tmp_path_factory, name, family):
    variant = {"upper": name.upper(), "lower": name.lower(), "title": name.title(),
               "fullwidth": "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in name),
               "superscript": name + "\u00b9"}[family]
    if family == "superscript":
        name += "1"
    assume(clean_name(variant) != clean_name(name) and name_key(variant) == name_key(name) != name_key("zed"))
    with pytest.raises(InputFormatError) as refused:
        read_judgments(_file(tmp_path_factory, judgments_csv(name, variant)))
    _assert_refused_at_line_6(refused.value, "annotator")
    # The earlier spelling as the file has it (U+1FBE stays U+1FBE there, though it is stored as its NFC, U+03B9).
    assert repr(name) in refused.value.expected and refused.value.got == variant


@given(NAME, COMPOSED, NAME)
def test_composed_and_decomposed_spellings_are_one_annotator(tmp_path_factory, head, letter, tail):
    name = unicodedata.normalize("NFC", head + letter + tail)
    decomposed = unicodedata.normalize("NFD", name)
    assume(decomposed != name and name_key(name) != name_key("zed"))
    records = read_judgments(_file(tmp_path_factory, judgments_csv(name, decomposed)))
    assert records.annotator_names() == [name, "zed"]
    assert records.annotators == read_judgments(_file(tmp_path_factory, judgments_csv(name))).annotators


@once
@given(st.sampled_from(["\u00c5sa", "zo\u00eb", "\ud55c"]), st.sampled_from(["agreement", "report"]))
def test_agreement_and_report_of_two_spellings_equal_the_clean_files(tmp_path, capsys, name, command):
    argv = [command, "--bootstrap", "0"] + (["--json"] if command == "agreement" else ["--format", "json"])
    clean = _output(tmp_path, capsys, judgments_csv(name), argv)
    assert clean[0] == 0 and (command == "report" or '"n_annotators": 2' in clean[1])
    for variant in (unicodedata.normalize("NFD", name), name.replace("\u00c5", "\u212b"), f" {name} "):
        assert _output(tmp_path, capsys, judgments_csv(name, variant), argv) == clean


@once
@given(st.sampled_from([("ann\u200b1", "U+200B"), ("ANN1", "'ann1'"), ("\uff41nn1", "'ann1'"),
                        ("ann\u00b9", "'ann1'"), ("ann\u202e1", "U+202E")]),
       st.sampled_from(["agreement", "report"]))
def test_the_commands_refuse_in_one_line_exit_2(tmp_path, capsys, spelled, command):
    variant, named = spelled
    status, out, err = _output(tmp_path, capsys, judgments_csv("ann1", variant), [command, "--bootstrap", "0"])
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and f"judgments.csv:{SPELLED_LINE}: expected" in err
    assert "'annotator' column" in err and named in err


def test_system_names_follow_the_same_rules(tmp_path_factory):
    decomposed = read_judgments(_file(tmp_path_factory, judgments_csv("ann", system="caf\u00e9",
                                                                      spelled_system="cafe\u0301")))
    assert decomposed.system_names() == ["caf\u00e9"]
    for spelled in ("BEAM", "be\u200bam"):
        with pytest.raises(InputFormatError) as refused:
            read_judgments(_file(tmp_path_factory, judgments_csv("ann", system="beam", spelled_system=spelled)))
        _assert_refused_at_line_6(refused.value, "system")
    with pytest.raises(InputFormatError) as refused:
        read_scores(_file(tmp_path_factory, "item,system,score\n1,beam,1\n1,mcpg,0\n2,Beam,1\n"))
    assert refused.value.line_number == 4 and "'system' column" in refused.value.expected


