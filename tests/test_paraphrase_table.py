from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule

VOCAB = ["a", "b", "c"]
phrase = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=4).map(tuple)


@settings(max_examples=200, deadline=None)
@given(rules=st.lists(st.tuples(phrase, phrase, st.floats(0.01, 1.0)), max_size=12),
       sentence=st.lists(st.sampled_from(VOCAB), max_size=8))
def test_matches_equal_a_scan_of_every_rule_and_span(rules, sentence):
    table = ParaphraseTable(Rule(s, t, p) for s, t, p in rules)
    found = sorted((m.start, m.end, m.rule.source, m.rule.target, m.rule.prob) for m in table.matches(sentence))
    expected = sorted(
        (i, i + len(s), s, t, p)
        for s, t, p in rules
        for i in range(len(sentence) - len(s) + 1)
        if tuple(sentence[i : i + len(s)]) == s
    )
    assert found == expected


def test_stats_and_best_probability_and_reverse():
    table = ParaphraseTable([
        Rule(("a",), ("b",), 0.2), Rule(("a",), ("c", "d"), 0.5), Rule(("b",), ("a",), 0.3),
    ])
    stats = table.stats()
    assert (stats.rules, stats.distinct_sources, stats.longest_phrase) == (3, 2, 2)
    assert stats.mean_rules_per_source == 1.5
    assert table.best_probability(("a",)) == 0.5 and table.best_probability(("z",)) is None
    reverse = table.with_reverse_probabilities()
    assert [(r.source, r.target, r.prob) for r in reverse] == [(("a",), ("b",), 0.3), (("b",), ("a",), 0.2)]
