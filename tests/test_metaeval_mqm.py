"""``parastudio metrics`` and ``metaeval`` on real judges (issue 43, item 5): the bundled MQM ratings of WMT21 TED
en-de, a slice of a few segments imported as a study, meta-evaluated with the ``ref`` system left out
(``--exclude-system ref``: it is the reference) and only the metrics a translation has (no source-side metric: the
source is English, the candidates German). Every figure is checked against the TSV read here, independently of the
import: the MQM points with the published weights, sacrebleu called directly on the targets against the ``ref``
system's target, scipy's Kendall τ_b and Pearson r."""

from __future__ import annotations

import gzip
import json
import math
from collections import defaultdict
from pathlib import Path

import pytest
import sacrebleu
from scipy.stats import kendalltau, pearsonr

from tests.test_output_targets import run

BUNDLED = Path(__file__).resolve().parents[1] / "evaldata" / "mqm" / "mqm_ted_ende.tsv.gz"
SEGMENTS = 8  # seg_id 1..8 of talk 1: 13 systems besides ref, so every statistic is defined


def _slice_lines() -> list[str]:
    with gzip.open(BUNDLED, "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    return [lines[0]] + [line for line in lines[1:] if int(line.split("\t")[3]) <= SEGMENTS]


def _points(category: str, severity: str) -> float:
    """Freitag et al. (2021), Table 2, as the repository scores: Major 5 (Non-translation 25), Minor 1 (Minor
    Fluency/Punctuation 0.1), Neutral and No-error 0."""
    if severity == "Major":
        return 25.0 if category == "Non-translation" else 5.0
    if severity == "Minor":
        return 0.1 if category == "Fluency/Punctuation" else 1.0
    return 0.0


def _independent(lines: list[str]):
    """``(human, targets, references)``: (system, seg) -> the negated MQM points (mean over raters), the target
    without its error marks, and seg -> the ``ref`` system's target."""
    points: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    targets = {}
    for line in lines[1:]:
        system, _doc, _doc_id, seg, rater, _source, target, category, severity = line.split("\t")[:9]
        points[(system, seg)][rater] += _points(category, severity)
        targets[(system, seg)] = target.replace("<v>", "").replace("</v>", "")
    human = {key: -sum(by_rater.values()) / len(by_rater) for key, by_rater in points.items()}
    references = {seg: text for (system, seg), text in targets.items() if system == "ref"}
    return human, targets, references


@pytest.fixture(scope="module")
def ted_slice(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mqm-slice")
    lines = _slice_lines()
    tsv = folder / "slice.tsv"
    tsv.write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = folder / "slice.sqlite"
    status, _, err = run(["study", "import-mqm", str(tsv), "--db", str(db), "--study", "ted-slice"])
    assert status == 0, err
    return db, lines


def _metaeval(db: Path, *extra: str) -> dict:
    status, out, err = run(["metaeval", str(db), "--criterion", "mqm", "--exclude-system", "ref", "--format", "json",
                            "--bootstrap", "20", "--permutations", "20", *extra])
    assert status == 0, err
    return json.loads(out)


def test_metaeval_of_the_ted_slice_equals_scipy_and_sacrebleu(ted_slice):
    db, lines = ted_slice
    report = _metaeval(db)
    human, targets, references = _independent(lines)
    systems = sorted({system for system, _ in human} - {"ref"})
    assert sorted(report["systems"]) == systems and len(systems) == 13
    assert list(report["metrics"]) == ["bleu", "chrf", "ter"]  # nothing measured against the English source
    assert any("translation study" in note and "source_bleu" in note for note in report["notes"])
    assert any("ref" in note and "--exclude-system" in note for note in report["notes"])
    keys = [(system, seg) for system in systems for seg in sorted({s for _, s in human}, key=int)]
    assert report["segments"] == len(keys)
    judges = [human[key] for key in keys]
    sentence = {"bleu": sacrebleu.sentence_bleu, "chrf": sacrebleu.sentence_chrf, "ter": sacrebleu.sentence_ter}
    corpus = {"bleu": sacrebleu.corpus_bleu, "chrf": sacrebleu.corpus_chrf, "ter": sacrebleu.corpus_ter}
    human_systems = {system: sum(human[(system, seg)] for s, seg in keys if s == system) / SEGMENTS
                     for system in systems}
    for system, score in human_systems.items():
        assert report["human_system_scores"][system] == pytest.approx(score, abs=1e-9)
    for name in ("bleu", "chrf", "ter"):
        sign = -1.0 if name == "ter" else 1.0  # higher is better on both sides: the judges' value is negated points
        scores = [sign * sentence[name](targets[key], [references[key[1]]]).score for key in keys]
        entry = report["metrics"][name]
        assert entry["tau_b"]["value"] == pytest.approx(kendalltau(judges, scores, variant="b").statistic, abs=1e-9)
        system_scores = {}
        for system in systems:
            segs = [seg for s, seg in keys if s == system]
            system_scores[system] = corpus[name]([targets[(system, seg)] for seg in segs],
                                                 [[references[seg] for seg in segs]]).score
            assert entry["system_scores"][system] == pytest.approx(system_scores[system], abs=1e-9), (name, system)
        expected_r = pearsonr([human_systems[s] for s in systems], [sign * system_scores[s] for s in systems])[0]
        assert entry["system_pearson"]["value"] == pytest.approx(expected_r, abs=1e-9)
        pairs = [(a, b) for i, a in enumerate(systems) for b in systems[i + 1:]]
        # Kocmi et al. (2021) as the project counts it: the same sign, a tie (equal means) matching a tie.
        agree = sum(_sign(human_systems[a] - human_systems[b]) == _sign(sign * (system_scores[a] - system_scores[b]))
                    for a, b in pairs)
        assert entry["system_accuracy"]["value"] == pytest.approx(agree / len(pairs), abs=1e-12)
    assert report["significance"]["tau_b"]["ranking"]  # the clusters are there


def _sign(difference: float) -> int:
    rounded = round(difference, 9)  # means summed in another order differ in their last bits
    return (rounded > 0) - (rounded < 0)


def test_the_reference_system_is_ranked_unless_excluded(ted_slice):
    db, _ = ted_slice
    status, out, err = run(["metaeval", str(db), "--criterion", "mqm", "--format", "json", "--bootstrap", "0",
                            "--permutations", "0"])
    assert status == 0, err
    report = json.loads(out)
    assert "ref" in report["systems"] and report["metrics"]["bleu"]["system_scores"]["ref"] == pytest.approx(100.0)
    assert list(report["metrics"]) == ["bleu", "chrf", "ter"]
    status, _, err = run(["metaeval", str(db), "--criterion", "mqm", "--exclude-system", "reff"])
    assert status == 2 and "no system 'reff'" in err and "ref" in err and "Traceback" not in err


def test_metrics_of_the_ted_slice_leave_out_the_source_side_and_the_reference(ted_slice, tmp_path):
    db, lines = ted_slice
    output = tmp_path / "scores.jsonl"
    status, _, err = run(["metrics", str(db), "--exclude-system", "ref", "-o", str(output)])
    assert status == 0, err
    assert "translation study" in err
    records = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    provenance = records[0]["provenance"]
    assert list(provenance["metrics"]) == ["bleu", "chrf", "ter", "model_score", "true_score"]
    assert provenance["options"]["translation"] is True and provenance["options"]["exclude_system"] == ["ref"]
    assert "task:translation" in provenance["signature"] and "alpha" not in provenance["signature"]
    segments = [r for r in records[1:] if r["level"] == "segment"]
    assert segments and all("source_bleu" not in r and "ibleu" not in r and "edit_rate" not in r for r in segments)
    assert {r["system"] for r in segments} == {line.split("\t")[0] for line in lines[1:]} - {"ref"}
    _, targets, references = _independent(lines)
    for record in segments:
        key = (record["system"], record["source_key"])
        assert record["bleu"] == pytest.approx(sacrebleu.sentence_bleu(targets[key], [references[key[1]]]).score)
    # The scores file is what metaeval reads back: the same figures as computing them from the study.
    from_file = _metaeval(db, "--metrics", str(output))
    computed = _metaeval(db)
    for name in ("bleu", "chrf", "ter"):
        for statistic in ("tau_b", "system_pearson"):
            assert math.isclose(from_file["metrics"][name][statistic]["value"],
                                computed["metrics"][name][statistic]["value"], abs_tol=1e-12)
    assert any("translation study" in note for note in from_file["notes"])


def test_a_paraphrase_study_is_told_to_be_a_translation_by_the_flag(tmp_path):
    """--translation on a candidates file: only BLEU, chrF and TER."""
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text(json.dumps({"sentence_id": 0, "system": "mt", "rank": 1, "text": "Hallo Welt .",
                                      "source": "Hello world .", "references": ["Hallo Welt !"]}) + "\n",
                          encoding="utf-8")
    output = tmp_path / "scores.jsonl"
    status, _, err = run(["metrics", str(candidates), "--translation", "-o", str(output)])
    assert status == 0, err
    record = json.loads(output.read_text(encoding="utf-8").splitlines()[1])
    assert "source_bleu" not in record and record["bleu"] == pytest.approx(
        sacrebleu.sentence_bleu("Hallo Welt .", ["Hallo Welt !"]).score)
    status, _, err = run(["metrics", str(candidates), "-o", str(output)])
    assert status == 0 and "source_bleu" in json.loads(output.read_text(encoding="utf-8").splitlines()[1])


def test_the_metrics_vs_judges_experiment_states_its_command_and_its_segments(tmp_path):
    """``parastudio experiment metrics-vs-judges`` on the slice: the command on top, inputs by sha256, scripted
    judges called not people, and the per-segment file from which τ_b is recomputed with scipy."""
    import gzip as gz
    import hashlib

    tsv = tmp_path / "slice.tsv"
    tsv.write_text("\n".join(_slice_lines()) + "\n", encoding="utf-8")
    out = tmp_path / "results"
    status, _, err = run(["experiment", "metrics-vs-judges", "--mqm", str(tsv), "--bootstrap", "0",
                          "--permutations", "0", "--out", str(out)])
    assert status == 0, err
    markdown = (out / "metrics-vs-judges.md").read_text(encoding="utf-8")
    assert "Command: `parastudio experiment metrics-vs-judges --bootstrap 0" in markdown
    assert hashlib.sha256(tsv.read_bytes()).hexdigest() in markdown and "not people" in markdown
    with gz.open(out / "metrics-vs-judges.jsonl.gz", "rt", encoding="utf-8") as handle:
        lines = [json.loads(line) for line in handle]
    assert lines[0]["provenance"]["inputs"]["mqm"]["sha256"] == hashlib.sha256(tsv.read_bytes()).hexdigest()
    report = json.loads((out / "metrics-vs-judges.json").read_text(encoding="utf-8"))
    for study in ("ted-ende", "demo"):
        records = [r for r in lines[1:] if r["study"] == study]
        key = "ted" if study == "ted-ende" else "demo"
        assert len(records) == report["studies"][key]["segments"]
        for name in ("bleu", "chrf"):
            expected = kendalltau([r["human"] for r in records], [r[name] for r in records], variant="b").statistic
            assert report["studies"][key]["metrics"][name]["tau_b"]["value"] == pytest.approx(expected, abs=1e-9)
    assert all(r["source_bleu"] is None for r in lines[1:] if r["study"] == "ted-ende")
    assert "ref" not in {r["system"] for r in lines[1:] if r["study"] == "ted-ende"}
