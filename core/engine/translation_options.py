"""Translation options: the rewrites of every source span of one sentence, collected, scored, ranked and limited once.

The one place both searches get their options from (the beam decoder,
:mod:`core.engine.beam_decoder`, and MCPG, :mod:`core.engine.mcpg`), as Moses'
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
from typing import Iterator, Sequence

from core.engine.lm import LanguageModel
from core.engine.paraphrase_table import ParaphraseTable
from core.engine.rules import Rule, identity_rule
from core.engine.scoring import DEFAULT_WEIGHTS, ScoreWeights

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


class _Scorer:
    """Builds options with the weights and the LM estimate of their target."""

    def __init__(self, lm: LanguageModel | None, weights: ScoreWeights):
        self.lm = lm
        self.weights = weights

    def rule_score(self, rule: Rule) -> float:
        return self.weights.phrase * rule.log10_prob - self.weights.word_penalty * len(rule.target)

    def option(self, start: int, end: int, rule: Rule, identity: bool, rule_score: float) -> TranslationOption:
        lm_estimate = self.lm.score(rule.target, bos=False, eos=False) if self.lm is not None and rule.target \
            else 0.0
        return TranslationOption(start, end, rule, identity, rule_score, rule_score + self.weights.lm * lm_estimate,
                                 rule.target)


def collect_options(
    source: Sequence[str],
    table: ParaphraseTable,
    lm: LanguageModel | None,
    *,
    weights: ScoreWeights = DEFAULT_WEIGHTS,
    limit: int | None = DEFAULT_OPTION_LIMIT,
    identities: bool = True,
) -> TranslationOptions:
    """The distinct, ranked and limited options of ``source`` (module docstring)."""
    source = tuple(source)
    scorer = _Scorer(lm, weights)
    slots: list[TranslationOption | None] = [None] * len(source)
    if identities:
        for i, word in enumerate(source):
            rule = identity_rule(word)
            slots[i] = scorer.option(i, i + 1, rule, True, scorer.rule_score(rule))
    spans: list[tuple[int, int, list[TranslationOption]]] = []
    for start, end, rules in table.span_rules(source):
        distinct: dict[tuple[str, ...], TranslationOption] = {}
        for rule in rules:
            score = scorer.rule_score(rule)
            slot = slots[start] if end == start + 1 else None
            if slot is not None and rule.target == slot.target:
                if score > slot.rule_score:  # a pass-through rule better than probability 1
                    slots[start] = scorer.option(start, end, rule, False, score)
                continue
            known = distinct.get(rule.target)
            if known is None or score > known.rule_score:  # ties keep the first, in table order
                distinct[rule.target] = scorer.option(start, end, rule, False, score)
        ranked = sorted(distinct.values(), key=lambda o: -o.estimate)  # stable: ties keep table order
        spans.append((start, end, ranked if limit is None else ranked[:limit]))
    by_start: list[list[TranslationOption]] = [[slot] if slot is not None else [] for slot in slots]
    for start, _, ranked in spans:  # span_rules yields spans by start, then end
        by_start[start].extend(ranked)
    return TranslationOptions(source, by_start)
