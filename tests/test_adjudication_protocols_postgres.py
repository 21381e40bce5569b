"""Preference pairs on an adjudicator's own PostgreSQL login (issue 39): the server's ps_disagreement_labels
names the pair (revision 0008; 0007 grouped every pair of a criterion as one item), so the adjudicator's own login
is offered each pair and decides it, as the researcher's connection does."""

from __future__ import annotations

import uuid

import pytest

from parastudio.core.store import operations as ops
from parastudio.core.store.adjudication import not_adjudicated
from parastudio.core.store.database import open_database

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


def test_an_adjudicators_own_login_is_offered_each_pair_and_decides_it(study):
    db, study_id, names, urls = study
    for judge in ("j1", "j2"):
        with open_database(urls[judge]) as own:
            [membership] = ops.connection_membership(own).values()
            while (item := ops.next_item(own, membership.annotator_id)) is not None:
                ops.record_judgment(own, item.assignment_id, ANSWERS[judge][item.scale])
    ops.set_adjudicators(db, study_id, ["carol"])
    as_researcher = ops.disagreements_for(db, study_id, "carol")
    with open_database(urls["adj"]) as adjudicator:
        assert not_adjudicated(adjudicator, study_id) == {}
        offered = ops.disagreements_for(adjudicator, study_id, names["adj"])
        assert [(d.key, d.labels) for d in offered] == [(d.key, d.labels) for d in as_researcher]
        pairs = [d for d in offered if d.scale == "preference"]
        assert len(pairs) == 3 and len({d.key.pair_id for d in pairs}) == 3 and None not in {
            d.key.pair_id for d in pairs}
        ops.record_adjudication(adjudicator, study_id, names["adj"], pairs[1].key, "tie")
    assert [d.decision for d in ops.disagreements(db, study_id) if d.scale == "preference"] == [None, "tie", None]
