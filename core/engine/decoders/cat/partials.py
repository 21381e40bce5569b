"""Partial paraphrases: the hypotheses of a sentence's search graph inside the selection's coverage (seed 001 §3.4.2).

Seed 001 queries, for one sentence, the hypotheses whose last phrase covers a
given source span, best score first, and decides which spans to query:

1. the span of the first phrase of the selection (the translation's own grouping);
2. for every hypothesis found, the span of its best next hypothesis
   (``forward``), kept when it lies inside the selection's coverage;
3. step 2 again for each new span, until no new span appears.

Long selections (more than ``follow_limit`` source words) use only the
decoder's grouping of the translation, as the paper does ("for long
selections our approach uses only grouping produced by decoder"). The
translation's own grouping is always queried too, so the 1-best's path
through the selection is always among the partials (the paper's first span
is the start of that chain).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from parastudio.core.engine.decoders.cat.aligner import Alignment
from parastudio.core.engine.decoders.cat.graph_store import GraphNode, SentenceGraph
from parastudio.core.engine.decoders.cat.segmentation import Translation

DEFAULT_FOLLOW_LIMIT = 4  # source words; the paper: "starting from cases with n > 4 it is not feasible ..."


@dataclass(frozen=True, slots=True)
class Partial:
    """A hypothesis used as a piece of a paraphrase; ``words`` its output as the partial filters left it."""

    node: GraphNode
    words: tuple[str, ...]

    @property
    def start(self) -> int:
        return self.node.start

    @property
    def end(self) -> int:
        return self.node.end

    @property
    def span(self) -> tuple[int, int]:
        return self.node.start, self.node.end

    @property
    def score(self) -> float:
        return self.node.score

    def with_words(self, words: tuple[str, ...]) -> "Partial":
        return replace(self, words=words)


def decoder_grouping(translation: Translation, alignment: Alignment) -> list[tuple[int, int]]:
    """The source spans of the translation's phrases inside the aligned selection, in order."""
    return [(p.source_start, p.source_end) for p in translation.phrases
            if p.start >= alignment.start and p.end <= alignment.end and p.end > p.start]


def coverage_spans(graph: SentenceGraph, translation: Translation, alignment: Alignment, *,
                   follow_limit: int = DEFAULT_FOLLOW_LIMIT) -> list[tuple[int, int]]:
    """The spans to query (module docstring, steps 1-3), in the order they were found."""
    low, high = alignment.coverage
    grouping = decoder_grouping(translation, alignment)
    spans: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()
    queue = list(grouping)
    for span in grouping:
        seen.add(span)
        spans.append(span)
    if high - low > follow_limit:
        return spans
    while queue:
        span = queue.pop(0)
        # The spans of the hypotheses the span's ones go on to (``forward``), by the lowest such id.
        for following in graph.asked("forward_spans", *span):
            if following[0] != span[1] or following[1] > high:
                continue
            if following not in seen:
                seen.add(following)
                spans.append(following)
                queue.append(following)
    return spans


@dataclass(frozen=True)
class Retrieved:
    """The partials retrieved, and how many hypotheses the queried spans hold (the same number unless only the
    best of each output was asked for)."""

    partials: list[Partial]
    count: int


def retrieve(graph: SentenceGraph, translation: Translation, alignment: Alignment, *,
             follow_limit: int = DEFAULT_FOLLOW_LIMIT, retrieval: str = "forward", distinct: bool = False) -> Retrieved:
    """Every hypothesis of the queried spans, best score first (ties by span, then id); ``distinct``: only the
    best of each span and output (what a first partial filter keeping the best of each output would keep of
    them: at stack 200 with 100 options, a span's thousands of hypotheses hold about a hundred outputs).

    ``retrieval="forward"`` is seed 001's (module docstring); ``"all-spans"`` (ours, not the paper's) takes
    every hypothesis inside the coverage in one query: the FSM then composes every grouping the graph holds,
    which is polynomial (spans, not groupings, are enumerated), not the exponential query set the paper avoided.
    """
    if retrieval == "all-spans":
        low, high = alignment.coverage
        nodes = list(graph.asked("distinct_within", low, high) if distinct else graph.within(low, high))
        count = graph.asked("count_within", low, high) if distinct else len(nodes)
    elif retrieval == "forward":
        spans = coverage_spans(graph, translation, alignment, follow_limit=follow_limit)
        nodes = [node for span in spans
                 for node in (graph.asked("distinct_by_coverage", *span) if distinct else graph.by_coverage(*span))]
        count = sum(graph.asked("count_by_coverage", *span) for span in spans) if distinct else len(nodes)
    else:
        raise ValueError(f"retrieval must be 'forward' or 'all-spans', not {retrieval!r}")
    nodes.sort(key=lambda n: (-n.score, n.start, n.end, n.hyp))
    return Retrieved([Partial(node, node.out) for node in nodes], count)


def retrieve_partials(graph: SentenceGraph, translation: Translation, alignment: Alignment, *,
                      follow_limit: int = DEFAULT_FOLLOW_LIMIT, retrieval: str = "forward") -> list[Partial]:
    """Every hypothesis of the queried spans (:func:`retrieve`), best score first."""
    return retrieve(graph, translation, alignment, follow_limit=follow_limit, retrieval=retrieval).partials
