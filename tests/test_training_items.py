"""Training items (issue 44, item 7): ``study assign --training N`` puts the guidelines' first N training items
before every judge's real items; a training answer is stored like any other but changes no statistic, and the
researcher sees who passed (``study progress``)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import select

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Assignment
from parastudio.core.study_judgments import study_judgment_records

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "guidelines.toml"
START = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


@pytest.fixture()
def study(tmp_path):
    path = tmp_path / "study.sqlite"
    rows = tmp_path / "c.csv"
    rows.write_text("item,source,candidate,system\n1,The cat sat on the mat.,A cat sat on the mat.,s1\n"
                    "2,The dog ran.,The dog was running.,s1\n3,He ate bread.,He ate some bread.,s1\n", encoding="utf-8")
    assert main(["study", "create", "--db", str(path), "t"]) == 0
    assert main(["study", "import-candidates", "--db", str(path), str(rows)]) == 0
    assert main(["study", "guidelines", "--db", str(path), str(EXAMPLE)]) == 0
    assert main(["study", "assign", "--db", str(path), "--annotators", "ann,bob", "--training", "3"]) == 0
    return path


def _assignments(db, kind):
    with db.reading() as session:
        return session.execute(select(Assignment.id, Assignment.annotator_id, Assignment.position,
                                      Assignment.candidate_id, Assignment.criterion_id)
                               .where(Assignment.kind == kind).order_by(Assignment.annotator_id,
                                                                        Assignment.position)).all()


def test_training_items_come_first_for_every_judge_and_each_is_known_by_its_candidate(study):
    db = open_database(str(study))
    try:
        study_id = ops.find_study(db)
        settings = ops.study_settings(db, study_id)
        for name in ("ann", "bob"):
            annotator = ops.find_annotator(db, study_id, name)
            first = [ops.next_item(db, annotator)]
            assert first[0].position == 0
            positions = [row.position for row in _assignments(db, "training") if row.annotator_id == annotator]
            assert positions == [0, 1, 2]
            items = [ops.item_at(db, annotator, p) for p in positions]
            assert [(i.criterion, i.candidate) for i in items] == [
                ("fluency", "The man went to the market for buy bread."),
                ("meaning", "The king gave his sons the land."), ("usability", "He was very sad.")]
            known = [ops.training_answer(settings, i.item, i.criterion) for i in items]
            assert [k["answer"] for k in known] == ["no", "yes", "3"]
            normal = [row.position for row in _assignments(db, "normal") if row.annotator_id == annotator]
            assert min(normal) == 3
        real = ops.item_at(db, ops.find_annotator(db, study_id, "ann"), 3)
        assert ops.training_answer(settings, real.item, real.criterion) is None
    finally:
        db.close()


def test_a_later_batch_puts_training_before_a_judges_existing_items(study):
    assert main(["study", "assign", "--db", str(study), "--annotators", "cy"]) == 0  # nothing left: no items
    assert main(["study", "assign", "--db", str(study), "--annotators", "ann,cy", "--training", "2"]) == 0
    db = open_database(str(study))
    try:
        training = _assignments(db, "training")
        ann = ops.find_annotator(db, ops.find_study(db), "ann")
        assert [r.position for r in training if r.annotator_id == ann] == [0, 1, 2]  # had training: none more
        cy = ops.find_annotator(db, ops.find_study(db), "cy")
        assert [r.position for r in training if r.annotator_id == cy] == [0, 1]
    finally:
        db.close()


def test_more_training_items_than_written_is_refused(study, capsys):
    assert main(["study", "assign", "--db", str(study), "--annotators", "dee", "--training", "4"]) == 1
    assert "--training 4: the study has 3 training items" in capsys.readouterr().err


def _statistics(study: Path, capsys) -> dict:
    """Every statistic the study gives, as text: the report, QC, progress, pace, export, the records."""
    capsys.readouterr()
    outputs = {}
    for name, argv in {"report": ["report", str(study), "--format", "json"],
                       "qc": ["study", "qc", "--db", str(study), "--json"],
                       "export": ["study", "export-judgments", "--db", str(study), "--include-qc", "--history",
                                  "--format", "jsonl"],
                       "pace": ["study", "pace", "--db", str(study), "--json"],
                       "agreement": ["study", "status", str(study), "--json"]}.items():
        assert main(argv) == 0, name
        outputs[name] = capsys.readouterr().out
    assert main(["study", "progress", "--db", str(study), "--json"]) == 0
    progress = json.loads(capsys.readouterr().out)
    outputs["progress"] = {k: progress[k] for k in ("done", "total", "per_annotator")}
    db = open_database(str(study))
    try:
        study_id = ops.find_study(db)
        outputs["records"] = repr(study_judgment_records(db, study_id).__dict__)
        outputs["times"] = ops.answer_times(db, study_id)
        outputs["quality"] = ops.quality_control(db, study_id)
    finally:
        db.close()
    return outputs


def test_a_training_answer_changes_no_statistic_and_the_researcher_sees_who_passed(study, capsys):
    db = open_database(str(study))
    try:
        clock = iter(range(1, 1000))
        for row in _assignments(db, "normal"):  # every real item answered, with a clock
            at = START + timedelta(seconds=10 * next(clock))
            criterion = ops.item_at(db, row.annotator_id, row.position).criterion
            ops.record_judgment(db, row.id, "3" if criterion == "usability" else "yes", answered_at=at,
                                duration_ms=4000)
        training = _assignments(db, "training")
    finally:
        db.close()
    before = _statistics(study, capsys)
    db = open_database(str(study))
    try:
        for row, value in zip(training, ["no", "yes", "3", "yes", "yes", "3"]):  # ann agrees, bob not on one
            ops.record_judgment(db, row.id, value, answered_at=START + timedelta(hours=1), duration_ms=500)
    finally:
        db.close()
    after = _statistics(study, capsys)
    for name in before:
        assert after[name] == before[name], name
    assert main(["study", "progress", "--db", str(study), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["training"] == {
        "ann": {"agreed": 3, "answered": 3, "given": 3, "passed": True},
        "bob": {"agreed": 2, "answered": 3, "given": 3, "passed": False}}
    assert main(["study", "progress", "--db", str(study)]) == 0
    out = capsys.readouterr().out
    assert "  ann                  3 / 3   passed" in out and "  bob                  2 / 3   not passed" in out


def test_on_a_judges_own_postgresql_login_training_comes_first_is_told_and_is_no_progress(postgres_url, tmp_path):
    """The known answers are in the settings a judge's login reads (revision 0007's ps_judging_settings): its desk
    tells the judge after a training item; its progress bar counts only real items; it reads no one's results."""
    import uuid

    from parastudio.core.judging.desk import open_desk
    from parastudio.core.judging.guidelines import apply_guidelines
    from parastudio.core.store import session_lock

    judge = f"tj_{uuid.uuid4().hex[:6]}"
    db = open_database(postgres_url, create=True)
    study_id = ops.create_study(db, f"trained {judge}", criteria=("meaning",))
    guidelines = tmp_path / "g.toml"
    guidelines.write_text('introduction = "x"\n[[training]]\ncriterion = "meaning"\nsource = "The dog ran."\n'
                          'candidate = "The dog slept."\nanswer = "no"\nreason = "running is not sleeping"\n',
                          encoding="utf-8")
    try:
        apply_guidelines(db, study_id, guidelines)
        ops.import_candidates(db, study_id, [ops.CandidateRow(sentence_id="1", text="A cat sat.", system="s",
                                                              source="The cat sat.")])
        ops.assign(db, study_id, [judge], training=1)
        url = ops.invite(db, study_id, f"trained {judge}", judge, "judge").url
        with open_database(url) as own:
            [membership] = ops.connection_membership(own).values()
            opened = open_desk(own, study_id, judge)
            try:
                desk = opened.desk
                assert desk.item.candidate == "The dog slept."
                outcome = desk.answer("yes")
                assert "the expected answer was No" in outcome.status and "running is not sleeping" in outcome.status
                assert desk.item.candidate == "A cat sat."
                real = desk.answer("yes")
                assert real.status is None
                for record in (outcome.record, real.record):  # stored as the screen's writer stores them
                    ops.record_judgment(own, record.assignment_id, record.value)
            finally:
                session_lock.release(own, opened.lock)
            assert ops.progress_counts(own, study_id, membership.annotator_id) == {membership.annotator_id: (1, 1)}
            assert ops.training_results(own, study_id) == []
        assert [(r.agreed, r.answered, r.given) for r in ops.training_results(db, study_id)] == [(0, 1, 1)]
    finally:
        ops.revoke(db, study_id, judge)
        db.close()


