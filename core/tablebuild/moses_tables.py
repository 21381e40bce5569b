"""Bilingual Moses phrase tables turned around and filtered to an input, for translating in both directions.

* :func:`reverse_moses_table`: ``f ||| e ||| p(f|e) lex(f|e) p(e|f) lex(e|f) ||| align ||| counts`` becomes
  ``e ||| f ||| p(e|f) lex(e|f) p(f|e) lex(f|e) ||| align' ||| counts'``, the alignment points
  ``i-j`` turned into ``j-i`` and the counts ``count(e) count(f) count(f, e)`` into
  ``count(f) count(e) count(f, e)``, so that the first score is again p(source|target),
  the channel probability a decoder reads by default. Lines sorted as Moses' training scripts sort a table
  (``LC_ALL=C sort``: whole lines, by code point).
* :func:`filter_table_for_input` keeps the lines whose source phrase occurs in the input
  (Moses' ``filter-model-given-input.pl``) and, with ``column``, only that score: the form of the tables
  the demo bundle carries.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from parastudio.core.errors import InputFormatError
from parastudio.core.textio import WriteBehind, atomic_output, open_text_maybe_gzip

MOSES_SCORES = 4


def reverse_moses_table(table: Path, output: Path, *, compresslevel: int = 6) -> dict:
    lines: list[str] = []
    with open_text_maybe_gzip(table) as reader:
        for number, line in enumerate(reader, 1):
            fields = line.rstrip("\n").split(" ||| ")
            if len(fields) < 3:
                raise InputFormatError(str(table), number, "source ||| target ||| scores [||| align ||| counts]",
                                       line.strip())
            scores = fields[2].split()
            if len(scores) != MOSES_SCORES:
                raise InputFormatError(str(table), number, f"{MOSES_SCORES} Moses scores", fields[2])
            reversed_fields = [fields[1], fields[0], " ".join((scores[2], scores[3], scores[0], scores[1]))]
            if len(fields) > 3:
                reversed_fields.append(" ".join("-".join(reversed(point.split("-"))) for point in fields[3].split()))
            if len(fields) > 4:
                counts = fields[4].split()
                reversed_fields.append(" ".join([counts[1], counts[0], *counts[2:]]) if len(counts) >= 2
                                       else fields[4])
            lines.append(" ||| ".join(reversed_fields) + "\n")
    lines.sort()  # UTF-8 byte order is code point order: LC_ALL=C sort
    with atomic_output(output, compresslevel=compresslevel) as handle, WriteBehind(handle) as writer:
        for start in range(0, len(lines), 50_000):
            writer.write("".join(lines[start:start + 50_000]))
    return {"rules": len(lines)}


def input_phrases(sentences: Iterable[Sequence[str]], max_length: int) -> set[str]:
    return {" ".join(s[i:i + k]) for s in sentences for k in range(1, max_length + 1) for i in range(len(s) - k + 1)}


def filter_table_for_input(table: Path, sentences: Iterable[Sequence[str]], output: Path, *, max_length: int = 7,
                           column: int | None = None, compresslevel: int = 9) -> dict:
    """The lines of ``table`` whose source occurs in ``sentences``; with ``column``, ``src ||| tgt ||| score``."""
    wanted = input_phrases(sentences, max_length)
    read = kept = 0
    with open_text_maybe_gzip(table) as reader, atomic_output(output, compresslevel=compresslevel) as handle:
        for number, line in enumerate(reader, 1):
            read += 1
            source, separator, rest = line.partition(" ||| ")
            if source not in wanted:
                continue
            if column is None:
                handle.write(line if line.endswith("\n") else line + "\n")
            else:
                fields = rest.rstrip("\n").split(" ||| ")
                scores = fields[1].split() if len(fields) > 1 else []
                if len(scores) <= column:
                    raise InputFormatError(str(table), number, f"a score in column {column}", line.strip())
                handle.write(f"{source} ||| {fields[0]} ||| {scores[column]}\n")
            kept += 1
    return {"rules_in": read, "rules_kept": kept, "column": column}
