"""A pattern-pair study (seed 002 §3.4, §4.1, §4.4): made from a pattern table, judged, reported as Table 2
and Table 3, and shown in the annotation screen with its slots marked."""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict

import pytest

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.study_builder import PatternModels, StudyPlan, study_from_pattern_table
from parastudio.core.tablebuild.patterns.scoring import PAPER_LAMBDAS, PAPER_MLE_THRESHOLD, log_score
from parastudio.core.tablebuild.patterns.table_builder import build_pattern_table
from parastudio.core.tablebuild.patterns.table_file import read_table
from parastudio.core.vocabulary import PATTERN_MODELS, PATTERN_TYPES
from tests.pattern_fixtures import figure_sentences

TYPES = [value for value, _ in PATTERN_TYPES]


@pytest.fixture()
def pattern_study(tmp_path):
    table = tmp_path / "patterns.gz"
    build_pattern_table(figure_sentences(), table)
    pairs = list(read_table(table))
    # Seed 002's λ for the LL-model with T = -3 keeps a strict subset of the MLE-model's pairs (T' = -5.1 keeps
    # all), so some pairs are the MLE-model's alone.
    models = PatternModels(ll_threshold=-3.0, sample=1000)
    db_path = tmp_path / "study.sqlite"
    with open_database(db_path, create=True) as db:
        plan = StudyPlan(name="patterns", annotators=["a", "b"], seed=1, repeat_fraction=0, control_fraction=0,
                         application=None)
        study = study_from_pattern_table(lambda *_: None, db, plan, str(table), models)
    return db_path, study, pairs


def _judge_everything(db_path, study):
    """A scripted pair of judges: a says yes to pairs whose e2 has 'consider', b to every pair; types by item."""
    with open_database(db_path) as db:
        for name in ("a", "b"):
            annotator = ops.find_annotator(db, study, name)
            while (item := ops.next_item(db, annotator)) is not None:
                if item.criterion == "correct":
                    value = "yes" if name == "b" or "consider" in item.candidate.split() else "no"
                else:
                    value = TYPES[len(item.candidate) % len(TYPES)]
                ops.record_judgment(db, item.assignment_id, value)


def test_the_study_mixes_both_models_blind_with_e1_as_source(pattern_study):
    db_path, study, pairs = pattern_study
    with open_database(db_path) as db:
        settings = ops.study_settings(db, study)
        assert settings["kind"] == "pattern-pairs" and settings["display"] == "tokenized"
        ll_kept = sum(log_score(p.features, PAPER_LAMBDAS) > -3.0 for p in pairs)
        assert 0 < ll_kept < len(pairs)
        assert settings["pattern_models"]["LL-model"]["pairs_extracted"] == ll_kept
        assert settings["pattern_models"]["MLE-model"]["pairs_extracted"] == sum(
            math.log(p.p_mle) > PAPER_MLE_THRESHOLD for p in pairs) == len(pairs)
        annotator = ops.find_annotator(db, study, "a")
        item = ops.next_item(db, annotator)
        assert item.criterion in ("correct", "type") and item.shows_source
        assert (item.source, item.candidate) in {(p.e1, p.e2) for p in pairs}
        assert not any(name in json.dumps(item.__dict__, default=str) for name in PATTERN_MODELS)


def test_report_gives_seed002_tables_2_and_3(pattern_study, tmp_path, capsys):
    db_path, study, pairs = pattern_study
    _judge_everything(db_path, study)
    exported = tmp_path / "judgments.csv"
    assert main(["study", "export-judgments", "--db", str(db_path), "-o", str(exported)]) == 0
    capsys.readouterr()
    assert main(["report", str(db_path), "--format", "json", "--bootstrap", "0"]) == 0
    tables = {t["key"]: t for t in json.loads(capsys.readouterr().out)["tables"]}

    # Independent computation from the exported rows.
    votes = defaultdict(lambda: defaultdict(list))  # system -> item -> [yes?]
    types = defaultdict(lambda: defaultdict(int))  # system -> type -> count (correct by the same judge)
    rows = list(csv.DictReader(open(exported, encoding="utf-8")))
    correct = {(r["item"], r["annotator"]): r["value"] for r in rows if r["criterion"] == "correct"}
    for row in rows:
        for system in row["systems"].split(";"):
            if row["criterion"] == "correct":
                votes[system][row["item"]].append(row["value"] == "yes")
            elif correct[(row["item"], row["annotator"])] == "yes":
                types[system][row["value"]] += 1
    table2 = {row[0]: row for row in tables["seed002_table2"]["rows"]}
    assert set(table2) == set(PATTERN_MODELS)
    for system, items in votes.items():
        judgments = [v for vs in items.values() for v in vs]
        majority = [sum(vs) * 2 > len(vs) for vs in items.values()]
        assert table2[system][2] == len(items) and table2[system][3] == len(judgments)
        assert table2[system][4] == pytest.approx(sum(judgments) / len(judgments))
        assert table2[system][5] == pytest.approx(sum(majority) / len(majority))
    # #PP (seed 002 Table 2's first column): what each model extracted from the table, not what was judged.
    assert tables["seed002_table2"]["columns"][1].startswith("#PP")
    with open_database(db_path) as db:
        models = ops.study_settings(db, study)["pattern_models"]
    assert {system: row[1] for system, row in table2.items()} == {
        name: models[name]["pairs_extracted"] for name in PATTERN_MODELS}
    assert table2["LL-model"][1] < table2["MLE-model"][1] == len(pairs)
    table3 = {row[0]: row for row in tables["seed002_table3"]["rows"]}
    labels = dict(PATTERN_TYPES)
    for column, system in enumerate(tables["seed002_table3"]["columns"][3:], start=3):
        name = system.removesuffix(": count")
        for value in TYPES:
            assert table3[labels[value]][column] == types[name][value]


