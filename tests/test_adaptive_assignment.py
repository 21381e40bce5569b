"""Adaptive assignment (issue 29): batches go to undecided comparisons, stop when decided (plus a margin), and
never to a sentence where both systems produced the same string; on a real SQLite study."""

from __future__ import annotations

import sqlite3

import pytest

from parastudio.core.adaptive_assignment import StoppingRule, assign_next
from parastudio.core.cli import main
from parastudio.core.stats.anytime_comparisons import criterion_comparisons, decision_times
from parastudio.core.stats.anytime_sign_test import AnytimeSignTest
from parastudio.core.stats.report_tables import build_report
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.study_judgments import sampling_note, study_judgment_records

SENTENCES = 40


def make_study(path):
    db = open_database(path, create=True)
    study = ops.create_study(db, "s", criteria=["meaning"], application="simplification", seed=5)
    rows = []
    for sentence in range(SENTENCES):
        for system in "ab":
            text = f"same {sentence}" if sentence % 2 == 0 else f"{system} says {sentence}"
            rows.append(ops.CandidateRow(sentence_id=str(sentence), text=text, system=system, line=len(rows) + 1))
    ops.import_candidates(db, study, rows, sources={str(s): f"source {s}" for s in range(SENTENCES)})
    return db, study


def judge_all(db, study):
    """System a's outputs are always right, b's always wrong: every non-identical sentence is a win for a."""
    for judge in ("j1", "j2"):
        annotator = ops.find_annotator(db, study, judge)
        while (item := ops.next_item(db, annotator)) is not None:
            ops.record_judgment(db, item.assignment_id, "no" if item.candidate.startswith("b ") else "yes")


def assigned_texts(path):
    with sqlite3.connect(path) as connection:
        return {text for (text,) in connection.execute(
            "SELECT DISTINCT c.text FROM assignment a JOIN candidate c ON c.id = a.candidate_id")}


def run_batches(db, study, rule, batches):
    """Sentences given out per batch, and (sentence, pair) combinations skipped for identical strings."""
    sizes, skipped = [], 0
    for _ in range(batches):
        batch = assign_next(db, study, ["j1", "j2"], sentences=3, criterion="meaning", rule=rule)
        sizes.append(len(batch.sentences))
        skipped += batch.skipped_identical
        judge_all(db, study)
    return sizes, skipped


def test_decided_stops_the_pair_and_identical_strings_are_never_given_out(tmp_path):
    db, study = make_study(tmp_path / "study.sqlite")
    try:
        sizes, skipped = run_batches(db, study, StoppingRule.parse("decided"), 5)
        # M_n = 2^n / (n + 1) under the uniform prior reaches 20 at n = 8 straight wins: three batches of 3.
        assert sizes == [3, 3, 3, 0, 0]
        assert skipped > 0  # half the sentences have one string for both systems
        (comparison,), _ = criterion_comparisons(study_judgment_records(db, study), "meaning", AnytimeSignTest())
        assert comparison.decision in ("A better", "B better") and comparison.result.n == 9
    finally:
        db.close()
    texts = assigned_texts(tmp_path / "study.sqlite")
    assert texts and not any(text.startswith("same") for text in texts)
    assert len(texts) == 2 * 9


def test_never_keeps_judging_and_a_margin_closes_k_sentences_after_the_decision(tmp_path):
    db, study = make_study(tmp_path / "never.sqlite")
    try:
        assert run_batches(db, study, StoppingRule.parse("never"), 5)[0] == [3] * 5
    finally:
        db.close()
    db, study = make_study(tmp_path / "margin.sqlite")
    try:
        sizes, _ = run_batches(db, study, StoppingRule.parse("decided+2"), 6)
        assert sizes == [3, 3, 3, 3, 0, 0]  # decided at the 8th sentence, 1 after it, then 4: closed
        records = study_judgment_records(db, study)
        ((pair, (decided_at, after)),) = decision_times(records, "meaning", AnytimeSignTest()).items()
        assert after == 4
        # Every given sentence is a win for a, complete at its 4th judgment (2 judges x 2 systems): the pair is
        # decided where the 8th sentence completes.
        counts, completed = {}, []
        for position, sentence in enumerate(records.sentences):
            counts[sentence] = counts.get(sentence, 0) + 1
            if counts[sentence] == 4:
                completed.append(position)
        assert len(completed) == 12 and decided_at == completed[7]
    finally:
        db.close()


def test_the_report_says_how_the_items_were_sampled(tmp_path):
    path = tmp_path / "study.sqlite"
    db, study = make_study(path)
    try:
        run_batches(db, study, StoppingRule.parse("decided"), 1)
        note = sampling_note(db, study)
        report = build_report(study_judgment_records(db, study), bootstrap=0, sampling=note)
    finally:
        db.close()
    assert "sampled adaptively" in note and "stopping rule decided" in note
    seed003 = next(table for table in report.tables if table.key == "seed003_table1")
    assert seed003.note.endswith(note)


def test_the_command_saves_the_rule_and_refuses_a_bad_one(tmp_path, capsys):
    path = tmp_path / "study.sqlite"
    make_study(path)[0].close()
    base = ["study", "assign-next", "--db", str(path), "--annotators", "j1,j2", "--criterion", "meaning"]
    assert main(base + ["--sentences", "2", "--stop", "decided+3"]) == 0
    assert "assigned 4 candidates of 2 sentences" in capsys.readouterr().out
    db = open_database(path)
    try:
        assert ops.study_settings(db, ops.find_study(db))["sampling"]["rule"] == "decided+3"
    finally:
        db.close()
    assert main(base + ["--sentences", "1"]) == 0
    assert "stopping rule decided+3" in capsys.readouterr().out  # the study's saved rule
    assert main(base + ["--sentences", "1", "--stop", "after"]) == 2
    assert "expected a stopping rule never, decided or decided+K" in capsys.readouterr().err


@pytest.mark.parametrize("text", ["never", "decided", "decided+0", "decided+12"])
def test_stopping_rules_read_back_as_written(text):
    assert str(StoppingRule.parse(text)) == ("decided" if text == "decided+0" else text)
