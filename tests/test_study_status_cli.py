"""``parastudio study status`` on a real SQLite study, checked against an independent computation from the
study file's own rows (sqlite3, lgamma, Holm by hand); and the report's anytime table beside the fixed one."""

from __future__ import annotations

import json
import math
import sqlite3
from itertools import combinations

import pytest

from parastudio.core.cli import main
from parastudio.core.stats.anytime_comparisons import paired_outcomes
from parastudio.core.stats.report_tables import build_report
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.study_judgments import study_judgment_records

SENTENCES = 14
SHARED = 13  # the sentence on which systems a and b produced the same string


def label(judge: str, system: str, sentence: int) -> str:
    if system == "a":
        return "no" if sentence % 5 == 0 and judge == "j2" else "yes"
    if system == "b":
        return "yes" if sentence % 3 == 0 else "no"
    return "yes" if (sentence + (judge == "j2")) % 2 == 0 else "no"


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    path = tmp_path_factory.mktemp("status") / "study.sqlite"
    db = open_database(path, create=True)
    study = ops.create_study(db, "s", criteria=["meaning", "fluency"], application="simplification")
    rows = []
    for sentence in range(SENTENCES):
        for system in "abc":
            text = f"same {sentence}" if sentence == SHARED and system in "ab" else f"{system} says {sentence}"
            rows.append(ops.CandidateRow(sentence_id=str(sentence), text=text, system=system, line=len(rows) + 1))
    ops.import_candidates(db, study, rows, sources={str(s): f"source {s}" for s in range(SENTENCES)})
    ops.assign(db, study, ["j1", "j2"])
    first_meaning = None
    for judge in ("j1", "j2"):
        annotator = ops.find_annotator(db, study, judge)
        while (item := ops.next_item(db, annotator)) is not None:
            words = item.candidate.split()
            system, sentence = ("a", SHARED) if words[0] == "same" else (words[0], int(words[2]))
            ops.record_judgment(db, item.assignment_id, label(judge, system, sentence))
            if judge == "j1" and item.criterion == "meaning" and system == "c" and first_meaning is None:
                first_meaning = (item.assignment_id, label(judge, system, sentence), sentence)
    # j1 goes back to an early item and changes the answer: the live answer is the later row.
    assignment, old, sentence = first_meaning
    ops.record_judgment(db, assignment, "no" if old == "yes" else "yes")
    db.close()
    return path, str(sentence)


def live_judgments(path):
    """(judgment id, sentence, system, criterion, value, item) for every live answer, from the file's rows."""
    with sqlite3.connect(path) as connection:
        return connection.execute(
            "SELECT j.id, ss.external_id, s.name, cr.name, j.value, j.candidate_id FROM judgment j "
            "JOIN candidate c ON c.id = j.candidate_id JOIN source_sentence ss ON ss.id = c.source_id "
            "JOIN candidate_system cs ON cs.candidate_id = c.id JOIN system s ON s.id = cs.system_id "
            "JOIN criterion cr ON cr.id = j.criterion_id "
            "WHERE j.action = 'answer' AND j.superseded_by IS NULL ORDER BY j.id").fetchall()


def expected_status(path, criterion, alpha):
    scores, last = {}, {}
    for judgment_id, sentence, system, name, value, _ in live_judgments(path):
        if name == criterion:
            scores.setdefault((system, sentence), []).append(value == "yes")
            last[(system, sentence)] = max(last.get((system, sentence), 0), judgment_id)
    systems = sorted({system for system, _ in scores})
    expected = {}
    for a, b in combinations(systems, 2):
        shared = [s for (system, s) in scores if system == a and (b, s) in scores]
        shared.sort(key=lambda s: (max(last[(a, s)], last[(b, s)]), s))
        mean = {key: sum(v) / len(v) for key, v in scores.items()}
        outcomes = [(mean[(a, s)] > mean[(b, s)]) - (mean[(a, s)] < mean[(b, s)]) for s in shared]
        wins = losses = 0
        best, path_counts = 0.0, []
        for outcome in outcomes:
            wins, losses = wins + (outcome == 1), losses + (outcome == -1)
            if outcome:
                log_m = (math.lgamma(1 + wins) + math.lgamma(1 + losses) - math.lgamma(2 + wins + losses)
                         + (wins + losses) * math.log(2))  # B(1+w, 1+l) / B(1, 1) · 2^n, B(1, 1) = 1
                best = max(best, log_m)
                path_counts.append((wins, losses))
        expected[(a, b)] = {"n": wins + losses, "wins_a": wins, "wins_b": losses, "ties": outcomes.count(0),
                            "p_anytime_pair": min(1.0, math.exp(-best)), "path": path_counts}
    # Holm by hand over the criterion's pairs.
    ordered = sorted(expected, key=lambda pair: expected[pair]["p_anytime_pair"])
    running = 0.0
    for rank, pair in enumerate(ordered):
        running = max(running, min(1.0, (len(ordered) - rank) * expected[pair]["p_anytime_pair"]))
        expected[pair]["p_anytime"] = running
    return expected


@pytest.fixture(scope="module")
def study_file(study):
    return study[0]


