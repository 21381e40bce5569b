"""The exact true score (seed 000, Algorithm 1) against its worked example and a brute-force oracle."""

import itertools
import json
import math
import subprocess
import sys

import pytest
from conftest import EXAMPLE1_RULES
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.engine.model.derivation import apply_matches
from parastudio.core.engine.model.truescore import (
    SourceRuleIndex,
    TrueScorer,
    best_derivation,
    best_rules_log10,
    best_rules_log10_forward,
    true_score,
)
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule


def table_of(rules):
    return ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in rules)


SOURCE = "the dog runs after the young cat".split()


def test_seed000_example1_p3_is_056_without_lm():
    result = true_score(SOURCE, "the beast runs after the kitten".split(), table_of(EXAMPLE1_RULES))
    assert result.reachable
    # P3 = max(T1*T2, T1*T4*T5) = max(0.8*0.7, 0.8*0.05*0.1)
    assert result.score == pytest.approx(max(0.8 * 0.7, 0.8 * 0.05 * 0.1), abs=1e-12)
    assert result.log10_score == pytest.approx(math.log10(0.56), abs=1e-12)
    applied = [(" ".join(s.rule.source), " ".join(s.rule.target)) for s in result.derivation if not s.identity]
    assert applied == [("the dog", "the beast"), ("the young cat", "the kitten")]


def test_seed000_example1_other_paraphrases():
    table = table_of(EXAMPLE1_RULES)
    assert true_score(SOURCE, "the beast runs after the young cat".split(), table).score == pytest.approx(0.8)
    assert true_score(SOURCE, "the dog runs after it young cat".split(), table).score == pytest.approx(0.4)
    # Only T4 then T5 give "the kitten" from "the young cat" when T2 is absent.
    without_t2 = table_of([r for r in EXAMPLE1_RULES if r[0] != "the young cat"])
    assert true_score(SOURCE, "the beast runs after the kitten".split(), without_t2).score == pytest.approx(
        0.8 * 0.05 * 0.1)


def test_identity_scores_one_and_unreachable_is_reported():
    table = table_of(EXAMPLE1_RULES)
    same = true_score(SOURCE, SOURCE, table)
    assert same.reachable and same.score == 1.0 and all(s.identity for s in same.derivation)
    missing = true_score(SOURCE, "a completely different sentence".split(), table)
    assert not missing.reachable
    assert missing.score is None and missing.log10_score is None and missing.derivation == ()


def test_derivation_tiles_source_and_target():
    result = true_score(SOURCE, "the beast runs after it young kitten".split(), table_of(EXAMPLE1_RULES))
    assert result.reachable
    src = [(s.src_start, s.src_end) for s in result.derivation]
    tgt = [(s.tgt_start, s.tgt_end) for s in result.derivation]
    assert src[0][0] == 0 and src[-1][1] == len(SOURCE)
    assert all(a[1] == b[0] for a, b in zip(src, src[1:]))
    assert all(a[1] == b[0] for a, b in zip(tgt, tgt[1:]))
    assert result.score == pytest.approx(0.8 * 0.4 * 0.1)


def brute_force_true_score(source, target, table):
    """Max product over every set of pairwise-disjoint matches that yields ``target``."""
    matches = table.matches(source)
    best = None
    for size in range(len(matches) + 1):
        for subset in itertools.combinations(matches, size):
            spans = sorted((m.start, m.end) for m in subset)
            if any(a[1] > b[0] for a, b in zip(spans, spans[1:])):
                continue
            produced, _ = apply_matches(source, subset)
            if list(produced) == list(target):
                product = math.prod(m.rule.prob for m in subset)
                best = product if best is None else max(best, product)
    return best


VOCAB = ["a", "b", "c", "d"]
phrases = st.lists(st.sampled_from(VOCAB), min_size=1, max_size=3).map(tuple)
rules = st.lists(
    st.tuples(phrases, phrases, st.floats(min_value=0.01, max_value=1.0)), min_size=0, max_size=7
)


