"""Seed 002 §3.4's λ1..λ4 and T: exact line searches over convex decision functions, Eq. 3 per pivot from a
phrase table, re-scored tables, and `tune --system pivot` end to end."""

from __future__ import annotations

import gzip
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.tablebuild.pivot import pivot_table
from parastudio.core.tablebuild.pivot_loglinear import loglinear_pivot_table, pivot_features
from parastudio.core.tuning.line_search import choose_gamma, sweep
from parastudio.core.tuning.pivot_tuning import PairSet, PhraseTableSource, PivotTableSource, pair_objective, tune_pivot

feature = st.floats(min_value=-4, max_value=0, allow_nan=False).map(lambda x: round(x, 2))


@st.composite
def pair_sets(draw):
    count = draw(st.integers(1, 6))
    vectors = [draw(st.lists(st.lists(feature, min_size=4, max_size=4), min_size=1, max_size=3))
               for _ in range(count)]
    labels = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    return PairSet([(f"e{i}", "x") for i in range(count)], vectors, labels)


vector5 = st.lists(st.floats(min_value=-2, max_value=2, allow_nan=False).map(lambda x: round(x, 3)),
                   min_size=5, max_size=5).map(np.array)


@given(pair_sets(), vector5, vector5, st.floats(min_value=-20, max_value=20, allow_nan=False))
@settings(max_examples=300, deadline=None)
def test_each_pairs_pieces_match_direct_evaluation(pairs, theta, direction, gamma):
    assume(np.any(direction != 0))
    pieces = pairs.pieces(theta, direction)
    assume(all(not np.any(np.abs(p.breaks - gamma) < 1e-6) for p in pieces))
    swept = sum(p.stats[np.searchsorted(p.breaks, gamma)] for p in pieces)
    assert np.array_equal(swept, pairs.totals(theta + gamma * direction))
    assert all(len(p.breaks) <= 2 for p in pieces)  # g_j is convex: at most two sign changes


@given(pair_sets(), vector5, vector5, st.sampled_from(["f1", "accuracy"]))
@settings(max_examples=150, deadline=None)
def test_the_pivot_line_search_is_exact(pairs, theta, direction, name):
    assume(np.any(direction != 0))
    objective = pair_objective(name)
    gamma, value = choose_gamma(*sweep(pairs.pieces(theta, direction), objective))
    assert objective(pairs.totals(theta + gamma * direction)[None, :])[0] == pytest.approx(value, abs=1e-12)
    grid = np.linspace(-40, 40, 4001) + 1.234567e-4
    assert objective(_totals_along(pairs, theta, direction, grid)).max() <= value + 1e-12


def _totals_along(pairs: PairSet, theta, direction, gammas) -> np.ndarray:
    """Direct statistics at ``theta + γ direction`` for every γ at once (a grid)."""
    thetas = theta[None, :] + np.asarray(gammas)[:, None] * direction[None, :]
    z = np.where(pairs.mask[None], np.einsum("pcf,gf->gpc", pairs.h, thetas[:, :4]), -np.inf)
    # log-sum-exp by pairwise logaddexp (log1p inside): log(sum exp) of a sum 1 + 1e-17 rounds to 0 and would
    # flip a decision the exact line search rightly keeps (found by hypothesis at gamma ~ 37).
    scores = np.logaddexp.reduce(z, axis=2)
    extracted = (scores > thetas[:, 4:5]).astype(int)
    return pairs.outcomes[np.arange(len(pairs))[None, :], extracted].sum(axis=1)


def test_an_unknown_objective_is_refused():
    with pytest.raises(ValueError, match="f1 .* or accuracy"):
        pair_objective("rf")


# A tiny E-F phrase table (Moses columns p(E|F) lex(E|F) p(F|E) lex(F|E)).
PHRASES = [
    ("big", "grand", 0.5, 0.4, 0.6, 0.5), ("large", "grand", 0.4, 0.3, 0.7, 0.6), ("tall", "grand", 0.1, 0.1, 0.2, 0.2),
    ("big", "gros", 0.7, 0.6, 0.3, 0.4), ("large", "gros", 0.3, 0.2, 0.2, 0.3), ("big house", "grande maison", 1.0, 0.5, 1.0, 0.4),
    ("tall", "haut", 0.9, 0.8, 0.8, 0.7), ("high", "haut", 0.1, 0.1, 0.5, 0.4), ("large house", "grande maison", 0.2, 0.2, 0.1, 0.1),
]


@pytest.fixture
def phrase_table(tmp_path):
    path = tmp_path / "e-f.phrase-table.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        for e, f, *scores in PHRASES:
            handle.write(f"{e} ||| {f} ||| {' '.join(map(str, scores))}\n")
    return path


def _by_hand(e1: str, e2: str) -> list[list[float]]:
    rows = {(e, f): s for e, f, *s in PHRASES}
    out = []
    for (e, f), (_p_e_f, _lex_e_f, p_f_e, lex_f_e) in sorted(rows.items(), key=lambda kv: kv[0][1]):
        if e != e1 or (e2, f) not in rows:
            continue
        b = rows[(e2, f)]
        out.append([math.log(p_f_e), math.log(b[0]), math.log(lex_f_e ** (1 / len(f.split()))),
                    math.log(b[1] ** (1 / len(e2.split())))])
    return out


