"""The choice task's preview-then-Accept (seed 001 Fig. 4.4) for the annotation screen.

A digit (or a click) picks an option and 0/O the original: the sentence is shown with the pick in place and
the pick's button pressed, nothing is recorded. Enter (or A, or the "Accept selection" button) records the
pick, as the thesis's "Accept Selection" did; a custom paraphrase is submitted with Enter in its field
("Submit Custom"). Which pick a key makes and what it records is :class:`core.judging.desk.JudgingDesk`'s; the
preview itself :mod:`core.store.choice_preview`'s; this paints it.
"""

from __future__ import annotations

import html

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.view import choice_text, shown_sentence
from parastudio.desktop.changed_spans import sentence_html


class ChoiceAccept:
    """Mixed into :class:`desktop.annotation_screen.AnnotationScreen` (uses its item, sentence label,
    option buttons, answer label and desk)."""

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

    def paint_preview(self) -> None:
        """The pick the desk holds (:attr:`core.judging.desk.JudgingDesk.preview`), in place in the sentence."""
        shown, item = self.desk.preview, self.item
        if shown is None or item is None or protocol_of(item.scale).view != "choice":
            return
        self.choice_sentence_label.setText(sentence_html(shown_sentence(item, shown.sentence, shown.marked,
                                                                        self.display)))
        for number, button in enumerate(self.option_buttons, 1):
            button.setChecked(shown.value == f"option:{number}")
        self.original_button.setChecked(shown.value == "original")
        picked = "the original" if shown.text is None else f"“{html.escape(choice_text(item, shown.text, self.display))}”"
        self.answer_label.setText(f"Selected {picked}: <b>Enter</b> accepts it, another key picks again")
