"""Starting the desktop app, and ending it when something unexpected happens in it."""

from __future__ import annotations

import functools
import sys
import traceback
from pathlib import Path

from parastudio.core.demo import demo_files
from parastudio.desktop.study_opening import open_study_database

# One per tab, in the order of desktop.main_window.SCREENS.
SCREEN_FILES = ("annotate", "choice-task", "studies", "quality-control", "dashboard", "scorer", "inspect", "tune",
                "suggestions", "translator")


def run_app(table: str | None = None, lm: str | None = None, screenshot: str | None = None,
            study: str | None = None, annotator: str | None = None, screenshots: str | None = None,
            create: bool = False, role: str | None = None) -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Paraphrase Studio")
    app.setOrganizationName("Paraphrase Studio")
    from PySide6.QtGui import QIcon

    app.setWindowIcon(QIcon(str(Path(__file__).with_name("icons") / "paraphrase-studio.png")))
    demo = demo_files()

    def open_window(path: str, db=None, session_role: str = "researcher", enforced: bool = False, name=None):
        from parastudio.desktop.main_window import MainWindow

        window = MainWindow(path, annotator=name or annotator, table=table or str(demo.table),
                            lm=lm or str(demo.lm), db=db, role=session_role, enforced=enforced)
        window.show()
        if screenshot:
            QTimer.singleShot(800, lambda: (window.grab().save(screenshot), window.close()))
        elif screenshots:
            QTimer.singleShot(500, lambda: take_screenshots(window, Path(screenshots)))
        app._main_window = window  # keep it alive
        return window

    from parastudio.core.store.operations import is_connection_file

    if is_connection_file(study):  # a member's own login: who they are is the server's word, never asked
        return open_member_window(study, open_window, app)

    def declared_role() -> str | None:
        """SQLite keeps no secret from whoever holds the file: the person says who they are (scripts: --role)."""
        return role or ("researcher" if screenshot or screenshots else ask_role())

    if study is None:
        from parastudio.core.demo import demo_study_path

        chosen = declared_role()
        if chosen is None:
            return 0
        if demo_study_path().is_file():
            db = open_study_database(str(demo_study_path()))
            if db is None:
                return 2
            open_window(str(demo_study_path()), db, session_role=chosen)
        elif not build_demo_then(app, lambda path: open_window(str(path), session_role=chosen)):
            return 1
        return run_event_loop(app)
    db = open_study_database(study, create=create)
    if db is None:
        return 2
    if not db.is_sqlite:  # a server's URL: the server says who this login is
        return open_server_window(study, db, None, open_window, app)
    chosen = declared_role()
    if chosen is None:
        db.close()
        return 0
    open_window(study, db, chosen)
    return run_event_loop(app)


# Exit status of an app stopped by an exception nothing caught (a bug), as Python's own for an uncaught one.
UNEXPECTED_ERROR_STATUS = 1
HEADLESS_PLATFORMS = ("offscreen", "minimal")  # no display: nobody to read a dialog


def run_event_loop(app) -> int:
    """``app.exec()``, ended by the first exception nothing caught (:func:`stop_on_unexpected_error`) instead of
    going on half-updated; the earlier ``sys.excepthook`` is put back afterwards."""
    previous = sys.excepthook
    sys.excepthook = functools.partial(stop_on_unexpected_error, app)
    app._stopping = False
    try:
        return app.exec()
    finally:
        sys.excepthook = previous


