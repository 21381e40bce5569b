"""The Translator screen (seed 001 §3, §5): a source sentence, its machine translation, suggestions for any span.

The translator reads the Spanish verse and its English machine translation (the demo's direct search graphs),
edits the translation freely, and selects any span of it with the mouse or Shift+arrows: up to five suggestions
from seed 001's paraphraser appear beside it. A click, Enter or a key 1-5 puts one in place of the span (the words
highlighted in yellow: the aligner may widen a selection to whole phrases) and stores the pick as a choice judgment
in the study ``translator-choices`` of the open database. "More like this" re-asks with a suggestion as feedback;
"expand abbreviation" keeps expansions whose initials spell the selection.

Everything runs in :class:`core.inspection.translator_session.TranslatorSession`; this widget only shows it (its
widgets are built by :class:`desktop.translator_layout.TranslatorLayout`).
Opening the graph store and the LM runs once in a worker with progress and Cancel; each request runs in a worker
too (p95 about 10 ms on the demo, but a long span can take over 100 ms), and a result that arrives after the
selection or the text changed is dropped. Keys: one table, :data:`desktop.translator_keys.KEYS`, dispatched by
:meth:`TranslatorScreen.handle_key`.
"""

from __future__ import annotations

import html
import time
from pathlib import Path

from PySide6.QtCore import QModelIndex, QThreadPool, Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit, QWidget

from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.cat.approaches import APPROACHES
from parastudio.core.inspection.translator_choices import TRANSLATOR_STUDY, record_pick
from parastudio.core.inspection.translator_session import (
    Pick,
    Request,
    Shown,
    TranslatorSession,
    characters_of_tokens,
    tokens_of_characters,
)
from parastudio.core.store.database import Database
from parastudio.desktop.translator_keys import action_for
from parastudio.desktop.translator_layout import TranslatorLayout
from parastudio.desktop.workers import Worker

SELECTION_COLOUR, PICKED_COLOUR, SOURCE_COLOUR = "#fff2a8", "#d9f2d9", "#fff2a8"


