"""Starting the desktop app."""

from __future__ import annotations

import sys
from pathlib import Path

from core.demo import demo_files

# One per tab, in the order of desktop.main_window.SCREENS.
SCREEN_FILES = ("annotate", "choice-task", "studies", "quality-control", "dashboard", "scorer", "inspect", "tune",
                "suggestions", "translator")


def run_app(table: str | None = None, lm: str | None = None, screenshot: str | None = None,
            study: str | None = None, annotator: str | None = None, screenshots: str | None = None,
            create: bool = False) -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Paraphrase Studio")
    app.setOrganizationName("Paraphrase Studio")
    from PySide6.QtGui import QIcon

    app.setWindowIcon(QIcon(str(Path(__file__).with_name("icons") / "paraphrase-studio.png")))
    demo = demo_files()

    def open_window(path: str, db=None):
        from desktop.main_window import MainWindow

        window = MainWindow(path, annotator=annotator, table=table or str(demo.table), lm=lm or str(demo.lm), db=db)
        window.show()
        if screenshot:
            QTimer.singleShot(800, lambda: (window.grab().save(screenshot), window.close()))
        elif screenshots:
            QTimer.singleShot(500, lambda: take_screenshots(window, Path(screenshots)))
        app._main_window = window  # keep it alive
        return window

    if study is None:
        from core.demo import demo_study_path

        if demo_study_path().is_file():
            open_window(str(demo_study_path()))
        elif not build_demo_then(app, lambda path: open_window(str(path))):
            return 1
        return app.exec()
    from core.errors import InputFileError
    from core.store.database import open_database

    try:
        db = open_database(study, create=create)
    except (InputFileError, OSError) as error:
        print(f"parastudio: error: {error}", file=sys.stderr)
        QMessageBox.critical(None, "Paraphrase Studio", f"Could not open the study database:\n\n{error}")
        return 2
    open_window(study, db)
    return app.exec()


def build_demo_then(app, then) -> bool:
    """First launch: a window at once (a progress dialog with Cancel) while the demo study is built in a worker."""
    from PySide6.QtCore import QThreadPool
    from PySide6.QtWidgets import QMessageBox, QProgressDialog

    from core.demo import open_demo_study
    from desktop.workers import Worker

    if not demo_files().test_sentences.is_file():
        QMessageBox.critical(None, "Paraphrase Studio", f"The bundled demo is missing ({demo_files().directory}).\n\n"
                             "Set PARASTUDIO_DEMO to a folder holding it, or open a study with "
                             "`parastudio app --study FILE.sqlite`.")
        return False
    dialog = QProgressDialog("Making the demo study (first launch only)…", "Cancel", 0, 100)
    dialog.setWindowTitle("Paraphrase Studio")
    dialog.setMinimumDuration(0)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    worker = Worker(lambda report: open_demo_study(progress=report))
    worker.signals.progress.connect(lambda percent, message: (dialog.setValue(percent), dialog.setLabelText(message)))
    dialog.canceled.connect(worker.cancel)

    def finished(path) -> None:
        dialog.close()
        then(path)

    def stopped(message: str = "cancelled") -> None:
        dialog.close()
        if message != "cancelled":
            QMessageBox.critical(None, "Paraphrase Studio", f"Could not make the demo study:\n{message}")
        app.quit()

    worker.signals.finished.connect(finished)
    worker.signals.failed.connect(stopped)
    worker.signals.cancelled.connect(stopped)
    dialog.show()
    app._demo_build = (dialog, worker)
    QThreadPool.globalInstance().start(worker)
    return True


def take_screenshots(window, directory: Path, then=None) -> None:
    """Visit every screen, let its workers finish, save the window as PNG, then close (or call ``then``)."""
    from PySide6.QtCore import QTimer

    directory.mkdir(parents=True, exist_ok=True)
    order = list(enumerate(SCREEN_FILES))

    def visit() -> None:
        if not order:
            (then or window.close)()
            return
        index, name = order.pop(0)
        window.tabs.setCurrentIndex(index)

        def shoot(waited_ms: int = 0) -> None:
            # The scorer loads its table and LM in a worker: wait for it (up to two minutes).
            scorer = window.scorer
            if name == "scorer" and (scorer is None or scorer.scorer is None) and waited_ms < 120_000:
                QTimer.singleShot(500, lambda: shoot(waited_ms + 500))
                return
            # The Suggestions screen evaluates two approaches in a worker: wait for it too.
            if name == "suggestions" and not window.suggestions.evaluated and waited_ms < 120_000:
                QTimer.singleShot(500, lambda: shoot(waited_ms + 500))
                return
            if name == "scorer" and scorer is not None and scorer.scorer is not None:
                scorer.candidate_edit.setFocus()
            translator = window.translator
            if name == "translator" and not translator.loaded and waited_ms < 120_000:
                QTimer.singleShot(500, lambda: shoot(waited_ms + 500))
                return
            if name == "translator" and translator.loaded:
                # The demo's third verse with "quickly" selected: five suggestions beside it.
                translator.session.go(2)
                translator.show_sentence()
                translator.editor.setFocus()
                translator.select_tokens(17, 18)
            QTimer.singleShot(700, lambda: (window.grab().save(str(directory / f"{index + 1}-{name}.png")),
                                            visit()))

        QTimer.singleShot(1200, shoot)

    visit()
