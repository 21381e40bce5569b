"""Sign test, Wilcoxon, Holm and Kendall tau_A against brute-force oracles."""

from __future__ import annotations

import json
from itertools import combinations
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.stats.significance import (
    holm_adjust,
    kendall_tau_a,
    kendall_tau_a_orders,
    pairwise_tests,
    sign_test,
    wilcoxon_signed_rank,
)


def brute_force_sign_p(wins_a: int, n: int) -> float:
    """Two-sided exact p: total probability of outcomes no more likely than the observed one."""
    if n == 0:
        return 1.0
    probability = [comb(n, k) / 2**n for k in range(n + 1)]
    observed = probability[wins_a]
    return min(1.0, sum(p for p in probability if p <= observed * (1 + 1e-7)))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=60))
def test_sign_test_vs_binomial_sum(pairs):
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    result = sign_test(a, b)
    assert result.wins_a == sum(x > y for x, y in pairs)
    assert result.wins_b == sum(y > x for x, y in pairs)
    assert result.ties == sum(x == y for x, y in pairs)
    assert result.n == result.wins_a + result.wins_b
    assert result.p_value == pytest.approx(brute_force_sign_p(result.wins_a, result.n), abs=1e-9)


def test_sign_test_seed001_feedback_example():
    # 23 wins against 0 (no ties) is far below 0.05: p = 2 / 2**23.
    assert sign_test([1] * 23, [0] * 23).p_value == pytest.approx(2 / 2**23, rel=1e-9)


def test_wilcoxon_matches_scipy_and_drops_zeros():
    from scipy.stats import wilcoxon

    a = [3, 2, 3, 1, 2, 3, 3, 2, 1, 3, 2, 2]
    b = [2, 2, 1, 1, 1, 2, 3, 1, 2, 1, 1, 2]
    result = wilcoxon_signed_rank(a, b)
    assert result.n == 8
    assert result.p_value == pytest.approx(wilcoxon(a, b).pvalue, abs=1e-12)
    assert wilcoxon_signed_rank([1, 2], [1, 2]).p_value == 1.0


def test_holm_known_values():
    # R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") == c(0.03, 0.06, 0.06, 0.02)
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=8))
def test_holm_definition(p_values):
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    expected = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        expected[i] = running
    assert holm_adjust(p_values) == pytest.approx(expected)


def test_pairwise_table_covers_every_pair():
    scores = {"s1": {"a": 1, "b": 0, "c": 1}, "s2": {"a": 0, "b": 0, "c": 0}, "s3": {"a": 1, "b": 1}}
    rows = pairwise_tests(scores)
    assert [(r.system_a, r.system_b) for r in rows] == [("s1", "s2"), ("s1", "s3"), ("s2", "s3")]
    assert rows[1].n_items == 2
    assert all(r.p_holm >= r.p_value for r in rows)


def brute_tau_a(x, y):
    n = len(x)
    preserved = inverted = 0
    for i, j in combinations(range(n), 2):
        product = (x[i] - x[j]) * (y[i] - y[j])
        preserved += product > 0
        inverted += product < 0
    return (preserved - inverted) / (n * (n - 1) / 2)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=2, max_size=30))
def test_tau_a_vs_pair_counting(pairs):
    x = [p[0] for p in pairs]
    y = [p[1] for p in pairs]
    assert kendall_tau_a(x, y) == pytest.approx(brute_tau_a(x, y), abs=1e-12)


def test_tau_a_differs_from_tau_b_with_ties():
    from scipy.stats import kendalltau

    x, y = [1, 1, 2, 3], [1, 2, 2, 3]
    assert kendall_tau_a(x, y) == pytest.approx(4 / 6)
    assert kendalltau(x, y).statistic != pytest.approx(4 / 6)


def test_tau_a_orders():
    assert kendall_tau_a_orders(["a", "b", "c"], ["a", "b", "c"]) == 1.0
    assert kendall_tau_a_orders(["a", "b", "c"], ["c", "b", "a"]) == -1.0
    assert kendall_tau_a_orders(["a", "b", "c", "d"], ["b", "a", "c", "d"]) == pytest.approx(4 / 6)


@pytest.mark.parametrize("x, y, message", [
    ([1, 2, 3], [1, 2], "same length"),  # 1-D but of other lengths
    ([[1, 2], [3, 4]], [[1, 2], [3, 4]], "one-dimensional"),  # equal shapes, not 1-D
    ([1], [1], "at least two"),
    ([], [], "at least two"),
])
def test_tau_a_refuses_what_it_is_not_defined_on(x, y, message):
    with pytest.raises(ValueError, match=message):
        kendall_tau_a(x, y)


@pytest.mark.parametrize("order_a, order_b", [
    (["a", "a", "b"], ["a", "a", "b"]),  # the same elements, not distinct
    (["a", "b"], ["a", "c"]),  # distinct, not the same
])
def test_tau_a_orders_needs_the_same_distinct_elements(order_a, order_b):
    with pytest.raises(ValueError, match="the same distinct elements"):
        kendall_tau_a_orders(order_a, order_b)


def test_cli_signtest_contract(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    path.write_text("item,system,score\n1,a,3\n1,b,2\n2,a,1\n2,b,2\n3,a,2\n3,b,2\n4,a,5\n5,b,1\n6,a,4\n6,b,1\n")
    assert main(["signtest", str(path), "--system-a", "a", "--system-b", "b", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {"n": 3, "wins_a": 2, "wins_b": 1, "ties": 1, "p_value": 1.0}
    assert "skipped 2 items" in captured.err


def test_cli_signtest_bad_score(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    path.write_text("item,system,score\n1,a,3\n1,b,high\n")
    assert main(["signtest", str(path), "--system-a", "a", "--system-b", "b", "--json"]) == 2
    assert f"{path}:3: expected a finite number" in capsys.readouterr().err
