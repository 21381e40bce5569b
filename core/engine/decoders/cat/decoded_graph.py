"""A sentence decoded on request, its search graph held in memory behind the graph store's queries.

Seed 001's service (§3.2, Fig. 3.1) decodes the translator's sentence with the MT system (Moses with
``-output-search-graph``) and keeps that graph for the span requests that follow. ``POST /translate``
(:mod:`core.engine.decoders.cat.suggestion_service`) does the same with our beam decoder: the
:class:`~core.engine.decoders.decoder_types.DecodeResult` becomes a :class:`DecodedGraph`, which answers the
queries :class:`~core.engine.decoders.cat.graph_store.SentenceGraph` asks of a store (by coverage, inside a
span, by id, the root), so the paraphraser reads it exactly as it reads a loaded graph file.

Every number is rounded as the graph file writes it (``%.6g``, :mod:`core.engine.decoders.search_graph`), and the
1-best is the graph's best path (as :func:`core.engine.decoders.cat.translate.translate_all` gives it with a
graph): a sentence decoded here gets the suggestions its graph gives once written by ``generate
--search-graph`` and loaded, without writing and parsing thousands of lines per request.
"""

from __future__ import annotations

import itertools
from typing import Sequence

from parastudio.core.engine.decoders.cat.graph_store import GraphNode
from parastudio.core.engine.decoders.decoder_types import DecodeResult, Hypothesis
from parastudio.core.engine.decoders.search_graph import forward_scores

_SERIAL = itertools.count()  # each graph's own identity: a cache keyed by it never mixes two graphs


def as_written(value: float) -> float:
    """``value`` as the graph file's ``%.6g`` gives it back to a reader."""
    return float(f"{value:.6g}") if value != 0 else 0.0


Row = tuple  # a GraphNode's fields in order: a tuple of numbers and strings, which the garbage collector skips


def _row(hypothesis: Hypothesis, forward: dict[int, int], fscore: dict[int, float]) -> Row:
    """The fields of the node a store reads from the line :func:`~core.engine.decoders.search_graph.format_line`
    writes."""
    if hypothesis.back is None:
        return hypothesis.id, 0, None, 0.0, 0.0, None, None, None, 0, 0, ()
    winner = hypothesis.winner or hypothesis  # a recombined loser continues along its winner's path
    option = hypothesis.option
    return (hypothesis.id, hypothesis.covered, hypothesis.back.id, as_written(hypothesis.score),
            as_written(hypothesis.transition), hypothesis.winner.id if hypothesis.winner is not None else None,
            forward.get(winner.id, -1), as_written(fscore.get(winner.id, 0.0)), option.start, option.end,
            tuple(" ".join(option.target).split()))


def graph_rows(result: DecodeResult) -> list[Row]:
    """Every connected hypothesis, each followed by the ones recombined into it (the graph file's lines)."""
    if hasattr(result, "graph_lines"):  # the compiled search's lattice: read in C++, no object per hypothesis
        return _rows_of_lines(result)
    forward, fscore = forward_scores(result)
    return [_row(h, forward, fscore) for winner in result.connected() for h in (winner, *winner.arcs)]


def _rows_of_lines(result) -> list[Row]:
    """:func:`graph_rows` of a :class:`~core.engine.decoders.compiled_search.CompiledDecodeResult`: the rows
    :func:`_row` makes from its hypotheses, the numbers rounded in C++ as :func:`as_written` rounds them
    (``tests/test_serve_translate.py`` compares the two)."""
    heads, options = result.graph_lines()
    placed = {-1: (0, 0, ())}  # the root's
    for index in set(options) - {-1}:
        chosen = result.flat_option(index)
        placed[index] = (chosen.start, chosen.end, tuple(" ".join(chosen.target).split()))
    return [head + placed[option] for head, option in zip(heads, options)]


HYP, BACK, SCORE, FORWARD, START, END, OUT = 0, 2, 3, 6, 8, 9, 10  # positions in a Row


def _first_of_each_output(rows, *fields: int) -> list[Row]:
    """The first row (best first) of each value of ``fields``."""
    seen: set[tuple] = set()
    kept = []
    for row in rows:
        key = tuple(row[f] for f in fields)
        if key not in seen:
            seen.add(key)
            kept.append(row)
    return kept


def _best_first(row: Row) -> tuple:
    return -row[SCORE], row[HYP]  # the store's ``ORDER BY score DESC, hyp``


