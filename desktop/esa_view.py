"""The judging page of an error span annotation item (ESA, issue 30): mark the wrong words, then score.

Marking: Ctrl+← / Ctrl+→ move the cursor a word, Ctrl+Shift+← / Ctrl+Shift+→ extend the selection (as text
editors move by words; the plain arrows move between items, as on every protocol), M marks it minor, J major,
Backspace removes the marks under it, Enter (or a score key) goes on to the score. Scoring: the direct assessment
keys (:mod:`core.judging.protocols.direct_assessment`), Enter records the score with the spans, Esc goes back to
marking. The keys are the protocol's key table (:meth:`core.judging.protocols.error_spans.ErrorSpans.key_table`). What a key does
is :class:`core.judging.desk.JudgingDesk`'s (which holds the :class:`core.judging.protocols.error_spans.SpanMarking`, the
score and the phase); this page paints them. The words are the view's (:attr:`core.judging.view.JudgingView.words`,
:func:`core.judging.view.judged_words`: readable words under the study's display rule, else tokens), the words the
desk's marking counts, so the spans stored are over the words the judge read and map exactly onto the stored tokens
and the derivation's rewrites (:func:`core.judging.span_rewrites.token_spans`). The source reads by the same
rule.
"""

from __future__ import annotations

import html

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from parastudio.core.judging.view import JudgingView
from parastudio.core.store.operations import SpanMarking
from parastudio.desktop.widget_parts import enlarge, text_box

# Each mark carries its text colour: dark on these light backgrounds whatever the palette (desktop.palette).
_MARK_STYLE = {"minor": "background:#ffe0a0; color:#000000", "major": "background:#f4a0a0; color:#000000",
               "neutral": "background:#d0e0f8; color:#000000"}  # neutral: MQM's


class ESAView(QWidget):
    """Paints the candidate's marks, the selection and the score the desk holds."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.text = ""
        self.chars: list[tuple[int, int]] = []
        self.words: list[str] = []
        self.marking = SpanMarking(0)
        self.scoring = False
        self.score: int | None = None
        layout = QVBoxLayout(self)
        self.source_box, self.source_label = text_box("Source sentence")
        self.candidate_box, self.candidate_label = text_box("Paraphrase: mark the wrong words")
        layout.addWidget(self.source_box)
        layout.addWidget(self.candidate_box)
        self.score_label = enlarge(QLabel(), 1.4, bold=True)
        layout.addWidget(self.score_label)
        layout.addStretch(1)

    def show_item(self, view: JudgingView) -> None:
        self.text = view.candidate.reading
        self.words = [word.text for word in view.words]
        self.chars = [word.chars for word in view.words]
        self.source_box.setTitle(view.source_title)
        self.source_label.setText(html.escape(view.source.reading) if view.source is not None else "")

    def paint(self, marking: SpanMarking, score: int | None, scoring: bool, summary: str | None = None) -> None:
        """``summary`` replaces the score line (an MQM item: its points and the category the next mark takes)."""
        self.marking, self.score, self.scoring = marking, score, scoring
        self._render()
        if summary is not None:
            self.score_label.setText(html.escape(summary))

    def _render(self) -> None:
        start, end = self.marking.selection
        severity = {i: s["severity"] for s in self.marking.spans for i in range(s["start"], s["end"])}
        parts, position = [], 0
        for index, (word, (first, last)) in enumerate(zip(self.words, self.chars)):
            parts.append(html.escape(self.text[position:first]))  # the spaces (and any unmarkable run) before it
            position = last
            styles = [_MARK_STYLE[severity[index]]] if index in severity else []
            if not self.scoring and start <= index < end:
                styles.append("border-bottom:3px solid #2060c0; text-decoration:underline")
            text = html.escape(word)
            parts.append(f"<span style='{';'.join(styles)}'>{text}</span>" if styles else text)
        parts.append(html.escape(self.text[position:]))
        self.candidate_label.setText("".join(parts))
        marks = ", ".join(f"{' '.join(self.words[s['start']:s['end']])} ({s['severity']})"
                          for s in self.marking.spans) or "none"
        shown = "–" if self.score is None else str(self.score)
        self.score_label.setText(f"Score {shown}" + ("  (scoring)" if self.scoring else "") + f" · marked: {marks}")
