"""Key press to next item painted, on the annotation screen, on a study of 100,000 candidates.

    python3 benchmarks/bench_annotation.py [--candidates 100000] [--presses 400] [--db FILE]

Builds a real SQLite study (seed criteria fluency, meaning, usability; two
judges: 600,000 assignments), opens the real :class:`AnnotationScreen` with
its writer thread, then for each key press measures the time from sending
the key to the end of the paint event of the next item's text (the write of
the answer runs meanwhile on the writer thread). Half of the presses are
answers deep in the order (after a bulk of earlier judgments), a few are
arrow moves. Prints median / p95 / max in milliseconds; asserts nothing. The study opens off the UI thread:
the run waits for its first item (the screen's ``open_done``), however long that takes on a loaded machine, up
to ``--open-timeout`` seconds, and then says so instead of acting on an item that is not there.
Set QT_QPA_PLATFORM=offscreen to run without a display, or run under
``xvfb-run -a`` for a real X11 window.
"""

from __future__ import annotations

import argparse
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
from parastudio.core.store.models import Assignment, Criterion, Judgment  # noqa: E402


def summary(label: str, samples_ms: list[float]) -> str:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (f"{label:<40} n={len(ordered):4d}  median {statistics.median(ordered):6.2f} ms   "
            f"p95 {p95:6.2f} ms   max {ordered[-1]:6.2f} ms")


