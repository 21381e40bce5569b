"""A monotone phrase-based stack decoder: our stand-in for the MOSES baseline of seeds 000 and 003.

Seed 000 §3.1 and seed 003 §4.2 run MOSES with ``alpha_phi = alpha_LM = 1``,
``alpha_D = 10`` (no reordering) and ``alpha_W = 0``. This decoder is the same
search restricted to monotone order, the way Moses' own ``SearchNormal`` works
(Koehn 2004, "Pharaoh"; Moses ``Manager``/``SearchNormal``/``HypothesisStackNormal``):

* Translation options per source span come from
  :mod:`core.engine.model.translation_options` (the one place that collects, merges,
  ranks and limits them, for MCPG too): at most ``option_limit`` (Moses
  ``ttable-limit``, default 20) per span, ranked like Moses ranks them: by the
  option's own estimated score (weighted rule score plus the LM estimate of
  its target without context). Every source word also gets an identity option
  with probability 1 (seed 000 §2.2), outside the limit, so words without
  rules pass through and any word may stay unchanged.
* Stack ``k`` holds hypotheses covering ``k`` source words (``[0, k)``). Two
  with the same KenLM state recombine (the worse becomes an *arc* of the
  better, as in Moses, so n-best extraction still sees it); a complete one's
  state is the one after ``</s>``, shared by all, so the final stack is one
  winner and its arcs, as in Moses.
* Pruning as Moses' ``HypothesisStackNormal`` does it (``AddPrune``,
  ``PruneToSize``): threshold (``beam-threshold``, default 1e-5, i.e. 5 in
  log10, on the score plus future cost) against the best of the stack *at the
  time a hypothesis is inserted*, and histogram (``stack``, default 200: past
  ``2 * stack - 1`` hypotheses, and before expansion, the ``stack`` best
  strictly within the threshold stay; the last one's score becomes the floor).
  As what is kept depends on the order of insertions, stacks are expanded in
  Moses' order (its hash set's, :mod:`core.engine.decoders.moses_order`), options by
  span end then best estimate first. See :class:`_Stack`.
* Future cost (Moses ``FutureScore``): the best option's estimated score per
  span, combined over spans by dynamic programming: monotone, one constant
  per stack (every hypothesis of a stack has the same uncovered span), kept
  for the pruning arithmetic but unable to change which hypotheses survive.

Scores are base-10 logs (our convention, :mod:`core.engine.model.scoring`): a path's score
is ``alpha_phi * sum log10 p(rule) + alpha_LM * log10 P_LM(t) - alpha_W |t|``
with ``<s>``/``</s>`` in the LM. Moses reports natural logs (it multiplies
KenLM's log10 by ln 10 and takes ln of table scores), so a Moses score is ours
times ``ln 10 = 2.302585`` under the same weights.

Given a bilingual phrase table (e.g. RV1909 -> WEB) instead of a paraphrase
table, the same decoder translates: nothing here assumes source and target
share a vocabulary, except that the identity options copy unknown words.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Sequence

from parastudio.core.engine.decoders import compiled_search
from parastudio.core.engine.decoders.decoder_types import DecodeResult, DecoderSettings, Hypothesis, NBestEntry
from parastudio.core.engine.decoders.moses_order import (
    MosesOrder,
    beats,
    bitmap_hash,
    expansion_options,
    hypothesis_hash,
)
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.translation_options import (
    OptionCache,
    TranslationOption,
    TranslationOptions,
    collect_options,
)
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable


class _NoLM:
    """LM term 0 everywhere, for decoding with the table alone."""

    def begin_state(self):
        return None

    def advance_phrase(self, state, words):
        return 0.0, None

    def advance(self, state, word):
        return 0.0, None

    def score(self, words, *, bos=True, eos=True):
        return 0.0


class _Stack:
    """One stack of the search with Moses' pruning (``HypothesisStackNormal``: ``AddPrune``, ``Add``, ``PruneToSize``).

    ``best`` is the best future score inserted so far; ``worst`` the floor a
    new hypothesis must reach when inserted: ``best + width`` (``width`` = log10
    of the beam threshold), raised to the ``size``-th best score when histogram
    pruning fills the stack. What a stack keeps so depends on the order of
    insertions: winners are expanded in Moses' order (``order``).
    """

    __slots__ = ("by_state", "size", "width", "best", "worst", "order", "members", "bitmap", "covered", "tails")

    def __init__(self, size: int, width: float, covered: int, length: int, tails: Sequence[float]):
        self.by_state: dict[object, Hypothesis] = {}
        self.size = size  # 0: no histogram limit, as in Moses
        self.width = width
        self.best = -math.inf
        self.worst = -math.inf
        self.order = MosesOrder()  # the winners, by hypothesis id, in Moses' iteration order
        self.members: dict[int, Hypothesis] = {}
        self.covered = covered
        self.bitmap = bitmap_hash(covered, length)
        self.tails = tails  # per stack: its future cost

    def add(self, hypothesis: Hypothesis) -> None:
        """Insert ``hypothesis`` (Moses ``AddPrune``): drop it, keep it, or recombine it with its LM state's winner."""
        if hypothesis.future_score < self.worst:
            return
        existing = self.by_state.get(hypothesis.lm_state)
        if existing is None:
            self._insert(hypothesis)
            self._raise_best(hypothesis)
            if self.size and len(self.by_state) > 2 * self.size - 1:
                self.prune_to_size()
        elif hypothesis.future_score > existing.future_score:
            # The newcomer wins: the old winner and its arcs hang off it now. Moses erases the old winner from
            # its set and inserts the newcomer, which takes a new place in the iteration order.
            hypothesis.arcs = existing.arcs
            existing.arcs = []
            hypothesis.arcs.append(existing)
            for loser in hypothesis.arcs:
                loser.winner = hypothesis
            self.order.erase(existing.id)
            del self.members[existing.id]
            self._insert(hypothesis)
            self._raise_best(hypothesis)
        else:
            hypothesis.winner = existing
            existing.arcs.append(hypothesis)

    def _insert(self, hypothesis: Hypothesis) -> None:
        self.by_state[hypothesis.lm_state] = hypothesis
        self.members[hypothesis.id] = hypothesis
        state = hypothesis.lm_state
        self.order.insert(hypothesis.id, hypothesis_hash(self.bitmap, self.covered, 0 if state is None else hash(state)))

    def _raise_best(self, hypothesis: Hypothesis) -> None:
        if hypothesis.future_score > self.best:
            self.best = hypothesis.future_score
            self.worst = max(self.worst, self.best + self.width)

    def prune_to_size(self) -> None:
        """Moses ``PruneToSize``: over ``size``, the ``size`` best strictly within the threshold, inserted again."""
        if not self.size or len(self.by_state) <= self.size:
            return
        ordered = self.hypotheses()
        self.by_state = {}
        self.members = {}
        self.order.clear()
        floor = self.best + self.width
        for hypothesis in ordered:
            # Moses keeps only scores strictly above the floor; the best stays even at a threshold of 1.
            if len(self.by_state) >= self.size or not (hypothesis.future_score > floor
                                                       or hypothesis.future_score == self.best):
                break
            self._insert(hypothesis)
            if len(self.by_state) == self.size:
                self.worst = hypothesis.future_score

    def expansion_order(self) -> list[Hypothesis]:
        """The winners in Moses' iteration order, the order ``ProcessOneStack`` expands them in."""
        return [self.members[node] for node in self.order]

    def hypotheses(self) -> list[Hypothesis]:
        """The winners, best first as Moses sorts them (``beats``); complete ties in iteration order."""
        tails = self.tails

        def compare(a: Hypothesis, b: Hypothesis) -> int:
            return -1 if beats(a, b, tails) else 1 if beats(b, a, tails) else 0

        return sorted(self.expansion_order(), key=functools.cmp_to_key(compare))


