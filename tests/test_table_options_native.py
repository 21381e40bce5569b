"""Options and true-score rules read in C++ from a mapped binary table (core/engine/model/table_options_native.py)
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

from parastudio.core.engine.decoders import compiled_search
from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.lm.native_model import native_model
from parastudio.core.engine.model import table_options_native, truescore_paths
from parastudio.core.engine.model.scoring import ScoreWeights
from parastudio.core.engine.model.translation_options import OptionCache
from parastudio.core.engine.model.truescore import SourceRuleIndex, TrueScorer, best_derivation_reference
from parastudio.core.engine.model.truescore_paths import best_from_columns
from parastudio.core.engine.tables import binary_table_rows, table_binary
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule
from tests.conftest import WORDS as LM_WORDS

pytestmark = pytest.mark.skipif(not hasattr(table_options_native._beam_core, "rule_columns_toward"),
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
    assert binary_table_rows.mapped_buckets(mapped) is not None
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
        native = table_options_native.BinaryOptions(cache, binary_table_rows.mapped_buckets(mapped),
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
            assert all(r.target in wanted for _, _, bucket in binary_table_rows.span_rules_toward(
                binary_table_rows.mapped_buckets(mapped), sentence, target) or () for r in bucket)


def rule_view(rule: Rule) -> tuple:
    return rule.source, rule.target, rule.prob, rule.log10_prob, dict(rule.features)


# -- the core's own lookups: spans found by BLAKE2b in C++, options registered from bytes, true-score columns ----

keys = st.binary(max_size=300) | st.sampled_from([b"", b"x" * 127, b"x" * 128, b"x" * 129, b"y" * 256, b"z" * 257])


@settings(max_examples=200, deadline=None)
@given(key=keys)
def test_the_cores_hash_is_the_tables(key):
    """A source is stored under table_binary.key_hash (hashlib's BLAKE2b); the core must find it under the same."""
    assert table_options_native._beam_core.source_hash(key) == table_binary.key_hash(key)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=rows, queries=st.lists(phrase, max_size=8), keep_features=st.booleans())
def test_the_core_finds_a_phrases_rules_where_the_table_does(rows, queries, keep_features):
    with tempfile.TemporaryDirectory() as directory:
        text, mapped = tables(Path(directory), rows, keep_features)
        binary = binary_table_rows.mapped_buckets(mapped).binary
        phrases = [*text.sources(), *queries, ("a b",), ("a", "b c")]  # a token with a space joins into another key
        python = [binary.find(table_binary.phrase_key(p)) for p in phrases]
        assert binary_table_rows._find_sources(binary, [table_binary.phrase_key(p) for p in phrases]) == python
        binary_table_rows._RANGES.pop(binary, None)
        found = binary_table_rows.rule_ranges(binary, phrases)
        for query, span in zip(phrases, found):  # exactly the text table's rules of the phrase, in its order
            expected = [rule_view(r) for r in text.rules_for(query) or ()]
            assert ([rule_view(binary.rule(r, query, keep_features)) for r in range(*span)] if span else []) == expected
            assert span is None or span[1] > span[0]
        assert [binary_table_rows.rule_range(binary, p) for p in phrases] == found  # now from the cache


def decoding_view(result, n):
    return [(e.tokens, e.score, tuple((s.src_start, s.src_end, s.tgt_start, s.tgt_end, s.identity, rule_view(s.rule))
                                      for s in e.segments)) for e in result.nbest(n)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(rows=rows_with_slots, sentences=st.lists(st.lists(word, min_size=1, max_size=7), min_size=1, max_size=3),
       with_lm=st.booleans(), stack=st.sampled_from([1, 3, 50]), limit=st.sampled_from([None, 1, 20]))
def test_options_the_core_registers_from_bytes_decode_as_the_python_search(tiny_lm, rows, sentences, with_lm, stack,
                                                                          limit):
    """The compiled search over a mapped table (targets read as bytes into the core's Vocabulary) gives the Python
    search's n-best lists over the text table: the same words, scores and segments."""
    lm = LanguageModel(tiny_lm["binary"]) if with_lm else None
    settings_ = DecoderSettings(stack_size=stack, option_limit=limit)
    with tempfile.TemporaryDirectory() as directory:
        text, mapped = tables(Path(directory), rows, keep_features=False)
        compiled = BeamDecoder(mapped, lm, settings_, core="compiled")
        assert compiled.compiled._binary is not None and not isinstance(compiled.compiled.vocabulary,
                                                                         compiled_search._Vocabulary)
        python = BeamDecoder(text, lm, settings_, core="python")
        for sentence in [*sentences, *sentences[:1]]:  # once more: the phrases registered before are reused
            assert decoding_view(compiled.decode(sentence), 12) == decoding_view(python.decode(sentence), 12)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=rows, sentence=st.lists(word, min_size=1, max_size=7), data=st.data(), keep_features=st.booleans())
