"""Seed 001 §4.2.1 as the thesis ran it: four judges per choice task by default, and a case already answered
for another approach, whose chosen paraphrase is among this approach's options, closed as an auto-skip (not a
judgment) that Fig. 4.5 counts as a success."""

from __future__ import annotations

from sqlalchemy import select

from parastudio.core.cli import main
from parastudio.core.stats.report_tables import build_report
from parastudio.core.store import operations as ops
from parastudio.core.store.annotation_session import AnnotationSession
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Judgment, Study
from parastudio.core.study_judgments import study_judgment_records

# Case 0: both approaches offer "was the first state"; case 1: nothing in common.
TASKS = [
    {"id": "case0", "sentence": "indiana became the first state to impose it", "span": [1, 5],
     "options": ["was the first state", "made the first nation"], "system": "approach-1"},
    {"id": "case0", "sentence": "indiana became the first state to impose it", "span": [1, 5],
     "options": ["has grown first state", "led the first country", "Was the first  state"], "system": "approach-10"},
    {"id": "case1", "sentence": "such a requirement", "span": [0, 2], "options": ["such a need"],
     "system": "approach-1"},
    {"id": "case1", "sentence": "such a requirement", "span": [0, 2], "options": ["this requirement"],
     "system": "approach-10"},
]


def judge(db, annotator: str, pick_first_case: bool) -> AnnotationSession:
    """Answer every item the session shows: in case 0 "was the first state" (or keep the original), in case 1
    always the first option."""
    session = AnnotationSession(db, ops.find_annotator(db, 1, annotator))
    item = session.first()
    while item is not None:
        if item.source.startswith("indiana"):
            if pick_first_case:
                number = [o.lower().split() for o in item.options].index("was the first state".split()) + 1
                value, text = f"option:{number}", item.options[number - 1]
            else:
                value, text = "original", None
        else:
            value, text = "option:1", item.options[0]
        ops.record_judgment(db, item.assignment_id, value, text=text)
        item = session.answered(item, value, text)
    return session


def test_four_judges_by_default_and_the_auto_skip_counted_as_a_success(tmp_path):
    path = tmp_path / "choice.sqlite"
    assert main(["study", "create", "--db", str(path), "manual", "--criteria", "choice"]) == 0
    with open_database(path) as db:
        with db.reading() as s:
            assert s.scalar(select(Study.judges_per_item)) == 4
        ops.add_choice_tasks(db, 1, TASKS)
        report = ops.assign(db, 1, ["A", "B", "C", "D"], repeat_fraction=0.0, control_fraction=0.0)
        assert report.assignments == {name: 4 for name in "ABCD"}  # every task to all four

        skipped_by_a = judge(db, "A", pick_first_case=True).skipped
        assert len(skipped_by_a) == 1 and skipped_by_a[0].source.startswith("indiana")
        assert judge(db, "B", pick_first_case=False).skipped == []  # kept the original: nothing to skip
        with db.reading() as s:
            skips = s.scalars(select(Judgment).where(Judgment.action == "auto-skip")).all()
            assert len(skips) == 1 and skips[0].origin == "auto-skip" and skips[0].duration_ms is None
            skipped_task = skips[0].choice_task_id
        expected_value = "option:3" if skipped_task == 2 else "option:1"
        assert skips[0].value == expected_value
        # Not a judgment: undo withdraws A's last answer, never the auto-skip.
        a = ops.find_annotator(db, 1, "A")
        ops.undo_last(db, a)
        with db.reading() as s:
            assert s.get(Judgment, skips[0].id).superseded_by is None

        fig = {t.key: t for t in build_report(study_judgment_records(db, 1)).tables}["seed001_fig4_5:choice"]
        rows = {row[0]: row for row in fig.rows}
        columns = [c.name for c in fig.columns]
        a_column, b_column = columns.index("A"), columns.index("B")
        # A's case 0 succeeds under both approaches (one answer, one auto-skip); case 1 was undone for one approach.
        assert rows["approach-1"][a_column] + rows["approach-10"][a_column] == 3
        assert rows["approach-1"][b_column] == rows["approach-10"][b_column] == 1
