"""Adjudication on every protocol (issue 39): preference pairs are items of their own, direct assessment and error
spans are never adjudicated (said in one line), and an adjudicated candidate reads "adjudicated" in Inspect and
`parastudio inspect`, with the decision and its adjudicator, counted as decided wherever verdicts are counted."""

from __future__ import annotations

import json

import pytest
from adjudication_fixtures import disagreeing_study
from hypothesis import assume, given
from hypothesis import strategies as st
from sqlalchemy import select

from parastudio.core.cli import main
from parastudio.core.inspection.candidate_rows import candidate_rows, filter_rows
from parastudio.core.inspection.details import candidate_details
from parastudio.core.inspection.rule_blame import rule_blame
from parastudio.core.stats.label_aggregation import aggregate_labels
from parastudio.core.stats.verdicts import ACCEPTED, ADJUDICATED, DISAGREED, REJECTED, settled_verdict
from parastudio.core.store import operations as ops
from parastudio.core.store.adjudication import not_adjudicated
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Assignment, Candidate, Criterion, PreferencePair


def test_each_preference_pair_is_its_own_disagreement_and_each_decision_lands_on_its_pair(tmp_path):
    """Adjudication on a preference study failed with "KeyError: None": every pair read as one choice task."""
    path = tmp_path / "prefs.sqlite"
    study = disagreeing_study(path, ["preference"])
    with open_database(path) as db:
        found = ops.disagreements_for(db, study, "carol")
        with db.reading() as session:
            texts = dict(session.execute(select(Candidate.id, Candidate.text)).all())
            pairs = {p.id: (texts[p.left_candidate_id], texts[p.right_candidate_id]) for p in session.scalars(
                select(PreferencePair).where(PreferencePair.identical.is_(False)))}
        assert sorted(d.key.pair_id for d in found) == sorted(pairs) and len(found) > 1
        for entry in found:
            assert entry.item == f"pair-{entry.key.pair_id}" and entry.labels == {"ann": "left", "bob": "right"}
            assert (entry.candidate, entry.right) == pairs[entry.key.pair_id]  # left and right, as judged
        first, second = found[0], found[1]
        ops.record_adjudication(db, study, "carol", first.key, "left")
        ops.record_adjudication(db, study, "carol", second.key, "tie")
        decided = {d.key.pair_id: (d.decision, d.adjudicator) for d in ops.disagreements(db, study)}
        with db.reading() as session:
            stored = dict(session.execute(select(Assignment.pair_id, Assignment.kind)
                                          .where(Assignment.kind == "adjudication")).all())
    assert decided[first.key.pair_id] == ("left", "carol") and decided[second.key.pair_id] == ("tie", "carol")
    assert sum(1 for d in decided.values() if d[0] is not None) == 2
    assert stored == {first.key.pair_id: "adjudication", second.key.pair_id: "adjudication"}


@pytest.mark.parametrize("criterion", ["da", "esa"])
def test_scores_are_never_offered_for_adjudication_and_a_decision_on_one_is_refused_with_its_reason(tmp_path,
                                                                                                  criterion):
    path = tmp_path / f"{criterion}.sqlite"
    study = disagreeing_study(path, ["meaning", criterion])
    with open_database(path) as db:
        offered = ops.disagreements_for(db, study, "carol")
        assert offered and {d.criterion for d in offered} == {"meaning"}
        reasons = not_adjudicated(db, study)
        assert list(reasons) == [criterion] and "\n" not in reasons[criterion]
        meaning = offered[0].key
        with db.reading() as session:
            score_id = session.scalar(select(Criterion.id).where(Criterion.name == criterion))
        with pytest.raises(ValueError, match=f"criterion {criterion} is not adjudicated: .*score"):
            ops.record_adjudication(db, study, "carol", meaning._replace(criterion_id=score_id), "50")


def test_the_command_line_says_which_criteria_are_never_adjudicated_and_refuses_a_study_of_scores_only(
        tmp_path, capsys):
    mixed, scores = tmp_path / "mixed.sqlite", tmp_path / "scores.sqlite"
    disagreeing_study(mixed, ["meaning", "da"], adjudicator=None)
    disagreeing_study(scores, ["da", "esa"], adjudicator=None)
    assert main(["study", "adjudicators", "--db", str(mixed), "--set", "carol"]) == 0
    out, err = capsys.readouterr()
    assert out.strip() == "carol"
    assert err.splitlines() == [err.strip()] and err.startswith("parastudio: note: criterion da is not adjudicated: ")
    assert main(["study", "adjudicators", "--db", str(scores), "--set", "carol"]) == 2
    out, err = capsys.readouterr()
    assert not out and len(err.splitlines()) == 1 and "nothing to adjudicate" in err and "Traceback" not in err
    assert "criterion da is not adjudicated" in err and "criterion esa is not adjudicated" in err
    assert main(["study", "adjudicators", "--db", str(scores)]) == 0
    assert capsys.readouterr().out.strip() == "(no adjudicator)"  # the refused names were not kept


def test_a_choice_disagreement_is_decided_by_an_option_or_the_original(tmp_path):
    path = tmp_path / "choice.sqlite"
    study = disagreeing_study(path, ["choice"])
    with open_database(path) as db:
        first, second = ops.disagreements_for(db, study, "carol")
        assert first.options == ("was the first state", "became the first country", "was first")
        assert first.span == (1, 4) and first.labels == {"ann": "option:1", "bob": "original"}
        ops.record_adjudication(db, study, "carol", first.key, "option:2")
        ops.record_adjudication(db, study, "carol", second.key, "original")
        decided = {d.item: d.decision for d in ops.disagreements(db, study)}
        texts = {row["item"]: row["text"] for row in ops.iter_judgments(db, study, adjudications=True)}
    assert decided == {first.item: "option:2", second.item: "original"}
    assert texts[first.item] == "became the first country"  # the option decided, as a judge's pick stores it