class TranslatorScreen(TranslatorLayout, QWidget):
    choice_recorded = Signal(object)  # a RecordedPick
    identity_needed = Signal()
    suggestions_shown = Signal(object)  # a Shown

    def __init__(self, db: Database, identity, *, graph: str | None = None, sources: str | None = None,
                 lm: str | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        demo = demo_files()
        self.db, self.identity = db, identity
        self.graph_path = graph or str(demo.direct_graph)
        self.sources_path = sources or str(demo.spanish_test_sentences)
        self.lm_path = lm or str(demo.lm)
        self.session: TranslatorSession | None = None
        self.loader: Worker | None = None
        self._running: Request | None = None
        self._wanted: Request | None = None
        self._last_span: tuple[int, int] | None = None
        self._picked: tuple[int, int] | None = None
        self.latencies_ms: list[float] = []  # selection to suggestions on screen, each request
        self.recorded: list = []
        self._build()

    # loading ------------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self.session is not None

    def activate(self) -> None:
        """The screen came on top: load once, else give the keys to the translation."""
        if self.session is None:
            self.start_loading()
        else:
            self.editor.setFocus()

    def start_loading(self) -> None:
        if self.loader is not None or self.session is not None:
            return
        missing = [p for p in (self.graph_path, self.sources_path, self.lm_path) if not Path(p).is_file()]
        if missing:
            self.status.setText(f"Nothing to translate: {', '.join(missing)} not found (the bundled demo's "
                                "evaldata/demo, or PARASTUDIO_DEMO).")
            return
        approach = APPROACHES[self.approach_combo.currentText()]
        self.loader = Worker(lambda report: TranslatorSession.open(self.graph_path, self.sources_path, self.lm_path,
                                                                    approach=approach, progress=report))
        self.loader.signals.progress.connect(self._loading_progress)
        self.loader.signals.finished.connect(self._session_ready)
        self.loader.signals.failed.connect(self._loading_failed)
        self.loader.signals.cancelled.connect(lambda: self._loading_failed("cancelled; switch screens to try again"))
        self.loading.show()
        self.progress.setValue(0)
        self.status.setText(f"opening {Path(self.graph_path).name} and {Path(self.lm_path).name}…")
        QThreadPool.globalInstance().start(self.loader)

    def cancel(self) -> None:
        if self.loader is not None:
            self.loader.cancel()

    def _loading_progress(self, percent: int, message: str) -> None:
        self.progress.setValue(percent)
        self.status.setText(message)

    def _loading_failed(self, message: str) -> None:
        self.loader = None
        self.loading.hide()
        self.status.setText(f"Could not open the translator's data: {message}")

    def _session_ready(self, session: TranslatorSession) -> None:
        self.loader = None
        self.loading.hide()
        self.session = session
        self._enable(True)
        self.show_sentence()
        self.status.setText(f"{session.count} sentences of {Path(self.graph_path).name}; suggestions by "
                            f"{session.approach.name}; picks are stored in the study “{TRANSLATOR_STUDY}”")
        if self.isVisible():
            self.editor.setFocus()

    def close_session(self) -> None:
        if self.loader is not None:
            self.loader.cancel()
        if self.session is not None:
            self.session.close()
            self.session = None

    # the sentence -------------------------------------------------------------------------------
    def show_sentence(self) -> None:
        session = self.session
        self.title.setText(f"<b>Translator</b> · sentence <b>{session.index + 1}</b> of {session.count} "
                           f"<span style='color:#666'>({html.escape(session.corpus)})</span>")
        self.machine_label.setText(html.escape(session.machine_translation))
        self._set_text(session.text)
        self._show_source(None)
        self._clear_suggestions("Select a span of your translation.")

    def _set_text(self, text: str, cursor_at: int | None = None) -> None:
        self.editor.blockSignals(True)
        self.editor.setPlainText(text)
        cursor = self.editor.textCursor()
        cursor.setPosition(len(text) if cursor_at is None else cursor_at)
        self.editor.setTextCursor(cursor)
        self.editor.blockSignals(False)
        self._last_span = None
        self._mark()

    def _show_source(self, coverage: tuple[int, int] | None) -> None:
        words = self.session.source.split()
        parts = []
        for i, word in enumerate(words):
            text = html.escape(word)
            if coverage and coverage[0] <= i < coverage[1]:
                text = f"<span style='background-color:{SOURCE_COLOUR}'>{text}</span>"
            parts.append(text)
        self.source_label.setText(" ".join(parts) or "<i>(no source sentence given)</i>")

    def _mark(self) -> None:
        """Yellow: the span the shown suggestions replace; green: the words just picked."""
        marks = []
        text = self.editor.toPlainText()
        shown = self.session.shown if self.session else None
        spans = []
        if shown is not None and shown.span is not None:
            spans.append((characters_of_tokens(text, *shown.span), SELECTION_COLOUR))
        if self._picked is not None:
            spans.append((self._picked, PICKED_COLOUR))
        for (a, b), colour in spans:
            mark = QTextEdit.ExtraSelection()
            mark.format = QTextCharFormat()
            mark.format.setBackground(QColor(colour))
            mark.cursor = QTextCursor(self.editor.document())
            mark.cursor.setPosition(a)
            mark.cursor.setPosition(b, QTextCursor.KeepAnchor)
            marks.append(mark)
        self.editor.setExtraSelections(marks)

    def step(self, delta: int) -> None:
        if self.session is not None and self.session.step(delta):
            self._picked = None
            self.show_sentence()

    def restore(self, _argument=None) -> None:
        if self.session is not None:
            self.session.restore()
            self._picked = None
            self.show_sentence()
            self.status.setText("back to the machine translation")

    def _edited(self) -> None:
        if self.session is None:
            return
        self.session.edit(self.editor.toPlainText())
        self._picked = None
        self._last_span = None
        if self.session.shown is None:
            self._clear_suggestions("Edited: select a span for suggestions (it is aligned to the machine "
                                    "translation).")
        self._mark()

    # asking --------------------------------------------------------------------------------------
    def _selection_changed(self) -> None:
        if self.session is None:
            return
        cursor = self.editor.textCursor()
        if not cursor.hasSelection():
            self._last_span = None  # the same span selected again asks again
            return
        span = tokens_of_characters(self.editor.toPlainText(), cursor.selectionStart(), cursor.selectionEnd())
        if span is None or span == self._last_span:
            return
        self._last_span = span
        self.ask(self.session.request(*span))

    def select_tokens(self, start: int, end: int) -> None:
        """Select tokens ``[start, end)`` in the editor, as the mouse or Shift+arrows would."""
        a, b = characters_of_tokens(self.editor.toPlainText(), start, end)
        cursor = self.editor.textCursor()
        cursor.setPosition(a)
        cursor.setPosition(b, QTextCursor.KeepAnchor)
        self.editor.setTextCursor(cursor)

    def ask(self, request: Request) -> None:
        """Run ``request`` in a worker; while one runs, only the newest request waits (older ones are dropped)."""
        self._wanted = request
        self.suggestions_label.setText("<b>Suggestions</b> <span style='color:#666'>(looking…)</span>")
        self._pump()

    def _pump(self) -> None:
        if self._running is not None or self._wanted is None or self.session is None:
            return
        request, self._wanted = self._wanted, None
        self._running = request
        worker = Worker(lambda report, r: self.session.compute(r), request)
        worker.signals.finished.connect(self._arrived)
        worker.signals.failed.connect(self._request_failed)
        QThreadPool.globalInstance().start(worker)

    def _arrived(self, shown: Shown) -> None:
        self._running = None
        if self._wanted is None and self.session is not None and self.session.accept(shown):
            self.latencies_ms.append(1000 * (time.perf_counter() - shown.request.asked_at))
            self._show_suggestions(shown)
        self._pump()

    def _request_failed(self, message: str) -> None:
        self._running = None
        self.status.setText(f"The paraphraser failed: {message}")
        self._pump()

    def _show_suggestions(self, shown: Shown) -> None:
        self._picked = None
        self.model.set_rows([[str(n), text, "more like this ⟳"] for n, text in enumerate(shown.texts, 1)])
        if shown.texts:
            self.view.selectRow(0)
        request = shown.request
        what = {"expand-abbreviation": " as an abbreviation"}.get(request.kind, "")
        what += f", more like “{html.escape(' '.join(request.feedback))}”" if request.feedback else ""
        if shown.error:
            header = f"<b>No suggestions</b>: {html.escape(shown.error)}"
        elif not shown.texts:
            header = (f"<b>No suggestions</b> for “{html.escape(shown.replaced)}”{what}: the search graph holds "
                      "no other translation of these words. Try a longer span or another approach.")
        else:
            header = (f"<b>Suggestions</b> for “{html.escape(shown.replaced)}”{what} "
                      f"<span style='color:#666'>({len(shown.texts)} in {self.latencies_ms[-1]:.0f} ms)</span>")
        self.suggestions_label.setText(header)
        self._show_source(shown.coverage)
        self._mark()
        self.suggestions_shown.emit(shown)

    def _clear_suggestions(self, message: str) -> None:
        self.model.set_rows([])
        self.suggestions_label.setText(f"<b>Suggestions</b> <span style='color:#666'>{html.escape(message)}"
                                       "</span>")

    def _approach_changed(self, name: str) -> None:
        if self.session is None:
            return
        self.session.approach = APPROACHES[name]
        shown = self.session.shown
        if shown is not None:
            self.ask(self.session.request(shown.request.start, shown.request.end))
        self.editor.setFocus()

    def current_number(self) -> int:
        index = self.view.currentIndex()
        return index.row() + 1 if index.isValid() else 1

    def more_like(self, number: int | None = None) -> None:
        try:
            self.ask(self.session.more_like_request(number or self.current_number()))
        except (LookupError, AttributeError):
            self.status.setText("Select a span first: “more like this” needs suggestions on screen.")

    def expand_abbreviation(self, _argument=None) -> None:
        try:
            self.ask(self.session.expand_request())
        except (LookupError, AttributeError):
            self.status.setText("Select the abbreviation in your translation first.")

    # picking --------------------------------------------------------------------------------------
    def _clicked(self, index: QModelIndex) -> None:
        if index.column() == 2:
            self.more_like(index.row() + 1)
        else:
            self.pick(index.row() + 1)
        self.editor.setFocus()

    def pick(self, number: int | None = None) -> Pick | None:
        """Put suggestion ``number`` (default: the highlighted one) in place of the span; record the choice."""
        session = self.session
        number = number or self.current_number()
        if session is None or session.shown is None or not 1 <= number <= len(session.shown.texts):
            self.status.setText(f"No suggestion {number} on screen.")
            return None
        pick = session.pick(number)
        self._picked = session.replaced_characters(pick)
        self._set_text(pick.text, cursor_at=self._picked[1])
        self._clear_suggestions("Picked. Select another span, or PgDn for the next sentence.")
        self._show_source(None)
        self._mark()
        self._record(pick)
        return pick

    def _record(self, pick: Pick) -> None:
        if not self.identity.name:
            self.identity_needed.emit()
        annotator = self.identity.name
        if not annotator:
            self.status.setText("Not recorded: choose who you are with File ▸ Judge as… (Ctrl+Shift+J).")
            return
        db, corpus = self.db, self.session.corpus
        worker = Worker(lambda report: record_pick(db, pick, annotator, corpus=corpus))
        worker.signals.finished.connect(self._recorded)
        worker.signals.failed.connect(lambda message: self.status.setText(f"The choice was not recorded: {message}"))
        QThreadPool.globalInstance().start(worker)

    def _recorded(self, recorded) -> None:
        self.recorded.append(recorded)
        self.status.setText(f"Recorded as choice judgment {recorded.judgment_id} in the study “{TRANSLATOR_STUDY}” "
                            f"(as {html.escape(self.identity.name or '')}).")
        self.choice_recorded.emit(recorded)

    # keys ------------------------------------------------------------------------------------------
    def handle_key(self, event, *, from_editor: bool) -> bool:
        """Run the screen's action for a key press, dispatched from :data:`KEYS`; False leaves the key to the
        widget (typing). The digits pick only while suggestions are shown and a span is selected (or the list has
        the keys), Enter only while suggestions are shown: otherwise they are typing."""
        shown = self.session.shown if self.session else None
        action = action_for(event, suggestions=shown is not None and bool(shown.texts),
                            selection=self.editor.textCursor().hasSelection() or not from_editor)
        if action is None:
            return False
        name, argument = action
        getattr(self, name)(argument)
        return True

    def highlight(self, step: int) -> None:
        """Highlight the suggestion ``step`` rows above (-1) or below (+1) the highlighted one."""
        rows = self.model.rowCount()
        if rows:
            self.view.selectRow(max(0, min(rows - 1, self.current_number() - 1 + step)))

    def pick_by_key(self, number: int | None) -> None:
        self.pick(number)
        self.editor.setFocus()