def test_giving_training_items_to_judges_midway_changes_no_statistic(tmp_path, capsys):
    path = tmp_path / "study.sqlite"
    rows = tmp_path / "c.csv"
    rows.write_text("item,source,candidate,system\n1,The cat sat.,A cat sat.,s1\n2,The dog ran.,The dog was running.,s1\n",
                    encoding="utf-8")
    for argv in (["study", "create", "--db", str(path), "t"], ["study", "import-candidates", "--db", str(path), str(rows)],
                 ["study", "guidelines", "--db", str(path), str(EXAMPLE)],
                 ["study", "assign", "--db", str(path), "--annotators", "ann,bob"]):
        assert main(argv) == 0
    db = open_database(str(path))
    try:
        for number, row in enumerate(_assignments(db, "normal")):
            criterion = ops.item_at(db, row.annotator_id, row.position).criterion
            ops.record_judgment(db, row.id, "3" if criterion == "usability" else ("yes", "no")[number % 2],
                                answered_at=START + timedelta(seconds=10 * number), duration_ms=3000)
    finally:
        db.close()
    before = _statistics(path, capsys)
    assert main(["study", "assign", "--db", str(path), "--annotators", "ann,bob", "--training", "3"]) == 0
    after = _statistics(path, capsys)
    for name in before:
        assert after[name] == before[name], name
    db = open_database(str(path))
    try:
        ann = ops.find_annotator(db, ops.find_study(db), "ann")
        assert [r.position for r in _assignments(db, "training") if r.annotator_id == ann] == [-3, -2, -1]
    finally:
        db.close()


def test_writing_the_guidelines_again_keeps_the_training_items_given_to_judges(study, tmp_path, capsys):
    db = open_database(str(study))
    try:
        first = _assignments(db, "training")[0]
        ops.record_judgment(db, first.id, "no")
        capsys.readouterr()
    finally:
        db.close()
    assert main(["study", "guidelines", "--db", str(study), str(EXAMPLE)]) == 0
    assert "training items: unchanged" in capsys.readouterr().out
    changed = tmp_path / "g.toml"
    changed.write_text(EXAMPLE.read_text(encoding="utf-8").replace('answer = "no"', 'answer = "yes"'),
                       encoding="utf-8")
    assert main(["study", "guidelines", "--db", str(study), str(changed)]) == 0
    db = open_database(str(study))
    try:
        study_id = ops.find_study(db)
        entries = ops.study_settings(db, study_id)["instructions"]["training"]
        assert all(entry.get("candidate_id") is not None for entry in entries)
        ann = {r.annotator: r for r in ops.training_results(db, study_id)}["ann"]
        assert (ann.agreed, ann.answered) == (0, 1)  # judged against the answer as the guidelines say it now
    finally:
        db.close()
