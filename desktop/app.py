"""Starting the desktop app."""

from __future__ import annotations

import sys

from core.demo import demo_files


def run_app(table: str | None = None, lm: str | None = None, screenshot: str | None = None) -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop.scorer_window import ScorerWindow

    demo = demo_files()
    table = table or str(demo.table)
    lm = lm or str(demo.lm)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Paraphrase Studio")
    app.setOrganizationName("Paraphrase Studio")
    window = ScorerWindow(table, lm)
    window.show()

    def on_ready() -> None:
        if not window.source_edit.text() and demo.test_sentences.is_file():
            first = demo.test_sentences.read_text(encoding="utf-8").splitlines()[0]
            window.source_edit.setText(first)
        if screenshot:
            QTimer.singleShot(600, lambda: (window.grab().save(screenshot), app.quit()))

    window.start_loading(on_ready)
    return app.exec()
