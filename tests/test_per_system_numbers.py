"""Per-system numbers a paper can print (issue 11): shared candidates count for every system that made them,
systems are paired on the source sentence, fixed-chance kappa takes q from the scale."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.stats.judgment_records import JudgmentRecords
from parastudio.core.stats.report_tables import build_report
from parastudio.core.stats.significance import sign_test
from parastudio.core.stats.system_scores import aggregate_labels, sentence_scores
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.study_judgments import study_judgment_records


def table(report, key):
    return next(t for t in report.tables if t.key == key)


def judged_study(tmp_path, candidates, label, criteria=("fluency", "meaning")):
    """A real study: ``candidates`` (sentence, system, text) imported, two judges, ``label(judge, item view)``."""
    db = open_database(tmp_path / "study.sqlite", create=True)
    study = ops.create_study(db, "s", criteria=list(criteria), application="simplification")
    rows = [ops.CandidateRow(sentence_id=str(s), text=text, system=system, line=n)
            for n, (s, system, text) in enumerate(candidates, 1)]
    sources = {str(s): f"source {s}" for s, _, _ in candidates}
    ops.import_candidates(db, study, rows, sources=sources)
    ops.assign(db, study, ["j1", "j2"])
    for judge in ("j1", "j2"):
        annotator = ops.find_annotator(db, study, judge)
        while (item := ops.next_item(db, annotator)) is not None:
            ops.record_judgment(db, item.assignment_id, label(judge, item))
    return db, study


def test_a_candidate_two_systems_made_counts_for_both_in_every_per_system_table(tmp_path):
    # The run: 9 of mcpg-true's 10 outputs were also beam's.
    candidates = [(s, "beam", f"shared {s}") for s in range(10)]
    candidates += [(s, "mcpg-true", f"shared {s}") for s in range(9)] + [(9, "mcpg-true", "own 9")]
    db, study = judged_study(tmp_path, candidates, lambda judge, item: "yes" if "shared" in item.candidate else "no")
    try:
        records = study_judgment_records(db, study)
    finally:
        db.close()
    report = build_report(records)
    seed003 = table(report, "seed003_table1")
    items = {row[0].split(" / ")[-1]: row[-1] for row in seed003.rows}
    assert items == {"beam": 10, "mcpg-true": 10}
    both_yes = {row[0].split(" / ")[-1]: row[1] for row in seed003.rows}
    assert both_yes["beam"] == pytest.approx(1.0) and both_yes["mcpg-true"] == pytest.approx(0.9)
    # The judgments are stored once: agreement still sees 11 items, not 19.
    pairs = table(report, "pairs:fluency")
    assert pairs.rows[0][2] == 11


def test_sign_tests_pair_systems_on_the_source_sentence(tmp_path):
    # Six sentences; "a" is accepted by both judges on 5 of them, "b" on 1; sentence 5 both accepted.
    accepted = {("a", s) for s in range(5)} | {("b", 5), ("a", 5)}
    candidates = [(s, system, f"{system} says {s}") for s in range(6) for system in ("a", "b")]

    def label(judge, item):
        system, _, sentence = item.candidate.split()
        return "yes" if (system, int(sentence)) in accepted else "no"

    db, study = judged_study(tmp_path, candidates, label, criteria=("meaning",))
    try:
        report = build_report(study_judgment_records(db, study))
    finally:
        db.close()
    tests = table(report, "sign_tests:meaning")
    assert tests.rows[0][:6] == ["a", "b", 6, 5, 0, 1]
    assert tests.rows[0][6] == pytest.approx(sign_test([1] * 5 + [1], [0] * 5 + [1]).p_value)
    assert "unit:source-sentence" in tests.signature


def test_fixed_chance_kappa_takes_q_from_the_scale_not_the_labels_seen(tmp_path):
    # A 3-point usability scale answered only with 2 and 3: P(E) = 1/3 (seed 004), not 1/2.
    answers = {("j1", 0): "3", ("j2", 0): "3", ("j1", 1): "2", ("j2", 1): "3", ("j1", 2): "2", ("j2", 2): "2"}
    candidates = [(s, "spg", f"candidate {s}") for s in range(3)]
    db, study = judged_study(tmp_path, candidates, lambda judge, item: answers[(judge, int(item.candidate.split()[1]))],
                             criteria=("usability",))
    try:
        report = build_report(study_judgment_records(db, study))
    finally:
        db.close()
    seed004 = table(report, "seed004_table1")
    names = [column.name for column in seed004.columns]
    assert "usability: κ (P(E)=1/3)" in names and "usability: 1" in names
    row = seed004.rows[0]
    assert row[names.index("usability: 1")] == 0.0
    assert row[names.index("usability: κ (P(E)=1/3)")] == pytest.approx((2 / 3 - 1 / 3) / (2 / 3))


def test_choice_answers_count_as_successes_per_approach():
    # Seed 001 Fig. 4.5: four annotators, a case succeeds when two picked an offered option.
    rows = []
    picks = {"approach-1": [0, 1, 2, 0], "approach-10": [3, 4, 2, 4]}
    for approach, per_case in picks.items():
        for case, count in enumerate(per_case):
            for a, annotator in enumerate("ABCD"):
                value = f"option:{a + 1}" if a < count else ("original" if a % 2 else "custom")
                rows.append((f"{approach}-{case}", annotator, "choice", value, approach, f"case{case}"))
    items, annotators, criteria, values, systems, sentences = zip(*rows)
    records = JudgmentRecords.from_columns(items, annotators, criteria, values, systems, sentences=sentences)
    report = build_report(records)
    fig = {row[0]: row for row in table(report, "seed001_fig4_5:choice").rows}
    assert fig["approach-1"][1:5] == [2, 1, 0, 0] and fig["approach-1"][5] == 1
    assert fig["approach-10"][5] == 4
    tests = table(report, "seed001_sign_tests:choice")
    assert tests.rows[0][:6] == ["approach-1", "approach-10", 4, 0, 3, 1]
    assert not any(t.key == "seed004_table1" for t in report.tables)  # not read as a 4-label scale


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["yes", "no"]), min_size=1, max_size=6), st.integers(1, 4))
def test_aggregates_follow_their_definitions(labels, k):
    yes = labels.count("yes")
    assert aggregate_labels(labels, "mean") == pytest.approx(yes / len(labels))
    assert aggregate_labels(labels, "unified", unified_min=k) == float(yes >= k)
    no = len(labels) - yes
    assert aggregate_labels(labels, "majority") == (1.0 if yes > no else 0.0 if no > yes else 0.5)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["a", "b", "c"]), st.integers(0, 2),
                          st.lists(st.sampled_from(["1", "2", "3"]), min_size=2, max_size=2)),
                min_size=1, max_size=12, unique_by=lambda row: (row[1], row[2], row[0])))
def test_sentence_scores_average_each_systems_candidates_of_a_sentence(candidates):
    # An independent computation: for each (system, sentence), the mean over its candidates of their mean label.
    rows = []
    for sentence, system, rank, labels in candidates:
        for judge, label in zip(("j1", "j2"), labels):
            rows.append((f"{system}-{sentence}-{rank}", judge, "q", label, system, str(sentence)))
    items, judges, criteria, values, systems, sentences = zip(*rows)
    records = JudgmentRecords.from_columns(items, judges, criteria, values, systems, sentences=sentences)
    got = sentence_scores(records, "q", "mean").scores
    expected: dict = {}
    for (system, sentence), group in itertools.groupby(sorted(candidates, key=lambda r: (r[1], r[0])),
                                                       key=lambda r: (r[1], r[0])):
        means = [sum(map(float, labels)) / 2 for _, _, _, labels in group]
        expected.setdefault(system, {})[str(sentence)] = sum(means) / len(means)
    assert got.keys() == expected.keys()
    for system in expected:
        assert got[system] == pytest.approx(expected[system])
