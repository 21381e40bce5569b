import math

import pytest
from conftest import EXAMPLE1_RULES
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.derivation import apply_matches, changed_segments
from parastudio.core.engine.model.scoring import (
    ScoreWeights,
    ScoringModel,
    channel_log10,
    identity_probability,
    mcpg_reward,
)
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule

TABLE = ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in EXAMPLE1_RULES)
SOURCE = "the dog runs after the young cat".split()


def apply(names):
    matches = [m for m in TABLE.matches(SOURCE) if " ".join(m.rule.source) in names]
    return apply_matches(SOURCE, matches)


def test_channel_score_is_lm_times_rule_probabilities(tiny_lm):
    lm = LanguageModel(tiny_lm["binary"])
    target, segments = apply({"the dog", "the young cat"})
    assert " ".join(target) == "the beast runs after the kitten"
    value = channel_log10(target, [s.rule for s in segments], lm)
    assert value == pytest.approx(lm.score(target) + math.log10(0.8 * 0.7))
    model = ScoringModel(TABLE, lm, ScoreWeights(word_penalty=0.5))
    assert model.derivation_log10(target, segments) == pytest.approx(value - 0.5 * len(target))


def test_reward_without_lm_divides_by_the_best_paraphrase_probability():
    # "the young" has rules T4 (0.05) only, so p(s|s) = 0.05 and T4 alone gives ratio 1.
    target, segments = apply({"the young"})
    assert mcpg_reward(SOURCE, target, segments, TABLE, None) == 1.0
    target, segments = apply({"the dog"})
    assert identity_probability(TABLE, ("the", "dog")) == 0.8
    assert mcpg_reward(SOURCE, target, segments, TABLE, None) == 1.0
    extra = ParaphraseTable(list(TABLE) + [Rule(("the", "dog"), ("a", "hound"), 0.2)])
    target, segments = apply_matches(SOURCE, [m for m in extra.matches(SOURCE) if m.rule.target == ("a", "hound")])
    assert mcpg_reward(SOURCE, target, segments, extra, None) == pytest.approx(0.2 / 0.8)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.booleans(), min_size=5, max_size=5))
def test_reward_is_bounded_and_equals_formula(tiny_lm, picks):
    lm = LanguageModel(tiny_lm["binary"])
    chosen, end = [], -1
    for match, pick in zip(sorted(TABLE.matches(SOURCE), key=lambda m: m.start), picks):
        if pick and match.start >= end:
            chosen.append(match)
            end = match.end
    target, segments = apply_matches(SOURCE, chosen)
    reward = mcpg_reward(SOURCE, target, segments, TABLE, lm)
    ratio = 10 ** (lm.score(target) - lm.score(SOURCE)) * math.prod(
        m.rule.prob / identity_probability(TABLE, m.rule.source) for m in chosen)
    assert 0.0 <= reward <= 1.0
    assert reward == pytest.approx(min(ratio, 1.0), rel=1e-9)
    assert len(changed_segments(segments)) == len(chosen)
