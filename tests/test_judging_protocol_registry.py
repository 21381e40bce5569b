"""A judging protocol is one module and one registry line (issue 42, Deliver 3): a 1-5 Likert scale with its own
keys (tests/likert_protocol.py), registered here, is created, shown, judged by keys, stored, refused when a value
is off its scale, exported, reported with agreement and exported as dev set labels, by code that names no scale."""

from __future__ import annotations

import csv
import json

import pytest
from desktop_study_fixtures import candidate_rows
from likert_protocol import LIKERT, LIKERT_KEYS, LIKERT_LEVELS

from parastudio.core.cli import main
from parastudio.core.judging.desk import open_desk
from parastudio.core.judging.protocols import PROTOCOLS, protocol_of
from parastudio.core.store import operations as ops
from parastudio.core.store.criteria import CriterionSpec
from parastudio.core.store.database import open_database
from parastudio.core.tuning.devset import devset_records

AGREE = CriterionSpec("agree", "Does the paraphrase say what the source says?", "likert-5", LIKERT_LEVELS, True)


@pytest.fixture
def likert_registered(monkeypatch):
    monkeypatch.setitem(PROTOCOLS, "likert-5", LIKERT)  # the one registry line


def judged_study(tmp_path):
    """Two judges answer every item by keys through the desk: ann by the item's position, bob one level lower."""
    path = tmp_path / "likert.sqlite"
    db = open_database(path, create=True)
    study = ops.create_study(db, "likert", criteria=[AGREE], seed=3)
    ops.import_candidates(db, study, candidate_rows())
    ops.assign(db, study, ["ann", "bob"])
    given = {}
    for judge, shift in (("ann", 0), ("bob", 1)):
        desk = open_desk(db, study, judge).desk
        count = 0
        while desk.item is not None:
            item = desk.item
            if count == 0:  # its digits are not its keys: the desk says which keys answer, from the protocol
                said = desk.press("3")
                assert said.record is None and said.status.endswith("press " + " / ".join(LIKERT_KEYS))
                assert desk.item is item
            level = max(0, (count % 5) - shift)
            outcome = desk.press(LIKERT_KEYS[level])
            assert outcome.record is not None and outcome.record.value == str(level + 1)
            ops.record_judgment(db, outcome.record.assignment_id, outcome.record.value)
            given[(judge, item.assignment_id)] = str(level + 1)
            count += 1
    return path, db, study, given


def test_an_unregistered_scale_is_refused_when_the_study_is_made(tmp_path):
    db = open_database(tmp_path / "s.sqlite", create=True)
    with pytest.raises(ValueError, match="no judging protocol for the scale 'likert-5'"):
        ops.create_study(db, "likert", criteria=[AGREE])


def test_a_registered_protocol_is_judged_by_its_own_keys_and_stored(tmp_path, likert_registered):
    path, db, study, given = judged_study(tmp_path)
    stored = {(row["annotator"], row["assignment_id"]): row["value"] for row in ops.iter_judgments(db, study)}
    assert stored == given and set(given.values()) == {"1", "2", "3", "4", "5"}


def test_a_value_off_its_scale_is_refused_by_the_protocol(tmp_path, likert_registered):
    path, db, study, _given = judged_study(tmp_path)
    assignment = next(ops.iter_judgments(db, study))["assignment_id"]
    for bad in ("6", "0", "yes", "agree"):
        with pytest.raises(ValueError, match="takes one of 1, 2, 3, 4, 5"):
            ops.record_judgment(db, assignment, bad)
    assert protocol_of("likert-5").labels(LIKERT_LEVELS) == ("1", "2", "3", "4", "5")


def test_export_report_and_dev_set_read_it_like_any_scale(tmp_path, likert_registered, capsys):
    path, db, study, given = judged_study(tmp_path)
    out = tmp_path / "judgments.csv"
    ops.export_judgments(db, study, out)
    with out.open(encoding="utf-8") as handle:
        exported = sorted(row["value"] for row in csv.DictReader(handle))
    assert exported == sorted(given.values())
    assert main(["report", str(path), "--format", "json", "--bootstrap", "20"]) == 0
    report = json.loads(capsys.readouterr().out)
    agreement = next(table for table in report["tables"] if table["key"].startswith("agreement"))
    assert any("agree" in json.dumps(row) for row in agreement["rows"])
    records = devset_records(db, study, aggregate="majority")
    labelled = [record for record in records if "agree" in json.dumps(record.get("labels", record))]
    assert labelled  # the criterion's labels go into the candidates' records, as any categorical scale's
