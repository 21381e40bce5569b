"""A study's guidelines from a TOML file: the introduction judges read first, each question's text, and its good
and bad examples with the reason (issue 44, item 7; ``parastudio study guidelines``, the Studies screen).

The file (docs/CLI.md, "Guidelines", gives the format; docs/examples/guidelines.toml is a whole one)::

    introduction = "What judges read before their first item."

    [criteria.meaning]
    question = "Do both sentences say the same thing?"

    [[criteria.meaning.examples]]
    verdict = "good"                 # or "bad"
    source = "Abraham hurried into the tent to Sarah."
    candidate = "Abraham hastened into the tent to Sarah."
    reason = "another word, the same event"

A criterion the file does not name keeps its question and examples; one it names gets exactly the question and
examples written there. Everything is checked before anything is written: an unknown criterion or key, a missing
field, a value of the wrong type is refused as ``FILE:LINE: expected ...`` naming the key, and the study stays as it
was. The TOML parser gives no line per key, so the line is found by reading the file's table headers and ``key =`` lines
(:func:`_line_of`); a TOML syntax error gives the parser's own line
(:func:`core.structured_text.parse_toml`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from parastudio.core.errors import InputFormatError
from parastudio.core.judging.training_items import TrainingItem, identity, read_training_item
from parastudio.core.store import operations as ops
from parastudio.core.store.training import STORED_KEYS
from parastudio.core.structured_text import parse_toml, read_text

VERDICTS = ("good", "bad")
TOP_KEYS = ("introduction", "criteria", "training")
CRITERION_KEYS = ("question", "examples")
EXAMPLE_KEYS = ("verdict", "source", "candidate", "reason")


@dataclass(frozen=True)
class Example:
    good: bool
    source: str
    candidate: str
    reason: str

    def as_setting(self) -> dict:
        """As ``settings["instructions"]["examples"][criterion]`` holds it (desktop/instructions.py reads it)."""
        return {"good": self.good, "source": self.source, "text": self.candidate, "reason": self.reason}


@dataclass(frozen=True)
class Guidelines:
    """What a guidelines file says: the introduction, and per criterion it names its question and examples."""

    introduction: str
    questions: dict[str, str] = field(default_factory=dict)
    examples: dict[str, tuple[Example, ...]] = field(default_factory=dict)
    # The [[training]] items, in order; None: the file has none, the study keeps its own.
    training: tuple[TrainingItem, ...] | None = None

    def instructions(self, current: dict | None) -> dict:
        """The study's new ``instructions`` setting: the criteria the file does not name keep their examples, and
        a file without ``[[training]]`` keeps the study's training items."""
        kept = {name: list(examples) for name, examples in ((current or {}).get("examples") or {}).items()
                if name not in self.examples}
        written = {name: [example.as_setting() for example in examples] for name, examples in self.examples.items()}
        new = {**(current or {}), "text": self.introduction, "examples": {**kept, **written}}
        if self.training is not None:
            # An item already given to judges keeps its store rows: their answers stay its answers.
            given = {identity(e): {key: e[key] for key in STORED_KEYS if key in e}
                     for e in (current or {}).get("training") or []}
            new["training"] = []
            for item in self.training:
                entry = item.as_setting()
                new["training"].append({**entry, **given.get(identity(entry), {})})
        return new


def apply_guidelines(db, study_id: int, path) -> list[str]:
    """Check the guidelines file ``path`` whole against the study, then write it in one transaction
    (:func:`core.store.studies.set_guidelines`); returns what changed, a line for each part (the CLI prints them,
    the Studies screen shows them). InputFormatError, with the study untouched, when the file is wrong."""
    specs = ops.study_criteria(db, study_id)
    guidelines = read_guidelines(path, specs)  # the whole file checked before anything is written
    current = ops.study_settings(db, study_id).get("instructions")
    changes = ops.set_guidelines(db, study_id, guidelines.instructions(current), guidelines.questions)
    return change_lines(changes, [spec.name for spec in specs])


def change_lines(changes: dict, criteria: list[str]) -> list[str]:
    """What ``set_guidelines`` changed, one line per part, in the study's order of criteria."""
    lines = [f"introduction: {'changed' if changes['introduction'] else 'unchanged'}"]
    for name in criteria:
        parts = []
        if name in changes["questions"]:
            parts.append("question changed")
        if name in changes["examples"]:
            before, after = changes["examples"][name]
            parts.append(f"examples changed ({before} before, {after} now)")
        lines.append(f"{name}: {'; '.join(parts) if parts else 'unchanged'}")
    if changes["training"] is None:
        lines.append("training items: unchanged")
    else:
        before, after = changes["training"]
        lines.append(f"training items: changed ({before} before, {after} now; `study assign --training N` gives "
                     "the first N to each judge)")
    return lines


def read_guidelines(path, criteria: Sequence) -> Guidelines:
    """The guidelines in ``path`` for a study whose criteria are ``criteria`` (each with a name, a scale and its
    levels: :class:`core.store.criteria.CriterionSpec`); InputFormatError when it is wrong."""
    text = read_text(path)
    data = parse_toml(text, path, "TOML: a guidelines file (docs/CLI.md, study guidelines)")
    return _Checker(str(path), text, criteria).guidelines(data)


