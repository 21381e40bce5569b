"""Translation options, collected once for every search: distinct, scored, ranked and limited like Moses'."""

import math

import pytest
from conftest import EXAMPLE1_RULES, WORDS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.decoders.mcpg import FAITHFUL, TUNED, ActionSpace, SearchInputs
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.scoring import ScoreWeights
from parastudio.core.engine.model.translation_options import collect_options
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule

SOURCE = tuple("the dog runs after the young cat".split())


@pytest.fixture(scope="module")
def lm(tiny_lm):
    return LanguageModel(tiny_lm["binary"])


def table_of(rules):
    table = ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in rules)
    table.sort()
    return table


@st.composite
def sentence_and_rules(draw):
    """A short sentence and rules on its spans, often duplicated, tied or passing words through."""
    source = tuple(draw(st.lists(st.sampled_from(WORDS[:6]), min_size=1, max_size=5)))
    rules = []
    for _ in range(draw(st.integers(0, 12))):
        start = draw(st.integers(0, len(source) - 1))
        end = draw(st.integers(start + 1, min(len(source), start + 2)))
        kind = draw(st.sampled_from(["new", "copy", "same", "tie"]))
        if kind == "same" or not rules:
            target = source[start:end]  # a pass-through rule, as Moses tables often carry
        elif kind == "copy":
            previous = draw(st.sampled_from(rules))
            rules.append((previous[0], previous[1], draw(st.sampled_from([previous[2], 0.2, 0.9]))))
            continue
        else:
            target = tuple(draw(st.lists(st.sampled_from(WORDS[:6]), min_size=1, max_size=2)))
        prob = 0.5 if kind == "tie" else draw(st.sampled_from([0.1, 0.5, 1.0]))
        rules.append((source[start:end], target, prob))
    return source, rules


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=sentence_and_rules(), limit=st.sampled_from([None, 1, 2]), weight=st.sampled_from([0.0, 1.0]))
def test_options_are_the_distinct_best_rewrites_ranked_and_limited(lm, case, limit, weight):
    source, rules = case
    table = ParaphraseTable(Rule(s, t, p) for s, t, p in rules)
    weights = ScoreWeights(word_penalty=weight)
    options = collect_options(source, table, lm, weights=weights, limit=limit)
    # The definition, from the rule list: per (span, target) the best weighted log p; identity is probability 1.
    best: dict[tuple[int, int], dict[tuple[str, ...], float]] = {}
    for i in range(len(source)):
        best[(i, i + 1)] = {source[i:i + 1]: -weight}
    for s, t, p in rules:
        for i in range(len(source) - len(s) + 1):
            if source[i:i + len(s)] == s:
                score = math.log10(p) - weight * len(t)
                targets = best.setdefault((i, i + len(s)), {})
                targets[t] = max(score, targets.get(t, -math.inf))
    for i, starting in enumerate(options):
        identity, *others = starting
        assert identity.identity and (identity.start, identity.end, identity.target) == (i, i + 1, source[i:i + 1])
        seen = set()
        for option in starting:
            assert option.start == i
            span = (option.start, option.end)
            assert (span, option.target) not in seen, "two options rewrite one span the same way"
            seen.add((span, option.target))
            assert option.rule_score == pytest.approx(best[span][option.target], abs=1e-12)
            alone = lm.score(option.target, bos=False, eos=False)
            assert option.estimate == pytest.approx(option.rule_score + alone, abs=1e-9)
        for end in range(i + 1, len(source) + 1):
            kept = [o for o in others if o.end == end]
            everything = {t: s for t, s in best.get((i, end), {}).items() if (end, t) != (i + 1, source[i:i + 1])}
            assert [o.estimate for o in kept] == sorted((o.estimate for o in kept), reverse=True)
            assert len(kept) == (len(everything) if limit is None else min(limit, len(everything)))
            if kept:  # nothing left out beats what was kept
                left_out = {t for t in everything} - {o.target for o in kept}
                floor = min(o.estimate for o in kept)
                for target in left_out:
                    estimate = everything[target] + lm.score(target, bos=False, eos=False)
                    assert estimate <= floor + 1e-9


def test_a_pass_through_rule_is_the_identity_option(lm):
    table = table_of(EXAMPLE1_RULES + [("dog", "dog", 1.0), ("dog", "dog", 0.3), ("runs", "runs", 0.7)])
    options = collect_options(SOURCE, table, lm)
    for i, word in enumerate(SOURCE):
        same = [o for o in options[i] if o.end == i + 1 and o.target == (word,)]
        assert len(same) == 1 and same[0].identity and same[0].rule.prob == 1.0


def test_a_duplicated_rule_is_one_option_with_the_best_probability(lm):
    table = table_of(EXAMPLE1_RULES + [("the dog", "the beast", 0.3), ("the dog", "the beast", 0.9)])
    beasts = [o for o in collect_options(SOURCE, table, lm)[0] if o.target == ("the", "beast")]
    assert len(beasts) == 1 and beasts[0].rule.prob == 0.9


def test_the_beam_decoder_and_mcpg_use_the_same_options(lm):
    targets = [w for w in WORDS if w not in SOURCE] + ["zz1", "zz2", "zz3", "zz4"]
    table = table_of(EXAMPLE1_RULES + [("dog", w, 0.5 + i / 100) for i, w in enumerate(targets)])
    shared = collect_options(SOURCE, table, lm, limit=20)
    beam = BeamDecoder(table, lm, DecoderSettings(option_limit=20)).translation_options(SOURCE)
    assert list(beam.all()) == list(shared.all())
    for mode in ("true-score", "translator"):
        space = ActionSpace(SearchInputs(SOURCE, table, lm, mode=mode, options=TUNED))
        actions = {(space.starts[a], space.ends[a], space.targets[a]) for a in range(len(space))}
        expected = {(o.start, o.end, o.target) for o in shared.all()
                    if mode == "translator" or o.target != SOURCE[o.start:o.end]}
        assert actions == expected
    # No limit: every distinct rewrite is an action.
    faithful = ActionSpace(SearchInputs(SOURCE, table, lm, options=FAITHFUL))
    assert len(faithful) == len({(m.start, m.end, m.rule.target) for m in table.matches(SOURCE)})
