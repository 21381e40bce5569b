"""Run the demo study end to end with two scripted judges, then screenshot every screen.

    xvfb-run -a -s "-screen 0 1280x800x24" python3 docs/make_screenshots.py [--out docs/screenshots]

Builds the bundled demo study (``core.demo``) in a fresh data
directory, then two simulated annotators judge it *by keys* on the real
annotation screen: ``judge-2`` all of their items, ``judge-1`` most of
theirs (the screenshot shows them mid-study), both a few choice tasks. A
simulated judge says "no" to a candidate whose changes are long or which is a
planted control, and each judge disagrees on a fixed share of items, so the
dashboard's agreement figures are not trivial. Then the real main window is
shown and every screen saved as PNG at each size of ``SIZES``: 1024 x 700 in
``--out`` itself, 1280 x 800 in ``--out/1280x800``; then the judging screens zoomed
and in the dark colours (issue 44). Run under ``xvfb-run`` for a real X11
window (``QT_QPA_PLATFORM=offscreen`` also works, with offscreen fonts).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
WINDOW_SIZE = (1024, 700)
SIZES = (WINDOW_SIZE, (1280, 800))  # a small laptop and a common one (issue 28): every screen must fit both


def wait(milliseconds: int) -> None:
    """Process events with the app's workers running (``QTest.qWait`` keeps the GIL in PySide6 6.11: they starve)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(milliseconds, loop.quit)
    loop.exec()


def simulated_answer(item, judge: str) -> str:
    """A deterministic stand-in for a human: long rewrites and controls are bad; some noise per judge."""
    from parastudio.core.engine.text.changed_words import changed_tokens

    _, changed = changed_tokens(item.source, item.candidate or "", item.derivation)
    control = item.derivation is None  # the demo's own candidates all carry derivations
    good = len(changed) <= 3 and not control
    noise = int(hashlib.sha256(f"{judge}:{item.item}:{item.criterion}".encode()).hexdigest(), 16) % 100
    # judge-1 is careful with the planted controls, judge-2 is not: QC should pass one and fail the other.
    if noise < (0 if control and judge == "judge-1" else 40 if control else 12):
        good = not good
    if item.scale == "binary":
        return "Y" if good else "N"
    return "3" if good and noise % 2 else ("2" if good else "1")


def judge_by_keys(screen, judge: str, limit: int | None, stop_on_meaning: bool = False) -> int:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    keys = {"Y": Qt.Key_Y, "N": Qt.Key_N, "1": Qt.Key_1, "2": Qt.Key_2, "3": Qt.Key_3}
    pressed = 0
    while screen.item is not None and (limit is None or pressed < limit):
        item = screen.item
        if item.scale == "choice":  # a pick, then Enter accepts it (seed 001's preview-then-Accept)
            QTest.keyClick(screen, Qt.Key_1 + pressed % len(item.options) if item.options else Qt.Key_0)
            QTest.keyClick(screen, Qt.Key_Return)
        else:
            QTest.keyClick(screen, keys[simulated_answer(item, judge)])
        pressed += 1
    if stop_on_meaning:
        # Leave the screen on a meaning question with a visible change, the richest view.
        while screen.item is not None and not (screen.item.criterion == "meaning"
                                               and "background-color" in screen.candidate_label.text()):
            QTest.keyClick(screen, keys[simulated_answer(screen.item, judge)])
            pressed += 1
    screen.writer.drain()
    return pressed