def status_json(capsys, path, *options):
    assert main(["study", "status", str(path), "--json", *options]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("alpha", [0.05, 0.3])
def test_status_json_gives_every_pair_as_an_independent_computation_does(study_file, capsys, alpha):
    shown = status_json(capsys, study_file, "--criterion", "meaning", "--alpha", str(alpha))
    expected = expected_status(study_file, "meaning", alpha)
    assert len(shown["pairs"]) == 3
    for row in shown["pairs"]:
        assert set(row) >= {"system_a", "system_b", "n", "wins_a", "wins_b", "ties", "p_anytime", "decision",
                            "win_rate_cs"}
        a, b = row["system_a"], row["system_b"]
        want = expected[(a, b)] if (a, b) in expected else _swapped(expected[(b, a)])
        assert (row["n"], row["wins_a"], row["wins_b"], row["ties"]) == (want["n"], want["wins_a"], want["wins_b"],
                                                                          want["ties"])
        assert row["p_anytime"] == pytest.approx(want["p_anytime"], rel=1e-9)
        leader = "A better" if row["wins_a"] > row["wins_b"] else "B better"
        assert row["decision"] == (leader if want["p_anytime"] <= alpha else "undecided")
        # The interval is the intersection of every CS_k at level alpha / 3: inside each, and just outside it
        # some CS_k excludes p.
        low, high = row["win_rate_cs"]
        threshold = math.log(3 / alpha)

        def in_every_cs(p, threshold=threshold, want=want):
            return all(math.lgamma(1 + w) + math.lgamma(1 + l) - math.lgamma(2 + w + l)
                       - w * math.log(p) - l * math.log(1 - p) < threshold for w, l in want["path"])

        assert 0 <= low < high <= 1
        assert all(in_every_cs(p) for p in (low + 1e-9, high - 1e-9, (low + high) / 2))
        assert low == 0 or not in_every_cs(low - 1e-6)
        assert high == 1 or not in_every_cs(high + 1e-6)
    assert shown["alpha"] == alpha and shown["correction"] == "holm" and shown["criteria"] == ["meaning"]
    assert shown["judgments"] == 2 * (3 * SENTENCES - 1)  # the shared string is judged once, not once per system
    assert shown["judged_items"] == 3 * SENTENCES - 1
    assert "stat:anytime-sign-test" in shown["signature"] and f"alpha:{alpha:g}" in shown["signature"]


def _swapped(want):
    return {**want, "wins_a": want["wins_b"], "wins_b": want["wins_a"],
            "path": [(losses, wins) for wins, losses in want.get("path", [])]}


def test_a_pair_enters_at_its_last_judgment_so_a_changed_answer_moves_it_last(study, capsys):
    path, corrected = study
    db = open_database(path)
    try:
        records = study_judgment_records(db, ops.find_study(db))
    finally:
        db.close()
    order = [sentence for sentence, _ in paired_outcomes(records, "meaning", "a", "c")]
    assert sorted(order, key=int) == [str(s) for s in range(SENTENCES)]
    assert order[-1] == corrected  # the corrected answer is the newest judgment of the study
    ties = dict(paired_outcomes(records, "meaning", "a", "b"))
    assert ties[str(SHARED)] == 0  # one string for both systems: the same score, a tie


def test_status_without_a_criterion_gives_each_criterion_its_own_family(study_file, capsys):
    shown = status_json(capsys, study_file)
    assert sorted(shown["criteria"]) == ["fluency", "meaning"]
    assert {row["criterion"] for row in shown["pairs"]} == {"fluency", "meaning"}
    meaning_alone = status_json(capsys, study_file, "--criterion", "meaning")["pairs"]
    assert [row for row in shown["pairs"] if row["criterion"] == "meaning"] == meaning_alone


def test_status_text_table_and_bad_input(study_file, capsys):
    assert main(["study", "status", str(study_file), "--criterion", "meaning"]) == 0
    out = capsys.readouterr().out
    assert "p anytime" in out and "anytime-valid" in out and "stat:anytime-sign-test" in out
    assert main(["study", "status", str(study_file), "--criterion", "nope"]) == 1
    assert "no judgments of criterion 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["study", "status", str(study_file), "--alpha", "1.5"])
    assert exit_info.value.code == 2
    assert "--alpha: expected a finite number above 0 and below 1, not '1.5'" in capsys.readouterr().err


def test_report_puts_the_anytime_table_beside_the_fixed_one_with_the_same_counts(study_file):
    db = open_database(study_file)
    try:
        report = build_report(study_judgment_records(db, ops.find_study(db)), bootstrap=0)
    finally:
        db.close()
    keys = [table.key for table in report.tables]
    assert keys.index("anytime_sign_tests:meaning") == keys.index("sign_tests:meaning") + 1
    fixed = {tuple(row[:2]): row for row in report.tables[keys.index("sign_tests:meaning")].rows}
    for row in report.tables[keys.index("anytime_sign_tests:meaning")].rows:
        assert row[3:6] == fixed[tuple(row[:2])][3:6]  # wins A, wins B, ties: the fixed test's pairs
        assert row[2] == row[3] + row[4]
