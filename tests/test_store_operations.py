"""The study store's operations on a real SQLite file (no mocks)."""

from __future__ import annotations

import csv
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select, text

from parastudio.core.errors import InputFormatError
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Assignment, Candidate, CandidateSystem, Criterion, EventLog, Judgment


def make_rows(sentences: int, systems=("beam", "mcpg"), per_system: int = 2, shared: bool = True):
    rows = []
    for s in range(sentences):
        for system in systems:
            for rank in range(per_system):
                # With `shared`, both systems produce the same strings: judged once, credited to both.
                label = rank if shared else f"{system}{rank}"
                rows.append(ops.CandidateRow(sentence_id=str(s), system=system, rank=rank,
                                             text=f"a small dog {s} runs in garden {label} today",
                                             source=f"the small dog {s} runs in the garden today",
                                             model_score=-1.0 - rank, true_score=-2.0 - rank))
    return rows


@pytest.fixture
def db(tmp_path):
    database = open_database(tmp_path / "study.db", create=True)
    yield database
    database.close()


@pytest.fixture
def study(db):
    study_id = ops.create_study(db, "demo", seed=11)
    ops.import_candidates(db, study_id, make_rows(10))
    return study_id


def test_open_sets_wal_foreign_keys_and_synchronous(db):
    with db.reading() as session:
        assert session.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert session.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert session.execute(text("PRAGMA synchronous")).scalar() == 1  # NORMAL
        assert session.execute(text("PRAGMA busy_timeout")).scalar() >= 1000


def test_default_criteria_follow_the_seeds(db):
    study_id = ops.create_study(db, "s", application="compression")
    with db.reading() as session:
        from parastudio.core.store.models import Criterion

        criteria = session.scalars(select(Criterion).where(Criterion.study_id == study_id)
                                   .order_by(Criterion.position)).all()
    assert [c.name for c in criteria] == ["fluency", "meaning", "usability"]
    fluency, meaning, usability = criteria
    assert fluency.question == "Is the following sentence good English?"
    assert (fluency.scale, fluency.shows_source) == ("binary", False)
    assert meaning.question == "Do the following two sentences express the same thing?"
    assert (meaning.scale, meaning.shows_source) == ("binary", True)
    assert usability.scale == "3-point" and usability.application == "compression"
    assert [level["value"] for level in usability.levels] == ["1", "2", "3"]
    assert all(level["description"] for level in usability.levels)


def test_duplicate_study_name_is_refused(db):
    ops.create_study(db, "same")
    with pytest.raises(ValueError, match="already exists"):
        ops.create_study(db, "same")


def test_a_database_of_several_studies_names_them_when_none_is_chosen(tmp_path, db):
    from parastudio.core.store.studies import find_study
    with pytest.raises(LookupError, match="no study"):
        find_study(db)
    ops.create_study(db, "pilot")
    ops.create_study(db, "pilot 2")
    with pytest.raises(LookupError, match=r"2 studies \('pilot', 'pilot 2'\); name one with --study"):
        find_study(db)


def test_one_string_from_two_systems_is_one_candidate_credited_to_both(db, study):
    with db.reading() as session:
        assert session.scalar(select(func.count(Candidate.id))) == 20
        assert session.scalar(select(func.count()).select_from(CandidateSystem)) == 40
        candidate = session.scalars(select(Candidate)).first()
        assert set(candidate.scores) == {"beam", "mcpg"}
    # Importing the same file again adds nothing.
    report = ops.import_candidates(db, study, make_rows(10))
    assert (report.candidates_added, report.credited_to_existing, report.already_present) == (0, 0, 40)


