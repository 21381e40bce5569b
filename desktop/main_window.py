"""The main window: Annotate, Choice task, Studies, Quality control, Dashboard, Scorer, Inspect, Tune, Suggestions,
Translator.

Ctrl+1 … Ctrl+9 and Ctrl+0 switch screens (:data:`SCREEN_KEYS`); Ctrl+Shift+A adjudicates the disagreements of
the study chosen on Annotate; Ctrl+O opens another study database; Ctrl+Q quits. Closing drains the judgment
writer first, so no answer given is lost. Settings (window geometry, last screen, last study and annotator)
live in QSettings.
"""

from __future__ import annotations

import hashlib
import html
from pathlib import Path

from PySide6.QtCore import QEvent, QEventLoop, QSettings, QSize, Qt, QThreadPool, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QProgressDialog,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from parastudio.core.demo import demo_files, user_data_dir
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database, open_database
from parastudio.core.store.operations import AnswerOutbox
from parastudio.desktop import file_dialogs
from parastudio.desktop.appearance import Appearance
from parastudio.desktop.dashboard_screen import DashboardScreen
from parastudio.desktop.inspect_screen import InspectScreen
from parastudio.desktop.judging_tab import Identity, JudgingTab, all_annotator_names, ask_annotator
from parastudio.desktop.judgment_writer import JudgmentWriter
from parastudio.desktop.quality_screen import QualityScreen
from parastudio.desktop.studies_screen import StudiesScreen
from parastudio.desktop.study_opening import open_study_database
from parastudio.desktop.suggestion_inspect_screen import SuggestionInspectScreen
from parastudio.desktop.translator_screen import TranslatorScreen
from parastudio.desktop.tune_screen import TuneScreen
from parastudio.desktop.window_fit import fit_to_screen

SCREENS = ("Annotate", "Choice task", "Studies", "Quality control", "Dashboard", "Scorer", "Inspect", "Tune",
           "Suggestions", "Translator")
# What a judge's or an adjudicator's session shows (issue 38): their own items, nothing over other judges, no
# system, no statistic, no study setting. On PostgreSQL their own login could read no more anyway; on SQLite
# the file could, so the session is all there is between a judge and the others' labels.
JUDGING_SCREENS = ("Annotate", "Choice task")
ROLES = ("researcher", "adjudicator", "judge")
# Ctrl+N for the N-th screen, except those given their own key.
SCREEN_KEYS = {**{title: f"Ctrl+{index + 1}" for index, title in enumerate(SCREENS[:9])}, "Translator": "Ctrl+0"}


def answer_outbox_for(db: Database) -> AnswerOutbox | None:
    """The judge's outbox for a study on a server (:mod:`core.store.answer_outbox`), one per server, database and
    login, beside the user's other data; None for a SQLite file, which is on this computer already."""
    if db.is_sqlite:
        return None
    where = db.engine.url.render_as_string(hide_password=True)
    return AnswerOutbox(user_data_dir() / "outbox" / f"{hashlib.sha256(where.encode()).hexdigest()[:20]}.jsonl")


