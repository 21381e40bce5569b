"""The choice task's preview-then-Accept (seed 001 Fig. 4.4) for the annotation screen.

A digit (or a click) picks an option and 0/O the original: the sentence is shown with the pick in place and
the pick's button pressed, nothing is recorded. Enter (or A, or the "Accept selection" button) records the
pick, as the thesis's "Accept Selection" did; a custom paraphrase is submitted with Enter in its field
("Submit Custom"). What the preview shows comes from :mod:`core.store.choice_preview` (through the operations).
"""

from __future__ import annotations

import html

from core.judging_view import shown_sentence
from core.store.operations import ChoicePreview, preview_choice as preview
from desktop.changed_spans import sentence_html


class ChoiceAccept:
    """Mixed into :class:`desktop.annotation_screen.AnnotationScreen` (uses its item, sentence label,
    option buttons, answer label and ``answer_choice``)."""

    previewed: ChoicePreview | None = None
    _skips_told = 0

    def note_auto_skips(self) -> None:
        """Say on the status line when the session closed tasks by seed 001's auto-skip rule."""
        skipped = self.session.skipped if self.session is not None else []
        told = self._skips_told if getattr(self, "_skips_session", None) is self.session else 0
        self._skips_session, self._skips_told = self.session, len(skipped)
        if len(skipped) > told:
            count = len(skipped) - told
            self.status.setText(f"{count} task{'s' if count > 1 else ''} skipped: your paraphrase for that case is "
                                "already among its options (counted a success, seed 001 §4.2.1)")

    def preview_choice(self, value: str) -> None:
        item = self.item
        if item is None or item.scale != "choice":
            return
        shown = preview(item.source, item.span or (0, 0), item.options, value)
        if shown is None:
            return
        self.previewed = shown
        self.choice_sentence_label.setText(sentence_html(shown_sentence(item, shown.sentence, shown.marked,
                                                                        self.display)))
        for number, button in enumerate(self.option_buttons, 1):
            button.setChecked(value == f"option:{number}")
        self.original_button.setChecked(value == "original")
        picked = "the original" if shown.text is None else f"“{html.escape(shown.text)}”"
        self.answer_label.setText(f"Selected {picked}: <b>Enter</b> accepts it, another key picks again")

    def accept_choice(self) -> None:
        """Record the previewed pick (nothing when nothing is previewed)."""
        shown, self.previewed = self.previewed, None
        if shown is not None and self.item is not None and self.item.scale == "choice":
            self.answer_choice(shown.value)