def test_jsonl_import_with_sources_file_and_bad_line(tmp_path, db):
    study_id = ops.create_study(db, "j")
    path = tmp_path / "c.jsonl"
    sources = ["s zero", "s one", "s two"]

    def derivation(i):
        return [{"src": [0, 2], "tgt": [0, 2], "source": sources[i], "target": f"cand {i}", "p": 0.5,
                 "identity": False}]

    lines = [{"sentence_id": i, "system": "beam", "rank": 1, "text": f"cand {i}", "model_score": -1.0,
              "true_score": -1.5, "derivation": derivation(i), "params": {"lm": "lm.bin", "table": "t.gz"}}
             for i in range(3)]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    (tmp_path / "src.txt").write_text("s zero\ns one\ns two\n")
    report = ops.import_candidates(db, study_id, ops.read_candidates(path), path=str(path),
                                   sources=ops.read_sources(tmp_path / "src.txt"))
    assert report.candidates_added == 3
    with db.reading() as session:
        candidate = session.scalars(select(Candidate).where(Candidate.text == "cand 1")).one()
        assert candidate.source.text == "s one"
        assert candidate.lm == "lm.bin" and candidate.tables == ["t.gz"]
        assert candidate.derivation == derivation(1)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(lines[0]) + "\n{not json\n")
    with pytest.raises(InputFormatError, match=r"bad.jsonl:2: expected a JSON object"):
        list(ops.read_candidates(bad))
    missing = tmp_path / "missing.jsonl"
    missing.write_text(json.dumps({**lines[0], "sentence_id": 9}) + "\n")
    with pytest.raises(InputFormatError, match=r"missing.jsonl:1: expected a source text for sentence_id 9"):
        ops.import_candidates(db, study_id, ops.read_candidates(missing), path=str(missing))


def test_tsv_import_needs_the_header(tmp_path, db):
    study_id = ops.create_study(db, "t")
    good = tmp_path / "c.tsv"
    good.write_text("item\tsource\tcandidate\tsystem\n"
                    "1\tthe cat sat\ta cat sat\tbeam\n1\tthe cat sat\ta cat sat\tmcpg\n")
    report = ops.import_candidates(db, study_id, ops.read_candidates(good))
    assert (report.candidates_added, report.credited_to_existing) == (1, 1)
    bad = tmp_path / "bad.csv"
    bad.write_text("id,text\n1,x\n")
    with pytest.raises(InputFormatError, match=r"bad.csv:1: expected a header with columns item"):
        list(ops.read_candidates(bad))


def test_without_blind_phases_an_items_criteria_are_consecutive(db):
    study = ops.create_study(db, "interleaved", seed=11, blind_phases=False)
    rows = [ops.CandidateRow(sentence_id=str(s), system="beam", text=f"candidate {s}", source=f"source {s}")
            for s in range(20)]
    ops.import_candidates(db, study, rows)
    report = ops.assign(db, study, ["ann", "bob"], repeat_fraction=0.2, control_fraction=0.1)
    assert report.items == 20
    with db.reading() as session:
        rows = session.execute(select(Assignment.annotator_id, Assignment.candidate_id, Assignment.criterion_id,
                                      Assignment.position, Assignment.kind)
                               .order_by(Assignment.annotator_id, Assignment.position)).all()
    normal = [r for r in rows if r.kind == "normal"]
    per_item = {}
    for r in normal:
        per_item.setdefault((r.candidate_id, r.criterion_id), set()).add(r.annotator_id)
    assert len(per_item) == 20 * 3 and all(len(v) == 2 for v in per_item.values())
    # Criteria of one item are consecutive and in order: fluency (no source) before meaning.
    for annotator in {r.annotator_id for r in rows}:
        mine = [r for r in rows if r.annotator_id == annotator]
        assert [r.position for r in mine] == list(range(len(mine)))
        for i in range(0, len(mine), 3):
            block = mine[i:i + 3]
            assert len({(r.candidate_id, r.kind) for r in block}) == 1
            assert [r.criterion_id for r in block] == sorted(r.criterion_id for r in block)
    ann_order = [r.candidate_id for r in rows if r.annotator_id == rows[0].annotator_id and r.kind == "normal"]
    bob_order = [r.candidate_id for r in rows if r.annotator_id != rows[0].annotator_id and r.kind == "normal"]
    assert ann_order != bob_order  # each annotator has their own order
    assert sum(1 for r in rows if r.kind == "repeat") == 2 * 4 * 3
    assert sum(1 for r in rows if r.kind == "control") == 2 * 2 * 3


