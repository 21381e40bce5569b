"""A pattern paraphrase table matched on parsed sentences: seed 004's PT-4 as one more SPG table.

Reads the table format of docs/pattern-table.md (fields e1, e2 and the two
scores; the per-pivot features are for :mod:`core.tablebuild.patterns` and the
tuner). A pattern e1 matches a sentence where Algorithm 1 (:mod:`.induction`)
induces it from the sentence's parse: its words are the sentence's words and
each slot's word has the slot's tag (seed 002 §4.5 matches patterns this way,
seed 004 §3 parses its input "for matching the paraphrase pattern"). Each
match becomes a :class:`~core.engine.tables.rules.Rule` over the words the pattern
covers (ST(e), a contiguous span), rewritten into e2 with every slot filled
by the words its slot stands for in the sentence ("take market demand into
consideration" -> "consider market demand").

The parser is a callable from tokens to :class:`DependencyParse`; by default
spaCy (:class:`.spacy_parser.SpacyParser`, loaded on the first match).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable, Sequence

from parastudio.core.engine.tables.patterns.dependency_parse import DependencyParse
from parastudio.core.engine.tables.patterns.induction import PatternInstance, induce_patterns
from parastudio.core.engine.tables.rules import Match, Phrase, Rule
from parastudio.core.engine.tables.table_formats import table_name
from parastudio.core.errors import InputFormatError
from parastudio.core.textio import open_text_maybe_gzip
from parastudio.core.vocabulary import is_slot

SCORE_COLUMNS = ("score", "p_mle")  # field 3's two numbers: Eq. 3 under the table's λ, Eq. 1
_EXPECTED = "'e1 ||| e2 ||| score p_mle ||| features ||| pivots' with e2's slots equal to e1's and scores > 0"
Parser = Callable[[Sequence[str]], DependencyParse]


class PatternTable:
    """Pattern pairs grouped by e1; :meth:`matches` finds them in a sentence and instantiates them."""

    def __init__(self, name: str = "patterns", parser: Parser | None = None):
        self.name = name
        self.source_path: str | None = None
        self.score_column = "score"
        self._by_pattern: dict[Phrase, list[tuple[Phrase, float]]] = {}
        self._parser = parser
        self._parsed: tuple[tuple[str, ...], list[PatternInstance]] | None = None
        self._size = 0

    @classmethod
    def load(cls, path: str | os.PathLike, *, score: str = "score", parser: Parser | None = None,
             only_patterns: set[str] | None = None) -> "PatternTable":
        if score not in SCORE_COLUMNS:
            raise ValueError(f"score must be one of {', '.join(SCORE_COLUMNS)}, not {score!r}")
        table = cls(name=table_name(path), parser=parser)
        table.source_path, table.score_column = str(path), score
        column = SCORE_COLUMNS.index(score)
        with open_text_maybe_gzip(path) as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                fields = line.split(" ||| ", 3)
                if only_patterns is not None and fields[0].strip() not in only_patterns:
                    continue
                try:
                    e1, e2 = tuple(fields[0].split()), tuple(fields[1].split())
                    value = float(fields[2].split()[column])
                except (IndexError, ValueError):
                    raise InputFormatError(str(path), number, _EXPECTED, line.rstrip("\n")) from None
                if len(fields) < 4 or not e1 or not e2 or not value > 0 or _slots(e1) != _slots(e2) or not _slots(e1):
                    raise InputFormatError(str(path), number, _EXPECTED, line.rstrip("\n"))
                table.add(e1, e2, value)
        table.sort()
        return table

    def add(self, e1: Sequence[str], e2: Sequence[str], prob: float) -> None:
        self._by_pattern.setdefault(tuple(e1), []).append((tuple(e2), float(prob)))
        self._size += 1

    def sort(self) -> None:
        for bucket in self._by_pattern.values():
            bucket.sort(key=lambda item: -item[1])

    def __len__(self) -> int:
        return self._size

    def paraphrases(self, pattern: str | Sequence[str]) -> list[tuple[Phrase, float]]:
        key = tuple(pattern.split()) if isinstance(pattern, str) else tuple(pattern)
        return list(self._by_pattern.get(key, ()))

    def parse(self, tokens: Sequence[str]) -> DependencyParse:
        if self._parser is None:
            from parastudio.core.engine.tables.patterns.spacy_parser import SpacyParser

            self._parser = SpacyParser()
        return self._parser(list(tokens))

    def instances(self, tokens: Sequence[str]) -> list[PatternInstance]:
        """The English patterns of ``tokens`` (cached for the last sentence: SPG asks once per table)."""
        key = tuple(tokens)
        if self._parsed is None or self._parsed[0] != key:
            self._parsed = (key, induce_patterns(self.parse(key)) if key else [])
        return self._parsed[1]

    def matches(self, tokens: Sequence[str], *, limit_per_span: int | None = None) -> list[Match]:
        """Every pattern pair whose e1 occurs in ``tokens``, as a rule over the span it covers."""
        tokens = tuple(tokens)
        found: list[Match] = []
        for instance in self.instances(tokens):
            bucket = self._by_pattern.get(instance.tokens)
            if not bucket:
                continue
            chosen = bucket if limit_per_span is None else bucket[:limit_per_span]
            start, end = instance.span
            fillers = instance.filler_words()
            for e2, prob in chosen:
                target = tuple(word for token in e2 for word in (fillers[token] if is_slot(token) else (token,)))
                rule = Rule(tokens[start:end], target, prob,
                            {"table": self.name, "pattern": " ".join(instance.tokens), "paraphrase": " ".join(e2),
                             "score_column": self.score_column})
                found.append(Match(start, end, rule))
        return found


def _slots(tokens: Iterable[str]) -> list[str]:
    return sorted(token for token in tokens if is_slot(token))


def pattern_table_for(path: str | os.PathLike, sentences: Iterable[Sequence[str]], *, score: str = "score",
                      parser: Parser | None = None) -> PatternTable:
    """Only the pairs whose e1 occurs in ``sentences`` (parsed here), as ``ParaphraseTable.load_for`` filters."""
    if parser is None:
        from parastudio.core.engine.tables.patterns.spacy_parser import SpacyParser

        parser = SpacyParser()
    wanted = {instance.text for sentence in sentences if sentence
              for instance in induce_patterns(parser(list(sentence)))}
    return PatternTable.load(Path(path), score=score, parser=parser, only_patterns=wanted)
