"""Latency of the annotation hot path on a study of 100,000 candidates.

    python3 benchmarks/bench_store.py [--candidates 100000] [--judged 0.5] [--rounds 500]

Builds a real SQLite study (two judges, seed criteria: fluency, meaning,
usability, so 600,000 assignments), marks a share of one annotator's items as
judged, then times ``next_item`` and ``record_judgment`` (each one committed
transaction), and, side by side, the resume query without the partial index
(a NOT EXISTS scan over judgments) to show what the index buys. Prints
median / p95 / max in milliseconds; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import insert, select, text

from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Assignment, Judgment


def summary(label: str, samples_ms: list[float]) -> str:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"{label:<44} median {statistics.median(ordered):7.3f} ms   p95 {p95:7.3f} ms   max {ordered[-1]:7.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--candidates", type=int, default=100_000)
    parser.add_argument("--judged", type=float, default=0.5, help="share of the annotator's items already judged")
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--db", help="keep the study here instead of a temporary directory")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as directory:
        path = Path(args.db) if args.db else Path(directory) / "bench.db"
        db = open_database(path, create=True)
        study = ops.create_study(db, "bench", seed=1)
        sentences = max(1, args.candidates // 4)
        rows = (ops.CandidateRow(sentence_id=str(i // 4), system=f"sys{i % 2}", rank=i % 4,
                                 text=f"candidate number {i} for sentence {i // 4}",
                                 source=f"the source sentence {i // 4} of the benchmark")
                for i in range(args.candidates))
        started = time.perf_counter()
        ops.import_candidates(db, study, rows)
        imported = time.perf_counter()
        ops.assign(db, study, ["ann", "bob"])
        assigned = time.perf_counter()
        print(f"import {args.candidates} candidates ({sentences} sentences): {imported - started:.1f} s; "
              f"assign 2 judges x 3 criteria: {assigned - imported:.1f} s")

        ann = ops.find_annotator(db, study, "ann")
        total = ops.study_progress(db, study, ann).total
        judged = int(args.judged * total)
        now = datetime.now(timezone.utc)
        with db.transaction() as session:
            # Bulk-fill earlier work so the resume point sits deep in the order.
            assignments = session.execute(select(Assignment.id, Assignment.candidate_id, Assignment.criterion_id)
                                          .where(Assignment.annotator_id == ann).order_by(Assignment.position)
                                          .limit(judged)).all()
            session.execute(insert(Judgment), [
                {"uid": str(uuid.uuid4()), "study_id": study, "assignment_id": a.id, "annotator_id": ann,
                 "candidate_id": a.candidate_id, "criterion_id": a.criterion_id, "action": "answer",
                 "value": "2", "answered_at": now, "flag": False, "origin": "app"} for a in assignments])
            session.execute(text("UPDATE assignment SET live_judgment_id = (SELECT id FROM judgment "
                                 "WHERE judgment.assignment_id = assignment.id) WHERE annotator_id = :a"), {"a": ann})
        print(f"annotator 'ann': {judged} of {total} assignments already judged")

        next_ms, record_ms, pair_ms, scan_ms = [], [], [], []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            item = ops.next_item(db, ann)
            t1 = time.perf_counter()
            ops.record_judgment(db, item.assignment_id, "yes" if item.scale == "binary" else "2",
                                started_at=now, answered_at=now)
            t2 = time.perf_counter()
            next_ms.append((t1 - t0) * 1000)
            record_ms.append((t2 - t1) * 1000)
            pair_ms.append((t2 - t0) * 1000)
        undo_ms = []
        for _ in range(min(100, args.rounds)):
            t0 = time.perf_counter()
            ops.undo_last(db, ann)
            undo_ms.append((time.perf_counter() - t0) * 1000)
        scan = text("SELECT a.position FROM assignment a NOT INDEXED WHERE a.annotator_id = :a AND NOT EXISTS "
                    "(SELECT 1 FROM judgment j WHERE j.assignment_id = a.id AND j.action = 'answer' "
                    "AND j.superseded_by IS NULL) ORDER BY a.position LIMIT 1")
        with db.read_connection() as connection:
            for _ in range(20):
                t0 = time.perf_counter()
                connection.execute(scan, {"a": ann}).scalar()
                scan_ms.append((time.perf_counter() - t0) * 1000)
        indexed_ms = []
        for _ in range(20):
            t0 = time.perf_counter()
            ops.next_item(db, ann)
            indexed_ms.append((time.perf_counter() - t0) * 1000)
        print(summary("next_item (partial index)", next_ms))
        print(summary("record_judgment (one committed transaction)", record_ms))
        print(summary("next_item + record_judgment", pair_ms))
        print(summary("undo_last", undo_ms))
        print(summary("resume query without the index (scan)", scan_ms))
        print(f"ratio scan / next_item: {statistics.median(scan_ms) / statistics.median(indexed_ms):.0f}x")
        with db.reading() as session:
            print(f"database size: {path.stat().st_size / 1e6:.0f} MB; journal mode "
                  f"{session.execute(text('PRAGMA journal_mode')).scalar()}")
        db.close()


if __name__ == "__main__":
    main()
