"""The adjudicator role (issue 28 Found 6): only names the researcher gave the role read the judges' labels."""

from __future__ import annotations

import pytest

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.adjudicator_role import NotAnAdjudicator, adjudicators, disagreements_for, set_adjudicators
from parastudio.core.store.database import open_database


@pytest.fixture
def study(tmp_path):
    path = tmp_path / "study.sqlite"
    with open_database(path, create=True) as db:
        study_id = ops.create_study(db, "toy", criteria=("meaning",))
        ops.import_candidates(db, study_id, [ops.CandidateRow(sentence_id="0", text="a b", system="x", source="a c")])
        ops.assign(db, study_id, ["ann", "bob"])
        for name, value in (("ann", "yes"), ("bob", "no")):
            item = ops.next_item(db, ops.find_annotator(db, study_id, name))
            ops.record_judgment(db, item.assignment_id, value)
    return path, study_id


def test_a_judge_reads_no_label_and_a_named_adjudicator_reads_both(study):
    path, study_id = study
    with open_database(path) as db:
        for name in ("ann", "bob", "carol"):
            with pytest.raises(NotAnAdjudicator, match=f"{name} is not an adjudicator"):
                disagreements_for(db, study_id, name)
        set_adjudicators(db, study_id, ["carol", " ", "carol"])
        assert adjudicators(db, study_id) == ("carol",)
        [entry] = disagreements_for(db, study_id, "carol")
        assert entry.labels == {"ann": "yes", "bob": "no"}
        with pytest.raises(NotAnAdjudicator):
            disagreements_for(db, study_id, "ann")


def test_the_researcher_names_adjudicators_on_the_command_line(study, capsys):
    path, study_id = study
    assert main(["study", "adjudicators", "--db", str(path)]) == 0
    assert capsys.readouterr().out.strip() == "(no adjudicator)"
    assert main(["study", "adjudicators", "--db", str(path), "--set", "carol,dave"]) == 0
    capsys.readouterr()
    with open_database(path) as db:
        assert adjudicators(db, study_id) == ("carol", "dave")
    assert main(["study", "adjudicators", "--db", str(path), "--set", ""]) == 0
    with open_database(path) as db:
        assert adjudicators(db, study_id) == ()


def test_an_adjudicator_is_no_judge_in_progress_quality_control_or_a_new_choice_tasks_judges(study):
    """Issue 28 Found 8: QC listed the adjudicator as an annotator, progress counted adjudications as assignments,
    and Ctrl+T named an adjudicator among a choice task's judges."""
    from parastudio.core.inspection.suggestion_study import judge_names

    path, study_id = study
    with open_database(path) as db:
        before = ops.study_progress(db, study_id)
        set_adjudicators(db, study_id, ["carol"])
        [entry] = disagreements_for(db, study_id, "carol")
        ops.record_adjudication(db, study_id, "carol", entry.key, "yes")
        after = ops.study_progress(db, study_id)
        assert (after.done, after.total, after.per_annotator) == (before.done, before.total, before.per_annotator)
        assert set(after.per_annotator) == {"ann", "bob"}
        assert [report.annotator for report in ops.quality_control(db, study_id)] == ["ann", "bob"]
        assert judge_names(db) == ["ann", "bob"]