def test_the_annotation_screen_marks_slots(pattern_study, qtbot):
    pytest.importorskip("pytestqt")
    from parastudio.desktop.annotation_screen import AnnotationScreen
    from parastudio.desktop.changed_spans import SLOT_STYLE
    from parastudio.desktop.judgment_writer import JudgmentWriter

    db_path, study, _ = pattern_study
    with open_database(db_path) as db:
        writer = JudgmentWriter(db)
        screen = AnnotationScreen(db, writer)
        qtbot.addWidget(screen)
        try:
            screen.show()
            with qtbot.waitSignal(screen.open_done, timeout=120_000):
                screen.open(study, "a", "patterns")
            source, candidate = screen.source_label.text(), screen.candidate_label.text()
            slot = next(token for token in screen.item.source.split() if token.startswith("["))
            assert f'<span style="{SLOT_STYLE}">{slot}</span>' in source
            assert f'<span style="{SLOT_STYLE}">{slot}</span>' in candidate
        finally:
            screen.close_session()  # stops the heartbeat before the writer closes
            screen.close()
            writer.close()


def test_cli_makes_the_study_and_refuses_an_empty_sample(tmp_path, capsys):
    table = tmp_path / "patterns.gz"
    build_pattern_table(figure_sentences(), table)
    db = tmp_path / "cli.sqlite"
    # The defaults are seed 002's models (LL: its λ, T = -10.002; MLE: T' = -5.1); on this table both keep
    # every pair, and a Table 2 of a model against itself is refused.
    assert main(["patterns", "study", str(table), "--db", str(db), "--annotators", "a,b", "--sample", "3"]) == 2
    assert "both models extract the same 10 pairs" in capsys.readouterr().err
    assert main(["patterns", "study", str(table), "--db", str(db), "--annotators", "a,b", "--sample", "3",
                 "--ll-threshold", "-3"]) == 0
    with open_database(db) as opened:
        study = ops.find_study(opened)
        models = ops.study_settings(opened, study)["pattern_models"]
        assert set(models) == set(PATTERN_MODELS)
        assert models["LL-model"]["lambdas"] == list(PAPER_LAMBDAS) and models["LL-model"]["threshold"] == -3
        assert models["MLE-model"]["lambdas"] == [1, 1, 0, 0] and models["MLE-model"]["threshold"] == -5.1
        items = ops.list_items(opened, study)
        assert 0 < len(items) <= 6
    assert main(["patterns", "study", str(table), "--db", str(tmp_path / "none.sqlite"), "--name", "x",
                 "--annotators", "a", "--ll-threshold", "1000", "--mle-threshold", "1000"]) == 2
    assert "neither model extracts a pair" in capsys.readouterr().err


def test_the_default_models_are_seed_002s_and_identical_models_are_refused(tmp_path):
    from parastudio.core.tablebuild.patterns.scoring import PAPER_THRESHOLD

    assert PatternModels() == PatternModels(ll_lambdas=PAPER_LAMBDAS, ll_threshold=PAPER_THRESHOLD,
                                            mle_threshold=PAPER_MLE_THRESHOLD)
    table = tmp_path / "patterns.gz"
    build_pattern_table(figure_sentences(), table)
    plan = StudyPlan(name="same", annotators=["a"], seed=1, repeat_fraction=0, control_fraction=0, application=None)
    with open_database(tmp_path / "same.sqlite", create=True) as db:
        # T = T' = -inf: both models keep every pair (the old default), so Table 2 would say nothing.
        with pytest.raises(ValueError, match="both models extract the same"):
            study_from_pattern_table(lambda *_: None, db, plan, str(table),
                                     PatternModels(ll_threshold=-math.inf, mle_threshold=-math.inf))
        with pytest.raises(LookupError):
            ops.find_study(db)  # nothing half-made
