"""Seed 001's choice task (§4.2): pick one of the suggested paraphrases of the highlighted words, keep the
original, or type one's own; what each approach suggested is judged by what judges pick."""

from __future__ import annotations

from dataclasses import dataclass

from parastudio.core.judging.protocols.key_binding import KeyBinding
from parastudio.core.judging.protocols.protocol import CHOICE_TASK, OWN_RECORDS, PICK, JudgingProtocol

MAX_CHOICE_KEY = 5  # digits 1-5 pick an option (seed 001 Fig. 4.4 shows five)


@dataclass(frozen=True)
class Choice(JudgingProtocol):
    answer: str = PICK
    view: str = "choice"
    item: str = CHOICE_TASK
    statistics: tuple[str, ...] = ("choice-successes",)
    devset: str = OWN_RECORDS
    takes_text: bool = True
    no_competence_model: str | None = (
        "a choice task's answers are free picks, not a scale: MACE and Dawid-Skene do not apply")

    def check(self, question, levels, value, text, options=()):
        raw = str(value).strip()
        low = raw.lower()
        if low == "original":
            return "original", None
        if low == "custom":
            if not text:
                raise ValueError("a custom choice needs the typed paraphrase")
            return "custom", text
        if low.startswith("option:") and low[7:].isdigit() and 1 <= int(low[7:]) <= max(len(options), MAX_CHOICE_KEY):
            number = int(low[7:])
            return f"option:{number}", options[number - 1] if number <= len(options) else text
        raise ValueError(f"criterion {question!r} takes original, option:N or custom, not {raw!r}")

    def known_answer(self, question, levels, answer, options=()) -> str:
        """A training task's known pick: ``original`` or one of its own options (a typed paraphrase cannot be
        known in advance)."""
        known = super().known_answer(question, levels, answer, options)
        if known.startswith("option:") and int(known[7:]) > len(options):
            raise ValueError(f"criterion {question!r} takes original or option:N with N from 1 to {len(options)} "
                             "(the item's options) as a known answer")
        return known

    def key_table(self) -> tuple[KeyBinding, ...]:
        """A digit previews the option of that number, 0 the original (O too, :data:`core.judging.keys.KEYS`);
        Enter accepts, T types one's own."""
        return (KeyBinding(tuple(str(n) for n in range(MAX_CHOICE_KEY + 1)), "answer_number",
                           "preview the option of that number (0 the original)", self.view),)

    def level_keys(self, index, level) -> tuple[str, ...]:
        return ()


CHOICE = Choice("choice")
