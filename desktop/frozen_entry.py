"""The entry point of the one-folder app bundle (``packaging/build_bundle.sh``): ``parastudio app``, and
``parastudio serve`` as ``paraphrase-studio serve ...`` (seed 001's service for a translator's CAT tool).

A frozen app has no installed distribution metadata, so the CLI's plugin
entry point is not there; this parses the ``app`` command's own options
(:func:`desktop.cli.register`) and starts it; ``serve`` runs through the CLI's own ``main`` (its errors and
exit codes), offered that one command (:data:`FROZEN_COMMANDS`, which the bundle's spec imports). ``--smoke-test`` opens the demo
study, judges one item by a key press, checks the answer is stored, and quits:
what the packaging test runs on the built bundle.
"""

from __future__ import annotations

import argparse
import sys

FROZEN_COMMANDS = ("parastudio.core.cli.serve_cmd",)  # CLI commands the bundle runs besides the app


def smoke_test() -> int:
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from parastudio.core.demo import open_demo_study
    from parastudio.desktop.app import run_event_loop
    from parastudio.desktop.main_window import MainWindow

    app = QApplication(sys.argv[:1])
    app.setOrganizationName("Paraphrase Studio")
    path = open_demo_study()
    window = MainWindow(path, annotator="judge-1")
    window.show()
    outcome = {}

    def done(ok: bool) -> None:
        outcome["ok"] = ok
        window.close()
        app.quit()

    judge_first_item_by_key(window, done)
    status = run_event_loop(app)  # an unexpected exception ends it with a non-zero status, never a hang
    return status or (0 if outcome.get("ok") else 1)


def judge_first_item_by_key(window, done) -> None:
    """Once the Annotate screen shows its first item (the study opens off the UI thread: never before, however
    long that takes), close the instructions a judge meets first, judge the item by a key press, and call
    ``done(True)`` when exactly that answer is stored (``done(False)``, said on stderr, when there is no item)."""
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest

    from parastudio.core.judging.protocols import protocol_of
    from parastudio.core.store import operations as ops

    screen = window.annotate.screen

    def judge() -> None:
        dialog = getattr(window, "instructions_dialog", None)
        if dialog is not None and dialog.isVisible():
            dialog.accept()
        item = screen.item
        if item is None:
            print("smoke test: the demo study opened with no item to judge", file=sys.stderr, flush=True)
            done(False)
            return
        QTest.keyClick(screen, Qt.Key_Y if protocol_of(item.scale).yes_no else Qt.Key_2)
        screen.writer.drain()
        judged = [row for row in ops.iter_judgments(window.db, screen.study_id)
                  if row["assignment_id"] == item.assignment_id]
        print(f"judged {len(judged)} item(s) by key: {item.criterion} of item {item.item}", flush=True)
        done(len(judged) == 1)

    # After the open's other callbacks (the first-time instructions), on the next turn of the event loop.
    screen.when_open(lambda: QTimer.singleShot(0, judge))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--smoke-test"]:
        return smoke_test()
    if argv[:1] == ["serve"]:
        from parastudio.core.cli import main as command

        return command(argv, commands=FROZEN_COMMANDS)
    from parastudio.desktop.cli import register, run

    parser = argparse.ArgumentParser(prog="paraphrase-studio")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["app", *argv])
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