def _nodes(rows) -> list[GraphNode]:
    return [GraphNode(*row) for row in rows]


class DecodedGraph:
    """One sentence's graph, in memory; ``SentenceGraph(graph, 0)`` reads it (the sentence number is unused).

    Its hypotheses are kept as tuples and made nodes when asked for: a service keeps hundreds of graphs, and as
    objects their hundreds of thousands of nodes would be scanned by every full pass of the garbage collector
    (tuples of numbers and strings it stops tracking)."""

    def __init__(self, key: str, source: Sequence[str], rows: Sequence[Row]):
        self.key = key
        self.path = f"<sentence {key}>"  # what a message names
        self.identity = ("decoded", key, next(_SERIAL))
        self._source = tuple(source)
        self._rows = list(rows)  # one per hypothesis id; indexed when first asked (_INDEXES)

    _INDEXES = frozenset({"_ids", "_root_row", "_ranked", "_coverage", "_starts"})

    def __getattr__(self, name: str):
        """The indexes, built on the first query: a service's worker keeps every graph the others decode, and most
        are never asked for a span there."""
        if name not in DecodedGraph._INDEXES:
            raise AttributeError(name)
        self._build_indexes()
        return self.__dict__[name]

    def _build_indexes(self) -> None:
        rows = self._rows
        self._ids = {row[HYP]: row for row in rows}
        roots = [row for row in rows if row[BACK] is None]
        self._root_row = next((row for row in roots if row[HYP] == 0), roots[0] if roots else None)
        self._ranked = sorted((row for row in rows if row[BACK] is not None), key=_best_first)
        self._coverage: dict[tuple[int, int], list[Row]] = {}
        self._starts: dict[int, list[Row]] = {}
        for row in self._ranked:
            self._coverage.setdefault((row[START], row[END]), []).append(row)
            self._starts.setdefault(row[START], []).append(row)

    @classmethod
    def from_result(cls, key: str, result: DecodeResult) -> "DecodedGraph":
        return cls(key, result.source, graph_rows(result))

    def __len__(self) -> int:
        return len(self._rows)

    def rows(self) -> list[Row]:
        """Its hypotheses as it was given them: ``DecodedGraph(key, graph.source(), graph.rows())`` is the same graph
        (what a service's worker process sends the others)."""
        return self._rows

    # The queries of GraphStore that SentenceGraph and the gold trace ask (the sentence argument is ignored).
    def source(self, _sentence=None) -> tuple[str, ...]:
        return self._source

    def translation(self, _sentence=None) -> None:
        return None  # no decoder output beside the graph: the 1-best is the graph's best path

    def _by_coverage(self, _sentence, start: int, end: int) -> list[GraphNode]:
        return _nodes(self._coverage.get((start, end), ()))

    def _within(self, _sentence, low: int, high: int) -> list[GraphNode]:
        return _nodes(row for row in self._ranked if row[START] >= low and row[END] <= high)

    def _distinct_by_coverage(self, _sentence, start: int, end: int) -> list[GraphNode]:
        return _nodes(_first_of_each_output(self._coverage.get((start, end), ()), OUT))

    def _count_by_coverage(self, _sentence, start: int, end: int) -> int:
        return len(self._coverage.get((start, end), ()))

    def _distinct_within(self, _sentence, low: int, high: int) -> list[GraphNode]:
        inside = (row for row in self._ranked if row[START] >= low and row[END] <= high)
        return _nodes(_first_of_each_output(inside, START, END, OUT))

    def _count_within(self, _sentence, low: int, high: int) -> int:
        return sum(1 for row in self._ranked if row[START] >= low and row[END] <= high)

    def _forward_spans(self, _sentence, start: int, end: int) -> list[tuple[int, int]]:
        forwards = sorted({row[FORWARD] for row in self._coverage.get((start, end), ())
                           if row[FORWARD] is not None and row[FORWARD] >= 0})
        spans: dict[tuple[int, int], None] = {}
        for forward in forwards:
            row = self._ids.get(forward)
            if row is not None:
                spans.setdefault((row[START], row[END]))
        return list(spans)

    def _by_id(self, _sentence, hyp: int) -> GraphNode | None:
        row = self._ids.get(hyp)
        return GraphNode(*row) if row is not None else None

    def _starting_at(self, _sentence, start: int) -> list[GraphNode]:
        return _nodes(self._starts.get(start, ()))

    def _root(self, _sentence) -> GraphNode | None:
        return GraphNode(*self._root_row) if self._root_row is not None else None
