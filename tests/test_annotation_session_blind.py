"""Blind phases hold whatever the judge does: arrows, answers, undo, a later assignment batch.

Seed 003 asks about form alone, then meaning with the source. The assignment puts every source-free item of a
batch first; the session keeps that promise when the judge skips with → across the phase boundary, and when a
second batch brings new candidates of sentences whose meaning items are still to come.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parastudio.core.store import operations as ops
from parastudio.core.store.annotation_session import AnnotationSession
from parastudio.core.store.database import open_database

SOURCE_FREE = "fluency"


def make(db, sentences: int, per_sentence: int, *, seed: int = 3, first: int = 0, tag: str = "") -> int:
    rows = [ops.CandidateRow(sentence_id=str(s), system="x", text=f"candidate {tag}{s} {r}",
                             source=f"the source sentence number {s} here")
            for s in range(first, first + sentences) for r in range(per_sentence)]
    try:
        study = ops.find_study(db, "blind")
    except LookupError:
        study = ops.create_study(db, "blind", seed=seed)
    ops.import_candidates(db, study, rows)
    return study


class Judge:
    """A judge driving a session: remembers which sources were on screen and what was judged blind."""

    def __init__(self, db, study, name):
        self.db = db
        self.annotator = ops.find_annotator(db, study, name)
        self.session = AnnotationSession(db, self.annotator)
        self.shown_sources: set[int] = set()
        self.judged: set[int] = set()  # assignments answered at least once
        self.late: list[tuple[int, str]] = []  # source-free items first judged after their source was shown
        self.item = self.see(self.session.first())

    def see(self, item):
        if item is not None:
            if item.criterion != SOURCE_FREE:
                self.shown_sources.add(item.source_id)
            elif item.assignment_id not in self.judged and item.source_id in self.shown_sources:
                self.late.append((item.assignment_id, item.source))
        return item

    def answer(self):
        item = self.item
        if item.criterion == SOURCE_FREE and item.assignment_id not in self.judged \
                and item.source_id in self.shown_sources:
            self.late.append((item.assignment_id, item.source))
        self.judged.add(item.assignment_id)
        value = "yes" if item.scale == "binary" else "2"
        ops.record_judgment(self.db, item.assignment_id, value)
        self.item = self.see(self.session.answered(item, value))

    def move(self, step):
        moved = self.session.neighbour(self.item, step)
        if moved is not None:
            self.item = self.see(moved)

    def undo(self):
        self.session.undo_queued()
        reopened = ops.undo_last(self.db, self.annotator)
        shown = self.session.undone(reopened)
        if shown is not None:
            self.item = self.see(shown)

    def finish(self):
        while self.item is not None:
            self.answer()


def test_skipping_to_the_meaning_phase_serves_the_skipped_fluency_items_first(tmp_path):
    # The audit: → through the whole fluency phase to the first meaning item, then answer everything.
    with open_database(tmp_path / "s.sqlite", create=True) as db:
        study = make(db, sentences=4, per_sentence=2)
        ops.assign(db, study, ["ann"])
        judge = Judge(db, study, "ann")
        fluency_items = 0
        while judge.item.criterion == SOURCE_FREE:
            fluency_items += 1
            before = judge.item
            judge.move(+1)
            if judge.item.assignment_id == before.assignment_id or judge.item.position < before.position:
                break
        # → from the last fluency item does not show the first meaning item: its sentence's form question,
        # skipped, comes first, and the session says what it held back.
        assert fluency_items == 8
        assert judge.item.criterion == SOURCE_FREE
        assert judge.session.held_back is not None and judge.session.held_back.criterion != SOURCE_FREE
        assert judge.session.held_back.source_id == judge.item.source_id
        assert not judge.shown_sources
        judge.finish()
        assert judge.late == []
        assert ops.next_item(db, judge.annotator) is None  # everything judged


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sentences=st.integers(2, 6), per_sentence=st.integers(1, 3), repeats=st.sampled_from([0.0, 0.5]),
       controls=st.sampled_from([0.0, 0.3]), seed=st.integers(0, 1000),
       actions=st.lists(st.sampled_from(["answer", "answer", "next", "next", "next", "previous", "undo"]),
                        max_size=80))
def test_no_fluency_item_is_judged_after_a_display_of_its_source_whatever_the_keys(
        tmp_path_factory, sentences, per_sentence, repeats, controls, seed, actions):
    path = tmp_path_factory.mktemp("blind") / "s.sqlite"
    with open_database(path, create=True) as db:
        study = make(db, sentences, per_sentence, seed=seed)
        ops.assign(db, study, ["ann", "bob"], repeat_fraction=repeats, control_fraction=controls, seed=seed)
        judge = Judge(db, study, "ann")
        for action in actions:
            if judge.item is None:
                break
            if action == "answer":
                judge.answer()
            elif action == "undo":
                judge.undo()
            else:
                judge.move(+1 if action == "next" else -1)
        if judge.item is None:
            judge.item = judge.see(judge.session.first())
        judge.finish()
        assert judge.late == []
        assert ops.next_item(db, judge.annotator) is None


def test_a_second_batch_on_the_same_sentences_keeps_the_phases(tmp_path):
    with open_database(tmp_path / "s.sqlite", create=True) as db:
        study = make(db, sentences=4, per_sentence=2)
        ops.assign(db, study, ["ann"])
        judge = Judge(db, study, "ann")
        for _ in range(7):  # the first batch's fluency phase but its last item: no source shown yet
            judge.answer()
        assert judge.item.criterion == SOURCE_FREE and not judge.shown_sources
        # A second batch: new candidates of the same sentences (and of new ones), appended to ann's order.
        make(db, sentences=6, per_sentence=1, tag="new ")
        report = ops.assign(db, study, ["ann"])
        assert report.items == 6 and report.not_blind == {"ann": 0}
        judge.finish()
        # The first batch's meaning items waited for the new fluency items of their sentences.
        assert judge.late == []


def test_a_new_candidate_of_a_sentence_already_judged_with_its_source_goes_to_a_judge_who_has_not_seen_it(tmp_path):
    from sqlalchemy import select

    from parastudio.core.store.models import Assignment, Candidate, SourceSentence

    with open_database(tmp_path / "s.sqlite", create=True) as db:
        study = make(db, sentences=3, per_sentence=1)
        ops.assign(db, study, ["ann"])
        Judge(db, study, "ann").finish()  # ann has judged sentences 0-2 with their source
        make(db, sentences=4, per_sentence=1, tag="new ")  # new candidates of 0-2, and of sentence 3
        report = ops.assign(db, study, ["ann", "bob"], judges_per_item=1)
        assert report.items == 4 and report.not_blind == {"ann": 0, "bob": 0}
        ann = ops.find_annotator(db, study, "ann")
        with db.reading() as session:
            ann_new = set(session.scalars(
                select(SourceSentence.external_id).join(Candidate, Candidate.source_id == SourceSentence.id)
                .join(Assignment, Assignment.candidate_id == Candidate.id)
                .where(Assignment.annotator_id == ann, Candidate.text.like("candidate new %"))))
        assert ann_new == {"3"}  # the only new sentence; bob, who has seen none, takes the others
        # Two judges per item with two annotators: ann must take them too, and the report says so.
        make(db, sentences=3, per_sentence=1, tag="newer ")
        report = ops.assign(db, study, ["ann", "bob"], judges_per_item=2)
        assert report.not_blind["ann"] == 3  # one fluency item for each of sentences 0-2


def test_study_assign_says_how_many_items_cannot_be_blind(tmp_path, capsys):
    from parastudio.core.cli import main

    path = tmp_path / "s.sqlite"
    with open_database(path, create=True) as db:
        study = make(db, sentences=3, per_sentence=1)
        ops.assign(db, study, ["ann"])
        Judge(db, study, "ann").finish()
        make(db, sentences=3, per_sentence=1, tag="new ")
    assert main(["study", "assign", "--db", str(path), "--annotators", "ann"]) == 0
    out = capsys.readouterr().out
    assert "note: 3 of ann's source-free items are of sentences whose source ann has already judged" in out
