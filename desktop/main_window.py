"""The main window: Annotate, Choice task, Studies, Quality control, Dashboard, Scorer.

Ctrl+1 … Ctrl+6 switch screens; Ctrl+O opens another study database;
Ctrl+Q quits. Closing drains the judgment writer first, so no answer given
is lost. Settings (window geometry, last screen, last study and annotator)
live in QSettings.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, QThreadPool
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.demo import demo_files
from core.store.annotation_queries import annotator_names, study_summaries
from core.store.database import Database, open_database
from desktop.annotation_screen import AnnotationScreen
from desktop.dashboard_screen import DashboardScreen
from desktop.judgment_writer import JudgmentWriter
from desktop.quality_screen import QualityScreen
from desktop.studies_screen import StudiesScreen

SCREENS = ("Annotate", "Choice task", "Studies", "Quality control", "Dashboard", "Scorer")


class JudgingTab(QWidget):
    """A study and annotator picker above an annotation screen."""

    def __init__(self, db: Database, writer: JudgmentWriter, *, choice: bool, settings: QSettings):
        super().__init__()
        self.db, self.choice, self.settings = db, choice, settings
        self.study_ids: list[int] = []
        self.study_names: list[str] = []
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.study_combo = QComboBox()
        self.annotator_combo = QComboBox()
        study_label, annotator_label = QLabel("&Study:"), QLabel("Annota&tor:")
        study_label.setBuddy(self.study_combo)
        annotator_label.setBuddy(self.annotator_combo)
        for widget in (study_label, self.study_combo, annotator_label, self.annotator_combo):
            row.addWidget(widget)
        row.addWidget(QLabel("<span style='color:#666'>(Alt+S / Alt+T to change; the screen resumes where "
                             "you left off)</span>"))
        row.addStretch(1)
        layout.addLayout(row)
        self.screen = AnnotationScreen(db, writer)
        layout.addWidget(self.screen, 1)
        self.study_combo.activated.connect(lambda _: self._study_chosen())
        self.annotator_combo.activated.connect(lambda _: self._annotator_chosen())

    def reload(self, prefer_study: int | None = None) -> None:
        summaries = [s for s in study_summaries(self.db) if (s.choice_tasks > 0) == self.choice]
        self.study_ids = [s.id for s in summaries]
        self.study_names = [s.name for s in summaries]
        self.study_combo.clear()
        self.study_combo.addItems(self.study_names)
        if not summaries:
            return
        remembered = self.settings.value(self._key("study"))
        wanted = prefer_study if prefer_study in self.study_ids else (
            int(remembered) if remembered is not None and int(remembered) in self.study_ids else self.study_ids[0])
        self.study_combo.setCurrentIndex(self.study_ids.index(wanted))
        self._study_chosen()

    def _key(self, name: str) -> str:
        return f"{'choice' if self.choice else 'annotate'}/{self.db.engine.url.database}/{name}"

    def current_study(self) -> int | None:
        index = self.study_combo.currentIndex()
        return self.study_ids[index] if 0 <= index < len(self.study_ids) else None

    def _study_chosen(self) -> None:
        study = self.current_study()
        if study is None:
            return
        self.settings.setValue(self._key("study"), study)
        names = annotator_names(self.db, study)
        self.annotator_combo.clear()
        self.annotator_combo.addItems(names)
        remembered = self.settings.value(self._key(f"annotator/{study}"))
        if remembered in names:
            self.annotator_combo.setCurrentText(remembered)
        self._annotator_chosen()

    def _annotator_chosen(self, name: str | None = None) -> None:
        study = self.current_study()
        name = name or self.annotator_combo.currentText()
        if study is None or not name:
            return
        self.annotator_combo.setCurrentText(name)
        self.settings.setValue(self._key(f"annotator/{study}"), name)
        self.screen.open(study, name, self.study_names[self.study_ids.index(study)])
        self.screen.setFocus()

    def use_annotator(self, name: str) -> None:
        if self.annotator_combo.findText(name) >= 0:
            self._annotator_chosen(name)


class MainWindow(QMainWindow):
    def __init__(self, study_path: str | Path, *, annotator: str | None = None, table: str | None = None,
                 lm: str | None = None):
        super().__init__()
        self.study_path = Path(study_path)
        self.settings = QSettings()
        self.setWindowTitle(f"Paraphrase Studio — {self.study_path.name}")
        self.resize(1200, 800)
        self.db = open_database(self.study_path)
        self.writer = JudgmentWriter(self.db)
        demo = demo_files()
        self.table_path, self.lm_path = table or str(demo.table), lm or str(demo.lm)

        self.tabs = QTabWidget()
        self.annotate = JudgingTab(self.db, self.writer, choice=False, settings=self.settings)
        self.choice = JudgingTab(self.db, self.writer, choice=True, settings=self.settings)
        self.studies = StudiesScreen(self.db)
        self.quality = QualityScreen(self.db)
        self.dashboard = DashboardScreen(self.db)
        self.scorer_holder = QWidget()
        QVBoxLayout(self.scorer_holder)
        self.scorer = None
        for widget, title in zip((self.annotate, self.choice, self.studies, self.quality, self.dashboard,
                                  self.scorer_holder), SCREENS):
            self.tabs.addTab(widget, f"{title}  [Ctrl+{SCREENS.index(title) + 1}]")
        self.setCentralWidget(self.tabs)
        self._actions()
        self.tabs.currentChanged.connect(self._tab_changed)
        self.studies.study_opened.connect(self._open_from_list)
        self.studies.studies_changed.connect(self.reload)
        self.annotate.study_combo.currentIndexChanged.connect(lambda _: self._analysis_study_changed())
        self.annotate.screen.writer.failed.connect(lambda message: self.statusBar().showMessage(message))
        self.reload()
        if annotator:
            self.annotate.use_annotator(annotator)
            self.choice.use_annotator(annotator)
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        self.tabs.setCurrentIndex(0)
        self.statusBar().showMessage(f"study database: {self.study_path}")

    def _actions(self) -> None:
        menu = self.menuBar().addMenu("&File")
        open_action = QAction("&Open study database…", self, shortcut=QKeySequence("Ctrl+O"))
        open_action.triggered.connect(self.open_other)
        quit_action = QAction("&Quit", self, shortcut=QKeySequence("Ctrl+Q"))
        quit_action.triggered.connect(self.close)
        menu.addActions([open_action, quit_action])
        view = self.menuBar().addMenu("&Screens")
        for index, title in enumerate(SCREENS):
            action = QAction(title, self, shortcut=QKeySequence(f"Ctrl+{index + 1}"))
            action.triggered.connect(lambda _=False, i=index: self.tabs.setCurrentIndex(i))
            view.addAction(action)
        refresh = QAction("&Refresh this screen", self, shortcut=QKeySequence("F5"))
        refresh.triggered.connect(self.refresh_current)
        view.addAction(refresh)

    def reload(self) -> None:
        self.annotate.reload()
        self.choice.reload()
        self.studies.refresh()
        self._analysis_study_changed()

    def _analysis_study_changed(self) -> None:
        """QC and the dashboard follow the study chosen on the Annotate screen (else the first)."""
        study = self.annotate.current_study()
        summaries = {s.id: s.name for s in study_summaries(self.db)}
        if study is None and summaries:
            study = next(iter(summaries))
        if study is not None:
            self.quality.set_study(study, summaries[study])
            self.dashboard.set_study(study, summaries[study])

    def _open_from_list(self, study_id: int) -> None:
        for index, tab in ((0, self.annotate), (1, self.choice)):
            if study_id in tab.study_ids:
                tab.study_combo.setCurrentIndex(tab.study_ids.index(study_id))
                tab._study_chosen()
                self.tabs.setCurrentIndex(index)
                return

    def _tab_changed(self, index: int) -> None:
        widget = self.tabs.widget(index)
        if widget in (self.annotate, self.choice):
            widget.screen.setFocus()
        elif widget is self.scorer_holder and self.scorer is None:
            self._start_scorer()
        elif widget is self.dashboard:
            self.dashboard.refresh()
        elif widget is self.studies:
            self.studies.refresh()
        elif widget is self.quality:
            self.quality.refresh()

    def _start_scorer(self) -> None:
        from desktop.scorer_window import ScorerWindow

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

            self.scorer.start_loading(first_sentence)
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
        elif widget in (self.annotate, self.choice):
            widget.screen.refresh_progress()

    def open_other(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a study database", str(self.study_path.parent),
                                              "Study databases (*.sqlite *.db);;All files (*)")
        if path:
            replacement = MainWindow(path)
            replacement.show()
            self.close()
            self._replacement = replacement

    def closeEvent(self, event) -> None:  # noqa: N802
        # Every answer already given is committed before the window goes, then the judging sessions end.
        for tab in (self.annotate, self.choice):
            tab.screen.close_session()
        self.writer.close()
        if self.studies.worker is not None:
            self.studies.worker.cancel()  # a study build stops at its next progress report
        QThreadPool.globalInstance().waitForDone(5000)  # workers reading the database
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("app/last_study", str(self.study_path))
        self.db.close()
        super().closeEvent(event)
