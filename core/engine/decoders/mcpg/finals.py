"""What a final state of MCPG is worth, and the record of the best ones (seed 003 §4.3, seed 000 §4.1).

The *objective* of a final state is a log10 score:

* true-score mode: the exact true score ``log10 Z*_t`` of its sentence (the
  rule part from a score-only variant of the true-score DP,
  :func:`core.engine.model.truescore.best_rules_log10` or ``..._forward``, on
  :class:`~core.engine.model.truescore.TrueScorer`'s cached index of the source;
  cached by sentence, the transposition table's other half);
* translator mode: the channel score of the state's own actions,
  ``log10 P_LM(t) + sum log10 p(s_i|t_i)``, or with
  ``translator_reward="seed003"`` each rule divided by ``p(s_i|s_i)``, the
  probability of the most probable paraphrase of ``s_i``
  (:func:`core.engine.model.scoring.mcpg_reward`).

The *reward* ``R`` in [0, 1] feeds UCB1-tuned, which assumes bounded rewards.
Seed 003 §4.3 (formula reconstructed from the garbled PDF): ``R = min(Z /
Z_s, 1)`` with ``Z_s = P_LM(s)``, the source's own score (all identity
rules); ``reward="log"`` maps the log score linearly instead (options
module). A final sentence equal to the source gets ``R = 0`` and is never
output (seed 000 §1: a paraphrase differs from its source). Tree values are
kept as the max log10 objective, so commits and the output order stay exact
where ``R`` is capped at 1.

A whole-sentence reward (``SearchInputs.sentence_reward``, issue 24 item 5)
replaces both: the objective of a final is then its reward ``R(t, s)`` in [0, 1]
itself (cached by sentence), the reward is that value, and the model score
reported for an output is it too (e.g. the predicted probability of
acceptance). Seed 003 §3 only scores final states, which is what makes this
possible. The tuned profile's priors (action order, guided playouts, polish
moves) still rank actions by their one-step true-score gain: they guide
where to look, the reward decides what is kept.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from parastudio.core.engine.decoders.mcpg.actions import ActionSpace
from parastudio.core.engine.decoders.mcpg.options import SearchInputs
from parastudio.core.engine.model.derivation import Segment
from parastudio.core.engine.model.truescore import TrueScorer, best_rules_log10, best_rules_log10_forward

UNSEEN = float("-inf")  # the objective of no final (or of the source itself)
_CACHE_LIMIT = 200_000  # distinct final sentences kept before trimming

# (objective, model score, applied actions) per final sentence; given sentences have no actions.
Final = tuple[float, float, tuple[int, ...]]


class Finals:
    """Scores final states (objective and reward) and keeps the best one per sentence."""

    def __init__(self, inputs: SearchInputs, space: ActionSpace):
        self.space = space
        self.source = inputs.source
        self.translator = inputs.translator
        self.nbest = inputs.nbest
        options = inputs.options
        self.scorer = TrueScorer(inputs.table, inputs.lm)
        self._index = self.scorer.source_index(self.source)
        self._true_dp = best_rules_log10_forward if options.true_score_dp == "forward" else best_rules_log10
        # With every rule probability at most 1, P_LM(t) bounds the true score from above.
        self.rules_at_most_one = self._index.rules_at_most_one()
        self.source_lm = space.source_lm
        self._log_reward = options.reward == "log"
        self._half_over_scale = 0.5 / options.reward_scale
        self._true_cache: dict[tuple[str, ...], float] = {}
        self.by_sentence: dict[tuple[str, ...], Final] = {}
        self.sentence_reward = inputs.sentence_reward
        self._sentence_cache: dict[tuple[str, ...], float] = {}

    def sentence_value(self, sentence: tuple[str, ...]) -> float:
        """The whole-sentence reward of ``sentence`` (cached); a value outside [0, 1] is refused."""
        value = self._sentence_cache.get(sentence)
        if value is None:
            value = float(self.sentence_reward(sentence, self.source))
            if not 0.0 <= value <= 1.0:  # also refuses NaN
                raise ValueError(f"the sentence reward gave {value!r} for {' '.join(sentence)!r}; expected a "
                                 "value in [0, 1]")
            if len(self._sentence_cache) >= _CACHE_LIMIT:
                self._sentence_cache.clear()
            self._sentence_cache[sentence] = value
        return value

    def true_rules_log10(self, sentence: tuple[str, ...]) -> float:
        """Best ``sum log10 p`` over rule sets turning the source into ``sentence`` (-inf if none)."""
        return self._true_dp(sentence, self._index)

    def is_scored(self, sentence: tuple[str, ...]) -> bool:
        """Whether the true score of ``sentence`` is already known (costs nothing to ask again)."""
        return sentence in self._true_cache

    def evaluate(self, applied: Sequence[int]) -> tuple[float, float]:
        """``(log10 objective, reward R)`` of the final state reached by ``applied``; it is recorded."""
        space = self.space
        sentence = space.sentence(applied)
        if sentence == self.source:
            return UNSEEN, 0.0
        if self.sentence_reward is not None:
            objective = model = self.sentence_value(sentence)
        elif self.translator:
            lm_part = space.lm_score(sentence)
            objective = lm_part + sum(space.terms[a] for a in applied)
            model = lm_part + sum(space.log_p[a] for a in applied)
        else:
            objective = self._true_cache.get(sentence)
            if objective is None:
                if len(self._true_cache) >= _CACHE_LIMIT:
                    self._true_cache.clear()  # bounded memory on long runs; it only saves time
                objective = self.true_rules_log10(sentence) + space.lm_score(sentence)
                self._true_cache[sentence] = objective
            model = objective
        known = self.by_sentence.get(sentence)
        if known is None or objective > known[0]:
            self.by_sentence[sentence] = (objective, model, tuple(sorted(applied)))
            if len(self.by_sentence) >= _CACHE_LIMIT:
                self._keep_best()
        return objective, self.reward(objective)

    def add_known(self, sentence: Sequence[str]) -> None:
        """Score a given sentence (e.g. the beam's 1-best) as a candidate output (true-score mode)."""
        sentence = tuple(sentence)
        if self.translator or sentence == self.source:
            return
        objective = self.true_rules_log10(sentence)
        if objective == UNSEEN:
            return
        objective = (self.sentence_value(sentence) if self.sentence_reward is not None
                     else objective + self.space.lm_score(sentence))
        known = self.by_sentence.get(sentence)
        if known is None or objective > known[0]:
            self.by_sentence[sentence] = (objective, objective, ())

    def best_applied(self, count: int) -> list[tuple[int, ...]]:
        """The applied actions of the ``count`` best finals the search reached (given sentences left out)."""
        found = sorted(((objective, sentence, applied) for sentence, (objective, _, applied)
                        in self.by_sentence.items() if applied and objective != UNSEEN),
                       key=lambda item: (-item[0], item[1]))
        return [applied for _, _, applied in found[:count]]

    def ranked(self) -> list[tuple[tuple[str, ...], float, tuple[int, ...]]]:
        """``(sentence, model score, applied)`` of every final, best objective first (ties: model, sentence)."""
        ranked = sorted(((objective, model, sentence, applied) for sentence, (objective, model, applied)
                         in self.by_sentence.items() if objective != UNSEEN),
                        key=lambda item: (-item[0], -item[1], item[2]))
        return [(sentence, model, applied) for _, model, sentence, applied in ranked]

    def _keep_best(self) -> None:
        kept = sorted(self.by_sentence.items(), key=lambda item: (-item[1][0], -item[1][1], item[0]))
        self.by_sentence = dict(kept[: max(1000, 10 * self.nbest)])

    def segments(self, sentence: tuple[str, ...], applied: Iterable[int]) -> tuple[Segment, ...]:
        """The derivation reported for an output: its true-score derivation, or the translator's own actions."""
        if not self.translator:
            return self.scorer.score(self.source, sentence).derivation
        return self.space.segments(applied)

    # -- rewards ------------------------------------------------------------------------------
    def reward(self, log_value: float) -> float:
        """``R`` in [0, 1] of a log10 objective (module docstring; options ``reward`` and ``reward_scale``)."""
        if self.sentence_reward is not None:
            return max(0.0, log_value)  # the objective is the reward (-inf: no final)
        gap = log_value - self.source_lm
        if self._log_reward:
            return min(1.0, max(0.0, 0.5 + gap * self._half_over_scale))
        return 1.0 if gap >= 0.0 else 10.0**gap
