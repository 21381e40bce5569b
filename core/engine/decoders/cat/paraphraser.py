"""Seed 001's paraphraser: suggestions for a selected span of a translation, from its search graph (§3.3-3.4, §5).

One request runs the stages of Fig. 3.5 in order:

1. align the selection with the source (:mod:`~core.engine.decoders.cat.aligner`);
2. retrieve partial paraphrases by coverage (:mod:`~core.engine.decoders.cat.partials`);
3. thin them with the approach's partial filters;
4. build the FSM, its transitions scored by the approach's score functions
   (:mod:`~core.engine.decoders.cat.fsm`);
5. the K best paths become suggestions (one per distinct string, its best path),
   except the selection itself (Fig. 4.4 shows it apart, as "Original");
6. the approach's filters, then its sorters; the first ``top`` are shown.

``feedback`` ("more like this", §5.1) re-runs the request and orders the final
list with UFBS after the approach's sorters; ``request="expand-abbreviation"``
(§5.3) adds the abbreviation filter. :class:`SuggestResult` keeps every
intermediate list, so it can say which stage dropped any candidate, and where
a gold paraphrase was lost (:meth:`SuggestResult.explain`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

from parastudio.core.engine.decoders.cat.aligner import Alignment, AlignmentError, align_exact, align_fuzzy
from parastudio.core.engine.decoders.cat.approaches import Approach
from parastudio.core.engine.decoders.cat.filters import FILTERS
from parastudio.core.engine.decoders.cat.fsm import FSM, build_fsm, kbest_paths, paths_per_end
from parastudio.core.engine.decoders.cat.gold_trace import gold_trace
from parastudio.core.engine.decoders.cat.graph_store import SentenceGraph
from parastudio.core.engine.decoders.cat.partial_filters import PARTIAL_FILTERS, keeps_one_per_output
from parastudio.core.engine.decoders.cat.partials import Partial, retrieve
from parastudio.core.engine.decoders.cat.score_functions import chained
from parastudio.core.engine.decoders.cat.sorters import SORTERS, load_clustering
from parastudio.core.engine.decoders.cat.stages import DEFAULT_PARAMETERS, SuggestContext, Suggestion, normalized
from parastudio.core.engine.lm.language_model import LanguageModel

REQUESTS = ("paraphrase", "expand-abbreviation")


@dataclass
class SuggestResult:
    """A request's suggestions and everything that led to them."""

    sentence: int
    approach: Approach
    top: int
    alignment: Alignment | None
    error: str | None = None
    retrieved: list[Partial] = field(default_factory=list)  # only the best of each span and output, when the
    # approach's first partial filter keeps no other (partial_filters.keeps_one_per_output)
    retrieved_count: int = 0  # the hypotheses of the spans retrieved, all of them
    partial_stages: list[tuple[str, list[Partial]]] = field(default_factory=list)  # after each partial filter
    fsm: FSM | None = None
    candidates: list[Suggestion] = field(default_factory=list)  # from the K best paths, FSM score order
    stages: list[tuple[str, list[Suggestion]]] = field(default_factory=list)  # after each filter and sorter
    seconds: float = 0.0
    context: SuggestContext | None = None

    @property
    def ranked(self) -> list[Suggestion]:
        return self.stages[-1][1] if self.stages else self.candidates

    @property
    def suggestions(self) -> list[Suggestion]:
        return self.ranked[:self.top]

    @property
    def kept_partials(self) -> list[Partial]:
        return self.partial_stages[-1][1] if self.partial_stages else self.retrieved

    def fate(self, words: Sequence[str]) -> str:
        """What became of one candidate string: ``shown 2``, ``ranked 7`` or ``dropped by PTRF``."""
        key = normalized(words)
        candidates, filtered, ranks = self._fate_index()
        if key not in candidates:
            return "not a candidate"
        for stage, kept in filtered:
            if key not in kept:
                return f"dropped by {stage}"
        rank = ranks.get(key)
        if rank is None:
            return "dropped"
        return f"shown {rank}" if rank <= self.top else f"ranked {rank}"

    def _fate_index(self):
        """The normalized strings of the candidates, of what each filter kept, and each string's first rank:
        built once per result (``to_json`` asks the fate of every candidate; scanning the stages for each
        took 0.2-0.4 s on long selections)."""
        built_for = (id(self.candidates), len(self.candidates), id(self.stages), len(self.stages), self.top)
        if getattr(self, "_fates_of", None) != built_for:
            ranks: dict[tuple[str, ...], int] = {}
            for rank, suggestion in enumerate(self.ranked, start=1):
                ranks.setdefault(normalized(suggestion.words), rank)
            self._fates = ({normalized(s.words) for s in self.candidates},
                           [(stage, {normalized(s.words) for s in kept}) for stage, kept in self.stages
                            if stage in FILTERS],
                           ranks)
            self._fates_of = built_for
        return self._fates

    def hit(self, gold: Sequence[str]) -> bool:
        key = normalized(gold)
        return any(normalized(s.words) == key for s in self.suggestions)

    def tie_at_cut(self) -> tuple[int, int] | None:
        """``[first, last)`` of the ranked suggestions tied with the last one shown, when that tie straddles
        the cut (some shown, some not); None otherwise. Ties are on the score the final order was sorted by:
        the FSM score when the approach has no sorter, the LM score when LMBS sorts last (CDBS and UFBS
        order by clusters and distances, not by a score: no tie is reported for them)."""
        ranked, top = self.ranked, self.top
        if len(ranked) <= top or top < 1:
            return None
        sorters = [stage for stage, _ in self.stages if stage in SORTERS]
        if not sorters:
            key = lambda s: s.fsm_score  # noqa: E731
        elif sorters[-1] == "LMBS":
            key = lambda s: s.lm_score  # noqa: E731
        else:
            return None
        cut = key(ranked[top - 1])
        if key(ranked[top]) != cut:
            return None
        first = top - 1
        while first > 0 and key(ranked[first - 1]) == cut:
            first -= 1
        last = top
        while last < len(ranked) and key(ranked[last]) == cut:
            last += 1
        return first, last

    def hit_with_ties_reversed(self, gold: Sequence[str]) -> bool:
        """Whether ``gold`` would be shown if the tie at the cut were broken the other way."""
        tie = self.tie_at_cut()
        if tie is None:
            return self.hit(gold)
        first, last = tie
        shown = self.ranked[:first] + list(reversed(self.ranked[first:last]))[:self.top - first]
        key = normalized(gold)
        return any(normalized(s.words) == key for s in shown)

    def explain(self, gold: Sequence[str]) -> dict:
        """Where ``gold`` was lost, stage by stage (see :func:`gold_trace`)."""
        return gold_trace(self, gold)

    def to_json(self, *, candidates: bool = True) -> dict:
        out = {
            "sentence": self.sentence,
            "approach": self.approach.name,
            "signature": self.approach.signature(),
            "alignment": self.alignment.to_json() if self.alignment else None,
            "error": self.error,
            "suggestions": [{"rank": i, "text": s.text, "fsm_score": s.fsm_score, "lm_score": s.lm_score}
                            for i, s in enumerate(self.suggestions, start=1)],
            "partials": {"retrieved": self.retrieved_count,
                         **{f"after {stage}": len(kept) for stage, kept in self.partial_stages}},
            "fsm": {"states": len(self.fsm.partials) + 1, "transitions": self.fsm.transitions,
                    "end_states": len(self.fsm.ends)} if self.fsm else None,
            "milliseconds": round(self.seconds * 1000, 2),
        }
        if candidates:
            out["candidates"] = [{"text": s.text, "fsm_score": s.fsm_score, "fate": self.fate(s.words)}
                                 for s in self.candidates]
        return out


