"""One writer of Moses phrase-table lines, fed integer counts by every engine (local Python, Spark).

The engines only count: occurrences of phrase pairs, of source and target phrases, of word links.
Everything derived from the counts (the divisions, the lexical weights' sums and products, the float
text) is computed here, once, in Python, so a table built on Spark has the same bytes as one built in
this process (Java's arithmetic and formatting never touch a written value). The formulas are Moses'
(see :mod:`core.tablebuild.phrase_scoring`); the order of every sum and product is the reference's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping, Sequence

from parastudio.core.tablebuild.phrase_scoring import NULL
from parastudio.core.textio import WriteBehind, atomic_output

# (linked source indices of each target word, linked target indices of each source word, "s-t ..." text)
Layout = tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], str]


def alignment_layout(packed: Sequence[int], source_length: int, target_length: int) -> Layout:
    """The layout of an alignment packed as ``s0 t0 s1 t1 ...`` (relative indices, sorted links)."""
    links = list(zip(packed[0::2], packed[1::2]))
    sources_of_target: list[list[int]] = [[] for _ in range(target_length)]
    targets_of_source: list[list[int]] = [[] for _ in range(source_length)]
    for s, t in links:
        sources_of_target[t].append(s)
        targets_of_source[s].append(t)
    return (tuple(map(tuple, sources_of_target)), tuple(map(tuple, targets_of_source)),
            " ".join(f"{s}-{t}" for s, t in links))


def moses_line(source: str, target: str, layout: Layout, count_target: int, count_source: int, count_pair: int,
               f_given_e: Mapping[tuple[str, str], float], e_given_f: Mapping[tuple[str, str], float]) -> str:
    """One table line (with newline): ``f ||| e ||| p(f|e) lex(f|e) p(e|f) lex(e|f) ||| a ||| c(e) c(f) c(f,e)``.

    ``f_given_e`` and ``e_given_f`` map a word pair ``(f, e)`` (either may be NULL) to w(f|e) and w(e|f);
    a missing pair counts 0.0.
    """
    sources_of_target, targets_of_source, alignment = layout
    source_words, target_words = source.split(), target.split()
    # lex(f|e): each source word from its linked target words, or from NULL.
    lex_f_given_e = 1.0
    for s, targets in enumerate(targets_of_source):
        word = source_words[s]
        if not targets:
            lex_f_given_e *= f_given_e.get((word, NULL), 0.0)
        else:
            lex_f_given_e *= sum([f_given_e.get((word, target_words[t]), 0.0) for t in targets]) / len(targets)
    # lex(e|f): each target word from its linked source words, or from NULL.
    lex_e_given_f = 1.0
    for t, sources in enumerate(sources_of_target):
        word = target_words[t]
        if not sources:
            lex_e_given_f *= e_given_f.get((NULL, word), 0.0)
        else:
            lex_e_given_f *= sum([e_given_f.get((source_words[s], word), 0.0) for s in sources]) / len(sources)
    return (
        f"{source} ||| {target} ||| {count_pair / count_target!r} {lex_f_given_e!r} {count_pair / count_source!r} "
        f"{lex_e_given_f!r} ||| {alignment} ||| {count_target} {count_source} {count_pair}\n"
    )


def table_sort_key(source: str, target: str) -> str:
    """The order of the table's lines: whole lines by code point, which is LC_ALL=C sort on UTF-8 bytes."""
    return f"{source} ||| {target} |||"


def write_table(lines: Iterable[str], output: Path, *, compresslevel: int = 9) -> None:
    """Write ``lines`` to ``output`` (plain or .gz) atomically, in batches handed to a writing thread."""
    with atomic_output(output, compresslevel=compresslevel) as handle, WriteBehind(handle) as writer:
        batch: list[str] = []
        for line in lines:
            batch.append(line)
            if len(batch) == 50_000:
                writer.write("".join(batch))
                batch.clear()
        writer.write("".join(batch))
