"""An in-memory paraphrase table indexed by source phrase.

Span lookups (every rule whose source equals ``tokens[i:j]``) are one hash
lookup on the token tuple, so matching a sentence costs
``len(sentence) * max_source_length`` lookups whatever the table size.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

from core.engine.rules import Phrase, Rule
from core.engine.table_formats import LoadReport, TableFormat, ValueKind, read_rules, table_name


@dataclass(frozen=True, slots=True)
class Match:
    """A rule applicable at source span ``[start, end)`` of a sentence."""

    start: int
    end: int
    rule: Rule


@dataclass(frozen=True)
class TableStats:
    rules: int
    distinct_sources: int
    longest_phrase: int
    mean_rules_per_source: float


class ParaphraseTable:
    """Rules grouped by source phrase.

    Rules of one source keep the order they were added in; ``rules_for``
    returns them sorted by decreasing probability when ``sort`` was called
    (done by :meth:`load`).
    """

    def __init__(self, rules: Iterable[Rule] = (), name: str = "table"):
        self.name = name
        self._by_source: dict[Phrase, list[Rule]] = {}
        self.max_source_length = 0
        self.longest_phrase = 0
        self._size = 0
        for rule in rules:
            self.add(rule)

    @classmethod
    def load(
        cls,
        path: str | os.PathLike,
        table_format: TableFormat | str | None = None,
        *,
        score: str | int | None = None,
        value_kind: ValueKind | str | None = None,
        skip_bad_lines: bool = False,
        keep_features: bool = True,
        report: LoadReport | None = None,
        swap_sides: bool = False,
        only_sources: set[str] | None = None,
    ) -> "ParaphraseTable":
        table = cls(name=table_name(path))
        table.source_path = str(path)
        for rule in read_rules(
            path,
            table_format,
            score=score,
            value_kind=value_kind,
            skip_bad_lines=skip_bad_lines,
            keep_features=keep_features,
            report=report,
            swap_sides=swap_sides,
            only_sources=only_sources,
        ):
            table.add(rule)
        table.sort()
        return table

    @classmethod
    def load_for(cls, path: str | os.PathLike, sentences: Iterable[Sequence[str]], *, max_length: int = 7,
                 **options) -> "ParaphraseTable":
        """Only the rules whose source occurs in ``sentences`` (Moses' filter-model-given-input).

        A full pivot table holds millions of rules; a test set needs a few
        thousand. Lines are filtered on their source field before parsing.
        ``options`` are those of :meth:`load`.
        """
        wanted = {" ".join(s[i:i + k]) for s in sentences for k in range(1, max_length + 1)
                  for i in range(len(s) - k + 1)}
        return cls.load(path, only_sources=wanted, **options)

    def add(self, rule: Rule) -> None:
        bucket = self._by_source.get(rule.source)
        if bucket is None:
            bucket = self._by_source[rule.source] = []
        bucket.append(rule)
        self._size += 1
        if len(rule.source) > self.max_source_length:
            self.max_source_length = len(rule.source)
        self.longest_phrase = max(self.longest_phrase, len(rule.source), len(rule.target))

    def sort(self) -> None:
        for bucket in self._by_source.values():
            bucket.sort(key=lambda r: -r.prob)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Rule]:
        for bucket in self._by_source.values():
            yield from bucket

    def sources(self) -> Iterator[Phrase]:
        return iter(self._by_source)

    def rules_for(self, source: Sequence[str]) -> Sequence[Rule]:
        return self._by_source.get(tuple(source), ())

    def best_probability(self, source: Sequence[str]) -> float | None:
        """Probability of the most probable paraphrase of ``source``, if any."""
        bucket = self._by_source.get(tuple(source))
        if not bucket:
            return None
        return max(rule.prob for rule in bucket)

    def span_rules(self, tokens: Sequence[str]) -> Iterator[tuple[int, int, list[Rule]]]:
        """``(start, end, rules)`` for every span of ``tokens`` that has rules (best first)."""
        tokens = tuple(tokens)
        by_source = self._by_source
        longest = self.max_source_length
        n = len(tokens)
        for start in range(n):
            for end in range(start + 1, min(n, start + longest) + 1):
                bucket = by_source.get(tokens[start:end])
                if bucket:
                    yield start, end, bucket

    def matches(self, tokens: Sequence[str], *, limit_per_span: int | None = None) -> list[Match]:
        """Every rule whose source equals a contiguous span of ``tokens``."""
        tokens = tuple(tokens)
        found: list[Match] = []
        by_source = self._by_source
        longest = self.max_source_length
        n = len(tokens)
        for start in range(n):
            stop = min(n, start + longest)
            for end in range(start + 1, stop + 1):
                bucket = by_source.get(tokens[start:end])
                if bucket:
                    chosen = bucket if limit_per_span is None else bucket[:limit_per_span]
                    found.extend(Match(start, end, rule) for rule in chosen)
        return found

    def stats(self) -> TableStats:
        sources = len(self._by_source)
        return TableStats(
            rules=self._size,
            distinct_sources=sources,
            longest_phrase=self.longest_phrase,
            mean_rules_per_source=(self._size / sources) if sources else 0.0,
        )

    def with_reverse_probabilities(self) -> "ParaphraseTable":
        """A table whose rule ``s -> t`` carries the probability of rule ``t -> s``.

        Use it when the table's column is p(t|s) but the channel model needs
        p(s|t) (see :mod:`core.engine.scoring`). Rules without a reverse entry are
        dropped: their channel probability is unknown.
        """
        reverse = {(rule.source, rule.target): rule.prob for rule in self}
        flipped = ParaphraseTable(name=self.name + ".reversed")
        for rule in self:
            probability = reverse.get((rule.target, rule.source))
            if probability is not None:
                flipped.add(Rule(rule.source, rule.target, probability, rule.features))
        flipped.sort()
        return flipped