class _TargetPrefixes:
    """The targets of the options starting at one word, as a prefix trie (issue 17: LM work shared).

    Options of one start share target prefixes ("the lord", "the lord god",
    the identity "the"): scored from one hypothesis' state, each prefix is
    scored once. The sums run in the same order as scoring each target word
    by word from 0.0, so the scores are the same to the last bit.
    """

    __slots__ = ("parent", "word", "node_of")

    def __init__(self, options: Sequence[TranslationOption]):
        self.parent: list[int] = []
        self.word: list[str] = []
        self.node_of: list[int] = []  # per option: the node of its last word, -1 for an empty target
        children: dict[tuple[int, str], int] = {}
        for option in options:
            node = -1
            for word in option.target:
                child = children.get((node, word))
                if child is None:
                    child = children[(node, word)] = len(self.parent)
                    self.parent.append(node)
                    self.word.append(word)
                node = child
            self.node_of.append(node)

    def advance(self, lm, state, index: int, scored: dict[int, tuple[float, object]]) -> tuple[float, object]:
        """(LM log10 score of option ``index``'s target after ``state``, the state after it)."""
        last = self.node_of[index]
        if last < 0:
            return 0.0, state
        known = scored.get(last)
        if known is not None:
            return known
        chain = []
        node = last
        while node >= 0 and node not in scored:
            chain.append(node)
            node = self.parent[node]
        total, context = scored[node] if node >= 0 else (0.0, state)
        for node in reversed(chain):
            score, context = lm.advance(context, self.word[node])
            total += score
            scored[node] = (total, context)
        return scored[last]


