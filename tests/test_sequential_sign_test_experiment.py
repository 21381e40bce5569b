"""``parastudio experiment sequential-sign-test``: its pieces against scipy's binomial test and a path-by-path
loop, and the command's reproducibility."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import binomtest

from parastudio.core.cli import main
from parastudio.core.experiments.sequential_sign_test import exact_rejections, fixed_design_n, stopping_times
from parastudio.core.stats.anytime_sign_test import AnytimeSignTest


@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_the_naive_tests_rejections_are_scipys_exact_binomial_test(alpha):
    table = exact_rejections(40, alpha)
    for n in range(1, 41):
        for w in range(n + 1):
            assert table[n, w] == (binomtest(w, n, 0.5).pvalue <= alpha), (n, w)


@pytest.mark.parametrize("win_rate, power", [(0.7, 0.8), (0.8, 0.9)])
def test_the_fixed_design_is_the_smallest_n_with_the_power(win_rate, power):
    def exact_power(n):
        return sum(math.comb(n, w) * win_rate**w * (1 - win_rate) ** (n - w)
                   for w in range(n + 1) if binomtest(w, n, 0.5).pvalue <= 0.05)

    n = fixed_design_n(win_rate, power, 0.05, 200)
    assert exact_power(n) >= power
    assert all(exact_power(m) < power for m in range(1, n))


def test_stopping_times_are_the_first_look_at_which_each_procedure_rejects():
    rng = np.random.default_rng(7)
    outcomes = rng.random((40, 50)) < 0.65
    test = AnytimeSignTest(alpha=0.1)
    times = stopping_times(outcomes, test, exact_rejections(50, 0.1))
    for row, anytime, side, naive in zip(outcomes, times.anytime, times.anytime_side, times.naive):
        wins = np.cumsum(row)
        first_anytime = next((k for k in range(1, 51) if math.lgamma(1 + wins[k - 1]) + math.lgamma(1 + k - wins[k - 1])
                              - math.lgamma(2 + k) + k * math.log(2) >= math.log(10)), 0)
        first_naive = next((k for k in range(1, 51) if binomtest(int(wins[k - 1]), k, 0.5).pvalue <= 0.1), 0)
        assert (anytime, naive) == (first_anytime, first_naive)
        if anytime:
            assert side == np.sign(2 * wins[anytime - 1] - anytime)
    assert times.anytime.any() and times.naive.any()


def run_experiment(folder, *extra):
    return main(["experiment", "sequential-sign-test", "--studies", "300", "--max-n", "80", "--alternative-max-n",
                 "600", "--seed", "3", "--out", str(folder), *extra])


def test_the_command_writes_the_same_results_for_the_same_seed(tmp_path):
    assert run_experiment(tmp_path / "one") == 0
    assert run_experiment(tmp_path / "two") == 0
    for name in ("sequential-sign-test.md", "sequential-sign-test.jsonl"):
        one = (tmp_path / "one" / name).read_text().replace(str(tmp_path / "one"), "OUT")
        assert one == (tmp_path / "two" / name).read_text().replace(str(tmp_path / "two"), "OUT")
    rows = [json.loads(line) for line in (tmp_path / "one" / "sequential-sign-test.jsonl").read_text().splitlines()]
    assert [row["setting"] for row in rows] == ["H0", "win rate 0.6", "win rate 0.7", "win rate 0.8"]
    null = rows[0]
    assert null["naive_false_positive_rate"] > null["anytime_false_positive_rate"]
    for row in rows[1:]:
        assert row["sequential_power"] >= 0.8 and row["fixed_n"] == fixed_design_n(row["win_rate"], 0.8, 0.05, 600)
    text = (tmp_path / "one" / "sequential-sign-test.md").read_text()
    assert "parastudio experiment sequential-sign-test" in text and "--seed 3" in text
    assert run_experiment(tmp_path / "three", "--seed", "4") == 0
    assert (tmp_path / "three" / "sequential-sign-test.jsonl").read_bytes() != \
        (tmp_path / "one" / "sequential-sign-test.jsonl").read_bytes()


def test_bad_win_rates_are_refused_in_one_line(tmp_path, capsys):
    assert run_experiment(tmp_path, "--win-rates", "0.6,1.2") == 2
    assert "--win-rates: expected comma-separated win rates above 0.5 and below 1" in capsys.readouterr().err
