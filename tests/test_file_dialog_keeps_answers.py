"""A judge's answers survive a file dialog and another program opening the study (issue 22, Found 1).

Qt's stock file dialog opened and closed the study and its ``-wal`` and ``-shm`` to sniff their types, which
dropped this process's POSIX locks on them (SQLite's "How to corrupt your database", section 2.2); another
program that then opened and closed the study checkpointed and deleted the ``-wal`` the app went on writing
into, and every later answer was lost. Here with real processes: the app shows the dialog, another process
reads the study, the judge answers, the app is killed; and, in this process, the locks themselves, read from
``/proc/locks``, and the writer's second line of defence when something else drops them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from desktop_study_fixtures import make_study, open_window  # noqa: E402

from parastudio.core.store import operations as ops  # noqa: E402
from parastudio.core.store.database import open_database  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DRIVER = Path(__file__).with_name("desktop_dialog_driver.py")
ANSWERS = 5
# Another program reading the study: a second judge, a `parastudio` command or `sqlite3` do the same.
READ_AND_CLOSE = ("import sqlite3, sys\n"
                  "connection = sqlite3.connect(sys.argv[1])\n"
                  "connection.execute('SELECT count(*) FROM judgment').fetchone()\n"
                  "connection.close()\n")

pytestmark = pytest.mark.usefixtures("private_qt_settings")


def another_program_reads(path: Path) -> None:
    subprocess.run([sys.executable, "-c", READ_AND_CLOSE, str(path)], check=True, timeout=60)


def live_answers(path: Path, annotator: str) -> dict[int, str]:
    """assignment id -> live value, as a new process finds them in the file."""
    code = ("import json, sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1])\n"
            "rows = c.execute('SELECT a.id, j.value FROM assignment a JOIN judgment j ON j.id = a.live_judgment_id "
            "JOIN annotator n ON n.id = a.annotator_id WHERE n.name = ?', (sys.argv[2],)).fetchall()\n"
            "print(json.dumps(rows))\n")
    out = subprocess.run([sys.executable, "-c", code, str(path), annotator], check=True, capture_output=True,
                         text=True, timeout=60).stdout
    return {assignment: value for assignment, value in json.loads(out)}


def total_judgments(path: Path) -> int:
    code = ("import sqlite3, sys\n"
            "print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM judgment').fetchone()[0])\n")
    return int(subprocess.run([sys.executable, "-c", code, str(path)], check=True, capture_output=True, text=True,
                              timeout=60).stdout)


def test_answers_given_after_a_file_dialog_and_another_program_survive_kill_9(tmp_path):
    path = tmp_path / "study.sqlite"
    make_study(path)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    app = subprocess.Popen([sys.executable, str(DRIVER), str(path), "ann", str(ANSWERS)], cwd=ROOT, env=env,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           bufsize=1)
    lines: list[str] = []
    try:
        for line in app.stdout:
            lines.append(line.strip())
            if line.startswith("dialog closed"):
                break
        listed = next(entry for entry in lines if entry.startswith("listed")).split()[1:]
        assert "study.sqlite" in listed  # shown, with its -wal and -shm beside it (hidden by the filter)
        assert Path(f"{path}-wal").exists() and Path(f"{path}-shm").exists()

        another_program_reads(path)
        app.stdin.write("go\n")
        app.stdin.flush()
        for line in app.stdout:
            lines.append(line.strip())
            if line.startswith("saved"):
                break
        os.kill(app.pid, signal.SIGKILL)
    finally:
        app.kill()
        app.wait(timeout=60)
    assert app.returncode == -signal.SIGKILL, lines[-5:]
    pressed = {int(a): v for _, a, v in (entry.split() for entry in lines if entry.startswith("pressed"))}
    committed = {int(entry.split()[1]) for entry in lines if entry.startswith("committed")}
    assert len(pressed) == ANSWERS and committed == set(pressed)  # the screen counted every answer as saved
    assert live_answers(path, "ann") == pressed  # and every one of them is in the file


def shown_file_dialog():
    """The file dialog on screen, if any (another test's window may leave a modal widget of its own behind)."""
    from PySide6.QtWidgets import QApplication, QFileDialog

    return next((widget for widget in QApplication.topLevelWidgets()
                 if isinstance(widget, QFileDialog) and widget.isVisible()), None)


def held_locks(path: Path) -> list[tuple[str, str, str, str]]:
    """The POSIX locks this process holds on the study's files: (file, kind, start, end) from /proc/locks."""
    names = {os.stat(file).st_ino: file.name for file in path.parent.iterdir() if file.name.startswith(path.name)}
    held = []
    with open("/proc/locks", encoding="ascii") as table:
        for line in table:
            fields = [field for field in line.split() if field != "->"]
            pid, inode = int(fields[4]), int(fields[5].split(":")[2])
            if pid == os.getpid() and inode in names:
                held.append((names[inode], fields[3], fields[6], fields[7]))
    return sorted(held)


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="reads the kernel's lock table (Linux)")
def test_the_open_study_dialog_leaves_sqlite_s_locks_on_the_study_in_place(qtbot, tmp_path):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QFileSystemModel

    path = tmp_path / "study.sqlite"
    make_study(path)
    window = open_window(qtbot, path)
    before = held_locks(path)
    assert any(name == "study.sqlite" for name, *_ in before)  # WAL mode: a read lock while the study is open
    listed: list[list[str]] = []

    def cancel_once_listed() -> None:
        dialog = shown_file_dialog()
        model = dialog.findChild(QFileSystemModel) if dialog is not None else None
        if model is None or not model.index(str(path)).isValid():
            QTimer.singleShot(20, cancel_once_listed)
            return
        folder = model.index(str(path)).parent()
        listed.append(sorted(model.index(row, 0, folder).data() for row in range(model.rowCount(folder))))
        dialog.grab()  # painted: every shown file's icon and type asked for
        dialog.reject()

    QTimer.singleShot(20, cancel_once_listed)
    window.open_other()  # Ctrl+O
    assert "study.sqlite" in listed[0] and Path(f"{path}-wal").exists() and Path(f"{path}-shm").exists()
    assert held_locks(path) == before
    window.close()