@pytest.fixture
def adjudicated(tmp_path):
    """A meaning study: ann yes, bob no on every candidate; carol rejects candidate 1 and accepts candidate 2."""
    path = tmp_path / "meaning.sqlite"
    study = disagreeing_study(path, ["meaning"])
    with open_database(path) as db:
        entries = {d.item: d for d in ops.disagreements_for(db, study, "carol")}
        ops.record_adjudication(db, study, "carol", entries["1"].key, "no")
        ops.record_adjudication(db, study, "carol", entries["2"].key, "yes")
    return path, study


def test_an_adjudicated_candidate_reads_adjudicated_with_the_decision_and_its_adjudicator(adjudicated):
    path, study = adjudicated
    with open_database(path) as db:
        rows = {row.item: row for row in candidate_rows(db, study)}
        details = candidate_details(db, 1)
    assert (rows["1"].shown_verdict, rows["1"].verdict) == (ADJUDICATED, REJECTED)
    assert (rows["2"].shown_verdict, rows["2"].verdict) == (ADJUDICATED, ACCEPTED)
    assert rows["1"].adjudication_text == "meaning=no by carol"
    assert rows["3"].shown_verdict == rows["3"].verdict == DISAGREED and not rows["3"].adjudications
    assert [(d.annotator, d.criterion, d.value) for d in details.adjudications] == [("carol", "meaning", "no")]
    assert {j.annotator for j in details.judges} == {"ann", "bob"}  # the decision is not a judge's label


def test_parastudio_inspect_shows_the_decision_in_every_format(adjudicated, capsys):
    path, _ = adjudicated
    assert main(["inspect", str(path)]) == 0
    table = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert table["1"].split()[1] == ADJUDICATED and "meaning=no by carol -> rejected" in table["1"]
    assert table["3"].split()[1] == DISAGREED
    assert main(["inspect", str(path), "--format", "jsonl"]) == 0
    records = {r["item"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert (records["1"]["verdict"], records["1"]["outcome"], records["1"]["criteria"]) == \
        (ADJUDICATED, REJECTED, {"meaning": ADJUDICATED})
    assert records["1"]["adjudications"] == {"meaning": {"decision": "no", "adjudicator": "carol", "verdict": REJECTED}}
    assert main(["inspect", str(path), "--format", "csv", "--verdict", "rejected"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header, rows = lines[0].split(","), [line.split(",") for line in lines[1:]]
    assert [dict(zip(header, row))["item"] for row in rows] == ["1"]
    assert dict(zip(header, rows[0]))["adjudication"] == "meaning=no by carol"


def test_rule_blame_and_the_filters_count_an_adjudicated_candidate_as_its_decision(adjudicated):
    """Before: the decisions were read nowhere; the candidates stayed "disagreed" and out of rule blame."""
    path, study = adjudicated
    with open_database(path) as db:
        rows = candidate_rows(db, study)
        blamed = rule_blame(db, study)
    assert [row.item for row in filter_rows(rows, verdict=REJECTED)] == ["1"]
    assert [row.item for row in filter_rows(rows, verdict=ACCEPTED)] == ["2"]
    assert [row.item for row in filter_rows(rows, verdict=ADJUDICATED)] == ["1", "2"]
    assert [row.item for row in filter_rows(rows, criterion="meaning", verdict=ADJUDICATED)] == ["1", "2"]
    assert "2" not in [row.item for row in filter_rows(rows, verdict=DISAGREED)]
    assert blamed and {(b.rejected, b.accepted) for b in blamed} <= {(1, 0), (1, 1)}
    assert sum(b.rejected for b in blamed) == len(blamed)  # every rule blamed comes from candidate 1 alone


def test_judges_who_come_to_agree_leave_the_decision_standing_aside(adjudicated):
    """A decision never overrides judges who agree (the dev set's rule): once bob corrects his label, the row
    reads the judges' verdict again."""
    path, study = adjudicated
    with open_database(path) as db:
        bob = ops.find_annotator(db, study, "bob")
        with db.reading() as session:
            assignment = session.scalar(select(Assignment.id).where(Assignment.annotator_id == bob,
                                                                    Assignment.candidate_id == 1))
        ops.record_judgment(db, assignment, "yes")
        row = next(row for row in candidate_rows(db, study) if row.item == "1")
    assert (row.shown_verdict, row.verdict, row.adjudications) == (ACCEPTED, ACCEPTED, {})


@given(st.lists(st.sampled_from(["yes", "no"]), min_size=1, max_size=5), st.sampled_from(["yes", "no"]))
def test_a_decision_settles_a_criterion_exactly_as_the_dev_sets_adjudicated_rule_does(labels, decision):
    """Oracle: core.stats.label_aggregation's "adjudicated" rule, which the dev-set export applies."""
    assume(len(set(labels)) > 1)
    aggregated = aggregate_labels(dict(enumerate(labels)), "adjudicated", adjudication=decision, min_judges=1)
    assert aggregated.status == "adjudicated"
    assert settled_verdict(labels, decision) == (ACCEPTED if aggregated.label == "yes" else REJECTED)


@given(st.sampled_from(["yes", "no"]), st.integers(1, 5), st.sampled_from(["yes", "no"]))
def test_judges_who_agree_are_never_settled_by_a_decision(label, judges, decision):
    assert aggregate_labels(dict(enumerate([label] * judges)), "adjudicated", adjudication=decision,
                            min_judges=1).status == "agree"
    assert settled_verdict([label] * judges, decision) is None