class BeamDecoder:
    """Decodes sentences against one table and LM with fixed settings.

    ``core``: ``"compiled"`` searches with the C++ core
    (:mod:`core.engine.decoders.compiled_search`), ``"python"`` with the loop below (the
    reference), ``"auto"`` (default) with the compiled core when it is built
    and ``PARASTUDIO_BEAM_CORE`` is not ``python``. Both give the same results.
    """

    def __init__(self, table: ParaphraseTable, lm: LanguageModel | None, settings: DecoderSettings = DecoderSettings(),
                 *, core: str = "auto"):
        self.table = table
        self.lm = lm if lm is not None else _NoLM()
        self.has_lm = lm is not None
        self.settings = settings
        if core not in ("auto", "python", "compiled"):
            raise ValueError(f"core must be 'auto', 'python' or 'compiled', not {core!r}")
        self.option_cache = OptionCache(table, lm, weights=settings.weights, limit=settings.option_limit)
        self.compiled = None
        if core == "compiled" or (core == "auto" and compiled_search.wanted()):
            self.compiled = compiled_search.CompiledSearch(self.option_cache, settings)
        self.core = "compiled" if self.compiled is not None else "python"

    def prepare(self) -> None:
        """Score and rank the options of every phrase of the table now rather than at first use (Moses does it
        while loading a table); worth it for a table already filtered to the input, which must not change
        afterwards (a span the table had no rules for is then not looked up again)."""
        if self.compiled is not None and self.compiled.ranks_in_core:
            self.compiled.prepare()  # ranked and registered in C++ from the binary table: no Rule per row
            return
        for phrase in list(self.table.sources()):
            self.option_cache.ranked(phrase, self.table.rules_for(phrase))
            if len(phrase) == 1:
                self.option_cache.slot(phrase[0])
        if self.compiled is not None:
            self.compiled.prepare()

    def translation_options(self, source: Sequence[str]) -> TranslationOptions:
        """``options[i]``: the options starting at source word ``i``, identity first."""
        return collect_options(source, self.table, self.option_cache.lm, weights=self.settings.weights,
                               limit=self.settings.option_limit, cache=self.option_cache)

    # -- search -------------------------------------------------------------------------------
    def decode(self, source: Sequence[str]) -> DecodeResult:
        source = tuple(source)
        if self.compiled is not None:
            return self.compiled.decode(source)
        return self.decode_python(source, self.translation_options(source))

    def decode_python(self, source: tuple[str, ...], options: TranslationOptions) -> DecodeResult:
        """The reference search, in Python (the compiled core does the same operations)."""
        n = len(source)
        settings = self.settings
        weights = settings.weights
        future = options.future_costs()
        threshold = math.log10(settings.beam_threshold) if settings.beam_threshold > 0 else -math.inf
        ids = itertools.count()
        root = Hypothesis(next(ids), None, None, 0, 0.0, 0.0, self.lm.begin_state(), future[0][n])
        tails = [future[k][n] for k in range(n + 1)]
        building = [_Stack(settings.stack_size, threshold, k, n, tails) for k in range(n + 1)]
        building[0].add(root)
        stacks: list[list[Hypothesis]] = [[] for _ in range(n + 1)]
        lm = self.lm
        lm_never_adds = weights.lm >= 0
        for k in range(n + 1):
            building[k].prune_to_size()  # Moses ProcessOneStack: lazy pruning before expanding
            stacks[k] = building[k].hypotheses()
            if k == n:
                break
            prefixes = _TargetPrefixes(options[k])
            tried = expansion_options(options[k])
            for hypothesis in building[k].expansion_order():
                scored: dict[int, tuple[float, object]] = {}  # prefix node -> (LM score, state) after it
                for index in tried:
                    option = options[k][index]
                    end = option.end
                    target = building[end]
                    # LM log-probabilities are <= 0, so this bound shows early when the
                    # threshold would drop the new hypothesis anyway: skip the LM calls.
                    if lm_never_adds and hypothesis.score + option.rule_score + future[end][n] < target.worst:
                        next(ids)
                        continue
                    lm_score, state = prefixes.advance(lm, hypothesis.lm_state, index, scored)
                    if end == n:
                        # Complete hypotheses recombine on the state after </s>, as in Moses (KenLM's is
                        # empty: they all share it, so the final stack is one winner and its arcs).
                        end_score, state = lm.advance(state, "</s>")
                        lm_score += end_score
                    transition = option.rule_score + weights.lm * lm_score
                    score = hypothesis.score + transition
                    future_score = score + future[end][n]
                    if future_score < target.worst:
                        next(ids)  # Moses numbers every hypothesis it creates
                        continue
                    target.add(Hypothesis(next(ids), hypothesis, option, end, score, transition, state, future_score))
        return DecodeResult(source, root, stacks, options, future, settings, next(ids))


def decode_nbest(
    source: Sequence[str],
    table: ParaphraseTable,
    lm: LanguageModel | None,
    n: int = 1,
    settings: DecoderSettings = DecoderSettings(),
) -> list[NBestEntry]:
    """Distinct ``n``-best list of one sentence."""
    return BeamDecoder(table, lm, settings).decode(source).nbest(n)
