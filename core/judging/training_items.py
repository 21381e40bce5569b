"""A guidelines file's training items (``[[training]]``; issue 44, item 7): items with known answers that every
judge meets first (``study assign --training N``), told after each whether they agreed and why.

An item has the shape of what its criterion's judges see:

- a criterion answered by a label or a score of one candidate (yes/no, 1-3, 1-5, custom levels, direct
  assessment, error spans): ``candidate`` and ``answer``, a label of the scale, or for a score a whole number or
  the range of scores that agree with it (``answer = [70, 100]``);
- pairwise preference: ``first`` and ``second``, two candidates, and ``answer``: ``first``, ``second`` or ``tie``
  (which side each is shown on is drawn when the item is assigned, as for every pair);
- seed 001's choice task: ``span`` (the words ``[i, j)`` of ``source`` that are highlighted), ``options`` (the
  suggested paraphrases) and ``answer``: ``original`` or ``option:N``.

``source`` is optional for a candidate (a fluency criterion shows none) and required for the others; ``reason``
always. MQM's answer is a list of errors, not one known value, and a replacement unit comes from a candidate's
derivation: neither has training items here.
"""

from __future__ import annotations

from dataclasses import dataclass

from parastudio.core.judging.protocols import protocol_of
from parastudio.core.judging.protocols.choice import MAX_CHOICE_KEY
from parastudio.core.judging.protocols.protocol import CANDIDATE, CHOICE_TASK, PAIR, POINTS

# The keys of a [[training]] table, per kind of item its criterion shows.
TRAINING_KEYS = {
    CANDIDATE: ("criterion", "source", "candidate", "answer", "reason"),
    PAIR: ("criterion", "source", "first", "second", "answer", "reason"),
    CHOICE_TASK: ("criterion", "source", "span", "options", "answer", "reason"),
}


@dataclass(frozen=True)
class TrainingItem:
    """One ``[[training]]`` table, checked: what the judge is shown, the known answer as the study keeps it
    (:meth:`core.judging.protocols.protocol.JudgingProtocol.known_answer`) and why it is that one."""

    criterion: str
    source: str
    answer: str
    reason: str
    candidate: str = ""  # a candidate's item; a pair's first candidate
    second: str = ""  # a pair's second candidate
    span: tuple[int, int] | None = None  # a choice task's highlighted words of the source
    options: tuple[str, ...] = ()  # a choice task's suggestions

    def as_setting(self) -> dict:
        """As ``settings["instructions"]["training"]`` holds it (the judges' screens read it there)."""
        entry = {"criterion": self.criterion, "source": self.source, "candidate": self.candidate,
                 "answer": self.answer, "reason": self.reason}
        if self.second:
            entry["second"] = self.second
        if self.span is not None:
            entry.update(span=list(self.span), options=list(self.options))
        return entry


def identity(entry: dict) -> tuple:
    """What makes two training entries one item (a file written again keeps an item's store rows, so the answers
    judges gave stay its answers)."""
    return (entry.get("criterion"), entry.get("source", ""), entry.get("candidate"), entry.get("second", ""),
            tuple(entry.get("span") or ()), tuple(entry.get("options") or ()))


def trainable(protocol) -> bool:
    """Whether training items can be written for the protocol's criteria: not MQM (its answer is a list of
    errors), nor a replacement unit's (the units come from a candidate's derivation, which a training item has
    not)."""
    return protocol.item in TRAINING_KEYS and protocol.answer != POINTS


def read_training_item(checker, entry: dict, entry_path: tuple) -> TrainingItem:
    """The training item of one ``[[training]]`` table; ``checker`` (:class:`core.judging.guidelines._Checker`)
    raises ``FILE:LINE: expected ...`` naming the key that is wrong."""
    name = checker.string(entry, "criterion", entry_path)
    spec = checker.specs.get(name)
    protocol = protocol_of(spec.scale) if spec is not None else None
    if protocol is None or not trainable(protocol):
        names = [n for n, c in checker.specs.items() if trainable(protocol_of(c.scale))]
        raise checker.fail((*entry_path, "criterion"), "a criterion of this study with one known answer per "
                           f"item ({', '.join(names) or 'none here'})", name)
    checker.unknown(entry, TRAINING_KEYS[protocol.item], entry_path)
    source = checker.string(entry, "source", entry_path, required=protocol.item != CANDIDATE)
    shown = {"criterion": name, "source": source, "reason": checker.string(entry, "reason", entry_path)}
    if protocol.item == PAIR:
        shown.update(candidate=checker.string(entry, "first", entry_path),
                     second=checker.string(entry, "second", entry_path))
        if shown["candidate"] == shown["second"]:
            raise checker.fail((*entry_path, "second"), "a candidate other than the first", shown["second"])
    elif protocol.item == CHOICE_TASK:
        shown.update(span=_span(checker, entry, entry_path, source), options=_options(checker, entry, entry_path))
    else:
        shown["candidate"] = checker.string(entry, "candidate", entry_path)
    try:
        answer = protocol.known_answer(name, spec.levels or (), entry.get("answer"), shown.get("options", ()))
    except ValueError as error:
        raise checker.fail((*entry_path, "answer"), str(error), entry.get("answer")) from None
    return TrainingItem(answer=answer, **shown)


def _span(checker, entry: dict, entry_path: tuple, source: str) -> tuple[int, int]:
    span = entry.get("span")
    words = len(source.split())
    if not (isinstance(span, list) and len(span) == 2 and all(type(x) is int for x in span)
            and 0 <= span[0] < span[1] <= words):
        raise checker.fail((*entry_path, "span"), f"the highlighted words as [i, j] with 0 <= i < j <= {words} "
                           "(the source's words)", span)
    return span[0], span[1]


def _options(checker, entry: dict, entry_path: tuple) -> tuple[str, ...]:
    options = entry.get("options")
    if not (isinstance(options, list) and 1 <= len(options) <= MAX_CHOICE_KEY
            and all(isinstance(o, str) and o.strip() for o in options)):
        raise checker.fail((*entry_path, "options"), f"a list of 1 to {MAX_CHOICE_KEY} suggestions (texts)", options)
    return tuple(option.strip() for option in options)