@settings(max_examples=300, deadline=None)
@given(rules=rules, source=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=6), data=st.data())
def test_dynamic_program_equals_brute_force(rules, source, data):
    table = ParaphraseTable(Rule(s, t, p) for s, t, p in rules)
    matches = table.matches(source)
    # Half the time aim at a reachable target by applying a random disjoint subset.
    if matches and data.draw(st.booleans()):
        chosen, end = [], -1
        for match in sorted(matches, key=lambda m: (m.start, m.end)):
            if match.start >= end and data.draw(st.booleans()):
                chosen.append(match)
                end = match.end
        target = list(apply_matches(source, chosen)[0])
    else:
        target = data.draw(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=6))
    expected = brute_force_true_score(source, target, table)
    result = TrueScorer(table).score(source, target)
    if expected is None:
        assert not result.reachable
    else:
        assert result.reachable
        assert result.score == pytest.approx(expected, rel=1e-9)
        assert list(apply_matches(source, [])[0]) == source
        # The returned derivation really produces the target with that score.
        assert [w for s in result.derivation for w in s.rule.target] == target
        assert math.prod(s.rule.prob for s in result.derivation) == pytest.approx(expected, rel=1e-9)


@settings(max_examples=300, deadline=None)
@given(rules=rules, source=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=6), data=st.data())
def test_score_only_variants_equal_best_derivation_and_brute_force(rules, source, data):
    """The backward and forward score-only DPs: same maximum as the exact one, -inf where it finds none."""
    table = ParaphraseTable(Rule(s, t, p) for s, t, p in rules)
    source = tuple(source)
    matches = table.matches(source)
    if matches and data.draw(st.booleans()):
        chosen, end = [], -1
        for match in sorted(matches, key=lambda m: (m.start, m.end)):
            if match.start >= end and data.draw(st.booleans()):
                chosen.append(match)
                end = match.end
        target = apply_matches(source, chosen)[0]
    else:
        target = tuple(data.draw(st.lists(st.sampled_from(VOCAB), min_size=0, max_size=6)))
    index = SourceRuleIndex(source, table.span_rules(source))
    exact = best_derivation(target, index)
    expected = brute_force_true_score(source, target, table)
    backward, forward = best_rules_log10(target, index), best_rules_log10_forward(target, index)
    if expected is None:
        assert exact is None
        assert backward == forward == -math.inf
    else:
        assert backward == exact[0]  # the same recursion in the same order: bit for bit
        assert forward == pytest.approx(exact[0], abs=1e-12)
        assert backward == pytest.approx(math.log10(expected), abs=1e-9)
        assert forward == pytest.approx(math.log10(expected), abs=1e-9)


def test_score_only_variants_on_example1():
    table = table_of(EXAMPLE1_RULES)
    index = SourceRuleIndex(tuple(SOURCE), table.span_rules(SOURCE))
    target = tuple("the beast runs after the kitten".split())
    assert best_rules_log10(target, index) == pytest.approx(math.log10(0.56), abs=1e-12)
    assert best_rules_log10_forward(target, index) == pytest.approx(math.log10(0.56), abs=1e-12)
    assert best_rules_log10(tuple(SOURCE), index) == 0.0 == best_rules_log10_forward(tuple(SOURCE), index)
    assert index.rules_at_most_one()


def test_lm_multiplies_in_and_weights_apply(tiny_lm):
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.model.scoring import ScoreWeights

    lm = LanguageModel(tiny_lm["binary"])
    table = table_of(EXAMPLE1_RULES)
    target = "the beast runs after the kitten".split()
    with_lm = TrueScorer(table, lm).score(SOURCE, target)
    assert with_lm.log10_score == pytest.approx(math.log10(0.56) + lm.score(target), abs=1e-9)
    assert with_lm.score == pytest.approx(0.56 * 10 ** lm.score(target), rel=1e-9)
    weighted = TrueScorer(table, lm, ScoreWeights(phrase=2.0, lm=0.5, word_penalty=1.0)).score(SOURCE, target)
    assert weighted.log10_score == pytest.approx(2 * math.log10(0.56) + 0.5 * lm.score(target) - len(target))