def test_blind_phases_judge_form_before_meaning_in_the_same_item_order(db, study):
    report = ops.assign(db, study, ["ann", "bob"], repeat_fraction=0.2, control_fraction=0.1)
    assert report.items == 20
    with db.reading() as session:
        fluency = session.scalar(select(Criterion.id).where(Criterion.study_id == study, Criterion.name == "fluency"))
        rows = session.execute(select(Assignment.annotator_id, Assignment.candidate_id, Assignment.criterion_id,
                                      Assignment.position, Assignment.kind)
                               .order_by(Assignment.annotator_id, Assignment.position)).all()
    for annotator in {r.annotator_id for r in rows}:
        mine = [r for r in rows if r.annotator_id == annotator]
        assert [r.position for r in mine] == list(range(len(mine)))
        phase = [r.criterion_id == fluency for r in mine]
        first_meaning = phase.index(False)
        assert all(phase[:first_meaning]) and not any(phase[first_meaning:])  # one fluency phase, then the rest
        form = [(r.candidate_id, r.kind) for r in mine[:first_meaning]]
        rest = [(r.candidate_id, r.kind) for r in mine[first_meaning:]]
        assert form == rest[::2]  # the same blocks, the same order; meaning and usability two per block
    assert sum(1 for r in rows if r.kind == "repeat") == 2 * 4 * 3


def test_same_seed_gives_same_order(tmp_path):
    orders = []
    for run in range(2):
        with open_database(tmp_path / f"{run}.db", create=True) as db:
            study_id = ops.create_study(db, "x", seed=5)
            ops.import_candidates(db, study_id, make_rows(6))
            ops.assign(db, study_id, ["ann", "bob"], repeat_fraction=0.2, control_fraction=0.2)
            with db.reading() as session:
                orders.append(session.execute(select(Assignment.candidate_id, Assignment.kind)
                                              .order_by(Assignment.annotator_id, Assignment.position)).all())
    assert orders[0] == orders[1]


def test_more_annotators_share_the_load(db, study):
    ops.assign(db, study, ["a", "b", "c", "d"])
    counts = ops.study_progress(db, study).per_annotator
    assert sorted(total for _done, total in counts.values()) == [30, 30, 30, 30]


def test_repeats_come_later_and_controls_differ_from_their_original(db, study):
    ops.assign(db, study, ["ann"], repeat_fraction=0.5, control_fraction=0.5)
    with db.reading() as session:
        repeats = session.scalars(select(Assignment).where(Assignment.kind == "repeat")).all()
        for repeat in repeats:
            original = session.get(Assignment, repeat.repeat_of)
            assert original.position < repeat.position
            assert (original.candidate_id, original.criterion_id) == (repeat.candidate_id, repeat.criterion_id)
        controls = session.scalars(select(Candidate).where(Candidate.kind == "control")).all()
        assert controls
        for control in controls:
            original = session.get(Candidate, control.control_of)
            assert control.text != original.text and control.source_id == original.source_id


