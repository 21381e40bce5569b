"""An in-memory paraphrase table indexed by source phrase.

Span lookups (every rule whose source equals ``tokens[i:j]``) are one hash
lookup on the token tuple, so matching a sentence costs
``len(sentence) * max_source_length`` lookups whatever the table size.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from parastudio.core.engine.tables import table_binary
from parastudio.core.engine.tables.binary_table_rows import mapped_buckets, span_rules_toward
from parastudio.core.engine.tables.rules import Match, Phrase, Rule
from parastudio.core.engine.tables.table_binary_writer import write_binary
from parastudio.core.engine.tables.table_formats import (
    AS_DETECTED,
    LoadReport,
    TableFormat,
    TableLoading,
    ValueKind,
    column_index,
    detect_format,
    read_rules,
    table_name,
)


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
    (done by :meth:`load`). A table opened from its binary form
    (:mod:`core.engine.tables.table_binary`) reads its rules from the mapped file and
    answers every query the same; adding a rule to it first copies it into memory.
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
        loading: TableLoading = AS_DETECTED,
        *,
        keep_features: bool = True,
        report: LoadReport | None = None,
        only_sources: set[str] | None = None,
        binary: bool = True,
    ) -> "ParaphraseTable":
        """The table in file ``path`` read as ``loading`` says: from its binary form when ``binary`` and that is
        fresh and was written with the same loading options (:meth:`open_binary`), else parsed from the text;
        with ``loading.channel_from_reverse``, then turned into :meth:`with_reverse_probabilities`.

        ``report`` records what happened, a binary that could not be used included (``report.notes``).
        """
        table = cls._load_as_written(path, loading, keep_features=keep_features, report=report,
                                     only_sources=only_sources, binary=binary)
        if not loading.channel_from_reverse:
            return table
        reversed_table = table.with_reverse_probabilities()
        reversed_table.source_path = table.source_path  # made from that file's bytes
        return reversed_table

    @classmethod
    def _load_as_written(cls, path: str | os.PathLike, loading: TableLoading, *, keep_features: bool,
                         report: LoadReport | None, only_sources: set[str] | None,
                         binary: bool) -> "ParaphraseTable":
        """The rules as the file holds them (no reverse probabilities): what a binary form stores."""
        report = report if report is not None else LoadReport(str(path))
        options = _load_options(loading)
        if binary:
            for binary_file in table_binary.binary_paths(path):
                table = cls.open_binary(path, options, keep_features=keep_features, report=report,
                                        skip_bad_lines=loading.skip_bad_lines, only_sources=only_sources,
                                        binary_file=binary_file)
                if table is not None:
                    return table
        writes_binary = binary and keep_features and only_sources is None and _worth_a_binary(path)
        stamp = table_binary.text_stamp(path) if writes_binary else None  # before reading (see binarize)
        table = cls(name=table_name(path))
        table.source_path = str(path)
        for rule in read_rules(path, loading, keep_features=keep_features, report=report,
                               only_sources=only_sources):
            table.add(rule)
        table.sort()
        if writes_binary:
            options["format"] = options["format"] or detect_format(path).value
            _write_binary_on_first_use(table, path, stamp, options, report)
        return table

    @classmethod
    def open_binary(cls, path: str | os.PathLike, options: dict, *, keep_features: bool, report: LoadReport,
                    skip_bad_lines: bool, only_sources: set[str] | None,
                    binary_file: os.PathLike | None = None) -> "ParaphraseTable | None":
        """The table from ``path``'s binary form (``binary_file``, by default ``T.pstable`` beside it), or None
        (with a note in ``report`` when one exists but is stale, damaged, or answers other loading options) so
        that the caller reads the text."""
        binary_file = table_binary.binary_path(path) if binary_file is None else Path(binary_file)
        if not binary_file.is_file():
            return None
        rebuild = f"`parastudio table binarize {path}` rewrites it"
        try:
            opened = table_binary.BinaryTable(binary_file)
        except (table_binary.BinaryTableError, OSError, ValueError) as error:
            report.notes.append(f"{error}; read the text table instead ({rebuild})")
            return None
        why = None
        try:
            why = table_binary.freshness(path, binary_file, opened.text_stamp)
        except OSError as error:
            why = str(error)
        try:
            same_options = _canonical(dict(options, format=options["format"] or opened.load_options["format"])) \
                == opened.load_options
        except ValueError:  # a format this program does not know
            same_options = False
        if why is None and not same_options:
            why = f"it was written with other loading options ({opened.load_options})"
        skipped = opened.skipped
        if why is None and skipped and not skip_bad_lines:
            why = f"it skipped {skipped} malformed line(s), which this load must report"
        if why is None and skipped and only_sources is not None:
            why = "its skipped lines cannot be counted for a filtered load"
        if why is not None:
            opened.close()
            report.notes.append(f"{binary_file}: not used: {why}; read the text table instead ({rebuild})")
            return None
        report.binary = str(binary_file)
        report.skipped, report.first_errors = skipped, list(opened.first_errors)
        buckets = table_binary.MappedBuckets(opened, keep_features)
        if only_sources is not None:
            found = sorted((index, text) for text in only_sources if (index := buckets.index_of(text)) >= 0)
            table = cls((rule for index, _ in found for rule in opened.bucket(index, opened.source(index),
                                                                              keep_features)),
                        name=table_name(path))
            opened.close()
            table.source_path = str(path)
            report.rules = len(table)
            return table
        table = cls(name=table_name(path))
        table.source_path = str(path)
        table._by_source = buckets
        table._size = opened.rules
        table.max_source_length = opened.max_source_length
        table.longest_phrase = opened.longest_phrase
        report.rules = opened.rules
        return table

    @classmethod
    def binarize(cls, path: str | os.PathLike, loading: TableLoading = AS_DETECTED, *,
                 report: LoadReport | None = None) -> "ParaphraseTable":
        """Write ``path``'s binary form beside it (``T.pstable``, atomically) and return the text table read.

        The binary holds the rules as the file gives them under ``loading``; a load with
        ``channel_from_reverse`` reverses what it opens, so the returned table is never reversed."""
        report = report if report is not None else LoadReport(str(path))
        stamp = table_binary.text_stamp(path)  # before reading: a table edited meanwhile leaves the binary stale
        options = _load_options(loading)
        options["format"] = options["format"] or detect_format(path).value
        table = cls._load_as_written(path, loading, keep_features=True, report=report, only_sources=None,
                                     binary=False)
        write_binary(table, table_binary.binary_path(path), text=stamp, load=_canonical(options),
                     report={"skipped": report.skipped, "first_errors": report.first_errors}, inputs=[path])
        return table

    @classmethod
    def load_for(cls, path: str | os.PathLike, sentences: Iterable[Sequence[str]],
                 loading: TableLoading = AS_DETECTED, *, max_length: int = 7, **mechanics) -> "ParaphraseTable":
        """Only the rules whose source occurs in ``sentences`` (Moses' filter-model-given-input).

        A full pivot table holds millions of rules; a test set needs a few
        thousand. Lines are filtered on their source field before parsing.
        ``mechanics`` are :meth:`load`'s ``keep_features``, ``report`` and ``binary``.
        """
        wanted = {" ".join(s[i:i + k]) for s in sentences for k in range(1, max_length + 1)
                  for i in range(len(s) - k + 1)}
        return cls.load(path, loading, only_sources=wanted, **mechanics)

    def add(self, rule: Rule) -> None:
        if not isinstance(self._by_source, dict):  # opened from a binary: copied into memory first
            self._by_source = {source: list(rules) for source, rules in self._by_source.items()}
        bucket = self._by_source.get(rule.source)
        if bucket is None:
            bucket = self._by_source[rule.source] = []
        bucket.append(rule)
        self._size += 1
        if len(rule.source) > self.max_source_length:
            self.max_source_length = len(rule.source)
        self.longest_phrase = max(self.longest_phrase, len(rule.source), len(rule.target))

    def sort(self) -> None:
        if not isinstance(self._by_source, dict):
            return  # a binary table's buckets were sorted when it was written
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

    def span_rules_for_target(self, tokens: Sequence[str], target: Sequence[str]
                              ) -> Iterable[tuple[int, int, list[Rule]]]:
        """:meth:`span_rules`, or the part of it that holds every rule whose target is a contiguous part of
        ``target``: a mapped binary table reads only those (in C++, :mod:`core.engine.tables.binary_table_rows`)."""
        buckets = mapped_buckets(self)
        found = span_rules_toward(buckets, tokens, target) if buckets is not None else None
        return found if found is not None else self.span_rules(tokens)

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
        p(s|t) (see :mod:`core.engine.model.scoring`). Rules without a reverse entry are
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


def _load_options(loading: TableLoading) -> dict:
    """The loading options a binary form must have been written with (``format`` None: detected)."""
    return {"format": TableFormat(loading.format).value if loading.format else None, "score": loading.score,
            "value_kind": ValueKind(loading.value_kind).value if loading.value_kind else None,
            "swap_sides": loading.swap_sides}


def _canonical(options: dict) -> dict:
    """Options with defaults spelled out, so that equal loads compare equal (``format`` known)."""
    fmt = TableFormat(options["format"])
    score, kind = options["score"], options["value_kind"]
    if fmt is TableFormat.PPDB:
        score = int(score) if isinstance(score, int) or str(score).isdigit() else (None if score is None else str(score))
    else:
        try:
            score = column_index(score)
        except ValueError:
            score = str(score)  # the text load refuses it; it can match no binary written by binarize
        kind = kind or ValueKind.PROB.value
    return {"format": fmt.value, "score": score, "value_kind": kind, "swap_sides": options["swap_sides"]}


# A text table smaller than this parses about as fast as its binary form is written: it gets none unasked.
BINARY_ON_FIRST_USE_BYTES = 1 << 20


def _worth_a_binary(path: str | os.PathLike) -> bool:
    try:
        stat = os.stat(path)
    except OSError:
        return False
    import stat as kinds

    return kinds.S_ISREG(stat.st_mode) and stat.st_size >= BINARY_ON_FIRST_USE_BYTES


def installation_folders() -> list[Path]:
    """Where Python packages are installed, and the app bundle's own folder when frozen: folders nobody asked us
    to write into (a read-only install, or one shared by several users)."""
    import sysconfig

    folders = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    if getattr(sys, "frozen", False):
        folders |= {getattr(sys, "_MEIPASS", ""), os.path.dirname(sys.executable)}
    return [Path(os.path.realpath(folder)) for folder in sorted(folders) if folder]


def inside_installation(path: str | os.PathLike) -> bool:
    """Whether ``path`` lies inside :func:`installation_folders` (a bundled or installed data file)."""
    real = Path(os.path.realpath(path))
    return any(real.is_relative_to(folder) for folder in installation_folders())


def _write_binary_on_first_use(table: ParaphraseTable, path: str | os.PathLike, stamp: dict, options: dict,
                               report: LoadReport) -> None:
    """Write the binary form a later load opens at once: beside the table, else in the user's cache folder.

    A ``T.pstable`` beside the table that is not ours (no binary table's magic) is never replaced, and a table
    inside the installation (the bundle's demo, an installed package's data) gets its binary in the cache: the
    installation may be read-only or shared, and an uninstall must not leave files behind."""
    beside, cached = table_binary.binary_paths(path)
    places = [cached] if (beside.exists() and not table_binary.is_ours(beside)) or inside_installation(path) \
        else [beside, cached]
    errors = []
    for place in places:
        try:
            write_binary(table, place, text=stamp, load=_canonical(options),
                         report={"skipped": report.skipped, "first_errors": report.first_errors})
        except OSError as error:
            errors.append(f"{place}: {error.strerror or error}")
            continue
        report.notes.append(f"wrote the table's binary form {place}: the next load opens it at once")
        return
    report.notes.append("the table's binary form could not be written (" + "; ".join(errors) + "); "
                        "every load reads the text")
