"""What a judging protocol is: one object that says, for the criteria of its scale, everything the house needs.

The store checks a value with :meth:`JudgingProtocol.check` and reads the scale's labels and "bad" answers from
it; the desk reads which keys answer (:meth:`key_table`, each level's from :meth:`level_keys`); the
screen paints the view named by ``view``; the assignment gives each criterion the kind of item named by
``item``; the report and the Dashboard give the sections named by ``statistics``; a dev set takes its judgments
as candidate labels or as records of their own (``devset``). A new protocol is one module declaring such an
object and one line in :data:`core.judging.protocols.PROTOCOLS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from parastudio.core.judging.protocols.key_binding import DIGITS, KeyBinding

# What one assignment shows.
CANDIDATE, REPLACEMENT_UNIT, PAIR, CHOICE_TASK = "candidate", "replacement-unit", "pair", "choice-task"
# What an answer is, for the statistics: a label of a scale, a score, a side of a pair, a pick among options,
# error points (MQM: weighted errors, stored negated so that higher is better).
LABEL, SCORE, SIDE, PICK, POINTS = "label", "score", "side", "pick", "points"
# How a dev set takes the judgments: as each candidate's label, or as records of their own kind.
CANDIDATE_LABELS, OWN_RECORDS = "candidate-labels", "own-records"


@dataclass(frozen=True)
class JudgingProtocol:
    """A protocol's declarations (see the module docstring). Subclasses override the checks they change."""

    name: str
    answer: str = LABEL
    view: str = "levels"  # what the screen paints: "levels", "score", "spans", "mqm", "pair", "choice"
    item: str = CANDIDATE
    statistics: tuple[str, ...] = ("agreement", "pairwise-tests", "quality")
    devset: str = CANDIDATE_LABELS
    takes_text: bool = False  # whether an answer carries text (a typed paraphrase, error spans)
    yes_no: bool = False  # answered yes or no (the levels are YES and NO)
    marks_words: bool = False  # the judge marks words of the candidate (ESA's spans, MQM's errors)
    # Whether the words an answer marks (:meth:`marked_spans`, each with a ``severity`` minor or major) are read as
    # blame on the candidate's unit replacements (:mod:`core.judging.span_rewrites`): ESA's spans are; MQM's
    # errors (a category each, on words or on none) are not.
    spans_blame_units: bool = False
    # Why a third judge never settles this protocol's disagreements (one line the adjudication screen and the CLI
    # show: :func:`core.store.adjudication.not_adjudicated`); None when its disagreements are adjudicated.
    not_adjudicated: str | None = None
    # Why MACE and Dawid-Skene do not fit this protocol's answers (one line the report and the Dashboard show:
    # :func:`core.stats.judge_competence.not_applicable`); None when they fit (answers are labels of a scale).
    no_competence_model: str | None = None

    def check(self, question: str, levels: Sequence[dict], value, text: str | None,
              options: Sequence[str] = ()) -> tuple[str, str | None]:
        """The stored ``(value, text)`` for an answer, or ValueError naming what the scale accepts."""
        raw = str(value).strip()
        allowed = [str(level["value"]) for level in levels]
        if raw in allowed:
            return raw, None
        raise ValueError(f"criterion {question!r} takes one of {', '.join(allowed)}, not {raw!r}")

    def known_answer(self, question: str, levels: Sequence[dict], answer, options: Sequence[str] = ()) -> str:
        """A training item's known answer (``answer`` of a guidelines file's ``[[training]]``) as the study keeps
        it, or ValueError saying what it must be: a label of the scale here."""
        if isinstance(answer, int) and not isinstance(answer, bool):
            answer = str(answer)  # answer = 3 on a 3-point scale
        if not isinstance(answer, str):
            raise ValueError(f"criterion {question!r} takes a label of its scale as a known answer")
        return self.check(question, levels, answer, None, options)[0]

    def agrees_with_known(self, known: str, given: str) -> bool:
        """Whether an answer ``given`` (as stored) agrees with a training item's ``known`` answer."""
        return given == known

    def stored_value(self, question: str, levels: Sequence[dict], value) -> str:
        """A stored value as the scale stores it, read without its text (a study's check reads values alone);
        ValueError when the scale cannot have stored it."""
        return self.check(question, levels, value, "typed" if value == "custom" else None)[0]

    def labels(self, levels: Sequence[dict]) -> tuple[str, ...]:
        """The labels of the scale in order (what agreement counts as categories); empty for a scale without
        levels (a score, a pick among options)."""
        return tuple(str(level["value"]) for level in levels)

    def bad_values(self, levels: Sequence[dict]) -> set[str]:
        """Answers that count as "judged bad" for a planted control: the lower half of the scale."""
        values = [str(level["value"]) for level in levels]
        return set(values[: max(1, len(values) // 2)])

    def key_table(self) -> tuple[KeyBinding, ...]:
        """The keys that answer an item of this protocol, each with its one meaning (its ``action``, the same in
        every protocol: :mod:`core.judging.keys`); every key :meth:`level_keys` gives must be here. A scale's
        levels: a digit answers by number."""
        return (KeyBinding(DIGITS, "answer_number", "the level of that number", self.view),)

    def marked_spans(self, text: str | None) -> list[dict]:
        """The spans over the candidate's words an answer's text marks (each with ``start`` and ``end``), checked;
        none for a protocol whose judges mark no words."""
        return []

    def level_keys(self, index: int, level: dict) -> tuple[str, ...]:
        """The keys that give a level on the screen: its digit (levels past the ninth have none)."""
        value = str(level["value"])
        if value.isdigit() and len(value) == 1:
            return (value,)
        return (str(index + 1),) if index < 9 else ()
