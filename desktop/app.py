"""Starting the desktop app."""

from __future__ import annotations

import sys
from pathlib import Path

from core.demo import demo_files

SCREEN_FILES = ("annotate", "choice-task", "studies", "quality-control", "dashboard", "scorer")


def run_app(table: str | None = None, lm: str | None = None, screenshot: str | None = None,
            study: str | None = None, annotator: str | None = None, screenshots: str | None = None) -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Paraphrase Studio")
    app.setOrganizationName("Paraphrase Studio")
    if study is None:
        from core.demo import open_demo_study

        try:
            study = str(open_demo_study(progress=lambda done, total, message="": print(
                f"demo study: {done}/{total} {message}", file=sys.stderr)))
        except FileNotFoundError as error:
            QMessageBox.critical(None, "Paraphrase Studio", f"Could not make the demo study:\n{error}\n\n"
                                 "Open a study with `parastudio app --study FILE.sqlite`.")
            return 1
    from desktop.main_window import MainWindow

    demo = demo_files()
    window = MainWindow(study, annotator=annotator, table=table or str(demo.table), lm=lm or str(demo.lm))
    window.show()
    if screenshot:
        QTimer.singleShot(800, lambda: (window.grab().save(screenshot), window.close()))
    elif screenshots:
        QTimer.singleShot(500, lambda: take_screenshots(window, Path(screenshots)))
    return app.exec()


def take_screenshots(window, directory: Path) -> None:
    """Visit every screen, let its workers finish, save the window as PNG, then close."""
    from PySide6.QtCore import QTimer

    directory.mkdir(parents=True, exist_ok=True)
    order = list(enumerate(SCREEN_FILES))

    def visit() -> None:
        if not order:
            window.close()
            return
        index, name = order.pop(0)
        window.tabs.setCurrentIndex(index)

        def shoot(waited_ms: int = 0) -> None:
            # The scorer loads its table and LM in a worker: wait for it (up to two minutes).
            scorer = window.scorer
            if name == "scorer" and (scorer is None or scorer.scorer is None) and waited_ms < 120_000:
                QTimer.singleShot(500, lambda: shoot(waited_ms + 500))
                return
            if name == "scorer" and scorer is not None and scorer.scorer is not None:
                scorer.candidate_edit.setFocus()
            QTimer.singleShot(700, lambda: (window.grab().save(str(directory / f"{index + 1}-{name}.png")),
                                            visit()))

        QTimer.singleShot(1200, shoot)

    visit()
