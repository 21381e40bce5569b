"""A judge who opens a file dialog first, for the file-dialog test: runs the real main window on a study,
opens a study with Ctrl+O, waits until the dialog lists the study's folder, cancels it, waits for the test to say ``go``
on stdin, then answers ``N`` items and waits to be killed.

    python tests/desktop_dialog_driver.py STUDY.sqlite ANNOTATOR N

Lines on stdout: ``listed <names>`` (what the dialog showed), ``dialog closed``, ``pressed <assignment id>
<value>`` per key, ``committed <assignment id> <judgment id>`` per answer the writer reported committed, then
``saved <count>`` once every answer is committed (the screen counts them as saved).
"""

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QFileDialog, QFileSystemModel  # noqa: E402
from qt_waiting import wait  # noqa: E402

from parastudio.desktop.main_window import MainWindow  # noqa: E402


def cancel_once_listed(app: QApplication, study: str) -> None:
    """Poll for the modal file dialog; once its model lists the study's folder, paint it (icons and types are
    asked for what is shown) and cancel it."""
    dialog = app.activeModalWidget()
    model = dialog.findChild(QFileSystemModel) if isinstance(dialog, QFileDialog) else None
    if model is None or not model.index(study).isValid() or model.rowCount(model.index(study).parent()) == 0:
        QTimer.singleShot(20, lambda: cancel_once_listed(app, study))
        return
    folder = model.index(study).parent()
    names = sorted(model.index(row, 0, folder).data() for row in range(model.rowCount(folder)))
    dialog.grab()
    print("listed " + " ".join(names), flush=True)
    dialog.reject()


def main() -> int:
    path, annotator, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    app = QApplication(sys.argv[:1])
    app.setOrganizationName("Paraphrase Studio tests")
    window = MainWindow(path, annotator=annotator, table="none.gz", lm="none.bin")
    window.show()
    while window.annotate.screen.loading or window.choice.screen.loading:  # the studies open off the UI thread
        wait(20)
    wait(100)  # the instructions a judge meets first open once the window is shown
    instructions = getattr(window, "instructions_dialog", None)
    if instructions is not None and instructions.isVisible():
        instructions.accept()
    screen = window.annotate.screen
    committed = []
    screen.writer.committed.connect(lambda assignment, judgment: committed.append((assignment, judgment)))

    QTimer.singleShot(20, lambda: cancel_once_listed(app, os.path.abspath(path)))
    window.open_other()  # Ctrl+O, "Open study database…": returns once the dialog is cancelled
    print("dialog closed", flush=True)
    sys.stdin.readline()  # the test has had another program open and close the study

    for _ in range(count):
        item = screen.item
        key, value = (Qt.Key_Y, "yes") if item.scale == "binary" else (Qt.Key_2, "2")
        QTest.keyClick(screen, key)
        print(f"pressed {item.assignment_id} {value}", flush=True)
    screen.writer.drain()
    while len(committed) < count:  # the writer's signals, delivered on this thread
        wait(10)
    for assignment, judgment in committed:
        print(f"committed {assignment} {judgment}", flush=True)
    print(f"saved {len(committed)}", flush=True)
    sys.stdin.readline()  # killed here
    return 0


if __name__ == "__main__":
    sys.exit(main())
