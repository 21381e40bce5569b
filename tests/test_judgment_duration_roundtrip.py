"""The judged time (the paused clock) survives export-judgments -> import-judgments."""
import csv
from datetime import datetime, timedelta, timezone

from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database


def make(path):
    db = open_database(path, create=True)
    sid = ops.create_study(db, "s", criteria=["meaning"])
    ops.import_candidates(db, sid, [ops.CandidateRow(sentence_id=str(i), text=f"c {i}", system="x", source=f"s {i}")
                                    for i in range(2)])
    ops.assign(db, sid, ["a"])
    return db, sid


def test_the_judged_time_survives_export_and_import(tmp_path):
    db, sid = make(tmp_path / "a.sqlite")
    ann = ops.find_annotator(db, sid, "a")
    item = ops.next_item(db, ann)
    t0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
    # 94 s on the wall clock, 3 s judged (the screen's clock paused while the judge was on another tab)
    ops.record_judgment(db, item.assignment_id, "yes", started_at=t0, answered_at=t0 + timedelta(seconds=94),
                        duration_ms=3000)
    out = tmp_path / "j.csv"
    ops.export_judgments(db, sid, out, "csv")
    rows = list(csv.DictReader(open(out)))
    assert rows[0]["duration_ms"] == "3000"
    other, other_sid = make(tmp_path / "b.sqlite")
    ops.import_judgments_csv(other, other_sid, out)
    ops.export_judgments(other, other_sid, tmp_path / "k.csv", "csv")
    rows = list(csv.DictReader(open(tmp_path / "k.csv")))
    assert rows[0]["duration_ms"] == "3000", rows[0]["duration_ms"]