def test_per_pivot_features_and_eq3_scores_from_the_phrase_table(phrase_table, tmp_path):
    found = pivot_features(phrase_table, {("big", "large"), ("tall", "high"), ("big", "high")}, work_parent=tmp_path)
    assert set(found) == {("big", "large"), ("tall", "high")}  # big/high share no pivot
    for key, vectors in found.items():
        assert np.allclose(vectors, _by_hand(*key))
    # λ = (1, 1, 0, 0) is Bannard and Callison-Burch's p(e2|e1): the pivot table's probabilities.
    plain = tmp_path / "plain.txt"
    pivot_table(phrase_table, plain, min_prob=0.0, top=100)
    expected = {tuple(l.split(" ||| ")[:2]): float(l.split(" ||| ")[2].split()[0]) for l in plain.read_text().splitlines()}
    out = tmp_path / "eq3.gz"
    assert loglinear_pivot_table(phrase_table, out, [1, 1, 0, 0], -50.0) == len(expected)
    with gzip.open(out, "rt") as handle:
        got = {tuple(l.split(" ||| ")[:2]): [float(x) for x in l.split(" ||| ")[2].split()] for l in handle}
    assert {k: v[0] for k, v in got.items()} == pytest.approx(expected)
    # Any λ: the sum over pivots of exp(λ·h); T keeps only pairs above it.
    lambdas = [0.5, 1.5, -0.3, 2.0]
    threshold = math.log(0.05)
    out = tmp_path / "tuned.gz"
    loglinear_pivot_table(phrase_table, out, lambdas, threshold)
    with gzip.open(out, "rt") as handle:
        tuned = {tuple(l.split(" ||| ")[:2]): float(l.split(" ||| ")[2].split()[0]) for l in handle}
    all_pairs = pivot_features(phrase_table, set(expected), work_parent=tmp_path)
    for key, vectors in all_pairs.items():
        score = sum(math.exp(np.dot(lambdas, h)) for h in vectors)
        assert (key in tuned) == (math.log(score) > threshold)
        if key in tuned:
            assert tuned[key] == pytest.approx(score)


def _records(pairs_with_labels):
    return [{"id": str(i), "source": e1, "candidate": e2, "derivation": [], "judgments": [],
             "replacements": [{"source": e1, "target": e2, "label": "correct" if good else "incorrect",
                               "src": [0, len(e1.split())], "tgt": [0, len(e2.split())]}]}
            for i, (e1, e2, good) in enumerate(pairs_with_labels)]


def test_tune_pivot_on_a_pivot_table_and_on_the_phrase_table(phrase_table, tmp_path):
    table = tmp_path / "para.gz"
    pivot_table(phrase_table, table, min_prob=0.0, top=100)
    lines = gzip.open(table, "rt").read().splitlines()
    pairs = [tuple(l.split(" ||| ")[:2]) for l in lines]
    # Label correct the pairs whose reverse pivot feature h2 is high: a rule the default score does not follow.
    h2 = {tuple(l.split(" ||| ")[:2]): float(l.split(" ||| ")[2].split()[2]) for l in lines}
    median = sorted(h2.values())[len(h2) // 2]
    records = _records([(e1, e2, h2[(e1, e2)] >= median) for e1, e2 in pairs])
    for source in (PivotTableSource(str(table)), PhraseTableSource(str(phrase_table))):
        out = tmp_path / f"{source.describe()['kind']}.rescored.gz"
        report = tune_pivot(records, source, objective="f1", heldout=0.0, restarts=3, table_out=str(out))
        assert report["after"]["dev"]["f1"] >= report["before"]["dev"]["f1"]
        lam, threshold = report["weights"]["pivot"]["lambda"], report["weights"]["pivot"]["T"]
        kept = gzip.open(out, "rt").read().splitlines()
        assert report["table_out"]["pairs"] == len(kept) == report["after"]["dev"]["extracted"]
        for line in kept:
            scores = [float(x) for x in line.split(" ||| ")[2].split()]
            assert math.log(scores[0]) > threshold
            if isinstance(source, PivotTableSource):
                assert math.log(scores[0]) == pytest.approx(np.dot(lam, scores[1:5]))
        if isinstance(source, PivotTableSource):
            assert report["after"]["dev"]["f1"] == 1.0  # h2 is one of its features: the labels are separable
    assert report["signature"].startswith("parastudio-tune:") and "features:phrase-table" in report["signature"]


def test_a_table_without_features_is_named_with_its_line(tmp_path):
    bad = tmp_path / "nofeatures.txt"
    bad.write_text("a ||| b ||| 0.5\n", encoding="utf-8")
    from parastudio.core.errors import InputFormatError

    with pytest.raises(InputFormatError, match=r"nofeatures.txt:1: expected a pivot-table line"):
        PivotTableSource(str(bad)).features({("a", "b")})
