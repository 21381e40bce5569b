"""The seed 001 report sets its pairwise sign tests beside the paper's finding (§4.1.2: all pairs differ but
2–3 and 4–6), in words computed from the tests, so a regenerated report stays true."""

from __future__ import annotations

from parastudio.core.experiments.seed001_report import compare_with_paper
from parastudio.core.stats.significance import pairwise_tests


def cases(successes: list[int], n: int = 40) -> dict[str, float]:
    return {f"case{i}": float(i in successes) for i in range(n)}


def test_only_approach_1_apart_is_said_with_the_lowest_p_among_the_rest():
    # Approach 1 succeeds nowhere; 2-4 succeed on the same 20 cases but for one or two.
    scores = {"approach-1": cases([]), "approach-2": cases(list(range(20))),
              "approach-3": cases(list(range(19)) + [30]), "approach-4": cases(list(range(1, 21)))}
    comparisons = pairwise_tests(scores, "sign")
    low = min(c.p_value for c in comparisons if "approach-1" not in (c.system_a, c.system_b))
    text = compare_with_paper(comparisons)
    assert "except 2–3 and 4–6" in text
    assert "only the pairs with approach 1 differ; approaches 2, 3, 4 are indistinguishable" in text
    assert f"(p ≥ {low:.2g})" in text and low >= 0.05


def test_other_patterns_list_the_pairs_not_different():
    scores = {"approach-1": cases([]), "approach-2": cases(list(range(20))), "approach-3": cases(list(range(20)))}
    text = compare_with_paper(pairwise_tests(scores, "sign"))
    assert "only the pairs with approach 1 differ; approaches 2, 3 are" in text
    scores = {"approach-1": cases([]), "approach-2": cases([]), "approach-3": cases(list(range(20)))}
    text = compare_with_paper(pairwise_tests(scores, "sign"))
    assert text.endswith("only the pairs with approach 3 differ; approaches 1, 2 are indistinguishable from one "
                         "another (p ≥ 1).")
    scores = {"approach-1": cases([]), "approach-2": cases([]), "approach-3": cases(list(range(20))),
              "approach-4": cases(list(range(20)))}
    text = compare_with_paper(pairwise_tests(scores, "sign"))
    assert text.endswith("Here 4 of 6 pairs differ; not different: 1–2, 3–4.")
    flat = {"approach-1": cases([1]), "approach-2": cases([2])}
    assert compare_with_paper(pairwise_tests(flat, "sign")).endswith("Here no pair differs (p ≥ 0.05 for all).")
