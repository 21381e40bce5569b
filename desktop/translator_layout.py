"""The Translator screen's widgets (:class:`TranslatorLayout`, a part of
:class:`desktop.translator_screen.TranslatorScreen`): the title with the approach, the loading bar with Cancel, the
source and machine translation, the editable translation beside the suggestion list and its buttons, and the help
line written from :data:`desktop.translator_keys.KEYS`. What they show is set by the screen."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from parastudio.core.engine.decoders.cat.approaches import APPROACHES
from parastudio.core.inspection.translator_session import DEFAULT_APPROACH
from parastudio.desktop.rows_model import RowsTableModel
from parastudio.desktop.translator_keys import ListKeys, TranslationEdit, key_help


class TranslatorLayout:
    """Builds the Translator screen's widgets as attributes of the screen (mixed into it)."""

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.title = QLabel("<b>Translator</b>")
        self.title.setTextFormat(Qt.RichText)
        top.addWidget(self.title, 1)
        approach_label = QLabel("&Approach:")
        self.approach_combo = QComboBox()
        self.approach_combo.addItems(list(APPROACHES))
        self.approach_combo.setCurrentText(DEFAULT_APPROACH)
        self.approach_combo.currentTextChanged.connect(self._approach_changed)
        approach_label.setBuddy(self.approach_combo)
        top.addWidget(approach_label)
        top.addWidget(self.approach_combo)
        layout.addLayout(top)

        self.loading = QWidget()
        loading = QHBoxLayout(self.loading)
        loading.setContentsMargins(0, 0, 0, 0)
        self.progress = QProgressBar()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        loading.addWidget(self.progress, 1)
        loading.addWidget(self.cancel_button)
        self.loading.hide()
        layout.addWidget(self.loading)

        self.source_label = self._text_label()
        self.machine_label = self._text_label()
        layout.addWidget(QLabel("<b>Source</b> (the words the selection translates are highlighted)"))
        layout.addWidget(self.source_label)
        layout.addWidget(QLabel("<b>Machine translation</b>"))
        layout.addWidget(self.machine_label)

        splitter = QSplitter(Qt.Horizontal)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        edit_label = QLabel("<b>&Your translation</b>: edit freely; select any span for suggestions")
        self.editor = TranslationEdit(self)
        self.editor.setFont(self._larger(self.editor.font()))
        edit_label.setBuddy(self.editor)
        self.editor.textChanged.connect(self._edited)
        self.editor.selectionChanged.connect(self._selection_changed)
        left_layout.addWidget(edit_label)
        left_layout.addWidget(self.editor, 1)
        splitter.addWidget(left)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        self.suggestions_label = QLabel("<b>Suggestions</b>")
        self.suggestions_label.setTextFormat(Qt.RichText)
        self.suggestions_label.setWordWrap(True)
        self.model = RowsTableModel(("key", "suggestion", ""))
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.view.verticalHeader().setVisible(False)
        self.view.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeToContents)
        self.view.horizontalHeader().setSectionResizeMode(1, QHeaderView.Stretch)
        self.view.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeToContents)
        self.view.setFont(self._larger(self.view.font()))
        self.view.clicked.connect(self._clicked)
        self.view.installEventFilter(ListKeys(self))
        self.suggestions_label.setBuddy(self.view)
        buttons = QHBoxLayout()
        self.more_button = QPushButton("More like this  [Ctrl+M]")
        self.more_button.clicked.connect(lambda: self.more_like())
        self.expand_button = QPushButton("Expand abbreviation  [Ctrl+E]")
        self.expand_button.clicked.connect(self.expand_abbreviation)
        self.restore_button = QPushButton("Machine translation  [Ctrl+R]")
        self.restore_button.clicked.connect(self.restore)
        for button in (self.more_button, self.expand_button, self.restore_button):
            button.setFocusPolicy(Qt.NoFocus)  # keys stay in the editor; every button has its key
            buttons.addWidget(button)
        right_layout.addWidget(self.suggestions_label)
        right_layout.addWidget(self.view, 1)
        right_layout.addLayout(buttons)
        splitter.addWidget(right)
        splitter.setSizes([560, 440])
        layout.addWidget(splitter, 1)

        keys = QLabel(key_help())
        keys.setTextFormat(Qt.RichText)
        keys.setWordWrap(True)
        keys.setStyleSheet("color: #555")
        layout.addWidget(keys)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self._enable(False)

    @staticmethod
    def _text_label() -> QLabel:
        label = QLabel()
        label.setTextFormat(Qt.RichText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        label.setFont(TranslatorLayout._larger(label.font()))
        return label

    @staticmethod
    def _larger(font):
        font.setPointSizeF(font.pointSizeF() * 1.15)  # the sentences read a little larger than the chrome
        return font

    def _enable(self, on: bool) -> None:
        for widget in (self.editor, self.view, self.more_button, self.expand_button, self.restore_button,
                       self.approach_combo):
            widget.setEnabled(on)