def test_record_next_undo_and_resume(db, study):
    ops.assign(db, study, ["ann", "bob"])
    ann = ops.find_annotator(db, study, "ann")
    first = ops.next_item(db, ann)
    assert first.position == 0 and first.criterion == "fluency" and first.shows_source is False
    ids = []
    for _ in range(5):
        item = ops.next_item(db, ann)
        values = {"binary": "yes", "3-point": "2"}
        ids.append(ops.record_judgment(db, item.assignment_id, values[item.scale]))
    assert ops.next_item(db, ann).position == 5
    reopened = ops.undo_last(db, ann)
    assert ops.next_item(db, ann).assignment_id == reopened
    assert ops.next_item(db, ann).position == 4
    ops.undo_last(db, ann)
    assert ops.next_item(db, ann).position == 3
    with db.reading() as session:
        rows = session.scalars(select(Judgment).order_by(Judgment.id)).all()
        # Nothing was deleted: 5 answers + 2 undo rows, the undone answers point at their undo.
        assert [r.action for r in rows] == ["answer"] * 5 + ["undo"] * 2
        assert rows[4].superseded_by == rows[5].id and rows[3].superseded_by == rows[6].id
        assert session.scalar(select(func.count(EventLog.id)).where(EventLog.kind == "judgment_undone")) == 2
    assert ops.study_progress(db, study, ann).done == 3
    assert ops.study_progress(db, study).per_annotator["bob"][0] == 0


def test_answering_again_supersedes_and_bad_value_is_refused(db, study):
    ops.assign(db, study, ["ann"])
    ann = ops.find_annotator(db, study, "ann")
    item = ops.next_item(db, ann)
    old = ops.record_judgment(db, item.assignment_id, "no")
    new = ops.record_judgment(db, item.assignment_id, "yes", comment="changed my mind")
    view = ops.item_at(db, ann, item.position)
    assert view.value == "yes" and view.comment == "changed my mind"
    flagged = ops.annotate_judgment(db, new, flag=True)
    assert ops.item_at(db, ann, item.position).flag is True
    with db.reading() as session:
        assert session.get(Judgment, old).superseded_by == new
        assert session.get(Judgment, new).superseded_by == flagged
    with pytest.raises(ValueError, match="yes or no"):
        ops.record_judgment(db, item.assignment_id, "maybe")
    assert ops.neighbour_position(db, ann, item.position, +1) == item.position + 1
    assert ops.neighbour_position(db, ann, item.position, -1) is None


def test_duration_is_measured_from_start(db, study):
    from datetime import datetime, timedelta, timezone

    ops.assign(db, study, ["ann"])
    ann = ops.find_annotator(db, study, "ann")
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    item = ops.next_item(db, ann)
    ops.record_judgment(db, item.assignment_id, "yes", started_at=start, answered_at=start + timedelta(seconds=2.5))
    row = next(ops.iter_judgments(db, study))
    assert row["duration_ms"] == 2500 and row["answered_at"] == "2026-01-01T00:00:02.500Z"
    # Flagging later keeps the time the answer took.
    ops.annotate_judgment(db, row["judgment_id"], flag=True, comment="typo in source")
    row = next(ops.iter_judgments(db, study))
    assert (row["duration_ms"], row["flag"], row["comment"], row["value"]) == (2500, True, "typo in source", "yes")


def scripted_answer(item: ops.ItemView, good: bool = True) -> str:
    if item.scale == "binary":
        return "yes" if good else "no"
    return "3" if good else "1"


def test_quality_control_passes_careful_and_fails_careless(db, study):
    ops.assign(db, study, ["careful", "careless"], repeat_fraction=0.3, control_fraction=0.3)
    careful, careless = (ops.find_annotator(db, study, n) for n in ("careful", "careless"))
    with db.reading() as session:
        control_ids = set(session.scalars(select(Candidate.id).where(Candidate.kind == "control")))
    flip = 0
    while (item := ops.next_item(db, careful)) is not None:
        # Careful: same answer every time, controls judged bad.
        ops.record_judgment(db, item.assignment_id, scripted_answer(item, int(item.item) not in control_ids))
    while (item := ops.next_item(db, careless)) is not None:
        flip += 1  # careless: alternates whatever the item
        ops.record_judgment(db, item.assignment_id, scripted_answer(item, flip % 2 == 0))
    reports = {r.annotator: r for r in ops.quality_control(db, study)}
    assert reports["careful"].passed is True
    assert reports["careful"].consistency == 1.0 and reports["careful"].control_pass_rate == 1.0
    assert reports["careless"].passed is False and reports["careless"].reasons
    assert reports["careless"].repeat_pairs == 6 * 3