def test_every_file_dialog_of_the_app_goes_through_the_one_that_reads_no_file():
    """Qt's own static dialogs sniff file contents: only desktop/file_dialogs.py may name QFileDialog."""
    named = [f"{file.relative_to(ROOT)}:{number}" for file in sorted((ROOT / "desktop").rglob("*.py"))
             if file.name != "file_dialogs.py"
             for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1)
             if "QFileDialog" in line]
    assert named == []


def test_the_writer_writes_an_answer_again_when_the_log_it_wrote_into_was_deleted(qtbot, tmp_path):
    """The second line of defence: something in this process drops the locks anyway (here a plain open and
    close of the study), another program checkpoints and deletes the log; no answer is lost or doubled."""
    from parastudio.desktop.judgment_writer import JudgmentWriter

    path = tmp_path / "study.sqlite"
    make_study(path)
    db = open_database(path)
    writer = JudgmentWriter(db)
    warnings: list[str] = []
    writer.warned.connect(warnings.append)
    annotator = ops.find_annotator(db, ops.find_study(db), "ann")
    given: dict[int, str] = {}

    def answer() -> None:
        item = ops.next_item(db, annotator)
        given[item.assignment_id] = "yes" if item.scale == "binary" else "2"
        writer.answer(item.assignment_id, given[item.assignment_id])
        assert writer.drain(timeout_s=60)

    try:
        answer()
        os.close(os.open(path, os.O_RDONLY))  # what the stock file dialog did
        another_program_reads(path)
        assert not Path(f"{path}-wal").exists()  # it believed it was the last one: checkpointed, deleted the log
        for _ in range(3):
            answer()
        qtbot.waitUntil(lambda: len(warnings) == 1, timeout=120_000)
        assert "saved again" in warnings[0]
        assert live_answers(path, "ann") == given
        assert total_judgments(path) == len(given)  # written again once, not twice
    finally:
        writer.close()
        db.close()


def test_the_answer_is_written_again_when_another_program_holds_the_study_meanwhile(qtbot, tmp_path):
    """With another program connected, the lost log cannot be copied into the study when this process lets it
    go: the answer is not in the file, so the writer writes it again (once)."""
    from parastudio.desktop.judgment_writer import JudgmentWriter

    path = tmp_path / "study.sqlite"
    make_study(path)
    db = open_database(path)
    writer = JudgmentWriter(db)
    annotator = ops.find_annotator(db, ops.find_study(db), "ann")
    given: dict[int, str] = {}
    os.close(os.open(path, os.O_RDONLY))
    another_program_reads(path)
    assert not Path(f"{path}-wal").exists()
    # Connected after the log was deleted, and stays.
    holder = subprocess.Popen([sys.executable, "-c", "import sqlite3, sys\n"
                               "c = sqlite3.connect(sys.argv[1])\n"
                               "c.execute('SELECT count(*) FROM judgment').fetchone()\n"
                               "print('open', flush=True)\nsys.stdin.readline()\n", str(path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        for _ in range(2):
            item = ops.next_item(db, annotator)
            given[item.assignment_id] = "yes" if item.scale == "binary" else "2"
            writer.answer(item.assignment_id, given[item.assignment_id])
            assert writer.drain(timeout_s=60)
        assert live_answers(path, "ann") == given
        assert total_judgments(path) == len(given)
    finally:
        holder.communicate("\n", timeout=60)
        writer.close()
        db.close()



@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="reads the kernel's lock table (Linux)")
def test_opening_the_study_again_in_this_process_leaves_its_locks_in_place(tmp_path):
    """Ctrl+O on the study already open checks the file before opening it: only SQLite may read it then."""
    path = tmp_path / "study.sqlite"
    make_study(path)
    db = open_database(path)
    try:
        ops.find_study(db)
        before = held_locks(path)
        assert any(name == "study.sqlite" for name, *_ in before)
        open_database(path).close()
        assert held_locks(path) == before
    finally:
        db.close()



def test_a_study_this_app_holds_is_what_the_dialogs_refuse_as_a_file_to_read_or_write(tmp_path):
    """Reading the study (or its log) as a candidates file would open and close it in Python: the dialogs refuse
    a file that is a study this process holds, its -wal or its -shm (unless asked for a study to open)."""
    from parastudio.desktop import file_dialogs

    path = tmp_path / "study.sqlite"
    make_study(path)
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text("{}\n", encoding="utf-8")
    assert not file_dialogs._is_held_study(str(path))  # nobody holds it yet
    db = open_database(path)
    try:
        ops.find_study(db)
        assert all(file_dialogs._is_held_study(f"{path}{suffix}") for suffix in ("", "-wal", "-shm"))
        assert not file_dialogs._is_held_study(str(candidates))
        assert not file_dialogs._is_held_study(str(tmp_path / "new-export.csv"))
    finally:
        db.close()
    assert not file_dialogs._is_held_study(str(path))
