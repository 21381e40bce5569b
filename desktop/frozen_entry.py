"""The entry point of the one-folder app bundle (``packaging/build_bundle.sh``): ``parastudio app`` alone.

A frozen app has no installed distribution metadata, so the CLI's plugin
entry point is not there; this parses the ``app`` command's own options
(:func:`desktop.cli.register`) and starts it. ``--smoke-test`` opens the demo
study, judges one item by a key press, checks the answer is stored, and quits:
what the packaging test runs on the built bundle.
"""

from __future__ import annotations

import argparse
import sys


def smoke_test() -> int:
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from core.demo import open_demo_study
    from core.store import operations as ops
    from desktop.main_window import MainWindow

    app = QApplication(sys.argv[:1])
    app.setOrganizationName("Paraphrase Studio")
    path = open_demo_study()
    window = MainWindow(path, annotator="judge-1")
    window.show()
    outcome = {}

    def judge() -> None:
        dialog = getattr(window, "instructions_dialog", None)
        if dialog is not None and dialog.isVisible():
            dialog.accept()
        screen = window.annotate.screen
        item = screen.item
        QTest.keyClick(screen, Qt.Key_Y if item.scale == "binary" else Qt.Key_2)
        screen.writer.drain()
        judged = [row for row in ops.iter_judgments(window.db, ops.find_study(window.db, "demo"))
                  if row["assignment_id"] == item.assignment_id]
        outcome["ok"] = len(judged) == 1
        print(f"judged {len(judged)} item(s) by key: {item.criterion} of item {item.item}", flush=True)
        window.close()
        app.quit()

    QTimer.singleShot(300, judge)
    app.exec()
    return 0 if outcome.get("ok") else 1


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--smoke-test"]:
        return smoke_test()
    from desktop.cli import register, run

    parser = argparse.ArgumentParser(prog="paraphrase-studio")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["app", *argv])
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
