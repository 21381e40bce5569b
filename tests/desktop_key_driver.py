"""A scripted annotator for the crash test: runs the real main window on a
study and presses answer keys on the Annotate screen, one every few
milliseconds, printing what it pressed and what the writer committed.

    python tests/desktop_key_driver.py STUDY.sqlite ANNOTATOR

Lines on stdout: ``pressed <assignment id> <value>`` right after a key is
handled, ``committed <assignment id> <judgment id>`` when the writer commits.
The test kills this process with SIGKILL at some point and checks the store.
"""

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from qt_waiting import wait  # noqa: E402

from parastudio.desktop.main_window import MainWindow  # noqa: E402

PRESS_EVERY_MS = 5


def main() -> int:
    path, annotator = sys.argv[1], sys.argv[2]
    app = QApplication(sys.argv[:1])
    app.setOrganizationName("Paraphrase Studio tests")
    window = MainWindow(path, annotator=annotator)
    window.show()
    while window.annotate.screen.loading or window.choice.screen.loading:  # the studies open off the UI thread
        wait(20)
    screen = window.annotate.screen
    screen.writer.committed.connect(lambda assignment, judgment: print(f"committed {assignment} {judgment}",
                                                                       flush=True))
    print(f"start {screen.item.position if screen.item else -1}", flush=True)

    def press() -> None:
        item = screen.item
        if item is None:
            print("done", flush=True)
            window.close()
            app.quit()
            return
        if item.scale == "binary":
            key, value = (Qt.Key_Y, "yes") if item.assignment_id % 2 else (Qt.Key_N, "no")
        else:
            value = str(1 + item.assignment_id % 3)
            key = getattr(Qt, f"Key_{value}")
        QTest.keyClick(screen, key)
        print(f"pressed {item.assignment_id} {value}", flush=True)
        QTimer.singleShot(PRESS_EVERY_MS, press)

    QTimer.singleShot(50, press)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
