"""Translation options: the rewrites of every source span of one sentence, collected, scored, ranked and limited once.

The one place both searches get their options from (the beam decoder,
:mod:`core.engine.decoders.beam_decoder`, and MCPG, :mod:`core.engine.decoders.mcpg`), as Moses'
``TranslationOptionCollection`` serves ``SearchNormal`` and
``SearchCubePruning`` alike (``TranslationOptionCollection.cpp``:
``CreateTranslationOptions``, ``Prune``, ``CalcFutureScore``):

* Collected: every table rule whose source equals a span of the sentence, and,
  with ``identities``, an identity option per word (probability 1, seed 000
  §2.2) so words without rules pass through and any word may stay unchanged.
* Distinct: equal rewrites of one span (same span, same target) are one
  option with the best score. A table that lists a rule twice, or carries its
  own pass-through rule ``w ||| w ||| p``, would otherwise give paths that tie
  exactly, and the n-best lists would fill with copies of one output. A
  pass-through rule of one word and the identity option are one option.
* Scored: ``rule_score = alpha_phi log10 p - alpha_W |t|`` (the part that does
  not depend on context) and ``estimate = rule_score + alpha_LM log10
  P_LM(t)`` with the target scored alone, without ``<s>``/``</s>`` (Moses'
  ``futureScore`` of an option).
* Ranked and limited: per span, best ``estimate`` first (ties keep the
  table's order), at most ``limit`` options (Moses ``ttable-limit``, default
  20; ``None`` keeps all). The identity option is outside the limit.
* Future costs (Moses ``CalcFutureScore``): the best estimate of covering
  each span ``[i, j)``, combined over splits by dynamic programming.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, NamedTuple, Sequence

from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.scoring import DEFAULT_WEIGHTS, ScoreWeights
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule, identity_rule

DEFAULT_OPTION_LIMIT = 20  # Moses -ttable-limit


@dataclass(frozen=True, slots=True)
class TranslationOption:
    """A rule (or the identity) applied to source span ``[start, end)``."""

    start: int
    end: int
    rule: Rule
    identity: bool
    rule_score: float  # alpha_phi * log10 p - alpha_W * |target|: the context-free part
    estimate: float  # rule_score + alpha_LM * LM estimate of the target alone
    target: tuple[str, ...]  # = rule.target, kept at hand for the inner loops


class TranslationOptions:
    """The options of one sentence: ``options[i]`` are those starting at source word ``i``.

    Within ``options[i]`` the identity option comes first, then the table's
    options by span end, each span's best estimate first.
    """

    def __init__(self, source: tuple[str, ...], by_start: list[list[TranslationOption]]):
        self.source = source
        self.by_start = by_start

    def __getitem__(self, start: int) -> list[TranslationOption]:
        return self.by_start[start]

    def __len__(self) -> int:
        return len(self.by_start)

    def __iter__(self) -> Iterator[list[TranslationOption]]:
        return iter(self.by_start)

    def all(self) -> Iterator[TranslationOption]:
        """Every option, in the order above."""
        for starting in self.by_start:
            yield from starting

    def future_costs(self) -> list[list[float]]:
        """``cost[i][j]``: best estimated score of covering ``[i, j)`` (Moses' future score DP)."""
        n = len(self.source)
        cost = [[-math.inf] * (n + 1) for _ in range(n + 1)]
        for i in range(n + 1):
            cost[i][i] = 0.0
        for option in self.all():
            if option.estimate > cost[option.start][option.end]:
                cost[option.start][option.end] = option.estimate
        for length in range(2, n + 1):
            for i in range(0, n - length + 1):
                j = i + length
                best = cost[i][j]
                for k in range(i + 1, j):
                    combined = cost[i][k] + cost[k][j]
                    if combined > best:
                        best = combined
                cost[i][j] = best
        return cost


class PhraseOption(NamedTuple):
    """An option without its place: what a source phrase may become, scored once for every sentence."""

    rule: Rule
    identity: bool
    rule_score: float
    estimate: float
    target: tuple[str, ...]

    def at(self, start: int, end: int) -> TranslationOption:
        return TranslationOption(start, end, self.rule, self.identity, self.rule_score, self.estimate, self.target)


class OptionCache:
    """The ranked, limited options of each source phrase, scored once per decoder (Moses does it at load time).

    Nothing in an option depends on the sentence except its place: the rule
    score and the LM estimate of the target alone are properties of the phrase.
    ``identities`` as in :func:`collect_options`.
    """

    def __init__(self, table: ParaphraseTable, lm: LanguageModel | None, *, weights: ScoreWeights = DEFAULT_WEIGHTS,
                 limit: int | None = DEFAULT_OPTION_LIMIT, identities: bool = True):
        self.table = table
        self.lm = lm
        self.weights = weights
        self.limit = limit
        self.identities = identities
        self._slots: dict[str, PhraseOption] = {}
        self._ranked: dict[tuple[str, ...], list[PhraseOption]] = {}
        self._lm_estimates: dict[tuple[str, ...], float] = {}  # a target recurs across phrases: scored once

    def _option(self, rule: Rule, identity: bool, rule_score: float) -> PhraseOption:
        target = rule.target
        lm_estimate = 0.0
        if self.lm is not None and target:
            lm_estimate = self._lm_estimates.get(target)
            if lm_estimate is None:
                lm_estimate = self._lm_estimates[target] = self.lm.phrase_score(target)
        return PhraseOption(rule, identity, rule_score, rule_score + self.weights.lm * lm_estimate, target)

    def rule_score(self, rule: Rule) -> float:
        return self.weights.phrase * rule.log10_prob - self.weights.word_penalty * len(rule.target)

    def known_slot(self, word: str) -> PhraseOption | None:
        """The slot of ``word`` if one was made already (by :meth:`slot`, or while preparing), else None."""
        return self._slots.get(word)

    def slot(self, word: str, rules: Sequence[Rule] | None = None) -> PhraseOption:
        """The option that keeps ``word``: the identity (probability 1), or a better pass-through rule of the table.

        ``rules``: the table's rules of ``word`` or any part of them, in table order, that holds every rule
        rewriting it into itself (only those count); by default all of them.
        """
        slot = self._slots.get(word)
        if slot is None:
            rule = identity_rule(word)
            slot = self._option(rule, True, self.rule_score(rule))
            for rule in self.table.rules_for((word,)) if rules is None else rules:
                score = self.rule_score(rule)
                if rule.target == slot.target and score > slot.rule_score:
                    slot = self._option(rule, False, score)
            self._slots[word] = slot
        return slot

    def ranked(self, phrase: tuple[str, ...], rules: Sequence[Rule]) -> list[PhraseOption]:
        """The distinct options of ``phrase`` (whose table rules are ``rules``), best estimate first, limited."""
        ranked = self._ranked.get(phrase)
        if ranked is None:
            keep_word = self.identities and len(phrase) == 1
            distinct: dict[tuple[str, ...], PhraseOption] = {}
            for rule in rules:
                if keep_word and rule.target == phrase:
                    continue  # merged into the slot (see slot())
                score = self.rule_score(rule)
                known = distinct.get(rule.target)
                if known is None or score > known.rule_score:  # ties keep the first, in table order
                    distinct[rule.target] = self._option(rule, False, score)
            ranked = sorted(distinct.values(), key=lambda o: -o.estimate)  # stable: ties keep table order
            if self.limit is not None:
                ranked = ranked[:self.limit]
            self._ranked[phrase] = ranked
        return ranked


def collect_options(
    source: Sequence[str],
    table: ParaphraseTable,
    lm: LanguageModel | None,
    *,
    weights: ScoreWeights = DEFAULT_WEIGHTS,
    limit: int | None = DEFAULT_OPTION_LIMIT,
    identities: bool = True,
    cache: OptionCache | None = None,
) -> TranslationOptions:
    """The distinct, ranked and limited options of ``source`` (module docstring).

    ``cache`` keeps the phrases' options between sentences; it must have been
    made with the same table, LM, weights, limit and ``identities``.
    """
    source = tuple(source)
    if cache is None:
        cache = OptionCache(table, lm, weights=weights, limit=limit, identities=identities)
    by_start: list[list[TranslationOption]] = [[cache.slot(w).at(i, i + 1)] if identities else []
                                               for i, w in enumerate(source)]
    for start, end, rules in table.span_rules(source):  # spans by start, then end
        by_start[start].extend(option.at(start, end) for option in cache.ranked(source[start:end], rules))
    return TranslationOptions(source, by_start)