def _context_for(graph: SentenceGraph, tokens: Sequence[str] | None, start: int, end: int, lm, top, parameters,
                 feedback) -> SuggestContext:
    translation = graph.translation()
    user_tokens = tuple(tokens) if tokens is not None else translation.tokens
    if user_tokens == translation.tokens:
        alignment = align_exact(translation, start, end)
    else:
        alignment = align_fuzzy(translation, user_tokens[start:end])
    return SuggestContext(graph=graph, translation=translation, alignment=alignment, tokens=user_tokens, lm=lm,
                          top=top, parameters=parameters, feedback=tuple(feedback) if feedback else None,
                          before=graph.predecessor_on_best_path(alignment.source_start),
                          user_selection=(start, end) if user_tokens != translation.tokens else None)


def suggest(graph: SentenceGraph, start: int, end: int, approach: Approach, *, lm: LanguageModel | None = None,
            top: int = 5, tokens: Sequence[str] | None = None, feedback: Sequence[str] | None = None,
            request: str = "paraphrase") -> SuggestResult:
    """Suggestions for tokens ``[start, end)`` of ``tokens`` (default: the graph's 1-best translation)."""
    if request not in REQUESTS:
        raise ValueError(f"request must be one of {REQUESTS}, not {request!r}")
    if "CDBS" in approach.sorters:
        load_clustering()  # a first import is not the request's time
    started = time.perf_counter()
    parameters = {**DEFAULT_PARAMETERS, **approach.parameters}
    result = SuggestResult(graph.sentence, approach, top, None)
    try:
        context = _context_for(graph, tokens, start, end, lm, top, parameters, feedback)
    except AlignmentError as error:
        result.error = str(error)
        result.seconds = time.perf_counter() - started
        return result
    result.context = context
    result.alignment = context.alignment
    retrieved = retrieve(graph, context.translation, context.alignment,
                         follow_limit=context.parameter("follow_limit"), retrieval=context.parameter("retrieval"),
                         distinct=keeps_one_per_output(approach.partial_filters, parameters))
    partials = result.retrieved = retrieved.partials
    result.retrieved_count = retrieved.count
    for name in approach.partial_filters:
        partials = PARTIAL_FILTERS[name](partials, context)
        result.partial_stages.append((name, partials))
    score = chained(list(approach.score_functions))
    low, high = context.alignment.coverage
    fsm = build_fsm(partials, low, high, lambda source, target: score(source, target, context),
                    lambda source, targets: score.many(source, targets, context))
    result.fsm = fsm
    originals = {normalized(context.selection_words()),
                 normalized(context.tokens[slice(*context.user_span())])}
    result.candidates = [s for s in _suggestions_from_paths(fsm, context.parameter("paths"))
                         if normalized(s.words) not in originals]
    suggestions = result.candidates
    filters = list(approach.filters) + (["ABRF"] if request == "expand-abbreviation" else [])
    for name in filters:
        suggestions = FILTERS[name](suggestions, context)
        result.stages.append((name, suggestions))
    sorters = list(approach.sorters) + (["UFBS"] if feedback else [])
    for name in sorters:
        suggestions = SORTERS[name](suggestions, context)
        result.stages.append((name, suggestions))
    result.seconds = time.perf_counter() - started
    return result


def tie_order(suggestion: Suggestion) -> tuple:
    """How suggestions of exactly equal FSM score are ordered, whatever their spelling: the path of fewer
    partials first (fewer, longer phrase pairs, as the decoder's own segmentation prefers), then the path's
    hypotheses in the search graph's order (the decoder's order of discovery)."""
    return len(suggestion.path), tuple(piece.node.hyp for piece in suggestion.path)


def _suggestions_from_paths(fsm: FSM, total_paths: int) -> list[Suggestion]:
    """One suggestion per distinct string, from its best path; best FSM score first (ties: :func:`tie_order`)."""
    import math

    best: dict[tuple[str, ...], Suggestion] = {}
    for _end, paths in kbest_paths(fsm, paths_per_end(total_paths, len(fsm.ends))).items():
        for cost, states in paths:
            pieces = tuple(fsm.state(s) for s in states)
            words = tuple(w for piece in pieces for w in piece.words)
            score = math.exp(-cost)
            known = best.get(words)
            if known is None or score > known.fsm_score:
                best[words] = Suggestion(words, score, pieces)
    return sorted(best.values(), key=lambda s: (-s.fsm_score, *tie_order(s)))