def build_study(path: Path, candidates: int, judged_share: float) -> int:
    db = open_database(path, create=True)
    study = ops.create_study(db, "bench", seed=1)
    rows = (ops.CandidateRow(sentence_id=str(i // 4), system=f"sys{i % 2}", rank=i % 4,
                             text=f"the candidate number {i} says nearly what sentence {i // 4} says",
                             source=f"the source sentence {i // 4} of the benchmark says something", line=i + 1)
            for i in range(candidates))
    started = time.perf_counter()
    ops.import_candidates(db, study, rows)
    ops.assign(db, study, ["ann", "bob"])
    annotator = ops.find_annotator(db, study, "ann")
    total = ops.study_progress(db, study, annotator).total
    judged = int(judged_share * total)
    now = datetime.now(timezone.utc)
    with db.transaction() as session:
        # Earlier work, so the screen's position sits deep in the order: each answer a level of its criterion's
        # scale (an off-scale value makes the study check refuse the file when it is opened).
        level = {c.id: str(c.levels[-1]["value"]) for c in session.scalars(select(Criterion)
                                                                           .where(Criterion.study_id == study))}
        assignments = session.execute(select(Assignment.id, Assignment.candidate_id, Assignment.criterion_id)
                                      .where(Assignment.annotator_id == annotator).order_by(Assignment.position)
                                      .limit(judged)).all()
        session.execute(insert(Judgment), [
            {"uid": str(uuid.uuid4()), "study_id": study, "assignment_id": a.id, "annotator_id": annotator,
             "candidate_id": a.candidate_id, "criterion_id": a.criterion_id, "action": "answer", "value": level[a.criterion_id],
             "answered_at": now, "flag": False, "origin": "app"} for a in assignments])
        session.execute(text("UPDATE assignment SET live_judgment_id = (SELECT id FROM judgment "
                             "WHERE judgment.assignment_id = assignment.id) WHERE annotator_id = :a"),
                        {"a": annotator})
    print(f"built: {candidates} candidates, {2 * 3 * candidates} assignments, {judged} judged by 'ann' "
          f"({time.perf_counter() - started:.0f} s)")
    db.close()
    return study


def open_and_wait(screen, study: int, timeout_s: float) -> float:
    """Open the study on the screen and wait for its first item (the open's ``open_done`` signal); seconds it took.
    Exits with one line when the study does not open within ``timeout_s`` or opens with nothing to judge."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    refused: list = []
    screen.open_done.connect(loop.quit)  # connected before the open: its result comes only through this loop
    screen.open_refused.connect(refused.append)
    deadline = QTimer(singleShot=True, interval=int(timeout_s * 1000))
    deadline.timeout.connect(loop.quit)
    started = time.perf_counter()
    screen.open(study, "ann", "bench")
    deadline.start()
    if screen.loading:
        loop.exec()
    deadline.stop()
    if screen.loading:
        sys.exit(f"bench_annotation: the study did not open within {timeout_s:.0f} s (--open-timeout)")
    if screen.item is None:
        why = f": {refused[0]}" if refused else ""
        sys.exit(f"bench_annotation: the study opened with no item for 'ann' to judge{why}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--candidates", type=int, default=100_000)
    parser.add_argument("--presses", type=int, default=400)
    parser.add_argument("--judged", type=float, default=0.5, help="share of the annotator's items already judged")
    parser.add_argument("--db", help="reuse (or keep) the study here instead of a temporary file")
    parser.add_argument("--open-timeout", type=float, default=600.0, metavar="S",
                        help="give up when the study has not opened after S seconds (default 600)")
    args = parser.parse_args()

    from PySide6.QtCore import QEvent, QObject, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from parastudio.desktop.annotation_screen import AnnotationScreen
    from parastudio.desktop.judgment_writer import JudgmentWriter

    app = QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as directory:
        path = Path(args.db) if args.db else Path(directory) / "bench.sqlite"
        if not path.is_file():
            build_study(path, args.candidates, args.judged)
        db = open_database(path, create=True)
        study = ops.find_study(db, "bench")
        writer = JudgmentWriter(db)
        screen = AnnotationScreen(db, writer)
        screen.resize(1100, 750)
        screen.show()
        opened_s = open_and_wait(screen, study, args.open_timeout)
        print(f"platform {app.platformName()}; opened in {opened_s:.2f} s, resuming at position "
              f"{screen.item.position}")

        class PaintWatch(QObject):
            painted = False

            def eventFilter(self, _watched, event):  # noqa: N802
                if event.type() == QEvent.Paint:
                    PaintWatch.painted = True
                return False

        watch = PaintWatch()
        # The candidate text is painted on every item (fluency items have no source box).
        screen.candidate_label.installEventFilter(watch)

        def press(key, modifier=Qt.NoModifier) -> float:
            PaintWatch.painted = False
            before = screen.item.assignment_id
            started = time.perf_counter()
            QTest.keyClick(screen, key, modifier)
            while not PaintWatch.painted:
                app.processEvents()
            # Painting finishes inside the paint event; the filter ran first, so let it complete.
            app.processEvents()
            elapsed = (time.perf_counter() - started) * 1000
            assert screen.item.assignment_id != before
            return elapsed

        answer_ms, move_ms = [], []
        for number in range(args.presses):
            item = screen.item
            if number % 10 == 9:
                move_ms.append(press(Qt.Key_Right))
                continue
            key = (Qt.Key_Y if number % 2 else Qt.Key_N) if item.scale == "binary" else Qt.Key_2
            answer_ms.append(press(key))
        queued = writer.pending()
        drain_started = time.perf_counter()
        writer.close()
        print(summary("answer key -> next item painted", answer_ms))
        print(summary("arrow key -> next item painted", move_ms))
        print(f"writes still queued after the last key: {queued}; drained in "
              f"{(time.perf_counter() - drain_started) * 1000:.1f} ms")
        print(f"target: under 50 ms -> median {'met' if statistics.median(answer_ms) < 50 else 'NOT met'}, "
              f"p95 {'met' if sorted(answer_ms)[int(0.95 * len(answer_ms))] < 50 else 'NOT met'}")
        from PySide6.QtCore import QThreadPool

        screen.progress.stop()
        QThreadPool.globalInstance().waitForDone()  # progress counts still running use the database
        QTest.qWait(50)
        db.close()


if __name__ == "__main__":
    main()
