"""``parastudio metrics`` and ``parastudio metaeval`` end to end (issue 43): on a study built from the demo's
candidates with scripted judges (three systems, so the system level is defined), on its exported judgments CSV,
and on the candidates file; each figure checked against sacrebleu, scipy or the project's own system scores."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest
import sacrebleu
from scipy.stats import pearsonr

from parastudio.core.demo import demo_files
from parastudio.core.stats.judgment_records import read_judgments
from parastudio.core.stats.system_scores import sentence_scores
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.study_builder import StudyPlan, make_study
from tests.test_output_targets import run

SENTENCES = 30
RESAMPLES = ["--bootstrap", "30", "--permutations", "30", "--seed", "5"]
STATISTICS = ("tau_b", "tau_b_item", "acc_eq_item", "system_pearson", "system_accuracy")


def _demo_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _candidate_records() -> list[dict]:
    """The demo's beam candidates of the first sentences as two systems (its 1-best and its 2nd best), and a third
    that copies the source (the same string as a 1-best that kept the source: one candidate, two systems)."""
    demo = demo_files()
    sources, references = _demo_lines(demo.test_sentences), _demo_lines(demo.test_references)
    records = []
    with open(demo.directory / "candidates.jsonl", encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if record["sentence_id"] < SENTENCES:
                record.update(system=f"beam-{record['rank']}", rank=1, params=None,
                              references=[references[record["sentence_id"]]])
                records.append(record)
    for number in range(SENTENCES):
        words = sources[number].split()
        records.append({"sentence_id": number, "system": "copy", "rank": 1, "text": sources[number],
                        "source": sources[number], "references": [references[number]],
                        "model_score": -2.0 * len(words), "true_score": None,
                        "derivation": [{"src": [i, i + 1], "tgt": [i, i + 1], "source": w, "target": w, "p": 1.0,
                                        "identity": True} for i, w in enumerate(words)]})
    return records


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """The study (judged by the scripted silver judges, never people), its candidates file and its judgments CSV."""
    from parastudio.core.experiments.silver_judges import judge_study

    folder = tmp_path_factory.mktemp("metrics")
    records = _candidate_records()
    candidates = folder / "candidates.jsonl"
    candidates.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    study = folder / "study.sqlite"
    rows = list(ops.read_candidates_jsonl(candidates))
    references = {str(r["sentence_id"]): r["references"] for r in records}
    with open_database(study, create=True) as db:
        study_id = make_study(db, StudyPlan("metrics", ["judge-1", "judge-2"], criteria=["fluency", "meaning"],
                                            seed=43), rows, str(candidates), None, references, "demo")
        judge_study(db, study_id)
    judgments = folder / "judgments.csv"
    status, _, err = run(["study", "export-judgments", "--db", str(study), "-o", str(judgments)])
    assert status == 0, err
    return {"folder": folder, "study": study, "candidates": candidates, "judgments": judgments, "records": records}


def _scores(path: Path) -> tuple[dict, list[dict], dict]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    segments = [r for r in lines[1:] if r["level"] == "segment"]
    systems = {r["system"]: r for r in lines[1:] if r["level"] == "system"}
    return lines[0]["provenance"], segments, systems


@pytest.fixture(scope="module")
def study_scores(judged):
    output = judged["folder"] / "study-scores.jsonl"
    status, _, err = run(["metrics", str(judged["study"]), "-o", str(output)])
    assert status == 0, err
    return _scores(output)


def test_metrics_of_a_study_are_sacrebleus_for_every_candidate_and_system(judged, study_scores):
    provenance, segments, systems = study_scores
    references = _demo_lines(demo_files().test_references)
    sources = _demo_lines(demo_files().test_sentences)
    expected_rows = {(str(r["sentence_id"]), r["system"], r["text"]) for r in judged["records"]}
    assert {(s["source_key"], s["system"], s["text"]) for s in segments} == expected_rows
    for segment in segments:
        refs = [references[segment["sentence_id"]]]
        assert segment["bleu"] == sacrebleu.sentence_bleu(segment["text"], refs).score
        assert segment["ter"] == sacrebleu.sentence_ter(segment["text"], refs).score
        assert segment["source_bleu"] == sacrebleu.sentence_bleu(segment["text"], [sources[segment["sentence_id"]]]).score
        assert segment["ibleu"] == pytest.approx(0.9 * segment["bleu"] - 0.1 * segment["source_bleu"])
    for system, record in systems.items():
        mine = [s for s in segments if s["system"] == system]
        hypotheses = [s["text"] for s in mine]
        streams = [[references[s["sentence_id"]] for s in mine]]
        assert record["bleu"] == pytest.approx(sacrebleu.corpus_bleu(hypotheses, streams).score, abs=1e-12)
        assert record["chrf"] == pytest.approx(sacrebleu.corpus_chrf(hypotheses, streams).score, abs=1e-12)
        assert record["candidates"] == len(mine) == SENTENCES
    assert systems["copy"]["true_score"] is None and systems["beam-1"]["true_score"] is not None
    study_bytes = judged["study"].read_bytes()
    assert provenance["inputs"]["input"]["sha256"] == hashlib.sha256(study_bytes).hexdigest()
    assert provenance["metrics"]["ter"]["better"] == "lower"
    assert provenance["metrics"]["bleu"]["signature"].startswith("nrefs:1|")


def test_metrics_of_a_candidates_file_with_a_references_file(judged, tmp_path):
    demo = demo_files()
    output = tmp_path / "scores.jsonl"
    status, _, err = run(["metrics", str(demo.directory / "candidates.jsonl"), "--references",
                          str(demo.test_references), "--alpha", "0.5", "-o", str(output)])
    assert status == 0, err
    provenance, segments, systems = _scores(output)
    references = _demo_lines(demo.test_references)
    assert len(segments) == len(_demo_lines(demo.directory / "candidates.jsonl"))
    for segment in segments[:10]:
        bleu = sacrebleu.sentence_bleu(segment["text"], [references[segment["sentence_id"]]]).score
        assert segment["bleu"] == bleu and segment["item"] is None
        assert segment["ibleu"] == pytest.approx(0.5 * bleu - 0.5 * segment["source_bleu"])
    assert provenance["inputs"]["references"][0]["sha256"] == \
        hashlib.sha256(demo.test_references.read_bytes()).hexdigest()
    assert provenance["options"]["alpha"] == 0.5 and "alpha:0.5" in provenance["metrics"]["ibleu"]["signature"]


def _metaeval(arguments: list[str]) -> dict:
    status, out, err = run(["metaeval", *arguments, "--format", "json", *RESAMPLES])
    assert status == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def study_report(judged):
    return _metaeval([str(judged["study"]), "--criterion", "meaning"])


def test_metaeval_of_a_study_reads_its_judges_and_its_systems(judged, study_report, study_scores):
    records = read_judgments(judged["judgments"])
    per_system = sentence_scores(records, "meaning")  # the project's own system scores, sentence by sentence
    for system, score in study_report["human_system_scores"].items():
        by_sentence = per_system.scores[system]
        assert score == pytest.approx(sum(by_sentence.values()) / len(by_sentence))
    judged_pairs = {(item, system) for item, produced in zip(records.select(criterion="meaning").items,
                                                              records.select(criterion="meaning").producers)
                    for system in produced}
    assert study_report["segments"] == len(judged_pairs)
    _, _, systems = study_scores
    order = study_report["systems"]
    bleu = study_report["metrics"]["bleu"]
    assert bleu["system_scores_from"] == "corpus"
    assert bleu["system_scores"] == {name: pytest.approx(systems[name]["bleu"]) for name in order}
    expected = pearsonr([study_report["human_system_scores"][s] for s in order],
                        [systems[s]["bleu"] for s in order]).statistic
    assert bleu["system_pearson"]["value"] == pytest.approx(expected)
    assert "true_score" not in study_report["metrics"]  # the copies have none: left out, and said so
    assert any(note.startswith("true_score: no score on") for note in study_report["notes"])
    assert study_report["inputs"]["judgments"]["sha256"] == hashlib.sha256(judged["study"].read_bytes()).hexdigest()
    for _name, entry in study_report["metrics"].items():
        for statistic in STATISTICS:
            value, interval = entry[statistic]["value"], entry[statistic]["ci95"]
            assert value is None or -1 <= value <= 1
            assert interval is None or interval[0] <= interval[1]
    clusters = study_report["significance"]["acc_eq_item"]["ranking"]
    assert clusters[0]["cluster"] == 1 and {row["metric"] for row in clusters} <= set(study_report["metrics"])
    worst = study_report["disagreements"]["bleu"][0]
    assert worst["item"] and worst["metric_ranks_it"] in ("higher", "lower")


def _statistics(report: dict) -> dict:
    return {name: {s: entry[s] for s in STATISTICS} for name, entry in report["metrics"].items()}


def test_metaeval_of_the_exported_csv_with_the_studys_scores_is_the_studys(judged, study_report):
    scores = judged["folder"] / "study-scores.jsonl"
    report = _metaeval([str(judged["judgments"]), "--criterion", "meaning", "--metrics", str(scores)])
    assert report["segments"] == study_report["segments"]
    assert _statistics(report) == _statistics(study_report)
    assert report["significance"] == study_report["significance"]


def test_metaeval_of_the_csv_with_the_candidates_files_scores_joins_on_the_texts(judged, study_report, tmp_path):
    scores = tmp_path / "candidate-scores.jsonl"
    status, _, err = run(["metrics", str(judged["candidates"]), "-o", str(scores)])
    assert status == 0, err
    report = _metaeval([str(judged["judgments"]), "--criterion", "meaning", "--metrics", str(scores)])
    assert _statistics(report) == _statistics(study_report)


def test_metaeval_writes_markdown(judged, tmp_path):
    output = tmp_path / "metaeval.md"
    status, _, err = run(["metaeval", str(judged["study"]), "--criterion", "fluency", "--bootstrap", "0",
                          "--permutations", "0", "-o", str(output)])
    assert status == 0, err
    text = output.read_text(encoding="utf-8")
    assert text.startswith("# Metrics against the judges: criterion fluency")
    assert "| metric | better | τ_b |" in text and "## Where each metric and the judges disagree most" in text


def test_predictor_probability_is_its_logistic_of_the_features(judged, tmp_path):
    """Every feature weighs 1 per 100 units: the probability is 1 / (1 + exp(-sum(features) / 100)), the features
    computed here from the candidate itself (KenLM's own score, its derivation, Levenshtein)."""
    import kenlm
    import Levenshtein

    from parastudio.core.engine.model.judgment_model import FEATURES

    model = {"coefficients": dict.fromkeys(FEATURES, 1.0), "feature_means": dict.fromkeys(FEATURES, 0.0),
             "feature_sds": dict.fromkeys(FEATURES, 100.0), "intercept": 0.0, "criterion": "meaning"}
    model_path = tmp_path / "predictor.json"
    model_path.write_text(json.dumps(model), encoding="utf-8")
    output = tmp_path / "scores.jsonl"
    status, _, err = run(["metrics", str(judged["candidates"]), "--predictor", str(model_path), "--lm",
                          str(demo_files().lm), "-o", str(output)])
    assert status == 0, err
    provenance, segments, _ = _scores(output)
    assert provenance["metrics"]["predictor"]["signature"].startswith("judgment-predictor|criterion:meaning")
    lm = kenlm.Model(str(demo_files().lm))
    records = {(r["sentence_id"], r["system"]): r for r in judged["records"]}
    for segment in segments:
        record = records[(segment["sentence_id"], segment["system"])]
        if record["true_score"] is None:  # the copies: no true score, no features
            assert segment["predictor"] is None
            continue
        source, words = record["source"].split(), record["text"].split()
        changed = [s for s in record["derivation"] if not s["identity"]]
        features = [lm.score(record["text"], bos=True, eos=True), sum(math.log10(s["p"]) for s in changed),
                    record["true_score"], len(words), Levenshtein.distance(source, words) / len(source),
                    sum(1 for s in changed if s["source"] != s["target"])]
        assert segment["predictor"] == pytest.approx(1 / (1 + math.exp(-sum(features) / 100)), rel=1e-9)


@pytest.mark.parametrize("arguments, message", [
    (["metaeval", "{judgments}", "--criterion", "meaning"], "a judgments CSV needs --metrics"),
    (["metaeval", "{study}", "--criterion", "adequacy"], "no judgments of criterion 'adequacy'"),
    (["metrics", "{candidates}", "--predictor", "{candidates}", "-o", "{out}"], "--predictor and --lm go together"),
    (["metaeval", "{judgments}", "--criterion", "meaning", "--metrics", "{candidates}"],
     "candidates.jsonl:1: expected the provenance of parastudio metrics"),
])
def test_bad_input_is_one_line(judged, tmp_path, arguments, message):
    names = {"judgments": judged["judgments"], "study": judged["study"], "candidates": judged["candidates"],
             "out": tmp_path / "out.jsonl"}
    status, _, err = run([a.format(**names) for a in arguments])
    assert status == 2, err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_a_scores_file_with_a_bad_line_names_it(judged, tmp_path):
    lines = (judged["folder"] / "study-scores.jsonl").read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[2])
    broken["bleu"] = "high"
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join([lines[0], lines[1], json.dumps(broken), *lines[3:]]) + "\n", encoding="utf-8")
    status, _, err = run(["metaeval", str(judged["judgments"]), "--criterion", "meaning", "--metrics", str(path)])
    assert status == 2
    assert f"{path}:3: expected a finite number or null in 'bleu'" in err
