"""Inspecting failures: verdicts, candidate rows, details with pivots and scores, rule blame and pruning."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.inspection.candidate_rows import candidate_rows, filter_rows
from parastudio.core.inspection.details import candidate_details, pivot_phrases
from parastudio.core.inspection.rule_blame import read_prune_list, rule_blame
from parastudio.core.stats.verdicts import ACCEPTED, DISAGREED, REJECTED, candidate_verdict, criterion_verdict
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database


@given(st.lists(st.sampled_from(["yes", "no"]), min_size=1, max_size=5))
def test_a_criterion_is_accepted_only_when_every_judge_accepts(labels):
    expected = ACCEPTED if set(labels) == {"yes"} else REJECTED if set(labels) == {"no"} else DISAGREED
    assert criterion_verdict(labels) == expected


def test_on_a_scale_the_midpoint_counts_as_acceptable():
    assert criterion_verdict(["2", "3"], ["1", "2", "3"]) == ACCEPTED
    assert criterion_verdict(["1", "1"], ["1", "2", "3"]) == REJECTED
    assert criterion_verdict(["1", "3"], ["1", "2", "3"]) == DISAGREED
    assert criterion_verdict(["2", "3"], ["1", "2", "3", "4", "5"]) == DISAGREED
    assert candidate_verdict([ACCEPTED, REJECTED]) == REJECTED
    assert candidate_verdict([ACCEPTED, DISAGREED]) == DISAGREED
    assert candidate_verdict([ACCEPTED, None, ACCEPTED]) == ACCEPTED


def segment(src, tgt, source, target, p, identity=False):
    return {"src": src, "tgt": tgt, "source": source, "target": target, "p": p, "identity": identity}


def derivation(tokens_in, rewrites):
    """A derivation of source tokens with {source index: (target words, p)} single-word rewrites."""
    out, position = [], 0
    for i, word in enumerate(tokens_in):
        target, p = rewrites.get(i, (word, 1.0))
        out.append(segment([i, i + 1], [position, position + 1], word, target, p, identity=i not in rewrites))
        position += 1
    return out


@pytest.fixture
def judged(tmp_path):
    """Six sentences, two systems; the rule 'dog -> hound' is in every rejected candidate."""
    yield from _judged_study(open_database(tmp_path / "s.sqlite", create=True))


@pytest.fixture
def judged_on_postgres(postgres_url):
    yield from _judged_study(open_database(postgres_url, create=True))


def _judged_study(db):
    study = ops.create_study(db, "inspect", criteria=["meaning"])
    rows = []
    for s in range(6):
        source = f"the dog runs home {s}".split()
        bad = derivation(source, {1: ("hound", 0.2)})
        good = derivation(source, {2: ("walks", 0.5)})
        for system, deriv in (("beam", bad if s < 4 else good), ("mcpg-true", good)):
            text = " ".join(seg["target"] for seg in deriv)
            rows.append(ops.CandidateRow(sentence_id=str(s), text=text, system=system, source=" ".join(source),
                                         derivation=deriv, model_score=-3.0 if system == "beam" else -2.0,
                                         true_score=-2.5 if system == "beam" else -2.0))
    ops.import_candidates(db, study, rows)
    ops.assign(db, study, ["a", "b"])
    for name in ("a", "b"):
        annotator = ops.find_annotator(db, study, name)
        while (item := ops.next_item(db, annotator)) is not None:
            ops.record_judgment(db, item.assignment_id, "no" if "hound" in item.candidate else "yes")
    yield db, study
    db.close()


def test_every_judged_candidate_is_a_row_with_its_verdict_rules_and_search_error(judged):
    db, study = judged
    rows = candidate_rows(db, study)
    assert len(rows) == 4 + 6  # four 'hound' rewrites (beam), a 'walks' rewrite of each sentence
    rejected = filter_rows(rows, verdict=REJECTED)
    assert {row.text.split()[1] for row in rejected} == {"hound"} and len(rejected) == 4
    shared = [row for row in rows if row.verdict == ACCEPTED and len(row.systems) == 2]
    assert len(shared) == 2  # sentences 4 and 5: one string both systems made, one row
    assert all(row.rules == 1 for row in rows)
    # beam reported -3.0 where the exact true score is -2.5: seed 000's search error.
    assert all(row.search_error for row in rejected)
    assert filter_rows(rows, system="mcpg-true", verdict=REJECTED) == []


def test_postgres_lists_the_same_rows_as_sqlite(judged, judged_on_postgres):
    def seen(db, study):
        return sorted((row.sentence, row.text, row.systems, row.verdict, tuple(sorted(row.criteria.items())),
                       tuple((k, tuple(v)) for k, v in sorted(row.labels.items())), row.rules, row.search_error)
                      for row in candidate_rows(db, study))

    assert seen(*judged_on_postgres) == seen(*judged)


def test_rule_blame_puts_the_rule_of_every_rejection_first_with_fishers_p(judged):
    from scipy.stats import fisher_exact

    db, study = judged
    blamed = rule_blame(db, study)
    top = blamed[0]
    assert (top.source, top.target, top.rejected, top.accepted) == ("dog", "hound", 4, 0)
    # 4 rejected and 6 accepted candidates in all; an independent computation of the one-sided test.
    assert top.p_value == pytest.approx(fisher_exact([[4, 0], [0, 6]], alternative="greater").pvalue)
    assert not any(rule.target == "walks" for rule in blamed)  # no rejected candidate applies it


def test_the_cli_lists_failures_and_writes_a_prune_list_that_prunes_the_table(judged, tmp_path, capsys):
    db, study = judged
    path = db.engine.url.database
    capsys.readouterr()
    assert main(["inspect", path, "--verdict", "rejected", "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 4 and all(row["verdict"] == "rejected" and row["search_error"] for row in rows)
    prune = tmp_path / "prune.txt"
    assert main(["inspect-rules", path, "--top", "1", "--prune-list", str(prune)]) == 0
    assert read_prune_list(prune) == {("dog", "hound")}
    table = tmp_path / "table.txt"
    table.write_text("dog ||| hound ||| 0.2\ndog ||| canine ||| 0.3\nruns ||| walks ||| 0.5\n", encoding="utf-8")
    assert main(["table", "prune", str(table), "--list", str(prune), "-o", str(tmp_path / "pruned.txt")]) == 0
    assert (tmp_path / "pruned.txt").read_text().splitlines() == ["dog ||| canine ||| 0.3", "runs ||| walks ||| 0.5"]


def test_pivot_with_a_prune_list_leaves_those_pairs_out(tmp_path):
    bilingual = tmp_path / "bi.txt"
    # e ||| f ||| p(e|f) lex(e|f) p(f|e) lex(f|e)
    bilingual.write_text("the dog ||| el perro ||| 0.6 0.5 0.7 0.4\nthe hound ||| el perro ||| 0.4 0.3 0.3 0.2\n"
                         "the canine ||| el can ||| 0.5 0.5 0.5 0.5\nthe dog ||| el can ||| 0.5 0.5 0.3 0.5\n",
                         encoding="utf-8")
    prune = tmp_path / "prune.txt"
    prune.write_text("the dog ||| the hound\n", encoding="utf-8")
    assert main(["pivot", str(bilingual), "-o", str(tmp_path / "all.txt")]) == 0
    assert main(["pivot", str(bilingual), "-o", str(tmp_path / "pruned.txt"), "--prune", str(prune)]) == 0
    everything = {tuple(line.split(" ||| ")[:2]) for line in (tmp_path / "all.txt").read_text().splitlines()}
    kept = {tuple(line.split(" ||| ")[:2]) for line in (tmp_path / "pruned.txt").read_text().splitlines()}
    assert ("the dog", "the hound") in everything and everything - kept == {("the dog", "the hound")}


def test_pivot_phrases_add_up_to_the_pivot_probability(tmp_path):
    bilingual = tmp_path / "bi.txt"
    bilingual.write_text("the dog ||| el perro ||| 0.6 0.5 0.7 0.4\nthe hound ||| el perro ||| 0.4 0.3 0.3 0.2\n"
                         "the hound ||| el can ||| 0.5 0.5 0.5 0.5\nthe dog ||| el can ||| 0.5 0.5 0.3 0.5\n",
                         encoding="utf-8")
    assert main(["pivot", str(bilingual), "-o", str(tmp_path / "para.txt")]) == 0
    probability = next(float(line.split(" ||| ")[2].split()[0]) for line in
                       (tmp_path / "para.txt").read_text().splitlines() if line.startswith("the dog ||| the hound"))
    table = ParaphraseTable.load(bilingual)
    terms = pivot_phrases("the dog", "the hound", table, limit=None)
    assert [f for f, _ in terms] == ["el perro", "el can"]
    assert math.fsum(term for _, term in terms) == pytest.approx(probability)


def test_details_show_the_derivation_scores_side_by_side_and_every_judge(judged, tiny_lm):
    from parastudio.core.engine.lm.language_model import LanguageModel

    db, study = judged
    row = next(r for r in candidate_rows(db, study) if r.verdict == REJECTED)
    from parastudio.core.engine.tables.rules import Rule

    rules = ParaphraseTable([])  # the rules the candidates were made with
    rules.add(Rule(("dog",), ("hound",), 0.2))
    rules.add(Rule(("runs",), ("walks",), 0.5))
    lm = LanguageModel(tiny_lm["binary"])
    details = candidate_details(db, row.candidate_id, table=rules, lm=lm)
    assert [(s.source, s.target, s.probability) for s in details.steps] == [("dog", "hound", 0.2)]
    assert details.steps[0].log10_share == pytest.approx(1.0)
    assert details.changed_source == {1} and details.changed_candidate == {1}
    assert details.lm_log10 == pytest.approx(lm.score(row.text))
    assert details.channel_log10 == pytest.approx(lm.score(row.text) + math.log10(0.2))
    truth = TrueScorer(rules, lm).score(row.source.split(), row.text.split())
    assert details.true_log10 == pytest.approx(truth.log10_score)
    assert {(j.annotator, j.value) for j in details.judges} == {("a", "no"), ("b", "no")}
    assert details.search_error


def test_details_show_each_rules_pivot_phrases_from_the_bilingual_table(judged, tmp_path):
    db, study = judged
    row = next(r for r in candidate_rows(db, study) if r.verdict == REJECTED)
    bilingual = tmp_path / "bi.txt"
    bilingual.write_text("dog ||| perro ||| 0.6 0.5 0.7 0.4\nhound ||| perro ||| 0.4 0.3 0.3 0.2\n"
                         "hound ||| can ||| 0.5 0.5 0.5 0.5\ndog ||| can ||| 0.5 0.5 0.2 0.5\n", encoding="utf-8")
    details = candidate_details(db, row.candidate_id, bilingual=ParaphraseTable.load(bilingual))
    (step,) = details.steps
    # p(f|dog) p(hound|f): perro 0.7 x 0.4, can 0.2 x 0.5
    assert [(f, pytest.approx(term)) for f, term in step.pivots] == [("perro", 0.28), ("can", 0.1)]


@given(st.integers(0, 200), st.integers(1, 200))
def test_the_wilson_interval_holds_the_rate_and_stays_in_0_1(successes, n):
    from parastudio.core.inspection.plots import wilson_interval

    successes = min(successes, n)
    low, high = wilson_interval(successes, n)
    assert 0.0 <= low <= successes / n + 1e-12 and successes / n - 1e-12 <= high <= 1.0


def test_inspect_rules_shows_the_pivot_phrases_behind_each_blamed_rule(judged, tmp_path, capsys):
    db, study = judged
    bilingual = tmp_path / "bi.txt"
    bilingual.write_text("dog ||| perro ||| 0.6 0.5 0.7 0.4\nhound ||| perro ||| 0.4 0.3 0.3 0.2\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["inspect-rules", db.engine.url.database, "--top", "1", "--bilingual", str(bilingual), "--json"]) == 0
    (top,) = json.loads(capsys.readouterr().out)
    assert (top["source"], top["target"]) == ("dog", "hound")
    assert [(p["pivot"], pytest.approx(p["term"])) for p in top["pivots"]] == [("perro", 0.7 * 0.4)]



def test_the_rejection_plots_labels_stay_clear_of_its_title_at_a_rate_of_100_percent():
    """Issue 28 Found 2: the exported labels (13/13 over a bar at 100 %) overlapped the title."""
    from parastudio.core.inspection.candidate_rows import CandidateRow
    from parastudio.core.inspection.plots import rejection_rates_figure

    rows = [CandidateRow(candidate_id=n, item=str(n), sentence="s", source="a b", text="a c", systems=(system,),
                         verdict=REJECTED if n % 2 or system == "beam" else ACCEPTED, criteria={}, labels={},
                         source_length=2, rules=1, model_score=None, true_score=None)
            for n in range(13) for system in ("beam", "mcpg-true")]
    figure = rejection_rates_figure(rows)
    axes = figure.axes[0]
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(figure).get_renderer()
    title = axes.title.get_window_extent(renderer)
    labels = [text.get_window_extent(renderer) for text in axes.texts]
    assert len(labels) == 2
    assert [text.get_text() for text in axes.texts] == ["13/13", "6/13"]
    assert not any(label.overlaps(title) for label in labels)
    assert all(axes.get_window_extent(renderer).contains(label.x0, label.y1) for label in labels)


def test_systems_on_a_sentence_each_with_its_rows_by_rank_and_its_tallies():
    """The per-system tallies of Inspect's 'Systems on this sentence', out of the widget (issue 28 Found 9)."""
    from parastudio.core.inspection.candidate_rows import CandidateRow
    from parastudio.core.inspection.sentence_systems import systems_on_sentence

    def row(n, verdict, *producers):
        return CandidateRow(candidate_id=n, item=str(n), sentence="s", source="a b", text=f"t{n}",
                            systems=tuple(system for system, _ in producers), verdict=verdict, criteria={},
                            labels={}, source_length=2, rules=1, model_score=None, true_score=None,
                            producers=tuple((n, system, rank, None, None) for system, rank in producers))

    shared = row(1, REJECTED, ("mcpg", 0), ("beam", 1))
    rows = [row(2, ACCEPTED, ("beam", 0)), shared, row(3, None, ("beam", 2)), row(4, ACCEPTED, ("mcpg", 1))]
    columns = systems_on_sentence(rows)
    assert [c.system for c in columns] == ["beam", "mcpg"]
    beam, mcpg = columns
    assert [r.candidate_id for r in beam.rows] == [2, 1, 3] and (beam.judged, beam.rejected) == (3, 1)
    assert [r.candidate_id for r in mcpg.rows] == [1, 4] and (mcpg.judged, mcpg.rejected) == (2, 1)