class _Checker:
    def __init__(self, path: str, text: str, criteria: Sequence):
        self.path, self.text = path, text
        self.specs = {criterion.name: criterion for criterion in criteria}
        self.criteria = list(self.specs)

    def fail(self, key_path: tuple, expected: str, got=None) -> InputFormatError:
        shown = None if got is None else (str(got) if not isinstance(got, (dict, list)) else type(got).__name__)
        return InputFormatError(self.path, _line_of(self.text, key_path),
                                f"{expected} at {_dotted(key_path)}", shown)

    def unknown(self, table: dict, allowed: tuple[str, ...], key_path: tuple) -> None:
        for key in table:
            if key not in allowed:
                raise self.fail((*key_path, key), f"only the keys {', '.join(allowed)}", key)

    def string(self, table: dict, key: str, key_path: tuple, *, required: bool = True, empty: bool = False) -> str:
        if key not in table:
            if required:
                raise self.fail((*key_path, key), f"a key {key!r} (text)")
            return ""
        value = table[key]
        if not isinstance(value, str):
            raise self.fail((*key_path, key), "text in quotes", value)
        if not empty and not value.strip():
            raise self.fail((*key_path, key), "some text, not an empty string", value)
        return value.strip()

    def guidelines(self, data: dict) -> Guidelines:
        self.unknown(data, TOP_KEYS, ())
        introduction = self.string(data, "introduction", ())
        criteria = data.get("criteria", {})
        if not isinstance(criteria, dict):
            raise self.fail(("criteria",), "a table of criteria ([criteria.NAME])", criteria)
        questions, examples = {}, {}
        for name, table in criteria.items():
            key_path = ("criteria", name)
            if name not in self.criteria:
                raise self.fail(key_path, f"a criterion of this study ({', '.join(self.criteria)})", name)
            if not isinstance(table, dict):
                raise self.fail(key_path, "a table with a question and examples", table)
            self.unknown(table, CRITERION_KEYS, key_path)
            questions[name] = self.string(table, "question", key_path)
            examples[name] = self.examples(table.get("examples", []), (*key_path, "examples"))
        training = None
        if "training" in data:
            training = self.training(data["training"])
        return Guidelines(introduction, questions, examples, training)

    def training(self, entries) -> tuple[TrainingItem, ...]:
        if not isinstance(entries, list):
            raise self.fail(("training",), "a list of training items ([[training]])", entries)
        found = []
        for number, entry in enumerate(entries):
            entry_path = ("training", number)
            if not isinstance(entry, dict):
                raise self.fail(entry_path, "a training item (criterion, what is judged, answer, reason)", entry)
            found.append(read_training_item(self, entry, entry_path))
        return tuple(found)

    def examples(self, entries, key_path: tuple) -> tuple[Example, ...]:
        if not isinstance(entries, list):
            raise self.fail(key_path, "a list of examples ([[criteria.NAME.examples]])", entries)
        found = []
        for number, entry in enumerate(entries):
            entry_path = (*key_path, number)
            if not isinstance(entry, dict):
                raise self.fail(entry_path, "an example table (verdict, source, candidate, reason)", entry)
            self.unknown(entry, EXAMPLE_KEYS, entry_path)
            verdict = self.string(entry, "verdict", entry_path)
            if verdict not in VERDICTS:
                raise self.fail((*entry_path, "verdict"), '"good" or "bad"', verdict)
            found.append(Example(verdict == "good", self.string(entry, "source", entry_path, required=False),
                                 self.string(entry, "candidate", entry_path), self.string(entry, "reason", entry_path)))
        return tuple(found)


def _dotted(key_path: tuple) -> str:
    text = ""
    for part in key_path:
        text += f"[{part + 1}]" if isinstance(part, int) else (("." if text else "") + str(part))
    return text or "the top of the file"


_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*(\"[^\"]*\"|'[^']*'|[A-Za-z0-9_-]+)\s*=")


def _header_parts(header: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in re.findall(r"\"[^\"]*\"|'[^']*'|[^.]+", header))


def _line_of(text: str, key_path: tuple) -> int:
    """The line of ``key_path`` (``("criteria", "meaning", "examples", 1, "reason")``) in the TOML ``text``: the
    line of its key inside its table, else of the table's header, else 1 (a key written some other way)."""
    names = tuple(part for part in key_path if not isinstance(part, int))
    # Where each table starts: the n-th [[a.b]] header is a.b's entry n (0-based).
    best, counts, table, entry = 1, {}, (), None
    wanted_entries = {tuple(p for p in key_path[:i] if not isinstance(p, int)): key_path[i]
                      for i, p in enumerate(key_path) if isinstance(p, int)}
    for number, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            table = _header_parts(header.group(2))
            entry = None
            if header.group(1) == "[[":
                entry = counts.get(table, 0)
                counts[table] = entry + 1
            if _matches(table, entry, names, wanted_entries) and len(table) <= len(names):
                best = number
            continue
        key = _KEY.match(line)
        if key and _matches(table, entry, names, wanted_entries):
            dotted = (*table, key.group(1).strip("\"'"))
            if dotted == names[:len(dotted)] and len(dotted) <= len(names):
                best = number
    return best


def _matches(table: tuple, entry, names: tuple, wanted_entries: dict) -> bool:
    """Whether the table (and its entry, for an array of tables) is on the way to the key named ``names``."""
    if table != names[:len(table)]:
        return False
    return entry is None or wanted_entries.get(table, entry) == entry