def test_export_judgments_csv_and_jsonl_keep_who_when_and_comment(tmp_path, db, study):
    ops.assign(db, study, ["ann", "bob"])
    for name in ("ann", "bob"):
        annotator = ops.find_annotator(db, study, name)
        for _ in range(4):
            item = ops.next_item(db, annotator)
            ops.record_judgment(db, item.assignment_id, scripted_answer(item), comment=f"by {name}")
    ann = ops.find_annotator(db, study, "ann")
    ops.undo_last(db, ann)
    count = ops.export_judgments(db, study, tmp_path / "j.csv", "csv")
    assert count == 7
    with open(tmp_path / "j.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0])[:4] == ["item", "annotator", "criterion", "value"]
    assert {r["annotator"] for r in rows} == {"ann", "bob"}
    assert all(r["answered_at"].endswith("Z") and r["comment"].startswith("by ") for r in rows)
    assert all(r["systems"] == "beam;mcpg" for r in rows)
    history = ops.export_judgments(db, study, tmp_path / "h.jsonl", "jsonl", history=True)
    lines = [json.loads(line) for line in (tmp_path / "h.jsonl").read_text().splitlines()]
    assert history == 9 and sorted(x["status"] for x in lines).count("undo") == 1
    assert sum(x["status"] == "superseded" for x in lines) == 1
    records = ops.judgment_records(db, study)
    assert len(records) == 7
    assert set(records[0]) >= {"item", "annotator", "criterion", "value", "system", "systems", "application"}


def test_import_judgments_long_csv_with_duplicate_and_conflict(tmp_path, db, study):
    path = tmp_path / "crowd.csv"
    path.write_text("item,annotator,criterion,value,comment\n1,w1,fluency,yes,ok\n1,w2,fluency,no,\n"
                    "2,w1,meaning,1,\n2,w1,usability,3,\n")
    report = ops.import_judgments_csv(db, study, path)
    assert (report.applied, report.duplicates, report.conflicts) == (4, 0, [])
    records = {(r["item"], r["annotator"], r["criterion"]): r["value"] for r in ops.judgment_records(db, study)}
    assert records[("1", "w1", "fluency")] == "yes" and records[("2", "w1", "meaning")] == "yes"
    again = tmp_path / "again.csv"
    again.write_text("item,annotator,criterion,value\n1,w1,fluency,yes\n1,w2,fluency,yes\n")
    report = ops.import_judgments_csv(db, study, again)
    assert report.applied == 0 and report.duplicates == 1 and len(report.conflicts) == 1
    assert report.conflicts[0]["present"] == "no"
    bad = tmp_path / "bad.csv"
    bad.write_text("item,annotator,criterion,value\n1,w3,fluency,yes\n1,w3,meaning,perhaps\n")
    with pytest.raises(InputFormatError, match=r"bad.csv:3: expected criterion 'meaning' takes yes or no"):
        ops.import_judgments_csv(db, study, bad)
    # The bad file imported nothing, not even its good first line.
    assert all(r["annotator"] != "w3" for r in ops.judgment_records(db, study))
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("item,annotator,criterion,value\n999,w1,fluency,yes\n")
    with pytest.raises(InputFormatError, match=r"unknown.csv:2: expected an item of this study"):
        ops.import_judgments_csv(db, study, unknown)


def test_choice_task_pick_original_option_or_custom(db):
    study_id = ops.create_study(db, "choice", criteria=["choice"])
    ops.add_choice_tasks(db, study_id, [
        {"id": 245, "sentence": "Indiana became the first state to impose such a requirement .", "span": [1, 5],
         "options": ["it was first country", "was the first state", "made the first nation"]},
        {"id": 246, "sentence": "he went home", "span": [1, 2], "options": ["walked"]},
        {"id": 247, "sentence": "she sang loudly", "span": [1, 2], "options": ["performed"]},
    ])
    ops.assign(db, study_id, ["ann"], judges_per_item=1)
    ann = ops.find_annotator(db, study_id, "ann")
    seen = []
    for answer, typed in (("option:2", None), ("original", None), ("custom", "ran")):
        item = ops.next_item(db, ann)
        assert item.span is not None and item.candidate is None
        ops.record_judgment(db, item.assignment_id, answer, text=typed)
        seen.append(item)
    assert ops.next_item(db, ann) is None
    rows = {r["item"]: r for r in ops.iter_judgments(db, study_id)}
    first = rows[seen[0].item]
    assert first["value"] == "option:2" and first["text"] == seen[0].options[1]
    assert rows[seen[2].item]["text"] == "ran"
    with pytest.raises(ValueError, match="custom choice needs"):
        ops.record_judgment(db, seen[0].assignment_id, "custom")


def test_second_import_credits_another_system_and_keeps_scores(db):
    study_id = ops.create_study(db, "two files")
    first = [ops.CandidateRow(sentence_id="1", system="beam", text="a cat sat", source="the cat sat", rank=0,
                              model_score=-1.0)]
    second = [ops.CandidateRow(sentence_id="1", system="mcpg", text="a cat sat", rank=3, model_score=-2.0),
              ops.CandidateRow(sentence_id="1", system="mcpg", text="one cat sat", rank=4)]
    ops.import_candidates(db, study_id, first)
    report = ops.import_candidates(db, study_id, second)
    assert (report.candidates_added, report.credited_to_existing, report.sources_added) == (1, 1, 0)
    with db.reading() as session:
        shared = session.scalars(select(Candidate).where(Candidate.text == "a cat sat")).one()
        assert shared.scores == {"beam": {"rank": 0, "model_score": -1.0, "true_score": None},
                                 "mcpg": {"rank": 3, "model_score": -2.0, "true_score": None}}


def test_recording_in_a_worker_thread_while_reading_in_another(db, study):
    """The desktop writes off the UI thread while the UI thread reads the next item."""
    from concurrent.futures import ThreadPoolExecutor

    ops.assign(db, study, ["ann"])
    ann = ops.find_annotator(db, study, "ann")
    with ThreadPoolExecutor(max_workers=1) as writer:
        pending = []
        for position in range(30):
            item = ops.item_at(db, ann, position)
            pending.append(writer.submit(ops.record_judgment, db, item.assignment_id,
                                         "yes" if item.scale == "binary" else "3"))
            ops.study_progress(db, study, ann)
        ids = [future.result() for future in pending]
    assert len(set(ids)) == 30
    assert ops.next_item(db, ann).position == 30


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sentences=st.integers(2, 8), per_sentence=st.integers(1, 3), repeats=st.sampled_from([0.0, 0.3, 1.0]),
       controls=st.sampled_from([0.0, 0.3]), seed=st.integers(0, 1000))
def test_no_fluency_item_follows_a_display_of_its_source(tmp_path_factory, sentences, per_sentence, repeats,
                                                         controls, seed):
    path = tmp_path_factory.mktemp("blind") / "s.sqlite"
    with open_database(path, create=True) as db:
        study = ops.create_study(db, "blind", seed=seed)
        rows = [ops.CandidateRow(sentence_id=str(s), system="x", text=f"candidate {s} {r}",
                                 source=f"the source sentence number {s} here") for s in range(sentences)
                for r in range(per_sentence)]
        ops.import_candidates(db, study, rows)
        ops.assign(db, study, ["ann", "bob"], repeat_fraction=repeats, control_fraction=controls, seed=seed)
        for name in ("ann", "bob"):
            annotator = ops.find_annotator(db, study, name)
            shown_sources: set[str] = set()
            while (item := ops.next_item(db, annotator)) is not None:  # the order a judge meets
                if not item.shows_source:
                    assert item.source not in shown_sources
                else:
                    shown_sources.add(item.source)
                ops.record_judgment(db, item.assignment_id, "yes" if item.scale == "binary" else "2")