def test_inspect_jsonl_carries_the_derivation_rule_by_rule_and_the_verdict_per_criterion(judged, capsys):
    """Issue 28 Deliver 3: the JSONL gave a rule count but not the derivation a researcher needs."""
    db, study = judged
    capsys.readouterr()
    assert main(["inspect", db.engine.url.database, "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 10
    for row in rows:
        [step] = row["derivation"]  # one rewrite each; the kept words are not rules
        words = row["source"].split()
        start, end = step["source_span"]
        assert " ".join(words[start:end]) == step["source"]
        assert (step["source"], step["target"], step["probability"]) in (("dog", "hound", 0.2), ("runs", "walks", 0.5))
        assert step["target"] in row["candidate"].split()
        assert row["criteria"] == {"meaning": row["verdict"]}
        assert row["verdict"] == ("rejected" if step["target"] == "hound" else "accepted")


@given(st.lists(st.integers(min_value=0, max_value=100), min_size=1, max_size=4))
def test_a_score_with_no_levels_gives_no_verdict(scores):
    """A DA or ESA score (0-100, no levels, so no midpoint) is neither an acceptance nor a rejection: a score of
    3 used to read "accepted" like a score of 97."""
    assert criterion_verdict([str(score) for score in scores], None) is None
    assert criterion_verdict([str(score) for score in scores], ["1", "2", "3"]) in (ACCEPTED, REJECTED, DISAGREED)


def test_a_direct_assessment_study_reads_no_verdict_from_its_scores(tmp_path):
    """Scores of 0 and 1 on DA are scores, not no and yes: no row reads accepted or rejected."""
    with open_database(tmp_path / "da.sqlite", create=True) as db:
        study = ops.create_study(db, "s", criteria=["da"])
        ops.import_candidates(db, study, [ops.CandidateRow(sentence_id=str(i), text=f"out {i}", system="x",
                                                           source=f"src {i}") for i in range(3)])
        ops.assign(db, study, ["j1", "j2"])
        for judge, scores in (("j1", ["0", "1", "97"]), ("j2", ["1", "0", "3"])):
            annotator = ops.find_annotator(db, study, judge)
            for score in scores:
                ops.record_judgment(db, ops.next_item(db, annotator).assignment_id, score)
        rows = candidate_rows(db, study)
    assert len(rows) == 3 and {row.verdict for row in rows} == {None}
