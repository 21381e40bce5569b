"""A judging tab (a study picker above an annotation screen) and who judges in the window: the
:class:`Identity` chosen once, and the "Who is judging?" dialog that changes it."""

from __future__ import annotations

import html

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QInputDialog, QLabel, QMessageBox, QVBoxLayout, QWidget

from parastudio.core.person_names import clean_name, name_problem
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.desktop.annotation_screen import AnnotationScreen
from parastudio.desktop.judgment_writer import JudgmentWriter
from parastudio.desktop.palette import tone


class JudgingTab(QWidget):
    """A study picker above an annotation screen; who judges is the window's, chosen once (:class:`Identity`)."""

    def __init__(self, db: Database, writer: JudgmentWriter, *, choice: bool, settings: QSettings,
                 identity: "Identity"):
        super().__init__()
        self.db, self.choice, self.settings, self.identity = db, choice, settings, identity
        self.study_ids: list[int] = []
        self.study_names: list[str] = []
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.study_combo = QComboBox()
        study_label = QLabel("&Study:")
        study_label.setBuddy(self.study_combo)
        row.addWidget(study_label)
        row.addWidget(self.study_combo, 1)
        self.identity_label = QLabel()
        self.identity_label.setTextFormat(Qt.RichText)
        row.addWidget(self.identity_label)
        layout.addLayout(row)
        self.screen = AnnotationScreen(db, writer)
        layout.addWidget(self.screen, 1)
        self.study_combo.activated.connect(lambda _: self._study_chosen())
        self._opening = ("", "")  # the judge and study title of the latest open, for a refusal's question
        self.screen.open_refused.connect(self._refused)

    def reload(self, prefer_study: int | None = None) -> None:
        summaries = [s for s in ops.study_summaries(self.db) if (s.choice_tasks > 0) == self.choice]
        self.study_ids = [s.id for s in summaries]
        self.study_names = [s.name for s in summaries]
        self.study_combo.clear()
        self.study_combo.addItems(self.study_names)
        if not summaries:
            kind = "choice-task studies" if self.choice else "studies of candidates"
            self.screen.close_session()
            self.screen.show_message(f"<h2>No {kind} in this database yet.</h2><p>Make one in the Studies "
                                     "screen (Ctrl+3): from the engine, or from a candidates file. Ctrl+O opens "
                                     "another study database.</p>")
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

    def _study_chosen(self, take_over: bool = False) -> None:
        study = self.current_study()
        if study is None:
            return
        self.settings.setValue(self._key("study"), study)
        name = self.identity.name
        self.identity_label.setText(f"Judging as <b>{html.escape(name or '(nobody)')}</b> "
                                    f"<span style='color:{tone('muted')}'>(File ▸ Judge as…, Ctrl+Shift+J)</span>")
        if not name:
            self.screen.close_session()
            self.screen.show_message("<h2>Who is judging?</h2><p>Choose your name with File ▸ Judge as… "
                                     "(Ctrl+Shift+J).</p>")
            return
        title = self.study_names[self.study_ids.index(study)]
        self._opening = (name, title)
        self.screen.open(study, name, title, take_over=take_over)
        self.screen.setFocus()

    def _refused(self, refusal) -> None:
        """The screen could not open the study for the judge (it says so): another window judges as them."""
        if not isinstance(refusal, ops.SessionTaken):
            return  # LookupError: the screen says the annotator has nothing here
        name, title = self._opening
        # One question per judge and window: the answer holds for the other judging screen too (issue 28: two
        # refusal dialogs in a row).
        answer = self.identity.take_over_answers.get(name)
        if answer is None:
            answer = QMessageBox.question(
                self, "Paraphrase Studio",
                f"{name} is already judging “{title}” in another window ({refusal.holder}, last seen "
                f"{refusal.seconds_ago:.0f} s ago).\n\nJudging in two windows would ask the same items twice. "
                "Take over here (the other window stops)?", QMessageBox.Yes | QMessageBox.No, QMessageBox.No)
            self.identity.take_over_answers[name] = answer
        if answer == QMessageBox.Yes:
            self._study_chosen(take_over=True)
        else:
            self.screen.show_message(f"<h2>{html.escape(name)} is judging “{html.escape(title)}” in another "
                                     "window.</h2><p>Judge there, or reopen the study here to take over.</p>")

    def open_study(self, study_id: int) -> None:
        if study_id in self.study_ids:
            self.study_combo.setCurrentIndex(self.study_ids.index(study_id))
            self._study_chosen()


class Identity(QObject):
    """Who judges in this window: chosen once (``--annotator``, the last name used on this database, or a
    dialog), shown on every judging screen, changed only through File ▸ Judge as…"""

    changed = Signal(str)

    def __init__(self, name: str | None = None):
        super().__init__()
        self.name = name
        self.take_over_answers: dict[str, object] = {}  # name -> the judge's answer to "take over here?"

    def set(self, name: str) -> None:
        if name and name != self.name:
            self.name = name
            self.changed.emit(name)


def all_annotator_names(db: Database) -> list[str]:
    return ops.every_annotator_name(db)


def ask_annotator(parent: QWidget, db: Database, current: str | None) -> str | None:
    """The deliberate dialog that says who judges: one of the study's annotators, or a new name typed in full.

    The list is editable: a typed name is taken as typed (never completed into an existing judge's by its first
    letters), checked as every name is (:mod:`core.person_names`: nothing invisible, no look-alike of another)."""
    names = all_annotator_names(db)
    index = names.index(current) if current in names else 0
    while True:
        if names:
            chosen, ok = QInputDialog.getItem(parent, "Who is judging?", "Judge as (pick your name, or type a new "
                                              "one; your answers are stored under it):", names, index, True)
        else:
            chosen, ok = QInputDialog.getText(parent, "Who is judging?", "Your annotator name:")
        if not ok or not chosen.strip():
            return None
        problem = name_problem(chosen, names)
        if problem is None:
            return clean_name(chosen)
        QMessageBox.warning(parent, "Who is judging?", problem)