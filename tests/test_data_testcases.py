"""Seed 001 §4.1 test cases from two translations: merged differences, exact spans."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.evaldata.testcases import CaseReport, build_cases, cases_for_verse, merged_differences


def test_worked_example():
    web = "i have found favor in your sight , please don 't go away from your servant ."
    kjv = "i have found favour in thy sight , pass not away , i pray thee , from thy servant :"
    cases = cases_for_verse("Gen.18.3", web, kjv)
    tokens = web.split()
    got = [(" ".join(tokens[case.span[0]:case.span[1]]), case.gold) for case in cases]
    assert got == [("favor", "favour"), ("your", "thy"), ("please don 't go", "pass not"), ("your", "thy")]
    assert [case.id for case in cases] == ["Gen.18.3:0", "Gen.18.3:1", "Gen.18.3:2", "Gen.18.3:3"]
    assert cases[0].as_json() == {"id": "Gen.18.3:0", "sentence": web, "span": [3, 4], "gold": "favour"}


def test_insertions_deletions_and_punctuation_are_counted_not_kept():
    report = CaseReport()
    cases = build_cases([("A.1.1", "a b c d .", "a x b d ;"), ("A.1.2", "same", "same")], report)
    assert [(case.span, case.gold) for case in cases] == []
    assert (report.skipped_insertions, report.skipped_deletions, report.skipped_punctuation) == (1, 1, 1)
    assert report.identical_verses == 1 and report.verses == 2


TOKENS = st.lists(st.sampled_from("a b c d e the lord , .".split()), max_size=14)


@settings(max_examples=300, deadline=None)
@given(TOKENS, TOKENS)
def test_differences_rebuild_the_target_and_are_maximal(source, target):
    differences = merged_differences(source, target)
    # Oracle: replacing every difference in the source gives the target back.
    rebuilt, position = [], 0
    for i1, i2, j1, j2 in differences:
        rebuilt += source[position:i1] + target[j1:j2]
        position = i2
    rebuilt += source[position:]
    assert rebuilt == target
    # Merged: two differences are always separated by at least one equal token on both sides.
    for (_, i2, _, j2), (i1, _, j1, _) in zip(differences, differences[1:]):
        assert i1 > i2 and j1 > j2 and i1 - i2 == j1 - j2
        assert source[i2:i1] == target[j2:j1]
    for i1, i2, j1, j2 in differences:
        assert (i1, j1) != (i2, j2)


@settings(max_examples=200, deadline=None)
@given(TOKENS, TOKENS)
def test_cases_point_at_real_spans(source, target):
    for case in cases_for_verse("X.1.1", " ".join(source), " ".join(target)):
        start, end = case.span
        assert 0 <= start < end <= len(source)
        assert case.gold and case.gold != " ".join(source[start:end])
