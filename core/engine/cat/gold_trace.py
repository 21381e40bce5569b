"""Where a gold paraphrase was lost on its way through the paraphraser (for the inspector and ``suggest``).

The first of these that holds is the gold's fate:

* ``the selection itself``: never a suggestion (Fig. 4.4 shows the original apart);
* ``not in graph``: no chain of hypotheses inside the selection's coverage spells it;
* ``not retrieved``: the graph spells it, but not with the spans the retrieval queried (§3.4.2);
* ``dropped by PTPF`` (or another partial filter): the partials that spell it were filtered;
* ``not among K best``: the FSM spells it, but none of its paths is among the K best;
* ``dropped by PTRF`` (or another filter);
* ``ranked N``: it survived, at rank N after the sorters (``shown N`` when N <= top).

"Spells" compares :func:`~core.engine.cat.paraphraser.normalized` words.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from core.engine.cat.partials import Partial


def spells(pieces: Iterable[Partial], gold: Sequence[str], low: int, high: int, *, normalize) -> bool:
    """Whether partials chained over source ``[low, high)`` can spell ``gold`` (a DP on source and gold positions)."""
    by_start: dict[int, list[tuple[int, tuple[str, ...]]]] = {}
    for piece in pieces:
        if low <= piece.start < piece.end <= high:
            by_start.setdefault(piece.start, []).append((piece.end, normalize(piece.words)))
    reached = {(low, 0)}
    frontier = [(low, 0)]
    while frontier:
        position, done = frontier.pop()
        for end, words in by_start.get(position, ()):
            if tuple(gold[done:done + len(words)]) == words:
                state = (end, done + len(words))
                if state not in reached:
                    reached.add(state)
                    frontier.append(state)
    return (high, len(gold)) in reached


def gold_trace(result, gold: Sequence[str]) -> dict:
    from core.engine.cat.paraphraser import normalized

    key = normalized(gold)
    out = {"gold": " ".join(gold), "fate": None, "detail": None}
    if result.alignment is None:
        out["fate"], out["detail"] = "not aligned", result.error
        return out
    if key == normalized(result.context.selection_words()):
        out["fate"] = "the selection itself"
        return out
    low, high = result.alignment.coverage
    graph = result.context.graph
    if not spells(result.retrieved, key, low, high, normalize=normalized):
        within = [Partial(node, node.out) for node in graph.store._within(graph.sentence, low, high)]
        out["fate"] = "not retrieved" if spells(within, key, low, high, normalize=normalized) else "not in graph"
        out["detail"] = f"{len(within)} hypotheses inside source [{low}, {high}), {len(result.retrieved)} retrieved"
        return out
    for stage, kept in result.partial_stages:
        if not spells(kept, key, low, high, normalize=normalized):
            out["fate"] = f"dropped by {stage}"
            out["detail"] = "the partials that spell it were filtered"
            return out
    if not any(normalized(s.words) == key for s in result.candidates):
        out["fate"] = "not among K best"
        out["detail"] = f"{len(result.candidates)} distinct suggestions from the K best paths"
        return out
    out["fate"] = result.fate(gold)
    return out
