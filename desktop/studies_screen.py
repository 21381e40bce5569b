"""The Studies screen: the studies in the open database, and making new ones
from the engine (in a worker with progress and cancel), from a file, or from a
pattern table (seed 002's blind LL-model vs MLE-model pattern-pair study)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSortFilterProxyModel, Qt, QThreadPool, Signal
from PySide6.QtGui import QKeySequence, QShortcut, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from parastudio.core.demo import demo_files
from parastudio.core.engine.candidates.generation import SYSTEMS
from parastudio.core.engine.candidates.generation_options import DEFAULT_TIME_CAP
from parastudio.core.judging.guidelines import apply_guidelines
from parastudio.core.store import operations as ops
from parastudio.core.store.database import Database
from parastudio.core.study_builder import (
    EngineChoice,
    PatternModels,
    StudyPlan,
    default_study_name,
    parse_names,
    study_from_engine,
    study_from_file,
    study_from_pattern_table,
)
from parastudio.desktop import file_dialogs
from parastudio.desktop.judge_pace_table import JudgePaceTable
from parastudio.desktop.rows_model import RowsTableModel
from parastudio.desktop.workers import Worker

# Most useful first: on a narrow screen the columns cut off behind the scroll bar are the least read.
HEADERS = ("study", "done", "judged", "assigned", "criteria", "candidates", "choice tasks", "annotators",
           "judges/item", "created")


class StudiesScreen(QWidget):
    study_opened = Signal(int)  # Enter on a study: annotate it
    studies_changed = Signal()

    def __init__(self, db: Database, parent: QWidget | None = None):
        super().__init__(parent)
        self.db = db
        self.summaries: list[ops.StudySummary] = []
        self.worker: Worker | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<b>Studies</b> in this database · Enter opens the selected study for judging"))
        self.model = RowsTableModel(HEADERS)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(Qt.UserRole)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(0, Qt.AscendingOrder)
        self.view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.verticalHeader().setVisible(False)
        self.view.activated.connect(self._activated)
        # Under the list, the selected study's judges and their pace (issue 44); the two share the list's room,
        # so the screen still fits a 600-pixel-high window.
        self.judges = JudgePaceTable()
        lists = QSplitter(Qt.Vertical)
        lists.addWidget(self.view)
        lists.addWidget(self.judges)
        lists.setChildrenCollapsible(False)
        lists.setStretchFactor(0, 2)
        lists.setStretchFactor(1, 1)
        layout.addWidget(lists, 1)

        forms = QHBoxLayout()
        forms.addWidget(self._build_plan_box(), 1)
        forms.addWidget(self._build_engine_box(), 2)
        layout.addLayout(forms)
        buttons = QHBoxLayout()
        self.create_button = QPushButton("Generate candidates and create the study  [Ctrl+G]")
        self.create_button.clicked.connect(self.create_from_engine)
        self.import_button = QPushButton("Import candidates (JSONL / CSV / TSV)…  [Ctrl+I]")
        self.import_button.clicked.connect(self.import_from_file)
        self.pattern_button = QPushButton("Pattern-pair study…  [Ctrl+P]")
        self.pattern_button.setToolTip("seed 002 §4.1: a blind mix of LL-model pairs (seed 002's λ, T = -10.002) and "
                                       "MLE-model pairs (T' = -5.1), judged correct or not and by type")
        self.pattern_button.clicked.connect(self.create_from_pattern_table)
        self.refresh_button = QPushButton("Refresh  [F5]")
        self.refresh_button.clicked.connect(self.refresh)
        self.instructions_button = QPushButton("Instructions of the selected study…  [Ctrl+E]")
        self.instructions_button.clicked.connect(self.edit_instructions)
        self.guidelines_button = QPushButton("Guidelines from a file…  [Ctrl+Shift+E]")
        self.guidelines_button.setToolTip("a TOML file of the introduction, each question with its good and bad "
                                          "examples, and training items (docs/CLI.md, study guidelines)")
        self.guidelines_button.clicked.connect(self.load_guidelines)
        self.display_combo = QComboBox()
        self.display_combo.addItems(["readable (detokenized, truecased)", "tokenized (as stored)"])
        self.display_combo.activated.connect(self._display_chosen)
        display_label = QLabel("Sentences &shown as:")
        display_label.setBuddy(self.display_combo)
        for widget in (self.create_button, self.import_button, self.pattern_button, self.refresh_button):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        settings_row = QHBoxLayout()  # a second row: the window must fit a 1024-pixel-wide screen
        for widget in (self.instructions_button, self.guidelines_button, display_label, self.display_combo):
            settings_row.addWidget(widget)
        settings_row.addStretch(1)
        layout.addLayout(settings_row)
        QShortcut(QKeySequence("Ctrl+G"), self, activated=self.create_from_engine,
                  context=Qt.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence("Ctrl+I"), self, activated=self.import_from_file,
                  context=Qt.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence("Ctrl+E"), self, activated=self.edit_instructions,
                  context=Qt.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence("Ctrl+Shift+E"), self, activated=self.load_guidelines,
                  context=Qt.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence("Ctrl+P"), self, activated=self.create_from_pattern_table,
                  context=Qt.WidgetWithChildrenShortcut)
        self.view.selectionModel().currentRowChanged.connect(lambda *_: self._selection_changed())
        self.refresh()

    # forms --------------------------------------------------------------------------
    def _build_plan_box(self) -> QGroupBox:
        box = QGroupBox("New study")
        form = QFormLayout(box)
        self.name_edit = QLineEdit(placeholderText="study name")
        self.annotators_edit = QLineEdit("judge-1, judge-2")
        self.criteria_edit = QLineEdit(", ".join(ops.DEFAULT_CRITERIA))
        self.criteria_edit.setToolTip(f"among {', '.join(ops.PRESET_CRITERIA)}")
        self.application_combo = QComboBox()
        self.application_combo.addItems(ops.APPLICATIONS)
        self.application_combo.setCurrentText("simplification")
        self.judges_spin = QSpinBox(minimum=1, maximum=10, value=2)
        self.repeats_spin = QDoubleSpinBox(minimum=0, maximum=0.5, singleStep=0.05, value=0.05)
        self.controls_spin = QDoubleSpinBox(minimum=0, maximum=0.5, singleStep=0.05, value=0.05)
        self.pattern_sample_spin = QSpinBox(minimum=1, maximum=100_000, value=100)
        self.pattern_sample_spin.setToolTip("pattern-pair study (Ctrl+P): pairs drawn from each model's extracted "
                                            "pairs (seed 002 draws 3,000)")
        for label, widget in (("&Name:", self.name_edit), ("&Annotators:", self.annotators_edit),
                              ("Crit&eria:", self.criteria_edit), ("Applicatio&n:", self.application_combo),
                              ("&Judges per item:", self.judges_spin), ("&Repeats:", self.repeats_spin),
                              ("C&ontrols:", self.controls_spin),
                              ("&Pairs per model:", self.pattern_sample_spin)):
            form.addRow(label, widget)
        return box

    def _build_engine_box(self) -> QGroupBox:
        demo = demo_files()
        box = QGroupBox("From the engine")
        form = QFormLayout(box)
        self.test_set_edit = QLineEdit(str(demo.test_sentences))
        self.tables_edit = QLineEdit(str(demo.table))
        self.tables_edit.setToolTip("one or more tables, separated by ;")
        self.lm_edit = QLineEdit(str(demo.lm))
        self.systems_model = QStandardItemModel(self)
        for system in SYSTEMS:
            entry = QStandardItem(system)
            entry.setCheckable(True)
            entry.setCheckState(Qt.Checked if system in ("beam", "mcpg-true") else Qt.Unchecked)
            entry.setEditable(False)
            self.systems_model.appendRow(entry)
        self.systems_view = QListView()
        self.systems_view.setModel(self.systems_model)
        self.systems_view.setMaximumHeight(110)
        self.nbest_spin = QSpinBox(minimum=1, maximum=20, value=2)
        self.sentences_spin = QSpinBox(minimum=1, maximum=100_000, value=20)
        # Only a cap: MCPG runs by count (eta), so a search it never cuts gives the same output on any load.
        # 0 is "no cap" (the default): then the output depends on the inputs and the seed alone.
        self.budget_spin = QDoubleSpinBox(minimum=0.0, maximum=3600, singleStep=1.0, value=DEFAULT_TIME_CAP or 0.0,
                                          suffix=" s")
        self.budget_spin.setSpecialValueText("no cap")
        for label, widget, browse in (("&Test set:", self.test_set_edit, True), ("&Tables:", self.tables_edit, True),
                                      ("&LM:", self.lm_edit, True), ("S&ystems (Space toggles):", self.systems_view,
                                                                      False),
                                      ("N-&best:", self.nbest_spin, False), ("&Sentences:", self.sentences_spin, False),
                                      ("MCPG time &cap per sentence:", self.budget_spin, False)):
            if browse:
                row = QHBoxLayout()
                row.addWidget(widget, 1)
                button = QPushButton("…")
                button.setMaximumWidth(30)
                button.clicked.connect(lambda _=False, edit=widget: self._browse(edit))
                row.addWidget(button)
                # A row of a layout has no buddy of its own: the label names the field, so Alt+key reaches it.
                caption = QLabel(label)
                caption.setBuddy(widget)
                form.addRow(caption, row)
            else:
                form.addRow(label, widget)
        return box

    def _browse(self, edit: QLineEdit) -> None:
        path, _ = file_dialogs.get_open_file_name(self, "Choose a file", str(Path(edit.text()).parent))
        if path:
            edit.setText(path if edit is not self.tables_edit or not edit.text() else f"{edit.text()};{path}")

    # the list -------------------------------------------------------------------------
    def refresh(self) -> None:
        self.summaries = ops.study_summaries(self.db)
        rows, keys = [], []
        for s in self.summaries:
            done = f"{s.judged / s.assigned:.0%}" if s.assigned else "–"
            rest = [", ".join(s.criteria), s.candidates, s.choice_tasks, s.annotators, s.judges_per_item, s.created_at]
            rows.append([s.name, done, s.judged, s.assigned, *rest])
            keys.append([s.name, s.judged / s.assigned if s.assigned else 0, s.judged, s.assigned, *rest])
        self.model.set_rows(rows, sort_keys=keys)
        self.judges.show_study(self.db, self.selected_study())

    def selected_study(self) -> int | None:
        index = self.view.currentIndex()
        if not index.isValid():
            return self.summaries[0].id if self.summaries else None
        return self.summaries[self.proxy.mapToSource(index).row()].id

    def _selection_changed(self) -> None:
        study = self.selected_study()
        self.judges.show_study(self.db, study)
        if study is not None:
            readable = ops.study_settings(self.db, study).get("display", "readable") == "readable"
            self.display_combo.setCurrentIndex(0 if readable else 1)

    def _display_chosen(self, index: int) -> None:
        study = self.selected_study()
        if study is not None:
            ops.update_study_settings(self.db, study, display="readable" if index == 0 else "tokenized")
            self.studies_changed.emit()

    def edit_instructions(self) -> None:
        from parastudio.desktop.instructions import InstructionsEditor

        study = self.selected_study()
        if study is not None:
            self.instructions_editor = InstructionsEditor(self.db, study, self)
            self.instructions_editor.open()

    def load_guidelines(self, path: str | None = None) -> Worker | None:
        """Set the selected study's guidelines from a TOML file (``study guidelines``), checked and written in a
        worker; the file is chosen in the safe file dialog unless ``path`` is given. Says what changed, or the
        file's line and what it expected (the study then unchanged)."""
        study = self.selected_study()
        if study is None:
            return None
        if not path:
            path, _ = file_dialogs.get_open_file_name(self, "Guidelines of the selected study", "",
                                                      "Guidelines (*.toml);;All files (*)")
        if not path:
            return None
        worker = Worker(lambda _report, db, study_id, chosen: apply_guidelines(db, study_id, chosen),
                        self.db, study, path)

        def said(icon, text: str) -> None:  # opened, not exec'd: the window stays live behind it
            self.guidelines_box = QMessageBox(icon, "Guidelines", text, QMessageBox.Ok, self)
            self.guidelines_box.open()

        def finished(lines: list[str]) -> None:
            self.last_result = lines
            self.studies_changed.emit()
            said(QMessageBox.Information, "\n".join(lines))

        def failed(message: str) -> None:
            self.last_result = message
            said(QMessageBox.Warning, "The guidelines were not loaded; the study is unchanged.\n"
                 f"{message.partition(': ')[2] or message}")

        worker.signals.finished.connect(finished)
        worker.signals.failed.connect(failed)
        self.worker, self.last_result = worker, None
        QThreadPool.globalInstance().start(worker)
        return worker

    def _activated(self, index) -> None:
        row = self.proxy.mapToSource(index).row()
        self.study_opened.emit(self.summaries[row].id)

    # making studies -----------------------------------------------------------------
    def _plan(self, stem: str) -> StudyPlan | None:
        annotators = parse_names(self.annotators_edit.text())
        criteria = parse_names(self.criteria_edit.text())
        if not annotators or not criteria:
            QMessageBox.warning(self, "New study", "Name at least one annotator and one criterion.")
            return None
        name = self.name_edit.text().strip() or default_study_name([s.name for s in self.summaries], stem)
        return StudyPlan(name=name, annotators=annotators, criteria=criteria,
                         application=self.application_combo.currentText(), judges_per_item=self.judges_spin.value(),
                         repeat_fraction=self.repeats_spin.value(), control_fraction=self.controls_spin.value())

    def chosen_systems(self) -> list[str]:
        return [self.systems_model.item(row).text() for row in range(self.systems_model.rowCount())
                if self.systems_model.item(row).checkState() == Qt.Checked]

    def create_from_engine(self) -> None:
        plan = self._plan("engine study")
        if plan is None:
            return
        engine = EngineChoice(test_set=self.test_set_edit.text().strip(), systems=self.chosen_systems(),
                              tables=[p.strip() for p in self.tables_edit.text().split(";") if p.strip()],
                              lm=self.lm_edit.text().strip(), nbest=self.nbest_spin.value(),
                              max_sentences=self.sentences_spin.value(), time_budget=self.budget_spin.value() or None)
        self.run_build(study_from_engine, plan, engine, title=f"Creating {plan.name}")

    def import_from_file(self) -> None:
        path, _ = file_dialogs.get_open_file_name(self, "Import candidates", "",
                                                  "Candidates (*.jsonl *.json *.csv *.tsv *.txt *.gz);;All files (*)")
        if not path:
            return
        plan = self._plan(Path(path).stem)
        if plan is None:
            return
        sources = self.test_set_edit.text().strip() or None
        if sources and not Path(sources).is_file():
            sources = None
        self.run_build(study_from_file, plan, path, sources, title=f"Importing {Path(path).name}")

    def create_from_pattern_table(self) -> None:
        """A pattern-pair study (seed 002 §4.1): the New study form's name, annotators, judges, repeats and
        controls; its criteria are seed 002's (correct, type), whatever the form says."""
        path, _ = file_dialogs.get_open_file_name(self, "Pattern table (parastudio patterns build)", "",
                                                  "Pattern tables (*.pattern-table.gz *.gz *.txt);;All files (*)")
        if not path:
            return
        plan = self._plan("pattern pairs")
        if plan is None:
            return
        models = PatternModels(sample=self.pattern_sample_spin.value())
        self.run_build(study_from_pattern_table, plan, path, models,
                       title=f"Sampling pattern pairs of {Path(path).name}")

    def run_build(self, function, *args, title: str) -> Worker:
        """Run a study build in the thread pool behind a progress dialog with Cancel."""
        self.dialog = QProgressDialog(title, "Cancel", 0, 100, self)
        self.dialog.setWindowTitle("Paraphrase Studio")
        self.dialog.setMinimumDuration(0)
        self.dialog.setAutoClose(False)
        self.dialog.setAutoReset(False)
        worker = Worker(function, self.db, *args)
        worker.signals.progress.connect(lambda percent, message: (self.dialog.setValue(percent),
                                                                  self.dialog.setLabelText(message)))
        self.dialog.canceled.connect(worker.cancel)

        def finished(study_id: int) -> None:
            self.dialog.close()
            self.refresh()
            self.studies_changed.emit()
            self.last_result = study_id

        def cancelled() -> None:
            self.dialog.close()
            self.last_result = "cancelled"

        def failed(message: str) -> None:
            self.dialog.close()
            self.last_result = message
            QMessageBox.critical(self, "Paraphrase Studio", f"Could not create the study:\n{message}")

        worker.signals.finished.connect(finished)
        worker.signals.cancelled.connect(cancelled)
        worker.signals.failed.connect(failed)
        self.worker = worker
        self.last_result = None
        QThreadPool.globalInstance().start(worker)
        return worker
