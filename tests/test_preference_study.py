"""Pairwise preference (issue 30) in a real SQLite study: pairs, assignment, answers, sign tests, agreement."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict

import krippendorff
import numpy as np
import pytest
from scipy.stats import binomtest
from sqlalchemy import select

from parastudio.core.stats.preference import PreferenceJudgment, PreferenceSignTests
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Annotator, Assignment, Judgment, PreferencePair, SourceSentence
from parastudio.core.store.preference_pairs import order_is_swapped, parse_system_pairs
from parastudio.core.study_judgments import study_judgment_records, study_preferences

SYSTEMS = ("alpha", "beta", "gamma")


def candidate_rows(sentences: int = 12):
    """Three systems; beta and gamma say the same on every fourth sentence; gamma misses the last sentence."""
    rows = []
    for s in range(sentences):
        for system in SYSTEMS:
            if system == "gamma" and s == sentences - 1:
                continue
            text = f"shared words {s}" if system != "alpha" and s % 4 == 0 else f"{system} words {s}"
            rows.append(ops.CandidateRow(sentence_id=str(s), text=text, system=system, source=f"source {s}", rank=0))
            # A worse ranked candidate that preference never shows.
            rows.append(ops.CandidateRow(sentence_id=str(s), text=f"{system} second {s}", system=system,
                                         source=f"source {s}", rank=1))
    return rows


@pytest.fixture
def db(tmp_path):
    database = open_database(tmp_path / "study.db", create=True)
    yield database
    database.close()


def make_study(db, **assign_options):
    study_id = ops.create_study(db, "prefs", criteria=["preference"], seed=7)
    ops.import_candidates(db, study_id, candidate_rows())
    report = ops.assign(db, study_id, ["ann", "bob", "cy"], **assign_options)
    return study_id, report


def annotator_id(db, name):
    with db.reading() as session:
        return session.scalar(select(Annotator.id).where(Annotator.name == name))


def test_pairs_are_balanced_ties_by_construction_recorded_not_shown_and_two_judges_each(db):
    study_id, report = make_study(db)
    # gamma misses sentence 11: every pair gets the 11 sentences the sparsest pair shares.
    assert report.pairs.sentences == {"alpha:beta": 11, "alpha:gamma": 11, "beta:gamma": 11}
    with db.reading() as session:
        pairs = session.scalars(select(PreferencePair)).all()
        per_system_pair = Counter(frozenset((p.left_system, p.right_system)) for p in pairs)
        assert set(per_system_pair.values()) == {11}
        identical = [p for p in pairs if p.identical]
        # beta and gamma share a string on sentences 0, 4 and 8 (11 of the 12 drawn: all of 0..10).
        assert len(identical) == 3 == report.pairs.identical["beta:gamma"]
        assert all(p.left_candidate_id == p.right_candidate_id for p in identical)
        judges = Counter(a.pair_id for a in session.scalars(select(Assignment)))
        assert set(judges) == {p.id for p in pairs if not p.identical}
        assert set(judges.values()) == {2}
        # The recorded seed gives the order shown, and both orders occur.
        for pair in pairs:
            a, b = sorted((pair.left_system, pair.right_system))
            assert pair.left_system == (b if order_is_swapped(pair.order_seed) else a)
        assert {p.left_system < p.right_system for p in pairs} == {True, False}


def test_named_pairs_only(db):
    study_id, report = make_study(db, system_pairs=[("gamma", "alpha")])
    assert report.pairs.sentences == {"gamma:alpha": 11}
    with db.reading() as session:
        assert {frozenset((p.left_system, p.right_system)) for p in session.scalars(select(PreferencePair))} == {
            frozenset(("alpha", "gamma"))}


def test_unknown_system_in_pairs_is_refused(db):
    study_id = ops.create_study(db, "prefs", criteria=["preference"])
    ops.import_candidates(db, study_id, candidate_rows())
    with pytest.raises(ValueError, match="no system 'delta'"):
        ops.assign(db, study_id, ["ann"], system_pairs=[("alpha", "delta")])
    assert parse_system_pairs(" a:b , c:d ") == [("a", "b"), ("c", "d")]
    for bad in ("a", "a:a", "a:", ","):
        with pytest.raises(ValueError, match="--pairs"):
            parse_system_pairs(bad)


def test_answers_by_key_words_are_stored_as_left_right_tie_and_survive_reopening(db, tmp_path):
    study_id, _ = make_study(db)
    ann = annotator_id(db, "ann")
    stored = []
    for word in ("A", "b", "t", "left"):
        item = ops.next_item(db, ann)
        assert item.left and item.right and item.left != item.right and item.candidate is None
        assert item.item.startswith("pair-")
        ops.record_judgment(db, item.assignment_id, word)
        stored.append(item.assignment_id)
    with pytest.raises(ValueError, match="left \\(a\\), right \\(b\\) or tie \\(t\\)"):
        ops.record_judgment(db, ops.next_item(db, ann).assignment_id, "yes")
    db.close()
    with open_database(tmp_path / "study.db") as reopened:
        with reopened.reading() as session:
            values = [session.scalar(select(Judgment.value).where(Judgment.assignment_id == a)) for a in stored]
            pair_ids = {session.scalar(select(Judgment.pair_id).where(Judgment.assignment_id == a)) for a in stored}
        assert values == ["left", "right", "tie", "left"]
        assert None not in pair_ids
        assert ops.undo_last(reopened, ann) == stored[-1]


def judge_everything(db, study_id, seed=3):
    """Each judge prefers alpha to beta to gamma, 80 % of the time."""
    rank = {name: k for k, name in enumerate(SYSTEMS)}
    rng = random.Random(seed)
    with db.reading() as session:
        pairs = {p.id: p for p in session.scalars(select(PreferencePair))}
    for name in ("ann", "bob", "cy"):
        ann = annotator_id(db, name)
        while (item := ops.next_item(db, ann)) is not None:
            with db.reading() as session:
                pair = pairs[session.get(Assignment, item.assignment_id).pair_id]
            left_better = rank[pair.left_system] < rank[pair.right_system]
            roll = rng.random()
            value = "tie" if roll > 0.9 else ("left" if left_better == (roll < 0.75) else "right")
            ops.record_judgment(db, item.assignment_id, value)


def test_sign_tests_match_an_independent_count_with_holm(db):
    study_id, _ = make_study(db)
    judge_everything(db, study_id)
    judgments = study_preferences(db, study_id)
    assert sum(j.annotator is None for j in judgments) == 3  # the ties by construction
    # Independent: per sentence and system pair, net preference; scipy's binomial test; Holm by hand.
    net = defaultdict(lambda: defaultdict(int))
    for j in judgments:
        a, b = sorted((j.left, j.right))
        net[(a, b)][j.sentence] += 0 if j.winner is None else 1 if j.winner == a else -1
    expected = {}
    for key, by_sentence in net.items():
        wins_a = sum(v > 0 for v in by_sentence.values())
        wins_b = sum(v < 0 for v in by_sentence.values())
        expected[key] = (wins_a, wins_b, binomtest(wins_a, wins_a + wins_b).pvalue)
    ordered = sorted(expected, key=lambda k: expected[k][2])
    holm, running = {}, 0.0
    for rank, key in enumerate(ordered):
        running = max(running, min(1.0, (len(ordered) - rank) * expected[key][2]))
        holm[key] = running
    comparisons = PreferenceSignTests().compare(judgments)
    assert len(comparisons) == 3
    for c in comparisons:
        wins_a, wins_b, p = expected[(c.system_a, c.system_b)]
        assert (c.wins_a, c.wins_b) == (wins_a, wins_b)
        assert c.n_items == 11
        assert c.p_value == pytest.approx(p) and c.p_holm == pytest.approx(holm[(c.system_a, c.system_b)])
    assert any(c.wins_a > c.wins_b for c in comparisons)


def test_agreement_over_preferences_is_krippendorffs_alpha_of_the_judges(db):
    study_id, _ = make_study(db)
    judge_everything(db, study_id)
    records = study_judgment_records(db, study_id)
    from parastudio.core.stats.report_agreement import agreement_table

    table = agreement_table(records, ["preference"], bootstrap=0)
    alpha = table.rows[0][[c.name for c in table.columns].index("α nominal")]
    # Independent: the krippendorff package on the judges x items matrix (NaN where a judge did not judge).
    items = sorted(set(records.items))
    judges = sorted(set(records.annotators))
    codes = {"left": 0.0, "tie": 1.0, "right": 2.0}
    matrix = np.full((len(judges), len(items)), np.nan)
    for item, judge, value in zip(records.items, records.annotators, records.values):
        matrix[judges.index(judge), items.index(item)] = codes[value]
    assert alpha == pytest.approx(krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"))


def test_preference_judgment_refuses_nonsense():
    with pytest.raises(ValueError):
        PreferenceJudgment("1", "a", "b", "better")
    with pytest.raises(ValueError):
        PreferenceJudgment("1", "a", "a", "left")


def run_cli(*args) -> tuple[int, str, str]:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "parastudio", *map(str, args)], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def test_cli_end_to_end_import_assign_judge_report(tmp_path):
    import csv
    import json

    study = tmp_path / "cli.sqlite"
    candidates = tmp_path / "candidates.csv"
    with open(candidates, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "source", "candidate", "system"])
        for row in candidate_rows():
            if row.rank == 0:
                writer.writerow([row.sentence_id, row.source, row.text, row.system])
    assert run_cli("study", "create", "cli", "--db", study, "--criteria", "preference")[0] == 0
    assert run_cli("study", "import-candidates", "--db", study, candidates)[0] == 0
    code, out, err = run_cli("study", "assign", "--db", study, "--annotators", "ann,bob", "--pairs", "alpha:beta")
    assert code == 0, err
    assert "preference alpha:beta: 12 sentences (0 ties by construction" in out
    code, out, err = run_cli("study", "assign", "--db", study, "--annotators", "ann", "--pairs", "alpha")
    assert code != 0 and "--pairs: expected SYSTEM_A:SYSTEM_B" in err and "Traceback" not in err
    with open_database(study) as db:
        with db.reading() as session:
            pairs = session.scalars(select(PreferencePair)).all()
    judgments = tmp_path / "judgments.csv"
    with open(judgments, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item", "annotator", "criterion", "value"])
        for pair in pairs:
            for judge in ("ann", "bob"):  # both judges prefer alpha on every sentence
                writer.writerow([f"pair-{pair.id}", judge, "preference", "a" if pair.left_system == "alpha" else "b"])
    bad = tmp_path / "bad.csv"
    with open(bad, "w", newline="") as handle:
        handle.write("item,annotator,criterion,value\npair-x,ann,preference,a\n")
    code, _, err = run_cli("study", "import-judgments", "--db", study, bad)
    assert code == 2 and f"{bad}:2: expected an item id" in err
    code, _, err = run_cli("study", "import-judgments", "--db", study, judgments)
    assert code == 0, err
    code, out, err = run_cli("report", study, "--format", "json", "--bootstrap", "200")
    assert code == 0, err
    tables = {t["key"]: t for t in json.loads(out)["tables"]}
    strengths = tables["preference_bradley_terry"]["rows"]
    assert [row[0] for row in strengths] == ["alpha", "beta"] and strengths[0][1] > 0 > strengths[1][1]
    assert strengths[0][4:6] == [24, 0]
    signs = tables["preference_sign_tests"]["rows"]
    assert signs[0][:6] == ["alpha", "beta", 12, 12, 0, 0]
    assert signs[0][6] == pytest.approx(binomtest(12, 12).pvalue)
    assert "seed004_table1" not in tables  # a preference is not a score of one system
    code, out, err = run_cli("study", "status", study, "--json", "--bootstrap", "50")
    assert code == 0, err
    status = json.loads(out)
    assert status["skipped_criteria"] == [] and status["pairs"] == []
    assert [(row["system"], row["wins"]) for row in status["preference"]["bradley_terry"]] == [("alpha", 24),
                                                                                              ("beta", 0)]
    assert status["preference"]["bradley_terry"][0]["strength"] == pytest.approx(strengths[0][1])
    assert status["preference"]["sign_tests"][0]["p_holm"] == pytest.approx(signs[0][7])
    devset = tmp_path / "pairs.jsonl"
    code, _, err = run_cli("export-devset", study, "--records", "preference", "-o", devset)
    assert code == 0, err
    records = [json.loads(line) for line in devset.read_text().splitlines()]
    assert len(records) == 12
    for record in records:
        assert set(record) >= {"source", "a", "b", "systems", "labels", "verdict"}
        assert record["systems"] == ["alpha", "beta"]  # name order, whatever side the judges saw
        sentence = record["sentence_id"]
        assert record["a"] == f"alpha words {sentence}"
        assert record["b"] in (f"beta words {sentence}", f"shared words {sentence}")
        assert [label["value"] for label in record["labels"]] == ["a", "a"] and record["verdict"] == "a"


def judge_pairs_and_spans(db, study_id, name):
    judge = annotator_id(db, name)
    count = 0
    while (item := ops.next_item(db, judge)) is not None:
        ops.record_judgment(db, item.assignment_id, "b" if item.scale == "preference" else "55",
                            text='[{"start": 0, "end": 1, "severity": "minor"}]' if item.scale == "esa" else None)
        count += 1
    return count


def test_preference_and_error_spans_on_postgresql(postgres_url):
    with open_database(postgres_url, create=True) as db:
        study_id = ops.create_study(db, "prefs", criteria=["preference", "esa"], seed=7)
        ops.import_candidates(db, study_id, candidate_rows())
        report = ops.assign(db, study_id, ["ann", "bob"])
        assert report.pairs.sentences == {"alpha:beta": 11, "alpha:gamma": 11, "beta:gamma": 11}
        judged = judge_pairs_and_spans(db, study_id, "ann")
        rows = list(ops.iter_judgments(db, study_id))
        assert len(rows) == judged > 0
        assert {r["value"] for r in rows if r["scale"] == "preference"} == {"right"}
        assert {r["text"] for r in rows if r["scale"] == "esa"} == {'[{"start": 0, "end": 1, "severity": "minor"}]'}
        assert len(study_preferences(db, study_id)) == 30 + 3  # ann's answers and the ties by construction


def test_a_package_keeps_judging_blind_and_merges_back_the_pairs(db, tmp_path):
    study_id, _ = make_study(db)
    package = tmp_path / "ann.parastudio"
    ops.export_package(db, study_id, "ann", package)
    with open_database(package) as copy:
        with copy.reading() as session:
            shown = {name for p in session.scalars(select(PreferencePair)) for name in (p.left_system, p.right_system)}
        assert shown and not shown & set(SYSTEMS)  # the package cannot tell which system is on which side
        copy_study = ops.find_study(copy)
        judged = judge_pairs_and_spans(copy, copy_study, "ann")
    merged = ops.merge_package(db, package)
    assert merged.applied == judged > 0 and not merged.conflicts
    mine = [j for j in study_preferences(db, study_id) if j.annotator == "ann"]
    assert len(mine) == judged and all(j.value == "right" for j in mine)
    with db.reading() as session:
        assert None not in set(session.scalars(select(Judgment.pair_id).where(Judgment.origin == "merge")))


def test_a_later_assignment_tops_every_pair_up_to_the_same_number_of_sentences(db):
    """Cross-batch balance: sentences imported after the first assignment, and a system pair named later, bring
    every pair compared to the same number of sentences, never drawing a sentence twice for a pair."""
    study_id = ops.create_study(db, "batches", criteria=["preference"], seed=7)
    first = [row for row in candidate_rows(12) if int(row.sentence_id) < 6]
    ops.import_candidates(db, study_id, first)
    report = ops.assign(db, study_id, ["ann", "bob"], system_pairs=[("alpha", "beta")])
    assert report.pairs.sentences == {"alpha:beta": 6} and report.pairs.totals == {"alpha:beta": 6}
    # Sentences 6-11 arrive (gamma misses 11), and every pair is asked for: alpha:beta had 6 of its 12 shared,
    # alpha:gamma and beta:gamma share 11 each, so all three end with 11.
    ops.import_candidates(db, study_id, [row for row in candidate_rows(12) if int(row.sentence_id) >= 6])
    report = ops.assign(db, study_id, ["ann", "bob"])
    assert report.pairs.sentences == {"alpha:beta": 5, "alpha:gamma": 11, "beta:gamma": 11}
    assert report.pairs.totals == {"alpha:beta": 11, "alpha:gamma": 11, "beta:gamma": 11}
    assert report.pairs.unbalanced == {}
    with db.reading() as session:
        pairs = session.scalars(select(PreferencePair)).all()
    per_system_pair = Counter(frozenset((p.left_system, p.right_system)) for p in pairs)
    assert set(per_system_pair.values()) == {11}
    drawn = Counter((frozenset((p.left_system, p.right_system)), p.source_id) for p in pairs)
    assert set(drawn.values()) == {1}
    # Nothing new to draw: a third assignment adds no pair.
    assert ops.assign(db, study_id, ["ann", "bob"]).pairs.sentences == {}


def test_a_pair_already_past_the_others_is_reported_unbalanced(db):
    study_id = ops.create_study(db, "batches", criteria=["preference"], seed=7)
    ops.import_candidates(db, study_id, candidate_rows(12))
    ops.assign(db, study_id, ["ann"], system_pairs=[("alpha", "beta")])  # 12 sentences: gamma is not in it
    report = ops.assign(db, study_id, ["ann"])
    assert report.pairs.sentences == {"alpha:gamma": 11, "beta:gamma": 11}
    assert report.pairs.unbalanced == {"alpha:beta": 12}


def test_report_strengths_and_intervals_are_an_independent_fit_of_the_judgments(tmp_path):
    """`parastudio report` on a judged study: Bradley–Terry strengths and their 95 % intervals against a fit
    written here from the stored pairs (the likelihood minimized by scipy, not choix), resampling the source
    sentences as documented (sorted ids, numpy's default_rng(seed 0), n draws with replacement per replicate)."""
    from scipy.optimize import minimize

    path = tmp_path / "bt.sqlite"
    with open_database(path, create=True) as db:
        study_id, _ = make_study(db)
        ids = {name: annotator_id(db, name) for name in ("ann", "bob", "cy")}
        with db.reading() as session:
            pairs = {p.id: p for p in session.scalars(select(PreferencePair))}
            sentence_of = {p.id: session.get(SourceSentence, p.source_id).external_id for p in pairs.values()}
        # Each judge prefers by a rule of the systems and the sentence: alpha over beta, beta over gamma, gamma
        # over alpha on sentences divisible by 3 (else alpha), bob ties beta:gamma on odd sentences.
        winner_of = {}
        for name, judge in ids.items():
            while (item := ops.next_item(db, judge)) is not None:
                with db.reading() as session:
                    pair = pairs[session.get(Assignment, item.assignment_id).pair_id]
                systems = {pair.left_system, pair.right_system}
                s = int(sentence_of[pair.id])
                if systems == {"alpha", "beta"}:
                    winner = "alpha"
                elif systems == {"beta", "gamma"}:
                    winner = None if name == "bob" and s % 2 else "beta"
                else:
                    winner = "gamma" if s % 3 == 0 else "alpha"
                value = "tie" if winner is None else ("left" if pair.left_system == winner else "right")
                ops.record_judgment(db, item.assignment_id, value)
                winner_of[(name, pair.id)] = winner
    code, out, err = run_cli("report", path, "--format", "json", "--bootstrap", "40")
    assert code == 0, err
    rows = {row[0]: row[1:4] for row in
            next(t for t in json.loads(out)["tables"] if t["key"] == "preference_bradley_terry")["rows"]}

    systems = ["alpha", "beta", "gamma"]
    sentences = sorted({sentence_of[pair_id] for _name, pair_id in winner_of})
    per_sentence = np.zeros((len(sentences), 3, 3))
    for (_name, pair_id), winner in winner_of.items():
        if winner is not None:
            pair = pairs[pair_id]
            loser = ({pair.left_system, pair.right_system} - {winner}).pop()
            per_sentence[sentences.index(sentence_of[pair_id]), systems.index(winner), systems.index(loser)] += 1
    prior = 0.5 * (1 - np.eye(3))  # every pair of systems was compared

    def fit(wins):
        def negative_log_likelihood(free):
            theta = np.concatenate([[0.0], free])
            return float(np.sum(wins * np.logaddexp(0.0, -(theta[:, None] - theta[None, :]))))
        theta = np.concatenate([[0.0], minimize(negative_log_likelihood, np.zeros(2), method="BFGS",
                                                 options={"gtol": 1e-10}).x])
        return theta - theta.mean()

    rng = np.random.default_rng(0)
    draws = np.array([fit(per_sentence[rng.integers(0, len(sentences), len(sentences))].sum(axis=0) + prior)
                      for _ in range(40)])
    expected = zip(fit(per_sentence.sum(axis=0) + prior), np.percentile(draws, 2.5, axis=0),
                   np.percentile(draws, 97.5, axis=0))
    for name, (strength, low, high) in zip(systems, expected):
        assert rows[name] == pytest.approx([strength, low, high], abs=1e-4)


def test_report_from_an_exported_csv_gives_the_studys_strengths_without_its_ties_by_construction(tmp_path):
    """A judgments CSV (study export-judgments) reports the same Bradley–Terry strengths, intervals and sign
    tests as the study it came from (ties are left out of both fits), but lacks the 3 ties by construction of
    beta and gamma (sentences 0, 4 and 8: the same string), which are never shown, so never exported."""
    path = tmp_path / "csv.sqlite"
    with open_database(path, create=True) as db:
        study_id, _ = make_study(db)
        for name in ("ann", "bob", "cy"):
            judge = annotator_id(db, name)
            while (item := ops.next_item(db, judge)) is not None:
                # Prefer the text whose system name sorts first (alpha > beta > gamma), bob ties on odd ids.
                left, right = item.left.split()[0], item.right.split()[0]
                value = "tie" if name == "bob" and item.assignment_id % 2 else ("left" if left < right else "right")
                ops.record_judgment(db, item.assignment_id, value)
    export = tmp_path / "judgments.csv"
    assert run_cli("study", "export-judgments", "--db", path, "-o", export)[0] == 0

    def tables(source):
        code, out, err = run_cli("report", source, "--format", "json", "--bootstrap", "60")
        assert code == 0, err
        return {t["key"]: t for t in json.loads(out)["tables"]}

    from_study, from_csv = tables(path), tables(export)
    study_rows = {row[0]: row for row in from_study["preference_bradley_terry"]["rows"]}
    csv_rows = {row[0]: row for row in from_csv["preference_bradley_terry"]["rows"]}
    assert set(csv_rows) == {"alpha", "beta", "gamma"}
    for system in csv_rows:
        assert csv_rows[system][1:6] == pytest.approx(study_rows[system][1:6])  # strengths, intervals, won, lost
        assert csv_rows[system][6] == study_rows[system][6] - (0 if system == "alpha" else 3)
    assert "From a judgments CSV" in from_csv["preference_bradley_terry"]["note"]
    study_signs = {tuple(row[:2]): row for row in from_study["preference_sign_tests"]["rows"]}
    for row in from_csv["preference_sign_tests"]["rows"]:
        assert row[3:5] == study_signs[tuple(row[:2])][3:5] and row[6] == pytest.approx(study_signs[tuple(row[:2])][6])
