"""``parastudio study guidelines`` (issue 44, item 7): a TOML file sets a study's introduction, its questions and
their good and bad examples in one transaction; a file with any fault is refused with its file, line and key, and
leaves the study's bytes as they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from parastudio.core.cli import main
from parastudio.core.judging.guidelines import read_guidelines
from parastudio.core.store import operations as ops
from parastudio.core.store.criteria import preset_criterion
from parastudio.core.store.database import open_database

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "guidelines.toml"


@pytest.fixture()
def study(tmp_path):
    path = tmp_path / "study.sqlite"
    assert main(["study", "create", "--db", str(path), "bible"]) == 0
    return path


def _stored(path: Path):
    db = open_database(str(path))
    try:
        study_id = ops.find_study(db)
        return (ops.study_settings(db, study_id).get("instructions"),
                {c.name: c.question for c in ops.study_criteria(db, study_id)})
    finally:
        db.close()


def test_the_example_file_sets_the_introduction_questions_and_examples(study, capsys):
    _, questions_before = _stored(study)
    assert main(["study", "guidelines", "--db", str(study), str(EXAMPLE)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["introduction: changed",
                   "fluency: question changed; examples changed (0 before, 2 now)",
                   "meaning: question changed; examples changed (0 before, 2 now)",
                   "usability: unchanged",
                   "training items: changed (0 before, 3 now; `study assign --training N` gives the first N to each "
                   "judge)"]
    instructions, questions = _stored(study)
    assert instructions["text"].startswith("You will judge paraphrases of Bible verses")
    assert questions["meaning"] == "Do both sentences say the same thing?"
    assert questions["fluency"] == "Is this good, natural English?"
    assert questions["usability"] == questions_before["usability"]  # not named in the file: kept
    assert instructions["examples"]["meaning"][1] == {
        "good": False, "source": "Abraham hurried into the tent to Sarah.",
        "text": "Abraham hurried into the tent to the servant.", "reason": "it changes who he went to"}
    assert [e["good"] for e in instructions["examples"]["fluency"]] == [True, False]
    assert [(t["criterion"], t["answer"]) for t in instructions["training"]] == [
        ("fluency", "no"), ("meaning", "yes"), ("usability", "3")]
    assert main(["study", "guidelines", "--db", str(study), str(EXAMPLE)]) == 0  # the same file again: nothing
    assert capsys.readouterr().out.splitlines() == ["introduction: unchanged", "fluency: unchanged",
                                                    "meaning: unchanged", "usability: unchanged",
                                                    "training items: unchanged"]


def test_a_criterion_the_file_does_not_name_keeps_its_examples(study, tmp_path):
    assert main(["study", "guidelines", "--db", str(study), str(EXAMPLE)]) == 0
    only_fluency = tmp_path / "fluency.toml"
    only_fluency.write_text('introduction = "Read carefully."\n[criteria.fluency]\nquestion = "Good English?"\n',
                            encoding="utf-8")
    assert main(["study", "guidelines", "--db", str(study), str(only_fluency)]) == 0
    instructions, questions = _stored(study)
    assert instructions["text"] == "Read carefully."
    assert instructions["examples"]["fluency"] == []  # named without examples: it has none now
    assert len(instructions["examples"]["meaning"]) == 2
    assert questions["meaning"] == "Do both sentences say the same thing?"


FAULTS = [  # (what is replaced in the example file, by what, the line and words of the error)
    ('reason = "it changes who he went to"', 'reasn = "it changes who he went to"', 38,
     "only the keys verdict, source, candidate, reason at criteria.meaning.examples[2].reasn"),
    ("[criteria.meaning]", "[criteria.meanin]", 25,
     "a criterion of this study (fluency, meaning, usability) at criteria.meanin"),
    ('verdict = "bad"\ncandidate = "If now', 'verdict = "meh"\ncandidate = "If now', 21,
     '"good" or "bad" at criteria.fluency.examples[2].verdict'),
    ('question = "Do both sentences say the same thing?"', "question = 3", 26, "text in quotes at criteria.meaning.question"),
    ('question = "Do both sentences say the same thing?"', 'question = "Do both', 26, "TOML: a guidelines file"),
    ('candidate = "Abraham hurried into the tent to the servant."\n', "", 34,
     "a key 'candidate' (text) at criteria.meaning.examples[2].candidate"),
    ('reason = "another word, the same event"', 'reason = ""', 32,
     "some text, not an empty string at criteria.meaning.examples[1].reason"),
    ("[[criteria.meaning.examples]]", "[criteria.meaning.examples]", 34, "TOML: a guidelines file"),
    ('introduction = """', 'preface = """', 6, "only the keys introduction, criteria, training at preface"),
]


@pytest.mark.parametrize("old, new, line, expected", FAULTS)
def test_a_faulty_file_is_refused_with_its_line_and_the_study_is_unchanged(study, tmp_path, capsys, old, new, line,
                                                                           expected):
    assert main(["study", "guidelines", "--db", str(study), str(EXAMPLE)]) == 0
    text = EXAMPLE.read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    before = study.read_bytes()
    capsys.readouterr()
    assert main(["study", "guidelines", "--db", str(study), str(bad)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"parastudio: error: {bad}:{line}: expected ") and expected in error
    assert "Traceback" not in error
    assert study.read_bytes() == before


def test_the_reader_refuses_an_unknown_criterion_without_a_study(tmp_path):
    path = tmp_path / "g.toml"
    path.write_text('introduction = "x"\n\n[criteria.da]\nquestion = "Score it"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"g.toml:3: expected a criterion of this study \(meaning\) at criteria.da"):
        read_guidelines(path, [preset_criterion("meaning")])
    assert read_guidelines(path, [preset_criterion("da")]).questions == {"da": "Score it"}


def test_training_items_are_checked_against_the_criterions_scale(tmp_path):
    path = tmp_path / "g.toml"
    criteria = [preset_criterion("meaning"), preset_criterion("usability"), preset_criterion("da")]
    head = 'introduction = "x"\n\n[[training]]\ncriterion = "meaning"\ncandidate = "A."\nreason = "why"\n'
    path.write_text(head + 'answer = "maybe"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"g.toml:7: expected .*yes.* at training\[1\].answer"):
        read_guidelines(path, criteria)
    path.write_text(head.replace('"meaning"', '"da"') + 'answer = "50"\n', encoding="utf-8")
    assert read_guidelines(path, criteria).training[0].answer == "50-50"  # a score: the range that agrees
    path.write_text(head.replace('"meaning"', '"mqm"') + 'answer = "0"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"g.toml:4: expected a criterion of this study with one known answer per "
                       r"item \(meaning, usability, da\) at training\[1\].criterion"):
        read_guidelines(path, [*criteria, preset_criterion("mqm")])
    path.write_text(head.replace('"meaning"', '"usability"') + "answer = 3\n", encoding="utf-8")
    assert read_guidelines(path, criteria).training[0].answer == "3"
    path.write_text(head + 'answer = "Yes"\n', encoding="utf-8")
    assert read_guidelines(path, criteria).training[0].as_setting() == {
        "criterion": "meaning", "source": "", "candidate": "A.", "answer": "yes", "reason": "why"}
