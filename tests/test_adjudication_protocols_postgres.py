"""Preference pairs on an adjudicator's own PostgreSQL login (issue 39): the server's ps_disagreement_labels
(revision 0007) names no pair, so every pair of a criterion would read as one item; they are not offered there,
the reason is said, and the researcher's connection still adjudicates them pair by pair."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import select

from core.store import operations as ops
from core.store.adjudication import PAIRS_UNNAMED, not_adjudicated
from core.store.database import open_database
from core.store.models import Criterion

ANSWERS = {"j1": {"binary": "yes", "preference": "left"}, "j2": {"binary": "no", "preference": "right"}}


@pytest.fixture
def study(postgres_url):
    tag = uuid.uuid4().hex[:6]
    names = {"j1": f"j1_{tag}", "j2": f"j2_{tag}", "adj": f"adj_{tag}"}
    db = open_database(postgres_url, create=True)
    study_id = ops.create_study(db, "pairs", criteria=("meaning", "preference"))
    rows = [ops.CandidateRow(sentence_id=str(i), text=f"{system} said {i}", system=system, source=f"source {i}")
            for i in range(3) for system in ("sys-alpha", "sys-beta")]
    ops.import_candidates(db, study_id, rows)
    ops.assign(db, study_id, [names["j1"], names["j2"]])
    urls = {key: ops.invite(db, study_id, "pairs", names[key], role).url
            for key, role in (("j1", "judge"), ("j2", "judge"), ("adj", "adjudicator"))}
    try:
        yield db, study_id, names, urls
    finally:
        for login in names.values():
            ops.revoke(db, study_id, login)
        db.close()


def test_an_adjudicators_login_is_told_why_pairs_are_not_offered_and_the_researcher_decides_them(study):
    db, study_id, names, urls = study
    for judge in ("j1", "j2"):
        with open_database(urls[judge]) as own:
            [membership] = ops.connection_membership(own).values()
            while (item := ops.next_item(own, membership.annotator_id)) is not None:
                ops.record_judgment(own, item.assignment_id, ANSWERS[judge][item.scale])
    with open_database(urls["adj"]) as adjudicator:
        offered = ops.disagreements_for(adjudicator, study_id, names["adj"])
        assert offered and {d.criterion for d in offered} == {"meaning"}
        assert not_adjudicated(adjudicator, study_id) == {"preference": PAIRS_UNNAMED}
        with adjudicator.reading() as session:
            preference = session.scalar(select(Criterion.id).where(Criterion.study_id == study_id,
                                                                   Criterion.name == "preference"))
        pair_key = offered[0].key._replace(candidate_id=None, criterion_id=preference)
        with pytest.raises(ValueError, match="criterion preference is not adjudicated here"):
            ops.record_adjudication(adjudicator, study_id, names["adj"], pair_key, "left")
    ops.set_adjudicators(db, study_id, ["carol"])
    pairs = [d for d in ops.disagreements_for(db, study_id, "carol") if d.scale == "preference"]
    assert len(pairs) == 3 and len({d.key.pair_id for d in pairs}) == 3
    ops.record_adjudication(db, study_id, "carol", pairs[1].key, "tie")
    assert [d.decision for d in ops.disagreements(db, study_id) if d.scale == "preference"] == [None, "tie", None]

