"""SIGKILL the app in the middle of a scripted session, reopen: no committed
judgment lost, what is stored is exactly a prefix of what was pressed, and
the screen resumes right after it."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from desktop_study_fixtures import make_study  # noqa: E402
from sqlalchemy import select, text  # noqa: E402

from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402
from parastudio.core.store.models import Assignment, Judgment  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DRIVER = Path(__file__).with_name("desktop_key_driver.py")


def run_and_kill(path: Path, annotator: str, presses: int, tmp_path: Path) -> list[str]:
    """Start the driver, SIGKILL it after ``presses`` key presses; return its stdout lines."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}  # QSettings of the test, not the user's
    process = subprocess.Popen([sys.executable, str(DRIVER), str(path), annotator], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
    lines = []
    try:
        for line in process.stdout:
            lines.append(line.strip())
            if sum(1 for entry in lines if entry.startswith("pressed")) >= presses:
                os.kill(process.pid, signal.SIGKILL)
                break
        lines.extend(entry.strip() for entry in process.stdout)  # what it printed before dying
    finally:
        process.kill()
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL, lines[-5:]
    return lines


def stored_answers(db, annotator_id) -> dict[int, str]:
    with db.reading() as session:
        return dict(session.execute(select(Assignment.id, Judgment.value)
                                    .join(Judgment, Judgment.id == Assignment.live_judgment_id)
                                    .where(Assignment.annotator_id == annotator_id)).all())


def check_after_kill(path: Path, annotator: str, lines: list[str], already: dict[int, str]) -> dict[int, str]:
    pressed = [(int(a), v) for _, a, v in (entry.split() for entry in lines if entry.startswith("pressed"))]
    committed = [int(entry.split()[1]) for entry in lines if entry.startswith("committed")]
    db = open_database(path, create=True)
    try:
        with db.reading() as session:
            assert session.execute(text("PRAGMA integrity_check")).scalar() == "ok"
        annotator_id = ops.find_annotator(db, ops.find_study(db), annotator)
        stored = stored_answers(db, annotator_id)
        new = {a: v for a, v in stored.items() if a not in already}
        # Every judgment the app reported committed is there, with its value.
        assert all(a in new for a in committed)
        # What is stored is exactly the first answers pressed, in order: no gap, nothing out of order.
        assert new == dict(pressed[: len(new)])
        assert len(new) >= len(committed)
        # Resume point: the first position not judged.
        assert ops.next_item(db, annotator_id).position == len(stored)
        return stored
    finally:
        db.close()


def test_sigkill_mid_session_loses_no_committed_judgment_and_resumes_right(tmp_path, qtbot):
    path = tmp_path / "study.sqlite"
    make_study(path)
    first = run_and_kill(path, "ann", 25, tmp_path)
    assert first[0] == "start 0"
    stored = check_after_kill(path, "ann", first, {})
    assert len(stored) >= 20  # the writer keeps up with a key every 5 ms

    # Reopen in a second process: it starts right after what was stored, and is killed again.
    second = run_and_kill(path, "ann", 15, tmp_path)
    assert second[0] == f"start {len(stored)}"
    stored_again = check_after_kill(path, "ann", second, stored)
    assert len(stored_again) > len(stored)

    # And the screen in this process resumes there too.
    from parastudio.desktop.annotation_screen import AnnotationScreen
    from parastudio.desktop.judgment_writer import JudgmentWriter

    db = open_database(path, create=True)
    writer = JudgmentWriter(db)
    try:
        screen = AnnotationScreen(db, writer)
        qtbot.addWidget(screen)
        with qtbot.waitSignal(screen.open_done, timeout=120_000):
            screen.open(ops.find_study(db), "ann", "toy")
        assert screen.item.position == len(stored_again)
        screen.close_session()
        screen.progress.stop()
    finally:
        writer.close()
        db.close()
