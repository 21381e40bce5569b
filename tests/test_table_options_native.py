"""Options and true-score rules read in C++ from a mapped binary table (core/engine/table_options_native.py)
are the Python path's: the same options, scores, order and rules, bit for bit.

The Python path is the oracle: OptionCache.ranked over the text table's rules, and span_rules filtered to the
rules a target can use. Tables are made up by hypothesis: duplicated rules, tied probabilities, targets equal
to their one-word source, non-ASCII and out-of-vocabulary words, a word with a tab (KenLM splits it).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from core.engine import table_options_native
from core.engine.compiled_search import native_model
from core.engine.lm import LanguageModel
from core.engine.paraphrase_table import ParaphraseTable
from core.engine.rules import Rule
from core.engine.scoring import ScoreWeights
from core.engine.translation_options import OptionCache
from tests.conftest import WORDS as LM_WORDS

pytestmark = pytest.mark.skipif(not hasattr(table_options_native._beam_core, "rank_rules"),
                                reason="the compiled search core is not built")

WORDS = [*LM_WORDS[:6], "é", "日本", "unseen", "a\tb"]
word = st.sampled_from(WORDS)
phrase = st.lists(word, min_size=1, max_size=3).map(tuple)
probability = st.sampled_from([0.5, 0.25, 1.0, 0.125]) | st.floats(1e-9, 1.0)
# The second score only tells rules apart: rules of one target and one probability tie on score.
rows = st.lists(st.tuples(phrase, phrase, probability, st.sampled_from([0.5, 0.1])), min_size=1, max_size=30)
# A word rewritten into itself: its slot's rule when it scores above the identity (a negative phrase weight).
pass_through = st.tuples(word, probability, st.sampled_from([0.5, 0.1])).map(lambda r: ((r[0],), (r[0],), *r[1:]))
rows_with_slots = st.tuples(rows, st.lists(pass_through, min_size=1, max_size=3)).map(lambda r: r[0] + r[1])
weights = st.builds(ScoreWeights, phrase=st.sampled_from([1.0, 0.5, 0.3, -0.5]), lm=st.sampled_from([1.0, 0.0, 0.7]),
                    word_penalty=st.sampled_from([0.0, 1.0, -0.25]))


def option_view(option) -> tuple:
    rule = option.rule
    return (rule.source, rule.target, rule.prob, rule.log10_prob, dict(rule.features), option.identity,
            option.rule_score, option.estimate, option.target)


def tables(directory: Path, rows, keep_features: bool) -> tuple[ParaphraseTable, ParaphraseTable]:
    rows = rows + rows[: len(rows) // 3]  # duplicated rules: ties in every bucket
    path = directory / "table.txt"
    path.write_text("".join(f"{' '.join(s)} ||| {' '.join(t)} ||| {p!r} {q!r}\n" for s, t, p, q in rows),
                    encoding="utf-8")
    ParaphraseTable.binarize(path)
    mapped = ParaphraseTable.load(path, keep_features=keep_features)
    assert table_options_native.mapped_buckets(mapped) is not None
    return ParaphraseTable.load(path, keep_features=keep_features, binary=False), mapped


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(rows=rows_with_slots, queries=st.lists(phrase, max_size=5), weights=weights, with_lm=st.booleans(),
       limit=st.sampled_from([None, 0, 1, 2, 20]), identities=st.booleans(), keep_features=st.booleans())
def test_the_core_ranks_a_phrases_options_and_its_slot_as_the_python_cache(tiny_lm, rows, queries, weights, with_lm, limit,
                                                              identities, keep_features):
    lm = LanguageModel(tiny_lm["binary"]) if with_lm else None
    with tempfile.TemporaryDirectory() as directory:
        text, mapped = tables(Path(directory), rows, keep_features)
        reference = OptionCache(text, lm, weights=weights, limit=limit, identities=identities)
        cache = OptionCache(mapped, lm, weights=weights, limit=limit, identities=identities)
        assert table_options_native.usable(cache)
        native = table_options_native.BinaryOptions(cache, table_options_native.mapped_buckets(mapped),
                                                    native_model(lm) if lm is not None else None)
        for query in [*text.sources(), *queries]:
            if len(query) == 1:  # the word's own slot: the identity or a better rule rewriting it into itself
                assert option_view(native.slot(query[0])) == option_view(reference.slot(query[0]))
            rules = text.rules_for(query)
            found = native.ranked(query)
            if not rules:
                assert found is None
                continue
            expected = reference.ranked(query, rules)
            assert [option_view(o) for o in found] == [option_view(o) for o in expected]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=rows, sentence=st.lists(word, min_size=1, max_size=7), data=st.data(), keep_features=st.booleans())
def test_the_core_finds_every_rule_a_target_can_use_in_table_order(rows, sentence, data, keep_features):
    with tempfile.TemporaryDirectory() as directory:
        text, mapped = tables(Path(directory), rows, keep_features)
        sentence = tuple(sentence)
        spans = list(text.span_rules(sentence))
        assume(spans)
        # A target made of rule targets (so that some rules match) and one drawn freely.
        made = tuple(w for _, _, bucket in spans[:3] for w in data.draw(st.sampled_from(bucket)).target)
        for target in (made, tuple(data.draw(st.lists(word, max_size=6))), sentence):
            wanted = {target[k:k + n] for n in range(len(target) + 1) for k in range(len(target) - n + 1)}
            expected = [(i, j, [option_rule for option_rule in bucket if option_rule.target in wanted])
                        for i, j, bucket in spans]
            expected = [(i, j, [rule_view(r) for r in bucket]) for i, j, bucket in expected if bucket]
            found = [(i, j, [rule_view(r) for r in bucket if r.target in wanted])
                     for i, j, bucket in mapped.span_rules_for_target(sentence, target)]
            assert [entry for entry in found if entry[2]] == expected
            # and nothing it leaves out could be used
            assert all(r.target in wanted for _, _, bucket in table_options_native.span_rules_toward(
                table_options_native.mapped_buckets(mapped), sentence, target) or () for r in bucket)


def rule_view(rule: Rule) -> tuple:
    return rule.source, rule.target, rule.prob, rule.log10_prob, dict(rule.features)
