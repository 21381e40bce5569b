"""Direct assessment (issue 30) checked against independent computations: scipy, the krippendorff package,
and an exact enumeration of the signed-rank test."""

from __future__ import annotations

import csv
import itertools
import json
import random
import subprocess
import sys

import krippendorff
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.stats import t as student_t
from scipy.stats import zscore
from sqlalchemy import select

from parastudio.core.stats.direct_assessment import DAScore, DirectAssessment, judge_reliability, z_scores
from parastudio.core.store import operations as ops
from parastudio.core.store.assignment import degrade_text
from parastudio.core.store.database import open_database
from parastudio.core.store.models import Annotator, Assignment, Candidate

score_lists = st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(["i1", "i2", "i3", "i4", "i5"]),
                                 st.integers(0, 100)), min_size=4, max_size=40,
                       unique_by=lambda row: (row[0], row[1]))


@settings(max_examples=80, deadline=None)
@given(score_lists)
def test_z_scores_are_scipys_per_judge(rows):
    scores = [DAScore(item, judge, float(value), ("s",)) for judge, item, value in rows]
    ours = z_scores(scores)
    for judge in "abc":
        values = [s.score for s in scores if s.annotator == judge]
        assume(len(values) > 1 and len(set(values)) > 1)
        expected = zscore(values, ddof=1)
        got = [z for z, s in zip(ours, scores) if s.annotator == judge]
        assert np.allclose(got, expected)


@settings(max_examples=80, deadline=None)
@given(score_lists)
def test_alpha_interval_is_the_krippendorff_packages(rows):
    scores = [DAScore(item, judge, float(value)) for judge, item, value in rows]
    items = sorted({s.item for s in scores})
    matrix = np.full((3, len(items)), np.nan)
    for s in scores:
        matrix["abc".index(s.annotator), items.index(s.item)] = s.score
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    assume(pairable.any() and len(set(matrix[:, pairable][~np.isnan(matrix[:, pairable])])) > 1)
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
    assert DirectAssessment().alpha(scores) == pytest.approx(expected, abs=1e-9)


def test_system_means_and_intervals_by_hand():
    rng = random.Random(5)
    scores = []
    for item in range(30):
        system = "good" if item % 2 else "bad"
        for judge, offset in (("a", 0), ("b", 15)):
            scores.append(DAScore(str(item), judge, float(min(100, 40 + 20 * (system == "good") + offset
                                                               + rng.randint(-15, 15))), (system,)))
    rows = {r.system: r for r in DirectAssessment().systems(scores)}
    # Independent: scipy's zscore per judge, then per item the judges' mean, then a t interval per system.
    z = {}
    for judge in "ab":
        mine = [s for s in scores if s.annotator == judge]
        for s, value in zip(mine, zscore([s.score for s in mine], ddof=1)):
            z.setdefault(s.item, []).append(value)
    for system in ("good", "bad"):
        values = [np.mean(z[s.item]) for s in scores if s.systems == (system,) and s.annotator == "a"]
        low, high = student_t.interval(0.95, len(values) - 1, loc=np.mean(values),
                                       scale=np.std(values, ddof=1) / np.sqrt(len(values)))
        assert rows[system].mean_z == pytest.approx(np.mean(values))
        assert (rows[system].low, rows[system].high) == (pytest.approx(low), pytest.approx(high))
        assert rows[system].items == 15
    assert rows["good"].mean_z > 0 > rows["bad"].mean_z


def exact_one_sided_signed_rank_p(differences):
    """P(W+ >= observed) over all 2^n sign assignments of the ranks of |d| (no ties, no zeros)."""
    ranks = np.argsort(np.argsort(np.abs(differences))) + 1
    observed = ranks[np.asarray(differences) > 0].sum()
    hits = sum(1 for signs in itertools.product((0, 1), repeat=len(ranks))
               if (ranks * np.array(signs)).sum() >= observed)
    return hits / 2 ** len(ranks)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-60, 60).filter(lambda d: d != 0), min_size=1, max_size=10,
                unique_by=abs))
def test_reliability_is_the_exact_one_sided_signed_rank_test(differences):
    originals = [50.0 + d for d in differences]
    degraded = [50.0] * len(differences)
    result = judge_reliability("a", originals, degraded)
    assert result.pairs == len(differences)
    assert result.p_value == pytest.approx(exact_one_sided_signed_rank_p(differences))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["the", "cat", "sat", "on", "a", "mat", "today"]), min_size=0, max_size=12),
       st.integers(0, 10_000))