def stop_on_unexpected_error(app, kind, error, trace) -> None:
    """An exception raised in a slot or an event handler and caught by nothing. Qt would print it and carry on:
    a screen half-painted, a smoke run waiting for ever (issue 39: a key acted on an item not yet there, then
    the bundle hung until killed). Instead: said on stderr (the traceback, then one line), in a dialog when there
    is a display, every window closed (each saves what it holds: the judgment writer drains first) and the event
    loop ended with status 1 (130 for Ctrl+C, 143 for SIGTERM, said in one line)."""
    from parastudio.core.interruption import Terminated

    if issubclass(kind, KeyboardInterrupt):
        status = 143 if issubclass(kind, Terminated) else 130
        print(f"parastudio: {'terminated' if status == 143 else 'interrupted'}", file=sys.stderr, flush=True)
    else:
        status = UNEXPECTED_ERROR_STATUS
        traceback.print_exception(kind, error, trace, file=sys.stderr)
        print(f"parastudio: error: unexpected {kind.__name__}: {error} (a bug in Paraphrase Studio: the lines above "
              "say where); the app stops", file=sys.stderr, flush=True)
    if getattr(app, "_stopping", False):  # raised again while the windows close: already on the way out
        return
    app._stopping = True
    try:
        if status == UNEXPECTED_ERROR_STATUS and app.platformName() not in HEADLESS_PLATFORMS:
            from PySide6.QtWidgets import QMessageBox

            QMessageBox.critical(None, "Paraphrase Studio", f"Something went wrong that should not have:\n\n"
                                 f"{kind.__name__}: {error}\n\nThe app stops once the answers given are saved. "
                                 "Please report this with what the terminal shows.")
        # Closing the last window would quit with status 0, and later: the status is the exit's below alone.
        quits = app.quitOnLastWindowClosed()
        app.setQuitOnLastWindowClosed(False)
        try:
            app.closeAllWindows()
        finally:
            app.setQuitOnLastWindowClosed(quits)
    finally:
        app.exit(status)


def ask_role() -> str | None:
    """At launch on a SQLite study: a researcher, or a judge (None: the person closed the question)."""
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(QMessageBox.Question, "Paraphrase Studio", "Who is at this computer?")
    box.setInformativeText("A judge's session shows the judging screens only: no other judge's label, no system "
                           "name, no statistic. A study file on this machine cannot keep a secret from whoever holds "
                           "it, so its blinding rests on the judges; a study on PostgreSQL enforces it for each "
                           "judge's own login.")
    judge = box.addButton("&Judge", QMessageBox.AcceptRole)
    researcher = box.addButton("&Researcher", QMessageBox.AcceptRole)
    box.addButton(QMessageBox.Cancel)
    box.setDefaultButton(judge)
    box.exec()
    return {judge: "judge", researcher: "researcher"}.get(box.clickedButton())


def open_member_window(path: str, open_window, app) -> int:
    """The window of a connection file's login: a judge's or an adjudicator's session as the server says, or a
    researcher's when the file holds the owner's login."""
    from PySide6.QtWidgets import QMessageBox

    from parastudio.core.errors import InputFileError, InputFormatError, StudyUnavailableError
    from parastudio.core.store.database import open_database
    from parastudio.core.store.operations import read_connection_file

    try:
        connection = read_connection_file(path)
        db = open_database(connection.url)
    except (InputFileError, InputFormatError, StudyUnavailableError, OSError) as error:
        print(f"parastudio: error: {error}", file=sys.stderr)
        QMessageBox.critical(None, "Paraphrase Studio", f"Could not open the study:\n\n{error}")
        return 2
    return open_server_window(path, db, connection.study, open_window, app)


def open_server_window(path: str, db, study: str | None, open_window, app) -> int:
    """A study on a server: a member's session (judge or adjudicator, as the server says) on their own login,
    else the researcher's."""
    from PySide6.QtWidgets import QMessageBox

    from parastudio.core.store import operations as ops

    membership = ops.connection_membership(db)
    try:
        study_id = ops.find_study(db, study) if study or membership is None else min(membership)
        if membership is not None and study_id not in membership:
            raise LookupError("this login is no member of that study")
    except (LookupError, ValueError) as error:
        message = str(error) if membership != {} else "this login is a member of no study here"
        print(f"parastudio: error: {path}: {message}", file=sys.stderr)
        QMessageBox.critical(None, "Paraphrase Studio", f"Could not open the study:\n\n{message}")
        db.close()
        return 2
    if membership is None:
        open_window(path, db, "researcher")
    else:
        member = membership[study_id]
        open_window(path, db, member.role, enforced=True, name=member.login)
    return run_event_loop(app)


def build_demo_then(app, then) -> bool:
    """First launch: a window at once (a progress dialog with Cancel) while the demo study is built in a worker."""
    from PySide6.QtCore import QThreadPool
    from PySide6.QtWidgets import QMessageBox, QProgressDialog

    from parastudio.core.demo import open_demo_study
    from parastudio.desktop.workers import Worker

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
