"""Seed 001's score functions (§3.4.4.2): SDSF, BFSF, LMSF; each scores one FSM transition in [0, 1].

The transition goes from a *source* state to a *target* partial. The start
state stands for the 1-best's hypothesis just before the selection
(``context.before``; None at the start of the sentence), which is what
"source hypothesis" means for a first step in a search graph.
"""

from __future__ import annotations

from typing import Sequence

import Levenshtein

from parastudio.core.engine.decoders.cat.graph_store import GraphNode
from parastudio.core.engine.decoders.cat.partials import Partial
from parastudio.core.engine.decoders.cat.stages import ScoreFunction, SuggestContext


def _source_node(source: Partial | None, context: SuggestContext) -> GraphNode | None:
    return source.node if source is not None else context.before


def sdsf(source: Partial | None, target: Partial, context: SuggestContext) -> float:
    """Score Difference Score Function: ``min(score_s / (2 score_t), 1)`` on the two transition scores.

    Reconstructed: the extracted Equation 3.7 reads ``min(score_t / (2 score_s), 1)``,
    but the text says the output "will be higher if transition score for target
    state ... is higher than the transition score for source state". With
    log-probability transitions (negative), that holds for the ratio of the
    source's magnitude over the target's: 0.5 when equal, 1 once the target's
    step costs at most half the source's. A step that costs nothing scores 1;
    the start of a sentence (no source step) scores 1, the same for every path.

    The parameter ``sdsf_reading="as-printed"`` takes the extracted equation's letters instead,
    ``min(|t| / (2 |s|), 1)``, so the results can give the counts under both readings.
    """
    return sdsf_many(source, [target], context)[0]


def bfsf(source: Partial | None, target: Partial, context: SuggestContext) -> float:
    """Best Forward Score Function: 1 if the target is the source's best next hypothesis (``forward``), else
    ``1 - d / 10`` with ``d`` the Levenshtein distance between the target's output and the best next one's
    (0 beyond 9). ``fscore`` is not used, as in the paper."""
    node = _source_node(source, context)
    if node is None:
        path = context.graph.best_path()
        best_next = path[0] if path else None
    else:
        if node.forward == target.node.hyp:
            return 1.0
        best_next = context.graph.node(node.forward)
    if best_next is None:
        return 0.0
    if best_next.hyp == target.node.hyp:
        return 1.0
    distance = Levenshtein.distance(" ".join(best_next.out), " ".join(target.node.out))
    return 0.0 if distance > 9 else 1.0 - distance / 10.0


def lmsf(source: Partial | None, target: Partial, context: SuggestContext) -> float:
    """Language Model Score Function: the LM's score of the two states' outputs joined, as a per-word
    probability ``10 ** (log10 P / words)`` (our normalisation to [0, 1]; the paper takes KenLM's total and
    says every score function is normalised, not how). No LM, or no words: 1."""
    if context.lm is None:
        return 1.0
    node = _source_node(source, context)
    before = source.words if source is not None else (node.out if node is not None else ())
    words = (*before, *target.words)
    if not words:
        return 1.0
    return 10.0 ** (context.lm.score(words, bos=False, eos=False) / len(words))


def sdsf_many(source: Partial | None, targets: Sequence[Partial], context: SuggestContext) -> list[float]:
    """:func:`sdsf` of one source to each of ``targets`` (the formula lives here): the FSM scores a thousand
    transitions per request at stack 200 with 100 options, and per call the parameter look-up and the source's
    node cost as much as the division."""
    node = _source_node(source, context)
    if node is None:
        return [1.0] * len(targets)
    as_printed = context.parameter("sdsf_reading") == "as-printed"
    fixed = abs(node.transition)
    scores = []
    for target in targets:
        source_cost, target_cost = fixed, abs(target.node.transition)
        if as_printed:
            source_cost, target_cost = target_cost, source_cost
        scores.append(1.0 if target_cost == 0.0 else min(source_cost / (2.0 * target_cost), 1.0))
    return scores


SCORE_FUNCTIONS: dict[str, ScoreFunction] = {"SDSF": sdsf, "BFSF": bfsf, "LMSF": lmsf}
# A score function's own way to score one source to many targets, where it has one (else one call per target).
SCORE_MANY = {sdsf: sdsf_many}


class Chained:
    """The Decorator chain of §3.4.4.2: the first function's score, then the running average with each next one.
    Called per transition, or :meth:`many` for one source's transitions (the same numbers)."""

    def __init__(self, names: list[str]):
        self.functions = [SCORE_FUNCTIONS[name] for name in names]

    def __call__(self, source: Partial | None, target: Partial, context: SuggestContext) -> float:
        if not self.functions:
            return 1.0
        value = self.functions[0](source, target, context)
        for function in self.functions[1:]:
            value = (value + function(source, target, context)) / 2.0
        return value

    def many(self, source: Partial | None, targets: Sequence[Partial], context: SuggestContext) -> list[float]:
        if not self.functions:
            return [1.0] * len(targets)
        values = _scores_of(self.functions[0], source, targets, context)
        for function in self.functions[1:]:
            values = [(value + other) / 2.0 for value, other in zip(values, _scores_of(function, source, targets,
                                                                                        context))]
        return values


def _scores_of(function: ScoreFunction, source: Partial | None, targets: Sequence[Partial],
               context: SuggestContext) -> list[float]:
    many = SCORE_MANY.get(function)
    if many is not None:
        return many(source, targets, context)
    return [function(source, target, context) for target in targets]


def chained(names: list[str]) -> Chained:
    return Chained(names)