def appearance_shots(window, directory: Path, then) -> None:
    """Issue 44: the judging screens zoomed by a judge's keys (Ctrl++ three times: 150%) and in the dark colours,
    then back to normal size and the desktop's colours."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    def zoom(screen, key, times=1) -> None:
        for _ in range(times):
            QTest.keyClick(screen, key, Qt.ControlModifier)

    def shoot(name: str) -> None:
        wait(400)
        window.grab().save(str(directory / f"{name}.png"))

    screen, choice = window.annotate.screen, window.choice.screen
    window.tabs.setCurrentWidget(window.annotate)
    zoom(screen, Qt.Key_Plus, 3)
    shoot("1d-annotate-zoomed")
    zoom(screen, Qt.Key_0)
    window.appearance.choose("dark")
    shoot("1e-annotate-dark")
    window.tabs.setCurrentWidget(window.choice)
    zoom(choice, Qt.Key_Plus, 2)
    shoot("2b-choice-dark-zoomed")
    zoom(choice, Qt.Key_0)
    window.appearance.choose("system")
    window.tabs.setCurrentWidget(window.annotate)
    then()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    args = parser.parse_args()
    data = Path(tempfile.mkdtemp(prefix="parastudio-shots-"))
    os.environ["PARASTUDIO_DATA"] = str(data)
    os.environ["XDG_CONFIG_HOME"] = str(data / "config")  # fresh QSettings

    from PySide6.QtWidgets import QApplication

    from parastudio.core.demo import DEMO_CHOICE_STUDY, DEMO_STUDY, open_demo_study
    from parastudio.core.store import operations as ops
    from parastudio.desktop.app import take_screenshots
    from parastudio.desktop.main_window import MainWindow

    app = QApplication(sys.argv[:1])
    app.setOrganizationName("Paraphrase Studio")
    app.setApplicationName("Paraphrase Studio")
    path = open_demo_study(progress=lambda done, total, message="": print(f"demo: {done}/{total} {message}", file=sys.stderr))

    from PySide6.QtTest import QTest

    window = MainWindow(path, annotator="judge-2")
    window.resize(*WINDOW_SIZE)  # a small laptop screen: what every screen must fit
    window.show()

    def judge_as(name: str) -> None:
        """File ▸ Judge as… without its dialog; the study's instructions, shown to a judge once, are read."""
        window.identity.set(name)
        wait(200)
        while window.annotate.screen.loading or window.choice.screen.loading:  # studies open off the UI thread
            wait(20)
        wait(100)  # the instructions open once the study is open
        dialog = getattr(window, "instructions_dialog", None)
        if dialog is not None and dialog.isVisible():
            dialog.accept()

    judge_as("judge-2")
    screen = window.annotate.screen
    total = ops.study_progress(window.db, screen.study_id, screen.annotator_id).total
    print(f"judge-2: {judge_by_keys(screen, 'judge-2', None)} key presses for {total} assignments")
    judge_as("judge-1")
    print(f"judge-1: {judge_by_keys(screen, 'judge-1', int(total * 0.8), stop_on_meaning=True)} key presses")
    window.tabs.setCurrentWidget(window.choice)
    for judge in ("judge-2", "judge-1"):
        judge_as(judge)
        print(f"{judge} choice tasks: {judge_by_keys(window.choice.screen, judge, 12)} key presses")
    window.tabs.setCurrentWidget(window.annotate)
    db = window.db
    study = ops.find_study(db, DEMO_STUDY)
    print("progress:", ops.study_progress(db, study).per_annotator)
    print("choice progress:", ops.study_progress(db, ops.find_study(db, DEMO_CHOICE_STUDY)).per_annotator)
    for report in ops.quality_control(db, study):
        print("QC:", report)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # The scripted keys never let the event loop run: let the progress recounts land first.
    wait(2000)
    from PySide6.QtCore import Qt

    # The two other question kinds, then back to where judge-1 stopped.
    stopped_at = screen.item.position if screen.item is not None else None

    def walk_to(arrived, key) -> None:
        for _ in range(5000):  # an arrow at either end of the order leaves the item as it is
            if screen.item is None or arrived(screen.item):
                return
            before = screen.item.position
            QTest.keyClick(screen, key)
            if screen.item.position == before:
                return

    # Blind phases: the fluency items come before the meaning item judge-1 stopped on, usability after it.
    for criterion, key, name in (("fluency", Qt.Key_Left, "1b-annotate-fluency-without-source"),
                                 ("usability", Qt.Key_Right, "1c-annotate-usability-3-point")):
        walk_to(lambda item, criterion=criterion: item.criterion == criterion, key)
        wait(300)
        window.grab().save(str(out / f"{name}.png"))
    if stopped_at is not None:  # back to where judge-1 stopped, the richest view
        walk_to(lambda item: item.position >= stopped_at, Qt.Key_Right if screen.item.position < stopped_at
                else Qt.Key_Left)
    window.dashboard.refresh(force=True)
    window.quality.refresh()
    from PySide6.QtCore import QSize

    from parastudio.desktop.window_fit import fit_to_screen

    sizes = list(SIZES)

    def next_size() -> None:
        if not sizes:
            window.close()
            return
        width, height = sizes.pop(0)
        fit_to_screen(window, QSize(width, height))
        print(f"screenshots at {window.width()} x {window.height()} (asked {width} x {height})")
        directory = out if (width, height) == WINDOW_SIZE else out / f"{width}x{height}"
        take_screenshots(window, directory, lambda: appearance_shots(window, directory, next_size))

    next_size()
    app.exec()
    print(f"screenshots in {args.out}; study database {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
