"""Seed 001's choice task through the store: tasks naming their approach ("system"), four judges, exported
judgments, and Fig. 4.5 (successes per approach and annotator, the unified score) from the CSV alone."""

from __future__ import annotations

import json

from parastudio.core.stats.judgment_records import read_judgments
from parastudio.core.stats.report_tables import build_report
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.study_judgments import study_judgment_records

# Per approach, how many of the four judges pick an offered option in each of the four cases.
PICKS = {"approach-1": [0, 1, 2, 0], "approach-10": [3, 4, 2, 4]}
JUDGES = ("A", "B", "C", "D")


def test_choice_tasks_with_their_approach_give_fig_4_5_from_the_exported_judgments(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    with open(tasks, "w", encoding="utf-8") as out:
        for approach in PICKS:
            for case in range(4):
                out.write(json.dumps({"id": f"case{case}", "sentence": f"his sons went to the city {case}",
                                      "span": [0, 2], "options": [f"{approach} one", f"{approach} two"],
                                      "system": approach}) + "\n")
    path = tmp_path / "choice.sqlite"
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "choice", criteria=["choice"], judges_per_item=4, seed=5)
        assert ops.add_choice_tasks(db, study, ops.read_choice_tasks(tasks), path=str(tasks)) == 8
        ops.assign(db, study, list(JUDGES))
        for position, judge in enumerate(JUDGES):
            annotator = ops.find_annotator(db, study, judge)
            while (item := ops.next_item(db, annotator)) is not None:
                approach = item.options[0].split()[0]
                case = int(item.source.split()[-1])
                picked = position < PICKS[approach][case]
                ops.record_judgment(db, item.assignment_id, "option:1" if picked else "original")
        exported = tmp_path / "judgments.csv"
        assert ops.export_judgments(db, study, exported) == 32
        from_study = build_report(study_judgment_records(db, study))

    from_csv = build_report(read_judgments(exported))
    fig = {table.key: table for table in from_csv.tables}["seed001_fig4_5:choice"]
    rows = {row[0]: row for row in fig.rows}
    # approach-1: A picks in cases 1 and 2, B in case 2; unified (>= 2 of 4) only case 2.
    assert rows["approach-1"][1:] == [2, 1, 0, 0, 1, 4]
    assert rows["approach-10"][1:] == [4, 4, 3, 2, 4, 4]
    tests = {table.key: table for table in from_csv.tables}["seed001_sign_tests:choice"]
    assert tests.rows[0][:6] == ["approach-1", "approach-10", 4, 0, 3, 1]
    # The study and its exported CSV give the same tables.
    assert [(t.key, t.rows) for t in from_csv.tables if t.key.startswith("seed001")] == \
        [(t.key, t.rows) for t in from_study.tables if t.key.startswith("seed001")]
