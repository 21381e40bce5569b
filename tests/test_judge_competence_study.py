"""Judge competence on a real study: ``study qc`` gives each judge's MACE or Dawid-Skene competence per criterion
(the figures a fit of the same labels gives), ``export-devset --aggregate mace|dawid-skene`` records the model's
label and probability in each entry (the file still valid and read by ``datasets``), and a study's competence
watch names the judges under its minimum."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from parastudio.core.cli import main
from parastudio.core.stats.judge_competence import CompetenceModel
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.study_judgments import competence_alert, competence_watch

SOURCE = "the dog runs after the young cat ."
JUDGES = ("good1", "good2", "random", "yes")


def _answer(truth: dict, rng: random.Random):
    def answer(name: str, item) -> str:
        if item.scale == "da":
            return "70"
        if name == "yes":
            return "yes" if item.scale == "binary" else "3"
        if name == "random":
            return rng.choice(["yes", "no"] if item.scale == "binary" else ["1", "2", "3"])
        return truth[(item.item, item.criterion)]
    return answer


@pytest.fixture
def study_path(tmp_path):
    path = tmp_path / "s.sqlite"
    db = open_database(path, create=True)
    study_id = ops.create_study(db, "planted", criteria=["fluency", "adequacy", "da"], judges_per_item=4, seed=1,
                                uid="00000000-0000-4000-8000-000000000043")
    rows = [ops.CandidateRow(sentence_id=str(i), text=f"the dog number {i} runs .", system="beam", source=SOURCE,
                             rank=1, model_score=-1.0, true_score=-1.0, derivation=None, params={}, line=i + 1)
            for i in range(16)]
    ops.import_candidates(db, study_id, rows)
    ops.assign(db, study_id, list(JUDGES))
    rng = random.Random(0)
    truth: dict = {}
    answer = _answer(truth, rng)
    for name in JUDGES:
        annotator = ops.find_annotator(db, study_id, name)
        while (item := ops.next_item(db, annotator)) is not None:
            key = (item.item, item.criterion)
            truth.setdefault(key, rng.choice(["yes", "no"] if item.scale == "binary" else ["1", "2", "3"]))
            ops.record_judgment(db, item.assignment_id, answer(name, item))
    db.close()
    return str(path)


def _labels(path: str, criterion: str) -> dict:
    """item -> judge -> label of one criterion, read apart from the code under test."""
    db = open_database(path)
    with db:
        study_id = ops.find_study(db, None)
        labels: dict = {}
        for row in ops.judgment_records(db, study_id):
            if row["criterion"] == criterion:
                labels.setdefault(row["item"], {})[row["annotator"]] = row["value"]
    return labels


@pytest.mark.parametrize("model", ["mace", "dawid-skene"])
def test_qc_gives_each_judges_competence_beside_consistency(study_path, capsys, model):
    assert main(["study", "qc", "--db", study_path, "--json", "--competence", model]) == 0
    reports = {r["annotator"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(reports) == set(JUDGES)
    for criterion in ("fluency", "adequacy"):
        expected = CompetenceModel(model).fit(_labels(study_path, criterion), criterion=criterion)
        for name in JUDGES:
            entry = reports[name]["competence"][criterion]
            assert entry["competence"] == pytest.approx(expected.judges[name].competence, abs=1e-12)
            assert (entry["judgments"], entry["items"], entry["criterion_judgments"]) == (16, 16, 64)
            assert entry["signature"] == expected.signature
        assert "consistency" in reports["good1"]  # beside the old figures, not instead of them
    assert "da" not in reports["good1"]["competence"]
    assert main(["study", "qc", "--db", study_path, "--competence", model, "--min-competence", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "consistency" in out and "fitted on 16 items, 64 judgments" in out
    assert "criterion da: direct assessment is a 0-100 score, not a label: MACE and Dawid-Skene do not apply" in out
    flagged, criterion = {}, None
    for line in out.splitlines():
        if line.startswith("judge competence"):
            criterion = line.split("criterion ")[1].split(":")[0]
        elif criterion and line.split() and line.split()[0] in JUDGES:
            flagged[(line.split()[0], criterion)] = line.endswith("BELOW 0.5")
    assert flagged == {(n, c): reports[n]["competence"][c]["competence"] < 0.5
                       for n in JUDGES for c in ("fluency", "adequacy")}
    assert any(flagged.values()) and not all(flagged.values())  # the planted study has weak judges to name


@pytest.mark.parametrize("model", ["mace", "dawid-skene"])
def test_export_devset_records_the_models_label_and_probability(study_path, tmp_path, capsys, model):
    import datasets
    import jsonschema

    out = tmp_path / "dev.jsonl"
    assert main(["export-devset", study_path, "--aggregate", model, "-o", str(out)]) == 0
    schema = json.loads((Path(__file__).parent.parent / "docs" / "devset.schema.json").read_text())
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 16
    fits = {c: CompetenceModel(model).fit(_labels(study_path, c)) for c in ("fluency", "adequacy")}
    for record in records:
        jsonschema.validate(record, schema)
        assert record["aggregate"] == model
        for entry in record["judgments"]:
            fitted = fits[entry["criterion"]].items[record["item"]]
            assert (entry["label"], entry["status"]) == (fitted.label, model)
            assert entry["reason"].startswith(f"{model} probability {fitted.probability:.6f} (")
            assert "iterations 50" in entry["reason"]
    loaded = datasets.load_dataset("json", data_files=str(out), split="train")
    assert loaded.num_rows == 16 and loaded[0]["judgments"][0]["status"] == model
    # The same file on every run.
    again = tmp_path / "again.jsonl"
    assert main(["export-devset", study_path, "--aggregate", model, "-o", str(again)]) == 0
    assert again.read_bytes() == out.read_bytes()


def test_competence_watch_names_the_weak_judges(study_path, capsys):
    db = open_database(study_path)
    with db:
        assert competence_alert(db, ops.find_study(db, None)) is None  # not set: nothing said
    assert main(["study", "competence-watch", "--db", study_path, "--model", "dawid-skene", "--below", "0.9"]) == 0
    assert "Dawid-Skene competence 0.9" in capsys.readouterr().out
    db = open_database(study_path)
    with db:
        study_id = ops.find_study(db, None)
        assert competence_watch(db, study_id) == ("dawid-skene", 0.9)
        alert = competence_alert(db, study_id)
    expected = {c: CompetenceModel("dawid-skene").fit(_labels(study_path, c)) for c in ("fluency", "adequacy")}
    below = sorted((j.annotator, c, j.competence) for c, fit in expected.items() for j in fit.judges.values()
                   if j.competence < 0.9)
    assert below and alert == "Under Dawid-Skene competence 0.9: " + "; ".join(
        f"{name} ({c} {value:.2f})" for name, c, value in below)
    assert main(["study", "competence-watch", "--db", study_path, "--off"]) == 0
    db = open_database(study_path)
    with db:
        assert competence_watch(db, ops.find_study(db, None)) is None
    with pytest.raises(SystemExit) as refused:
        main(["study", "competence-watch", "--db", study_path, "--below", "1.5"])
    assert refused.value.code == 2 and "--below: expected a finite number from 0 to 1" in capsys.readouterr().err