def run_truescore(*args):
    result = subprocess.run([sys.executable, "-m", "parastudio", "truescore", *map(str, args)], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_cli_truescore_json_contract(example1_table_path):
    out = run_truescore("--table", example1_table_path, "--source", " ".join(SOURCE),
                        "--target", "the beast runs after the kitten", "--json")
    assert set(out) >= {"source", "target", "reachable", "score", "log10_score", "derivation"}
    assert out["source"] == " ".join(SOURCE) and out["target"] == "the beast runs after the kitten"
    assert out["reachable"] is True
    assert out["score"] == pytest.approx(0.56)
    assert out["log10_score"] == pytest.approx(math.log10(0.56))
    changed = [d for d in out["derivation"] if d["source"] != d["target"]]
    assert changed == [
        {"src": [0, 2], "tgt": [0, 2], "source": "the dog", "target": "the beast", "p": 0.8, "identity": False},
        {"src": [4, 7], "tgt": [4, 6], "source": "the young cat", "target": "the kitten", "p": 0.7,
         "identity": False},
    ]
    for entry in out["derivation"]:
        assert set(entry) >= {"src", "tgt", "source", "target", "p"}


def test_cli_truescore_unreachable_and_with_lm(example1_table_path, tiny_lm):
    out = run_truescore("--table", example1_table_path, "--source", "the dog", "--target", "a cat", "--json")
    assert out["reachable"] is False and out["score"] is None and out["derivation"] == []
    out = run_truescore("--table", example1_table_path, "--lm", tiny_lm["binary"], "--source", "the dog runs",
                        "--target", "the beast runs", "--json")
    from parastudio.core.engine.lm.language_model import LanguageModel

    expected = 0.8 * 10 ** LanguageModel(tiny_lm["binary"]).score("the beast runs")
    assert out["score"] == pytest.approx(expected, rel=1e-9)


def test_equal_scores_go_to_the_derivation_with_fewer_rewrites():
    """The tie rule of :func:`best_derivation`: ``a b -> x y`` (p = 0.5) and ``a -> x`` (0.5) then ``b -> y`` (1)
    score the same, exactly (log10 1 = 0); the single rewrite wins. The dynamic program meets the two-rule way
    first (shorter target phrases come first), so only the tie rule picks the other."""
    for rules in ([("a b", "x y", 0.5), ("a", "x", 0.5), ("b", "y", 1.0)],
                  [("b", "y", 1.0), ("a", "x", 0.5), ("a b", "x y", 0.5)]):
        for prefix in ((), ("z",)):  # the tie at the start, and behind an identity segment
            result = true_score(prefix + ("a", "b"), prefix + ("x", "y"), table_of(rules))
            assert result.score == 0.5
            rewrites = [(" ".join(s.rule.source), " ".join(s.rule.target)) for s in result.derivation
                        if not s.identity]
            assert rewrites == [("a b", "x y")]
    # Three rewrites against two, one level down: "c -> w" is shared, the tie is in the rest.
    rules = [("a", "x", 0.5), ("b", "y", 1.0), ("a b", "x y", 0.5), ("c", "w", 0.25)]
    result = true_score(("c", "a", "b"), ("w", "x", "y"), table_of(rules))
    assert [s.rule.source for s in result.derivation] == [("c",), ("a", "b")]


def test_fewer_rewrites_never_beat_a_better_score():
    """The tie rule only breaks ties: ``a b -> x y`` (one rewrite, 0.1) met after ``a -> x``, ``b -> y``
    (two rewrites, 0.9 * 0.9) loses."""
    result = true_score(("a", "b"), ("x", "y"), table_of([("a", "x", 0.9), ("b", "y", 0.9), ("a b", "x y", 0.1)]))
    assert result.score == pytest.approx(0.81)
    assert [s.rule.source for s in result.derivation] == [("a",), ("b",)]


@pytest.mark.parametrize("variant", [best_rules_log10, best_rules_log10_forward])
def test_a_cell_reached_twice_keeps_the_better_way(variant):
    """Cell (2, 2) of ``a b`` -> ``z b`` is reached by ``a b -> z b`` (0.5) and, later in a forward sweep, by
    ``a -> z`` (0.1) then the identity ``b``: the score is 0.5 in both directions."""
    table = table_of([("a", "z", 0.1), ("a b", "z b", 0.5)])
    index = SourceRuleIndex(("a", "b"), table.span_rules(("a", "b")))
    assert variant(("z", "b"), index) == pytest.approx(math.log10(0.5))
    assert best_derivation(("z", "b"), index)[0] == pytest.approx(math.log10(0.5))
