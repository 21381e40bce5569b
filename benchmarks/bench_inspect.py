"""The Inspect screen on a study of 100,000 judged candidates: opening it and filtering it.

    python3 benchmarks/bench_inspect.py [--candidates 100000] [--db FILE]

Builds a real SQLite study (two judges, fluency and meaning, every candidate
judged, a quarter rejected, a derivation on each), then measures, side by
side in one run: loading every judged candidate row
(:func:`core.inspection.candidate_rows.candidate_rows`, what the screen's
worker runs when it opens; target under 2 s), and each filter the screen
applies (system, verdict, length, rules: :class:`desktop.inspect_screen.CandidateRowsModel`,
the model reset included; target under 100 ms). Prints seconds and
milliseconds; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import insert, select, text  # noqa: E402

from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.core.store.models import Assignment, Judgment  # noqa: E402


def build_study(path: Path, candidates: int) -> int:
    db = open_database(path, create=True)
    study = ops.create_study(db, "bench", criteria=["fluency", "meaning"], seed=1)

    def rows():
        for i in range(candidates):
            words = f"the source sentence {i // 4} of the benchmark says something".split()
            changed = i % 9
            target = list(words)
            target[changed] = f"word{i % 50}"
            derivation = [{"src": [k, k + 1], "tgt": [k, k + 1], "source": w, "target": target[k],
                           "p": 1.0 if k != changed else 0.1 + (i % 7) / 10, "identity": k != changed}
                          for k, w in enumerate(words)]
            yield ops.CandidateRow(sentence_id=str(i // 4), system=f"sys{i % 3}", rank=i % 4,
                                   text=" ".join(target) + f" {i}", source=" ".join(words), derivation=derivation,
                                   model_score=-20.0 - i % 5, true_score=-20.0 - i % 3, line=i + 1)

    started = time.perf_counter()
    ops.import_candidates(db, study, rows())
    ops.assign(db, study, ["ann", "bob"])
    now = datetime.now(timezone.utc)
    with db.transaction() as session:
        assignments = session.execute(select(Assignment.id, Assignment.annotator_id, Assignment.candidate_id,
                                             Assignment.criterion_id)).all()
        session.execute(insert(Judgment), [
            {"uid": str(uuid.uuid4()), "study_id": study, "assignment_id": a.id, "annotator_id": a.annotator_id,
             "candidate_id": a.candidate_id, "criterion_id": a.criterion_id, "action": "answer",
             "value": "no" if a.candidate_id % 4 == 0 else "yes", "answered_at": now, "flag": False,
             "origin": "app"} for a in assignments])
        session.execute(text("UPDATE assignment SET live_judgment_id = (SELECT id FROM judgment "
                             "WHERE judgment.assignment_id = assignment.id)"))
    print(f"built: {candidates} candidates, {len(assignments)} judgments ({time.perf_counter() - started:.0f} s)")
    db.close()
    return study


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", type=int, default=100_000)
    parser.add_argument("--db", help="reuse (or keep) the study here instead of a temporary file")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from parastudio.core.inspection.candidate_rows import candidate_rows
    from parastudio.desktop.inspect_screen import CandidateRowsModel

    QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as directory:
        path = Path(args.db) if args.db else Path(directory) / "bench.sqlite"
        if not path.is_file():
            build_study(path, args.candidates)
        db = open_database(path)
        study = ops.find_study(db, "bench")
        opened = []
        for _ in range(3):
            started = time.perf_counter()
            rows = candidate_rows(db, study)
            opened.append(time.perf_counter() - started)
        print(f"open: {len(rows)} judged candidate rows in {statistics.median(opened):.2f} s "
              f"(median of 3; target under 2 s)")
        model = CandidateRowsModel()
        model.load(rows)
        filters = {"system": {"system": "sys1"}, "verdict": {"verdict": "rejected"},
                   "system + verdict": {"system": "sys2", "verdict": "accepted"},
                   "length 9-10": {"min_length": 9, "max_length": 10}, "rules = 1": {"rules": 1},
                   "none (all rows)": {}}
        for label, applied in filters.items():
            times = []
            for _ in range(5):
                started = time.perf_counter()
                model.apply(**applied)
                times.append(time.perf_counter() - started)
            print(f"filter {label:<18} -> {model.rowCount():>7} rows in {1000 * statistics.median(times):6.1f} ms "
                  "(median of 5; target under 100 ms)")
        started = time.perf_counter()
        model.sort(5)
        print(f"sort by true score: {1000 * (time.perf_counter() - started):.1f} ms")
        db.close()


if __name__ == "__main__":
    main()