def test_the_first_targets_true_score_from_columns_is_the_references(rows, sentence, data, keep_features):
    """best_from_columns over the core's rule columns == best_derivation_reference over the text table's rules
    for the target (the same score bits, the same segments)."""
    with tempfile.TemporaryDirectory() as directory:
        text, mapped = tables(Path(directory), rows, keep_features)
        sentence = tuple(sentence)
        spans = list(text.span_rules(sentence))
        assume(spans)
        made = tuple(w for _, _, bucket in spans for w in data.draw(st.sampled_from(bucket)).target)
        for target in (made, tuple(data.draw(st.lists(word, max_size=6))), sentence):
            reference = SourceRuleIndex(sentence, text.span_rules(sentence)).for_target(target)
            expected = best_derivation_reference(target, reference)
            columns = truescore_paths.rule_columns_toward(binary_table_rows.mapped_buckets(mapped), sentence, target)
            assert columns is not None
            found = best_from_columns(target, columns)
            if expected is None:
                assert found is None
                continue
            assert found[0] == expected[0]
            assert [segment_view(s) for s in found[1]] == [segment_view(s) for s in expected[1]]
            scored = TrueScorer(mapped).score(sentence, target)  # the scorer takes this path for a first target
            assert (scored.rules_log10, [segment_view(s) for s in scored.derivation]) == \
                (expected[0], [segment_view(s) for s in expected[1]])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=rows, data=st.data(), keep_features=st.booleans())
def test_every_targets_true_score_from_the_tables_compiled_index_is_the_references(rows, data, keep_features):
    """The index RuleIndex.from_table reads from the mapped table's arrays (what TrueScorer uses from a source's
    second target on) gives best_derivation_reference's score bits and segments over the text table's rules, for
    targets made by the rules, made up (with a lone surrogate, which no table word holds), and the source."""
    # Twins: the same rule with another second score, an exact tie that only the table's order settles.
    rows = rows + [(s, t, p, 0.6 - q) for s, t, p, q in data.draw(st.lists(st.sampled_from(rows), min_size=1,
                                                                           max_size=4))]
    with tempfile.TemporaryDirectory() as directory:
        text, mapped = tables(Path(directory), rows, keep_features)
        # Rules' sources between made-up words (a lone surrogate among them): most sentences have rules to apply.
        sources = data.draw(st.lists(st.sampled_from([source for source, *_ in rows]), min_size=1, max_size=3))
        filler = st.lists(word | st.just("\udc80"), max_size=2)
        sentence = tuple(w for source in sources for w in (*data.draw(filler), *source)) + tuple(data.draw(filler))
        spans = list(text.span_rules(sentence))
        made = [tuple(w for _, _, bucket in spans for w in data.draw(st.sampled_from(bucket)).target) for _ in range(3)]
        other = [tuple(data.draw(st.lists(word | st.just("\udc80"), max_size=6))) for _ in range(2)]
        scorer = TrueScorer(mapped)
        index = scorer.source_index(sentence)
        reference = SourceRuleIndex(sentence, text.span_rules(sentence))
        for target in (sentence, *made, *other):
            expected = best_derivation_reference(target, reference)
            scored = scorer.score(sentence, target)
            if expected is None:
                assert not scored.reachable
                continue
            assert (scored.rules_log10, [segment_view(s) for s in scored.derivation]) == \
                (expected[0], [segment_view(s) for s in expected[1]])
        assert index._make_rule is not None  # the targets after the first were scored by the table's index


def test_twin_rules_tie_exactly_and_the_tables_first_wins_from_the_second_target_on(tmp_path):
    """Two rules that differ only in a feature the score does not read: the reference keeps the first in the
    table's order, and so does the index read from the table's arrays."""
    text, mapped = tables(tmp_path, [(("a",), ("x",), 0.5, 0.1), (("a",), ("x",), 0.5, 0.5)], True)
    scorer = TrueScorer(mapped)
    for _ in range(2):  # the first target from columns, the second from the table's index
        found = scorer.score(("a", "b"), ("x", "b")).derivation
        assert [dict(segment.rule.features) for segment in found] == [{"c0": 0.5, "c1": 0.1}, {}]


def segment_view(segment) -> tuple:
    return segment.src_start, segment.src_end, segment.tgt_start, segment.tgt_end, segment.identity, \
        rule_view(segment.rule)
