"""The judging screen's widgets (:class:`AnnotationLayout`, a part of :class:`desktop.annotation_screen.AnnotationScreen`):
the header with the progress bars, the question, the candidate page (source, paraphrase, one row of level buttons
per scale), the choice page (sentence, options, keep the original, custom paraphrase), the done page, and the row
of key buttons written from :data:`core.judging.keys.KEYS`. What they show is set by the screen."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from parastudio.core.judging import keys as judging_keys
from parastudio.desktop.da_view import DAView
from parastudio.desktop.esa_view import ESAView
from parastudio.desktop.palette import toned
from parastudio.desktop.preference_view import PreferenceView
from parastudio.desktop.progress_bars import ProgressBars
from parastudio.desktop.widget_parts import enlarge, text_box


class AnnotationLayout:
    """Builds the judging screen's widgets as attributes of the screen (mixed into it)."""

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        header = QHBoxLayout()
        self.header_label = QLabel()
        self.header_label.setTextFormat(Qt.RichText)
        header.addWidget(self.header_label, 1)
        self.progress = ProgressBars()
        header.addWidget(self.progress)
        outer.addLayout(header)

        self.question_label = QLabel()
        self.question_label.setWordWrap(True)
        enlarge(self.question_label, 1.35, bold=True)
        outer.addWidget(self.question_label)

        self.pages = QStackedWidget()
        self.pages.addWidget(self._build_candidate_page())
        self.pages.addWidget(self._build_choice_page())
        self.pages.addWidget(self._build_done_page())
        # Issue 30's protocols, each a page of its own (desktop/*_view.py) painting what the judging desk holds.
        self.preference_view = PreferenceView()
        self.preference_view.answered.connect(self.answer)
        self.pages.addWidget(self.preference_view)
        self.da_view = DAView()
        self.da_view.dragged.connect(lambda score: self._act("set_score", score))
        self.pages.addWidget(self.da_view)
        self.esa_view = ESAView()  # marks the view's words, as the desk counts them
        self.pages.addWidget(self.esa_view)
        # A protocol's view (core.judging.protocols: what it asks the screen to paint) -> its page.
        self.protocol_views = {"pair": self.preference_view, "score": self.da_view, "spans": self.esa_view,
                               "mqm": self.esa_view}  # MQM's errors marked as ESA's spans, with a category
        # On a small screen (1024 x 600) a long item scrolls instead of pushing the window past the screen.
        scroller = QScrollArea()
        scroller.setWidget(self.pages)
        scroller.setWidgetResizable(True)
        scroller.setFrameShape(QFrame.NoFrame)
        scroller.setFocusPolicy(Qt.NoFocus)
        outer.addWidget(scroller, 1)

        self.answer_label = QLabel()
        self.answer_label.setTextFormat(Qt.RichText)
        outer.addWidget(self.answer_label)

        self.comment_edit = QLineEdit(placeholderText="Comment on this item: Enter saves, Esc cancels")
        self.comment_edit.hide()
        self.comment_edit.returnPressed.connect(self._save_comment)
        outer.addWidget(self.comment_edit)

        actions = QHBoxLayout()
        self.prev_button, self.next_button, self.undo_button, self.flag_button, self.comment_button = (
            self._key_button(action) for action in ("previous", "next", "undo", "toggle_flag", "start_comment"))
        for button in (self.prev_button, self.next_button, self.undo_button, self.flag_button, self.comment_button):
            actions.addWidget(button)
        actions.addStretch(1)
        outer.addLayout(actions)
        self.keys_help = QLabel()
        self.keys_help.setTextFormat(Qt.RichText)
        toned(self.keys_help, "muted")
        self.keys_help.setWordWrap(True)  # zoomed, the key line wraps instead of widening the window past the screen
        outer.addWidget(self.keys_help)
        self.status = QLabel()
        self.status.setTextFormat(Qt.RichText)
        self.status.setWordWrap(True)
        outer.addWidget(self.status)
        self._build_sitting()  # desktop.judging_sitting: pace, breaks, the judge's own list

    def _key_button(self, action: str) -> QPushButton:
        """The button of a key in :data:`KEYS`, labelled from the table."""
        return self._button(judging_keys.KEY_BY_ACTION[action].button_text(), getattr(self, action))

    def _button(self, text: str, slot) -> QPushButton:
        # A button's "&" marks its Alt shortcut: text from a study ("rock &amp; roll") would record an answer
        # with Alt+A and show "amp;". Doubled, it shows as written and makes no shortcut.
        button = QPushButton(text.replace("&", "&&"))
        button.setFocusPolicy(Qt.NoFocus)  # keys always reach the screen
        button.pressed.connect(self._note_activity)
        button.clicked.connect(slot)
        return button

    def _build_candidate_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.source_box, self.source_label = text_box("Source sentence")
        self.candidate_box, self.candidate_label = text_box("Paraphrase")
        layout.addWidget(self.source_box)
        layout.addWidget(self.candidate_box)
        # One row of buttons per scale, made once: switching pages is cheaper than rebuilding buttons.
        self.levels_stack = QStackedWidget()
        self.levels_stack.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        self._level_pages: dict[tuple, tuple[int, dict[str, str], list[QPushButton], str]] = {}
        layout.addWidget(self.levels_stack)
        self.levels_help = QLabel()
        self.levels_help.setTextFormat(Qt.RichText)
        self.levels_help.setWordWrap(True)
        self.levels_help.setAlignment(Qt.AlignTop | Qt.AlignLeft)
        layout.addWidget(self.levels_help)
        layout.addStretch(1)
        return page

    def _build_choice_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.choice_box, self.choice_sentence_label = text_box("Sentence (the highlighted words are to be "
                                                                     "paraphrased)")
        layout.addWidget(self.choice_box)
        options_box = QGroupBox("Options")
        self.options_layout = QVBoxLayout(options_box)
        layout.addWidget(options_box)
        self.original_button = self._key_button("keep_original")
        self.original_button.setCheckable(True)
        layout.addWidget(self.original_button)
        layout.addWidget(self._key_button("confirm"))
        custom_row = QHBoxLayout()
        custom_row.addWidget(QLabel(judging_keys.KEY_BY_ACTION["start_custom"].button_text() + ":"))
        self.custom_edit = QLineEdit(placeholderText="Press T, type your own paraphrase, Enter submits, Esc leaves")
        self.custom_edit.returnPressed.connect(self._submit_custom)
        custom_row.addWidget(self.custom_edit, 1)
        layout.addLayout(custom_row)
        layout.addStretch(1)
        return page

    def _build_done_page(self) -> QWidget:
        page = QFrame()
        layout = QVBoxLayout(page)
        self.done_label = QLabel()
        self.done_label.setAlignment(Qt.AlignCenter)
        self.done_label.setTextFormat(Qt.RichText)
        layout.addWidget(self.done_label)
        return page
