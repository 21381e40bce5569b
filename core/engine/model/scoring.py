"""The paraphrase scoring model of seed 003 §4.3 and seed 000 §2.1.

Notation (seed 000): a source sentence ``s`` becomes a candidate ``t`` through a
set ``I`` of rules with disjoint supports, no reordering, unchanged words
covered by identity rules (probability 1). Rule ``i`` rewrites ``s_i`` into
``t_i``.

* Channel score: ``Z_t^I = P_LM(t) * prod_{i in I} p(s_i | t_i)``.
* MCPG's bounded reward (seed 003 §4.3, reconstructed from the garbled PDF):
  ``R = min( P_LM(t)/P_LM(s) * prod_{i in I} p(s_i|t_i) / p(s_i|s_i), 1 )``,
  where the identity probability ``p(s_i|s_i)`` is that of the most probable
  paraphrase of ``s_i`` in the table (1 when ``s_i`` has none).
* Log-linear form, base-10 logs: ``alpha_phi * sum log p(s_i|t_i)
  + alpha_lm * log P_LM(t) + alpha_w * (-|t|)``. Seed 000 §3.1 sets
  ``alpha_phi = alpha_lm = 1`` and ``alpha_w = 0`` (``alpha_d`` is moot: no
  reordering); these are our defaults, so the log-linear score is
  ``log10 Z_t^I``.

Which conditional a table gives. A rule's ``prob`` is the factor multiplied
in for ``p(s_i | t_i)``:

* Moses phrase tables order their scores ``p(f|e) lex(f|e) p(e|f) lex(e|f)``
  with ``f`` the first field, i.e. the source phrase ``s_i``: column ``c0`` is
  exactly the channel probability ``p(s_i|t_i)``.
* Paraphrase tables from ``parastudio pivot`` (``e1 ||| e2 ||| p(e2|e1) ...``)
  carry ``p(t_i|s_i)`` in ``c0``. Seed 000 §3.1 scores rules with this
  round-trip pivot probability directly, and so do we by default. To read the
  channel direction instead, use ``ParaphraseTable.with_reverse_probabilities``
  (CLI ``--channel-from-reverse``): rule ``s -> t`` then takes the probability
  of the table's entry ``t -> s``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.derivation import Segment
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule


@dataclass(frozen=True)
class ScoreWeights:
    """Log-linear weights: ``phrase`` = alpha_phi, ``lm`` = alpha_LM, ``word_penalty`` = alpha_W."""

    phrase: float = 1.0
    lm: float = 1.0
    word_penalty: float = 0.0

    def to_json(self) -> dict:
        return {"alpha_phi": self.phrase, "alpha_lm": self.lm, "alpha_w": self.word_penalty}


DEFAULT_WEIGHTS = ScoreWeights()


def rules_log10(rules: Iterable[Rule]) -> float:
    """``sum log10 p(s_i|t_i)`` (identity rules contribute 0)."""
    return sum(rule.log10_prob for rule in rules)


def loglinear_log10(
    rules_log10_value: float,
    lm_log10: float | None,
    target_length: int,
    weights: ScoreWeights = DEFAULT_WEIGHTS,
) -> float:
    """The weighted sum; with no LM the LM term is left out (P_LM taken as 1)."""
    total = weights.phrase * rules_log10_value - weights.word_penalty * target_length
    if lm_log10 is not None:
        total += weights.lm * lm_log10
    return total


def channel_log10(target: Sequence[str], rules: Iterable[Rule], lm: LanguageModel | None) -> float:
    """``log10 Z_t^I = log10 P_LM(t) + sum log10 p(s_i|t_i)``."""
    lm_part = lm.score(target) if lm is not None else 0.0
    return lm_part + rules_log10(rules)


def identity_probability(table: ParaphraseTable, phrase: Sequence[str]) -> float:
    """``p(s_i|s_i)``: the probability of the most probable paraphrase of ``phrase``."""
    best = table.best_probability(phrase)
    return 1.0 if best is None else best


def mcpg_reward(
    source: Sequence[str],
    target: Sequence[str],
    segments: Iterable[Segment],
    table: ParaphraseTable,
    lm: LanguageModel | None,
) -> float:
    """MCPG's reward R in [0, 1] (seed 003 §4.3)."""
    log_ratio = 0.0
    if lm is not None:
        log_ratio += lm.score(target) - lm.score(source)
    for segment in segments:
        if segment.identity:
            continue
        log_ratio += math.log10(segment.rule.prob) - math.log10(identity_probability(table, segment.rule.source))
    return 1.0 if log_ratio >= 0.0 else 10.0**log_ratio


class ScoringModel:
    """Table + optional LM + weights: the model score of one whole derivation, straight from the definitions above.

    A reference for tests, not what the decoders call: the beam decoder scores
    incrementally (translation options in :mod:`core.engine.model.translation_options`,
    the LM state in its search) with the same :class:`ScoreWeights`, and
    ``tests/test_beam_decoder.py`` asserts that each n-best entry's score equals
    :meth:`derivation_log10` of its derivation. MCPG scores its finals itself
    (:mod:`core.engine.decoders.mcpg.finals`).
    """

    def __init__(self, table: ParaphraseTable, lm: LanguageModel | None = None, weights: ScoreWeights = DEFAULT_WEIGHTS):
        self.table = table
        self.lm = lm
        self.weights = weights

    def lm_log10(self, tokens: Sequence[str]) -> float | None:
        return self.lm.score(tokens) if self.lm is not None else None

    def derivation_log10(self, target: Sequence[str], segments: Iterable[Segment]) -> float:
        """Log-linear score of one derivation of ``target``."""
        return loglinear_log10(
            rules_log10(s.rule for s in segments), self.lm_log10(target), len(target), self.weights
        )

    def reward(self, source: Sequence[str], target: Sequence[str], segments: Iterable[Segment]) -> float:
        return mcpg_reward(source, target, segments, self.table, self.lm)
