"""Training items for the criteria not answered by a label (issue 44, item 7): a direct assessment score with
the range that agrees, a preference pair with its better candidate, seed 001's choice task with the option to
pick. Each comes first, is told after the answer, counts in no statistic, and is never given as a real item."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from parastudio.core.judging.desk import open_desk
from parastudio.core.judging.guidelines import apply_guidelines
from parastudio.core.store import operations as ops
from parastudio.core.store import session_lock
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Assignment, Candidate, PreferencePair
from parastudio.core.tuning.comparison_devset import preference_records

GUIDELINES = (Path(__file__).resolve().parent / "data" / "training_other_protocols.toml").read_text(encoding="utf-8")


@pytest.fixture()
def study(tmp_path):
    db = open_database(str(tmp_path / "study.sqlite"), create=True)
    study_id = ops.create_study(db, "t", criteria=("da", "preference", "choice"))
    rows = [ops.CandidateRow(sentence_id=str(n), text=f"{text} {system}", system=system, source=text)
            for n, text in enumerate(("The cat sat.", "The dog ran.", "He ate bread."), 1)
            for system in ("s1", "s2")]
    ops.import_candidates(db, study_id, rows)
    ops.add_choice_tasks(db, study_id, [{"id": "1", "sentence": "The cat sat.", "span": [1, 2],
                                         "options": ["cat", "kitten"]}])
    guidelines = tmp_path / "g.toml"
    guidelines.write_text(GUIDELINES, encoding="utf-8")
    apply_guidelines(db, study_id, guidelines)
    ops.assign(db, study_id, ["ann", "bob"], training=3)
    yield db, study_id
    db.close()


def _rows(db, kind):
    with db.reading() as session:
        return session.execute(select(Assignment).where(Assignment.kind == kind)
                               .order_by(Assignment.annotator_id, Assignment.position)).scalars().all()


def test_each_kind_of_training_item_comes_first_with_its_own_rows(study):
    db, study_id = study
    settings = ops.study_settings(db, study_id)
    for name in ("ann", "bob"):
        annotator = ops.find_annotator(db, study_id, name)
        items = [ops.item_at(db, annotator, position) for position in range(3)]
        assert [item.criterion for item in items] == ["da", "preference", "choice"]
        assert items[0].item.isdigit() and items[1].item.startswith("pair-") and items[2].item.startswith("choice-")
        known = [ops.training_answer(settings, item.item, item.criterion) for item in items]
        assert [entry["answer"] for entry in known] == ["70-100", "first", "option:1"]
        assert items[2].options == ["unhappy", "very glad", "tall"]
        assert ops.training_answer(settings, ops.item_at(db, annotator, 3).item, "da") is None


def test_the_expected_side_of_a_training_pair_is_where_its_better_candidate_is_shown(study):
    db, study_id = study
    [entry] = [e for e in ops.study_settings(db, study_id)["instructions"]["training"] if "pair_id" in e]
    with db.reading() as session:
        pair = session.get(PreferencePair, entry["pair_id"])
        left = session.get(Candidate, pair.left_candidate_id).text
        right = session.get(Candidate, pair.right_candidate_id).text
    assert {left, right} == {"He went to the market to buy bread.", "He go market for buy the bread."}
    better = "left" if left == "He went to the market to buy bread." else "right"
    assert entry["expected"] == better


def _answer_training(db, name, values):
    annotator = ops.find_annotator(db, ops.find_study(db), name)
    for row, value in zip([r for r in _rows(db, "training") if r.annotator_id == annotator], values):
        text = "unhappy" if value == "option:1" else None
        ops.record_judgment(db, row.id, value, text=text)


def test_the_researcher_sees_who_agreed_on_scores_pairs_and_picks(study):
    db, study_id = study
    [pair] = [e for e in ops.study_settings(db, study_id)["instructions"]["training"] if "pair_id" in e]
    other_side = "right" if pair["expected"] == "left" else "left"
    _answer_training(db, "ann", ["85", pair["expected"], "option:1"])
    _answer_training(db, "bob", ["69", other_side, "original"])
    results = {r.annotator: (r.agreed, r.answered, r.given, r.passed) for r in ops.training_results(db, study_id)}
    assert results == {"ann": (3, 3, 3, True), "bob": (0, 3, 3, False)}


def test_training_pairs_and_tasks_are_in_no_record_and_never_given_as_real_items(study):
    db, study_id = study
    training = ops.study_settings(db, study_id)["instructions"]["training"]
    pair_id = next(e["pair_id"] for e in training if "pair_id" in e)
    task_id = next(e["choice_task_id"] for e in training if "choice_task_id" in e)
    _answer_training(db, "ann", ["85", "left", "option:1"])
    assert pair_id not in {int(r["id"].rsplit("-", 1)[1]) for r in preference_records(db, study_id)}
    assert len(preference_records(db, study_id)) == 3  # the three real sentences of s1:s2
    ops.assign(db, study_id, ["cy"])  # a later batch: only real items are left to give
    ops.assign(db, study_id, ["dee"], judges_per_item=3)
    real = _rows(db, "normal")
    assert real and pair_id not in {r.pair_id for r in real} and task_id not in {r.choice_task_id for r in real}


def test_the_judge_is_told_the_range_side_and_option_after_each_training_answer(study):
    db, study_id = study
    opened = open_desk(db, study_id, "ann")
    try:
        desk = opened.desk
        assert desk.item.criterion == "da"
        said = desk.answer("60").status
        assert "the expected answer was a score from 70 to 100" in said and "good English" in said
    finally:
        session_lock.release(db, opened.lock)
    opened = open_desk(db, study_id, "bob")
    try:
        desk = opened.desk
        assert "you agreed" in desk.answer("90").status
        [pair] = [e for e in ops.study_settings(db, study_id)["instructions"]["training"] if "pair_id" in e]
        wrong = "right" if pair["expected"] == "left" else "left"
        said = desk.answer(wrong).status
        assert f"the expected answer was {pair['expected']} is better" in said and "not English" in said
        assert desk.item.criterion == "choice"
        assert "you agreed" in desk.answer("option:1").status
    finally:
        session_lock.release(db, opened.lock)


def test_a_judges_package_keeps_its_training_items_marked_and_out_of_its_progress(study, tmp_path):
    db, study_id = study
    package = tmp_path / "ann.sqlite"
    ops.export_package(db, study_id, "ann", package)
    with open_database(str(package)) as own:
        annotator = ops.find_annotator(own, ops.find_study(own), "ann")
        kinds = [r.kind for r in _rows(own, "training")]
        assert kinds == ["training"] * 3
        done, total = ops.progress_counts(own, ops.find_study(own), annotator)[annotator]
        assert (done, total) == (0, len([r for r in _rows(db, "normal")
                                         if r.annotator_id == ops.find_annotator(db, study_id, "ann")]))
        settings = ops.study_settings(own, ops.find_study(own))
        assert ops.training_answer(settings, ops.item_at(own, annotator, 0).item, "da")["answer"] == "70-100"


def test_writing_the_guidelines_again_keeps_each_kinds_rows(study, tmp_path):
    db, study_id = study
    before = ops.study_settings(db, study_id)["instructions"]["training"]
    again = tmp_path / "again.toml"
    again.write_text(GUIDELINES.replace("Read each item.", "Read each item twice."), encoding="utf-8")
    apply_guidelines(db, study_id, again)
    assert ops.study_settings(db, study_id)["instructions"]["training"] == before


GUIDELINE_HEAD = 'introduction = "x"\n\n[[training]]\n'


@pytest.mark.parametrize(("body", "message"), [
    ('criterion = "da"\ncandidate = "A."\nreason = "r"\nanswer = [90, 10]\n', r":7: expected a range of scores"),
    ('criterion = "da"\ncandidate = "A."\nreason = "r"\nanswer = 101\n', r":7: expected criterion 'da' takes a whole"),
    ('criterion = "da"\ncandidate = "A."\nreason = "r"\nanswer = [1, 2, 3]\n', r":7: expected criterion 'da' takes a score"),
    ('criterion = "preference"\nsource = "S."\nfirst = "A."\nsecond = "A."\nanswer = "first"\nreason = "r"\n',
     r":7: expected a candidate other than the first at training\[1\].second"),
    ('criterion = "preference"\nsource = "S."\nfirst = "A."\nsecond = "B."\nanswer = "left"\nreason = "r"\n',
     r":8: expected criterion 'preference' takes first, second or tie"),
    ('criterion = "preference"\nsource = "S."\ncandidate = "A."\nreason = "r"\n', r":6: expected only the keys"),
    ('criterion = "preference"\nfirst = "A."\nsecond = "B."\nanswer = "tie"\nreason = "r"\n',
     r":3: expected a key 'source'"),
    ('criterion = "choice"\nsource = "a b c"\nspan = [2, 4]\noptions = ["x"]\nanswer = "original"\nreason = "r"\n',
     r":6: expected the highlighted words as \[i, j\] with 0 <= i < j <= 3"),
    ('criterion = "choice"\nsource = "a b c"\nspan = [0, 1]\noptions = []\nanswer = "original"\nreason = "r"\n',
     r":7: expected a list of 1 to 5 suggestions"),
    ('criterion = "choice"\nsource = "a b c"\nspan = [0, 1]\noptions = ["x"]\nanswer = "option:2"\nreason = "r"\n',
     r":8: expected criterion 'choice' takes original or option:N with N from 1 to 1"),
    ('criterion = "choice"\nsource = "a b c"\nspan = [0, 1]\noptions = ["x"]\nanswer = "custom"\nreason = "r"\n',
     r":8: expected a custom choice needs"),
    ('criterion = "mqm"\ncandidate = "A."\nanswer = "0"\nreason = "r"\n',
     r":4: expected a criterion of this study with one known answer per item \(da, preference, choice\)"),
])
def test_a_training_item_of_the_wrong_shape_is_refused_naming_its_line(tmp_path, body, message):
    from parastudio.core.judging.guidelines import read_guidelines
    from parastudio.core.store.criteria import preset_criterion

    path = tmp_path / "g.toml"
    path.write_text(GUIDELINE_HEAD + body, encoding="utf-8")
    criteria = [preset_criterion(name) for name in ("da", "preference", "choice", "mqm")]
    with pytest.raises(ValueError, match="g.toml" + message):
        read_guidelines(path, criteria)


@pytest.mark.parametrize(("answer", "kept"), [("85", "85-85"), ("[0, 100]", "0-100"), ('"60-80"', "60-80"),
                                              ("[40, 40]", "40-40")])
def test_a_known_score_is_kept_as_its_range(tmp_path, answer, kept):
    from parastudio.core.judging.guidelines import read_guidelines
    from parastudio.core.judging.protocols import protocol_of
    from parastudio.core.store.criteria import preset_criterion

    path = tmp_path / "g.toml"
    path.write_text(GUIDELINE_HEAD + f'criterion = "esa"\ncandidate = "A."\nreason = "r"\nanswer = {answer}\n',
                    encoding="utf-8")
    [item] = read_guidelines(path, [preset_criterion("esa")]).training
    assert item.answer == kept
    low, high = (int(x) for x in kept.split("-"))
    for score in range(0, 101):
        assert protocol_of("esa").agrees_with_known(kept, str(score)) == (low <= score <= high)