def test_degraded_text_drops_or_repeats_a_run_of_words(words, seed):
    result = degrade_text(" ".join(words), random.Random(seed))
    if len(words) < 2:
        assert result is None
        return
    text, how = result
    out = text.split()
    length = max(1, round(len(words) / 4))
    if how == "dropped":
        assert len(out) == len(words) - length
        assert any(words[:i] + words[i + length:] == out for i in range(len(words) - length + 1))
    else:
        assert len(out) == len(words) + length
        assert any(words[:i + length] + words[i:i + length] + words[i + length:] == out
                   for i in range(len(words) - length + 1))


def run_cli(*args):
    done = subprocess.run([sys.executable, "-m", "parastudio", *map(str, args)], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def test_a_da_study_end_to_end(tmp_path):
    """Scores in, degraded candidates planted, reliability in qc, z in the export, the report's DA table."""
    path = tmp_path / "da.sqlite"
    with open_database(path, create=True) as db:
        study_id = ops.create_study(db, "da", criteria=["da"], seed=2)
        ops.import_candidates(db, study_id, [
            ops.CandidateRow(sentence_id=str(s), text=f"{system} paraphrase of sentence number {s} here",
                             system=system, source=f"source sentence {s}") for s in range(15)
            for system in ("good", "bad")])
        ops.assign(db, study_id, ["careful", "careless"], control_fraction=0.4)
        with pytest.raises(ValueError, match="whole number from 0 to 100"):
            ops.record_judgment(db, 1, "101")
        rng = random.Random(0)
        with db.reading() as session:
            judges = dict(session.execute(select(Annotator.name, Annotator.id)).all())
            degraded_ids = set(session.scalars(select(Candidate.id).where(Candidate.kind == "control")))
            assert degraded_ids
            for candidate in session.scalars(select(Candidate).where(Candidate.kind == "control")):
                assert candidate.derivation[0]["control"]["degraded"] in ("dropped", "repeated")
        for name, judge in judges.items():
            while (item := ops.next_item(db, judge)) is not None:
                with db.reading() as session:
                    candidate = session.get(Assignment, item.assignment_id).candidate_id
                base = 75 if item.candidate.startswith("good") else 55
                if name == "careful" and candidate in degraded_ids:
                    base -= 35
                ops.record_judgment(db, item.assignment_id, str(base + rng.randint(-8, 8)))
    code, out, err = run_cli("study", "qc", "--db", path, "--json")
    assert code == 0, err
    reliability = {r["annotator"]: r["da_reliability"] for r in json.loads(out)}
    assert reliability["careful"]["p_value"] < 0.05 <= reliability["careless"]["p_value"]
    assert reliability["careful"]["pairs"] >= 5
    export = tmp_path / "judgments.csv"
    assert run_cli("study", "export-judgments", "--db", path, "-o", export)[0] == 0
    with open(export, newline="") as handle:
        rows = list(csv.DictReader(handle))
    for judge in judges:
        mine = [r for r in rows if r["annotator"] == judge]
        assert np.allclose([float(r["z"]) for r in mine], zscore([float(r["value"]) for r in mine], ddof=1))
    code, out, err = run_cli("report", path, "--format", "json", "--bootstrap", "0")
    assert code == 0, err
    tables = {t["key"]: t for t in json.loads(out)["tables"]}
    systems = [row[0] for row in tables["da_systems:da"]["rows"]]
    assert systems == ["good", "bad"] and "seed004_table1" not in tables
    # A 0-100 score gets its pair summary (weighted κ) but no 101-label confusion matrix or drift.
    assert "pairs:da" in tables and "κ quadratic" in [c["name"] if isinstance(c, dict) else c for c in tables["pairs:da"]["columns"]]
    assert not [key for key in tables if key.startswith(("confusion:da", "drift:da"))]
    devset = tmp_path / "da.jsonl"
    code, _, err = run_cli("export-devset", path, "--records", "da", "-o", devset)
    assert code == 0, err
    records = [json.loads(line) for line in devset.read_text().splitlines()]
    z_of = {(r["item"], r["annotator"]): float(r["z"]) for r in rows}
    assert len(records) == 30
    for record in records:
        item = record["id"].split(":")[1]
        assert [s["z"] for s in record["scores"]] == pytest.approx([z_of[(item, s["annotator"])]
                                                                     for s in record["scores"]])
        assert record["mean"] == pytest.approx(np.mean([s["score"] for s in record["scores"]]))
    code, _, err = run_cli("export-devset", path, "--records", "da", "--format", "csv", "-o", tmp_path / "x.csv")
    assert code == 2 and "JSONL only" in err