class MainWindow(QMainWindow):
    def __init__(self, study_path: str | Path, *, annotator: str | None = None, table: str | None = None,
                 lm: str | None = None, db: Database | None = None, role: str = "researcher",
                 enforced: bool = False):
        """Open the study database at ``study_path`` (raises InputFileError when it is not one of ours).

        ``role``: who sits here (:data:`ROLES`); a judge's and an adjudicator's session has the judging screens
        only. ``enforced``: the role is the server's (a member's own PostgreSQL login, whose name is
        ``annotator``): nobody picks another name here, and no dialog asks who is judging."""
        super().__init__()
        if role not in ROLES:
            raise ValueError(f"a session's role is one of {', '.join(ROLES)}, not {role!r}")
        self.role, self.enforced = role, enforced
        self.screens = SCREENS if role == "researcher" else JUDGING_SCREENS
        self.study_path = Path(study_path)
        self.settings = QSettings()
        # A connection file's name, never its contents (the password): the window title shows only the file.
        self.setWindowTitle(f"Paraphrase Studio — {self.study_path.name}")
        self.db = db or open_database(self.study_path)
        self._fit_to_screen()
        self.writer = JudgmentWriter(self.db, outbox=answer_outbox_for(self.db))
        demo = demo_files()
        self.table_path, self.lm_path = table or str(demo.table), lm or str(demo.lm)
        remembered = None if enforced else self.settings.value(f"annotator/{self.study_path.resolve()}")
        self.identity = Identity(annotator or (remembered if remembered in all_annotator_names(self.db) else None))

        self.tabs = QTabWidget()
        # The tab bar never takes the keyboard: arrows and letters always reach the judging screen.
        self.tabs.setFocusPolicy(Qt.NoFocus)
        self.tabs.tabBar().setFocusPolicy(Qt.NoFocus)
        self.annotate = JudgingTab(self.db, self.writer, choice=False, settings=self.settings,
                                   identity=self.identity)
        self.choice = JudgingTab(self.db, self.writer, choice=True, settings=self.settings, identity=self.identity)
        if role == "researcher":
            self._researcher_screens()
        else:
            self.studies = self.quality = self.dashboard = self.inspect = self.tune = None
            self.translator = self.suggestions = self.scorer_holder = self.scorer = None
        for widget, title in zip(self._screen_widgets(), self.screens):
            self.tabs.addTab(widget, f"{title}  [{SCREEN_KEYS[title]}]")
        self.setCentralWidget(self.tabs)
        self._screen_chooser()
        self.identity_status = QLabel()
        self.offline_status = QLabel()  # "offline: N answers waiting" while the server cannot be reached
        self.statusBar().addPermanentWidget(self.offline_status)
        self.statusBar().addPermanentWidget(self.identity_status)
        self.writer.offline.connect(self._show_offline)
        self._actions()
        self.appearance = Appearance(self)  # View menu: the judge's zoom, light or dark colours (issue 44)
        self.tabs.currentChanged.connect(self._tab_changed)
        if self.studies is not None:
            self.studies.study_opened.connect(self._open_from_list)
            self.studies.studies_changed.connect(self.reload)
        self.annotate.study_combo.currentIndexChanged.connect(lambda _: self._analysis_study_changed())
        self.annotate.screen.writer.failed.connect(lambda message: self.statusBar().showMessage(message))
        self.annotate.screen.writer.warned.connect(lambda message: self.statusBar().showMessage(message))
        self.identity.changed.connect(self._identity_changed)
        self._show_identity()
        self.reload()
        self.tabs.setCurrentIndex(0)
        self.statusBar().showMessage(self._session_note())
        if self.identity.name is None and all_annotator_names(self.db) and not enforced:
            QTimer.singleShot(0, self.judge_as)

    def _show_offline(self, waiting: int) -> None:
        self.offline_status.setText(f"<b>offline: {waiting} answer{'s' if waiting != 1 else ''} waiting</b> on this "
                                    "computer for the server" if waiting else "")
        if not waiting:
            self.statusBar().showMessage("back online: every answer is written to the study")

    def _session_note(self) -> str:
        if self.role == "researcher":
            return f"study database: {self.study_path}"
        if self.enforced:
            return f"{self.role} session: the study's server lets your login read only your own work"
        return (f"{self.role} session: no researcher screen here; on a shared SQLite file the judges' blinding "
                "rests on the judges themselves (a PostgreSQL study enforces it)")

    def _researcher_screens(self) -> None:
        self.studies = StudiesScreen(self.db)
        self.quality = QualityScreen(self.db)
        self.dashboard = DashboardScreen(self.db)
        self.inspect = InspectScreen(self.db)
        self.inspect.open_in_scorer.connect(self.score_candidate)
        self.inspect.set_engine_paths(self.table_path, self.lm_path)
        self.tune = TuneScreen(self.db)
        self.tune.study_made.connect(lambda _: self.reload())
        self.translator = TranslatorScreen(self.db, self.identity, lm=self.lm_path)
        self.translator.identity_needed.connect(self.judge_as)
        self.suggestions = SuggestionInspectScreen(self.db)
        self.suggestions.choice_study_changed.connect(lambda _: self.choice.reload())
        self.scorer_holder = QWidget()
        QVBoxLayout(self.scorer_holder)
        self.scorer = None

    def _screen_widgets(self) -> tuple:
        everything = (self.annotate, self.choice, self.studies, self.quality, self.dashboard, self.scorer_holder,
                      self.inspect, self.tune, self.suggestions, self.translator)
        return tuple(widget for widget, title in zip(everything, SCREENS) if title in self.screens)

    def _fit_to_screen(self) -> None:
        """The last size, else 1200 x 800, never beyond the screen's free area with the frame; laid out for
        1024 x 700 (:mod:`desktop.window_fit`; checked again once shown, with the real frame)."""
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        fit_to_screen(self, self.size() if geometry is not None else QSize(1200, 800))

    def _screen_chooser(self) -> None:
        """Every screen one pick away at any width: a list in the menu bar's corner (and the Screens menu)
        instead of a tab bar that scrolls ten tabs past a small window's edge."""
        self.tabs.tabBar().hide()
        self.screen_chooser = corner = QWidget(self.menuBar())
        row = QHBoxLayout(corner)
        row.setContentsMargins(0, 0, 6, 0)
        label = QLabel("Screen:")
        self.screen_combo = QComboBox()
        self.screen_combo.setFocusPolicy(Qt.NoFocus)  # arrows and letters stay with the judging screen
        self.screen_combo.addItems([f"{title}  ({SCREEN_KEYS[title]})" for title in self.screens])
        self.screen_combo.activated.connect(self.tabs.setCurrentIndex)
        self.tabs.currentChanged.connect(self.screen_combo.setCurrentIndex)
        row.addWidget(label)
        row.addWidget(self.screen_combo)
        self.menuBar().setCornerWidget(corner, Qt.TopRightCorner)

    def _actions(self) -> None:
        menu = self.menuBar().addMenu("&File")
        open_action = QAction("&Open study database…", self, shortcut=QKeySequence("Ctrl+O"))
        open_action.triggered.connect(self.open_other)
        menu.addAction(open_action)
        # Who judges is the server's word on a member's login, and a judge never adjudicates: no action at all.
        if not self.enforced:
            judge_as = QAction("&Judge as…", self, shortcut=QKeySequence("Ctrl+Shift+J"))
            judge_as.triggered.connect(self.judge_as)
            menu.addAction(judge_as)
        if self.role != "judge":
            adjudicate = QAction("&Adjudicate disagreements…", self, shortcut=QKeySequence("Ctrl+Shift+A"))
            adjudicate.triggered.connect(self.adjudicate)
            menu.addAction(adjudicate)
        instructions = QAction("&Instructions of this study", self, shortcut=QKeySequence("F1"))
        instructions.triggered.connect(self.show_instructions)
        quit_action = QAction("&Quit", self, shortcut=QKeySequence("Ctrl+Q"))
        quit_action.triggered.connect(self.close)
        menu.addActions([instructions, quit_action])
        view = self.menuBar().addMenu("&Screens")
        for index, title in enumerate(self.screens):
            action = QAction(title, self, shortcut=QKeySequence(SCREEN_KEYS[title]))
            action.triggered.connect(lambda _=False, i=index: self.tabs.setCurrentIndex(i))
            view.addAction(action)
        refresh = QAction("&Refresh this screen", self, shortcut=QKeySequence("F5"))
        refresh.triggered.connect(self.refresh_current)
        view.addAction(refresh)

    # who judges ---------------------------------------------------------------------------
    def _show_identity(self) -> None:
        name = self.identity.name
        self.identity_status.setText(f"Judging as: <b>{html.escape(name)}</b>" if name else "Judging as: nobody yet")

    def judge_as(self) -> None:
        """The one way to change who judges: a dialog that says so (none on a member's own login)."""
        if self.enforced:
            return
        name = ask_annotator(self, self.db, self.identity.name)
        self.focus_current_screen()
        if name:
            self.identity.set(name)

    def _identity_changed(self, name: str) -> None:
        self.settings.setValue(f"annotator/{self.study_path.resolve()}", name)
        self._show_identity()
        for tab in (self.annotate, self.choice):
            tab._study_chosen()
        self.focus_current_screen()
        # A judge named here (the first-launch "Who is judging?" dialog, or Judge as…) meets the instructions
        # before their first item, as one named by --annotator does when the window opens.
        current = self.tabs.currentWidget()
        QTimer.singleShot(0, lambda: self._first_time_instructions(
            current if isinstance(current, JudgingTab) else self.annotate))

    # adjudication ---------------------------------------------------------------------------
    def adjudicate(self) -> None:
        """The disagreements of the study chosen on Annotate, decided by whoever judges in this window when the
        researcher named them adjudicator; anyone else (a judge) is refused before any label is read."""
        from parastudio.desktop.adjudication_screen import AdjudicationDialog

        if self.role == "judge":
            self.statusBar().showMessage("a judge's session does not adjudicate: judges never see each other's labels")
            return
        study = self.annotate.current_study()
        if study is None:
            self.statusBar().showMessage("no study of candidates to adjudicate")
            return
        if not self.identity.name:
            self.judge_as()
            if not self.identity.name:
                return
        if not ops.is_adjudicator(self.db, study, self.identity.name):
            self.statusBar().showMessage(str(ops.NotAnAdjudicator(self.identity.name, study)))
            return
        name = self.annotate.study_names[self.annotate.study_ids.index(study)]
        self.adjudication = AdjudicationDialog(self.db, study, name, self.identity.name, self)
        self.adjudication.finished.connect(lambda _: self._back_from_dialog())
        self.adjudication.open()

    # instructions ---------------------------------------------------------------------------
    def show_instructions(self, study_id: int | None = None) -> None:
        from parastudio.desktop.instructions import InstructionsDialog

        tab = self.tabs.currentWidget()
        study_id = study_id or (tab.current_study() if isinstance(tab, JudgingTab) else
                                self.annotate.current_study())
        if study_id is None:
            return
        # Window-modal but not blocking: the judge reads, Enter or Esc closes, keys go back to the screen.
        self.instructions_dialog = InstructionsDialog(self.db, study_id, self)
        self.instructions_dialog.finished.connect(lambda _: self._back_from_dialog())
        self.instructions_dialog.open()

    def _first_time_instructions(self, tab: "JudgingTab") -> None:
        """A judge sees the study's instructions before their first item (once per study and judge)."""
        if tab.screen.loading:  # the study opens off the UI thread: the instructions come once it is open
            tab.screen.when_open(lambda: self._first_time_instructions(tab))
            return
        study, name = tab.current_study(), self.identity.name
        if study is None or not name or tab.screen.session is None:
            return
        key = f"instructions-seen/{self.study_path.resolve()}/{study}/{name}"
        if self.settings.value(key) is None:
            self.settings.setValue(key, True)
            self.show_instructions(study)

    # screens ---------------------------------------------------------------------------
    def _back_from_dialog(self) -> None:
        self.activateWindow()  # some window systems leave no window active after a modal dialog
        self.focus_current_screen()

    def focus_current_screen(self) -> None:
        """The judging screen on top takes the keys (at launch, after a screen switch, after every dialog)."""
        widget = self.tabs.currentWidget()
        if isinstance(widget, JudgingTab):
            screen = widget.screen
            if not (screen.comment_edit.hasFocus() or screen.custom_edit.hasFocus()):
                screen.setFocus()

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        fit_to_screen(self)  # the real frame is known now
        QTimer.singleShot(0, self.focus_current_screen)
        QTimer.singleShot(0, lambda: self._first_time_instructions(self.annotate))

    def changeEvent(self, event) -> None:  # noqa: N802
        # Back from another window or a dialog: keys go to the judging screen again; the clock runs again.
        if event.type() == QEvent.ActivationChange:
            for tab in (self.annotate, self.choice):
                if self.isActiveWindow() and tab.isVisible():
                    tab.screen.clock.resume()
                else:
                    tab.screen.clock.pause()
            if self.isActiveWindow():
                QTimer.singleShot(0, self.focus_current_screen)
        super().changeEvent(event)

    def reload(self) -> None:
        self.annotate.reload()
        self.choice.reload()
        if self.role == "researcher":
            self.studies.refresh()
            self._analysis_study_changed()

    def _analysis_study_changed(self) -> None:
        """QC and the dashboard follow the study chosen on the Annotate screen (else the first)."""
        if self.role != "researcher":
            return
        study = self.annotate.current_study()
        summaries = {s.id: s.name for s in ops.study_summaries(self.db)}
        if study is None and summaries:
            study = next(iter(summaries))
        if study is not None:
            self.quality.set_study(study, summaries[study])
            self.dashboard.set_study(study, summaries[study])
            self.inspect.set_study(study, summaries[study])
            self.tune.set_study(study, summaries[study])
            if self.tabs.currentWidget() is self.inspect:
                self.inspect.refresh()

    def _open_from_list(self, study_id: int) -> None:
        """A study opened from the Studies screen: judged by the same person, never a silent switch."""
        for index, tab in ((0, self.annotate), (1, self.choice)):
            if study_id in tab.study_ids:
                self.tabs.setCurrentIndex(index)
                tab.open_study(study_id)
                self.focus_current_screen()
                return

    def _tab_changed(self, index: int) -> None:
        widget = self.tabs.widget(index)
        if isinstance(widget, JudgingTab):
            self.focus_current_screen()
            QTimer.singleShot(0, lambda: self._first_time_instructions(widget))
        elif widget is self.scorer_holder and self.scorer is None:
            self._start_scorer()
        elif widget is self.dashboard:
            self.dashboard.refresh()
        elif widget is self.studies:
            self.studies.refresh()
        elif widget is self.quality:
            self.quality.refresh()
        elif widget is self.inspect and not self.inspect.loaded:
            self.inspect.refresh()
        elif widget is self.tune:
            self.tune.setFocus()
        elif widget is self.translator:
            self.translator.activate()
        elif widget is self.suggestions:
            if not self.suggestions.evaluated and self.suggestions.worker is None:
                self.suggestions.evaluate()  # approach 1 against approach 10 on the round-trip cases
            self.suggestions.view.setFocus()

    def score_candidate(self, source: str, candidate: str) -> None:
        """From the Inspect screen: the source in the Scorer with the candidate filled in."""
        self.tabs.setCurrentWidget(self.scorer_holder)
        if self.scorer is None:
            self._start_scorer()
        self.scorer.source_edit.setText(source)
        self.scorer.candidate_edit.setText(candidate)

    def _start_scorer(self) -> None:
        from parastudio.desktop.scorer_window import ScorerWindow

        # A QMainWindow can live inside a tab as a plain widget.
        self.scorer = ScorerWindow(self.table_path, self.lm_path)
        self.scorer.setWindowFlags(Qt.Widget)
        self.scorer_holder.layout().addWidget(self.scorer)
        if Path(self.table_path).is_file() and Path(self.lm_path).is_file():
            demo = demo_files()

            def first_sentence() -> None:
                if not self.scorer.source_edit.text() and demo.test_sentences.is_file():
                    lines = demo.test_sentences.read_text(encoding="utf-8").splitlines()
                    if lines:
                        self.scorer.source_edit.setText(lines[0])

            def ready() -> None:
                first_sentence()
                self.inspect.set_engine(self.scorer.table, self.scorer.lm)

            self.scorer.start_loading(ready)
        else:
            self.scorer.models_label.setText(f"No table or LM at {self.table_path} / {self.lm_path}: start with "
                                             "`parastudio app --table T --lm LM`.")

    def refresh_current(self) -> None:
        widget = self.tabs.currentWidget()
        if widget is self.studies:
            self.studies.refresh()
        elif widget is self.quality:
            self.quality.refresh()
        elif widget is self.dashboard:
            self.dashboard.refresh(force=True)
        elif widget is self.inspect:
            self.inspect.refresh()
        elif isinstance(widget, JudgingTab):
            widget.screen.refresh_progress()

    def open_other(self) -> None:
        path, _ = file_dialogs.get_open_file_name(self, "Open a study database", str(self.study_path.parent),
                                                  "Study databases (*.sqlite *.db);;All files (*)", study=True)
        self.focus_current_screen()
        if not path:
            return
        # Not a study of ours (or not SQLite at all), or an older one the person would not upgrade: said there;
        # nothing was written to it.
        database = open_study_database(path, parent=self)
        if database is None:
            self.focus_current_screen()
            return
        replacement = MainWindow(path, annotator=self.identity.name, table=self.table_path, lm=self.lm_path,
                                 db=database, role=self.role)
        replacement.show()
        self.close()
        self._replacement = replacement

    def closeEvent(self, event) -> None:  # noqa: N802
        # Every answer already given is committed before the window goes, then the judging sessions end. A small
        # dialog always says what the closing waits for (answers still being saved, then background work).
        self.closing_dialog = dialog = QProgressDialog("", None, 0, 0, self)
        dialog.setWindowTitle("Paraphrase Studio: closing")
        dialog.setMinimumDuration(0)
        dialog.setWindowModality(Qt.WindowModal)
        for tab in (self.annotate, self.choice):
            tab.screen.progress.stop()
        self.closing_waited_for: list[str] = []

        def say(text: str) -> None:
            self.closing_waited_for.append(text)
            dialog.setLabelText(text)
            dialog.show()
            QApplication.processEvents(QEventLoop.ExcludeUserInputEvents)

        while (pending := self.writer.pending()) or not self.closing_waited_for:
            if self.writer.is_offline():  # they stay on this computer's disk and go first at the next start
                say(f"The server cannot be reached: {self.writer.offline_waiting} answer(s) wait on this computer "
                    "and are written when you open the study again.")
                break
            say(f"Saving {pending} answer(s) still on their way to the study database…" if pending
                else "Every answer is saved. Ending the judging session…")
            self.writer.drain(timeout_s=0.1)
        for tab in (self.annotate, self.choice):
            tab.screen.close_session()
        self.writer.close()
        if self.role == "researcher":
            if self.studies.worker is not None:
                self.studies.worker.cancel()  # a study build stops at its next progress report
            self.tune.cancel()  # tuning stops at its next progress report
            self.dashboard.cancel()
            self.translator.cancel()  # opening the graph store stops at its next progress report
            self.suggestions.cancel()
        pool = QThreadPool.globalInstance()
        if pool.activeThreadCount():
            say("Stopping background work (statistics, tuning, a study build) that reads the database…")
            pool.waitForDone(5000)  # workers reading the database
        if self.translator is not None:
            self.translator.close_session()
        dialog.close()
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("app/last_study", str(self.study_path))
        self.db.close()
        super().closeEvent(event)
