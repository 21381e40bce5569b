"""Provenance that identifies a run, and ``parastudio reproduce`` (issue 23, Deliver 2 and 3).

Candidates are generated on seed 000's Example 1 table and the tiny KenLM model
(conftest), then run again from their params alone.
"""

from __future__ import annotations

import hashlib
import io
import json
import subprocess

import pytest
from conftest import ROOT

from parastudio.core.cli import main
from parastudio.core.code_identity import code_identity

SENTENCES = "the dog runs after the young cat\nthe young cat sees the dog\nthe dog and the young cat\n"
# One command line per system family; MCPG by count with a cap it never meets.
RUNS = {
    "beam": ["--system", "beam", "--nbest", "3"],
    "mcpg-true": ["--system", "mcpg-true", "--nbest", "2", "--seed", "5", "--episodes-per-step", "60",
                  "--max-episodes", "600", "--time-budget", "600"],
    "mcpg-translator": ["--system", "mcpg-translator", "--profile", "faithful", "--seed", "2",
                        "--episodes-per-step", "40", "--time-budget", "600"],
    "spg-compression": ["--system", "spg-compression", "--nbest", "2"],
    "spg-similarity": ["--system", "spg-similarity", "--reference", "REFERENCE"],
}
REFERENCES = "the beast runs after the kitten\nthe kitten sees it\nthe beast and the kitten\n"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def generate_json(arguments, table, lm, monkeypatch, capsys, sentences=SENTENCES, extra=()) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(sentences))
    assert main(["generate", *arguments, "--table", str(table), "--lm", str(lm), "--json", "--processes", "1",
                 *extra]) == 0
    return capsys.readouterr().out


def reproduce(path, capsys) -> tuple[int, dict]:
    status = main(["reproduce", str(path), "--json", "--processes", "1"])
    return status, json.loads(capsys.readouterr().out)


@pytest.fixture
def candidates(tmp_path, example1_table_path, tiny_lm, monkeypatch, capsys):
    """Every system's candidates in one file, as a reader would be given them."""
    path, reference = tmp_path / "candidates.jsonl", tmp_path / "reference.txt"
    reference.write_text(REFERENCES, encoding="utf-8")
    path.write_text("".join(generate_json([str(reference) if a == "REFERENCE" else a for a in arguments],
                                          example1_table_path, tiny_lm["binary"], monkeypatch, capsys)
                            for arguments in RUNS.values()), encoding="utf-8")
    return path


def test_every_candidate_names_its_inputs_by_sha256_and_the_code_by_version_and_commit(candidates, example1_table_path,
                                                                                         tiny_lm):
    rows = [json.loads(line) for line in candidates.read_text().splitlines()]
    assert {row["system"] for row in rows} == set(RUNS)
    for row in rows:
        params = row["params"]
        table, = params["inputs"]["tables"]
        assert table == {"path": str(example1_table_path), "bytes": example1_table_path.stat().st_size,
                         "sha256": hashlib.sha256(example1_table_path.read_bytes()).hexdigest()}
        assert params["inputs"]["lm"]["sha256"] == hashlib.sha256(tiny_lm["binary"].read_bytes()).hexdigest()
        assert (params["version"], params["commit"]) == (code_identity()["version"], code_identity()["commit"])
        assert params["tokenize"] is False and row["source"] in SENTENCES.splitlines()
        assert "seconds" not in params  # wall time would make equal runs differ
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    if head:  # a git checkout: the commit is HEAD's, and the version counts the commits
        count = subprocess.run(["git", "-C", str(ROOT), "rev-list", "--count", "HEAD"], capture_output=True,
                               text=True).stdout.strip()
        assert rows[0]["params"]["commit"] == head and f".dev{count}+g{head[:7]}" in rows[0]["params"]["version"]
    mcpg = [row for row in rows if row["system"] == "mcpg-true"]
    assert all(row["search"]["episodes"] <= 600 and not row["search"]["cut"] for row in mcpg)
    assert all(set(row["search"]["episodes_per_decision"]) <= {60} for row in mcpg)


def test_tokenization_is_recorded(example1_table_path, tiny_lm, monkeypatch, capsys):
    out = generate_json(RUNS["beam"], example1_table_path, tiny_lm["binary"], monkeypatch, capsys,
                        sentences="The dog runs after the young cat.\n", extra=["--tokenize"])
    row = json.loads(out.splitlines()[0])
    assert row["params"]["tokenize"] is True and row["source"] == "the dog runs after the young cat ."


def test_reproduce_gives_identical_output_for_every_system(candidates, capsys):
    status, report = reproduce(candidates, capsys)
    assert status == 0
    assert sorted(run["system"] for run in report["runs"]) == sorted(RUNS)
    assert all(run["refused"] is None and run["code"] is None for run in report["runs"])
    assert report["summary"] == {"runs": 5, "refused": 0, "sentences": 15, "identical": 15, "different": 0}
    similarity = next(run for run in report["runs"] if run["system"] == "spg-similarity")
    assert len(similarity["sentences"]) == 3


def test_reproduce_names_the_sentence_whose_output_differs(candidates, capsys):
    lines = candidates.read_text().splitlines()
    changed = json.loads(lines[1])  # the beam's sentence 0, rank 2
    changed["model_score"] += 1e-9
    lines[1] = json.dumps(changed, ensure_ascii=False)
    candidates.write_text("\n".join(lines) + "\n")
    status, report = reproduce(candidates, capsys)
    assert status == 1
    beam = next(run for run in report["runs"] if run["system"] == "beam")
    verdicts = {s["sentence_id"]: s["identical"] for s in beam["sentences"]}
    assert verdicts == {0: False, 1: True, 2: True}
    assert "model_score" in beam["sentences"][0]["difference"]
    assert report["summary"]["different"] == 1 and report["summary"]["identical"] == 14


def test_reproduce_refuses_a_run_whose_reference_file_changed(candidates, tmp_path, capsys):
    (tmp_path / "reference.txt").write_text(REFERENCES.replace("kitten sees", "kitten finds"), encoding="utf-8")
    status, report = reproduce(candidates, capsys)
    refused = {run["system"]: run["refused"] for run in report["runs"]}
    assert status == 2 and "reference.txt" in refused.pop("spg-similarity")
    assert set(refused.values()) == {None}


def test_reproduce_refuses_a_run_whose_table_changed_and_says_why(candidates, example1_table_path, capsys):
    with open(example1_table_path, "a", encoding="utf-8") as handle:
        handle.write("the cat ||| the kitten ||| 0.3\n")
    status, report = reproduce(candidates, capsys)
    assert status == 2
    assert len(report["runs"]) == 5
    for run in report["runs"]:
        assert str(example1_table_path) in run["refused"] and "sha256" in run["refused"] and "differs" in run["refused"]
        assert run["sentences"] == []  # nothing was run on the changed table
    example1_table_path.unlink()
    status, report = reproduce(candidates, capsys)
    assert status == 2 and all("file not found" in run["refused"] for run in report["runs"])


def test_the_plain_report_says_identical_per_sentence(candidates, capsys):
    assert main(["reproduce", str(candidates), "--processes", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count(": identical") == 15 and "15 identical, 0 different" in out


def test_a_candidate_without_provenance_is_refused_with_its_line(tmp_path, capsys):
    old = tmp_path / "old.jsonl"
    old.write_text(json.dumps({"sentence_id": 0, "system": "beam", "text": "a", "params": {"system": "beam"}}) + "\n")
    assert main(["reproduce", str(old)]) == 2
    assert f"{old}:1: expected a candidate with its source sentence" in capsys.readouterr().err


def test_a_run_given_relative_paths_reproduces_from_another_folder(example1_table_path, tiny_lm, tmp_path,
                                                                    monkeypatch, capsys):
    monkeypatch.chdir(example1_table_path.parent)
    out = generate_json(RUNS["beam"], example1_table_path.name, tiny_lm["binary"], monkeypatch, capsys)
    assert json.loads(out.splitlines()[0])["params"]["inputs"]["tables"][0]["path"] == str(example1_table_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "candidates.jsonl").write_text(out, encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    assert reproduce("candidates.jsonl", capsys)[0] == 0


def test_relative_input_paths_are_read_against_the_candidates_folder_not_the_working_directory(
        example1_table_path, tiny_lm, tmp_path, monkeypatch, capsys):
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "table.txt").write_bytes(example1_table_path.read_bytes())
    (bundle / "model.bin").write_bytes(tiny_lm["binary"].read_bytes())
    out = generate_json(RUNS["beam"], bundle / "table.txt", bundle / "model.bin", monkeypatch, capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    for row in rows:  # what the demo release writes: paths relative to the candidates' folder
        inputs = row["params"]["inputs"]
        inputs["tables"][0]["path"], inputs["lm"]["path"] = "table.txt", "model.bin"
    relative = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    (bundle / "candidates.jsonl").write_text(relative, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"  # a working directory holding other files of the same names
    elsewhere.mkdir()
    (elsewhere / "table.txt").write_text("the dog ||| the beast ||| 0.5\n", encoding="utf-8")
    (elsewhere / "model.bin").write_bytes(b"not a model")
    monkeypatch.chdir(elsewhere)
    status, report = reproduce(bundle / "candidates.jsonl", capsys)
    assert status == 0 and report["summary"]["identical"] == 3
    (bundle / "table.txt").write_text("the dog ||| the beast ||| 0.5\n", encoding="utf-8")
    status, report = reproduce(bundle / "candidates.jsonl", capsys)
    assert status == 2 and str(bundle / "table.txt") in report["runs"][0]["refused"]


DEMO = ROOT / "evaldata" / "demo"


@pytest.mark.skipif(not (DEMO / "candidates.jsonl").is_file(), reason="evaldata/demo is not built")
def test_the_bundled_demo_candidates_reproduce_identically_from_the_checkout_root(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    status, report = reproduce("evaldata/demo/candidates.jsonl", capsys)
    bundled = [json.loads(line) for line in (DEMO / "candidates.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {row["params"]["inputs"]["tables"][0]["path"] for row in bundled} == {"paraphrase-table.gz"}
    sentences = len((DEMO / "test.en").read_text(encoding="utf-8").splitlines())
    assert status == 0
    assert report["summary"] == {"runs": 1, "refused": 0, "sentences": sentences, "identical": sentences,
                                 "different": 0}
    assert [s["sentence_id"] for s in report["runs"][0]["sentences"]] == list(range(sentences))


SECRET = "first line of someone else's file: a password\n"


@pytest.mark.parametrize("how", ["absolute", "dot-dot", "symlink beside"])
def test_a_recorded_input_elsewhere_is_listed_first_and_its_contents_never_quoted(candidates, tmp_path, capsys,
                                                                                 how):
    """Issue 39: params that name another file with its sha256 (/etc/passwd, ../x, a symlink beside the JSONL)."""
    private = tmp_path.parent / f"private-{how.replace(' ', '-')}.txt"
    private.write_text(SECRET + "more\n", encoding="utf-8")
    digest = hashlib.sha256(private.read_bytes()).hexdigest()
    named = {"absolute": str(private), "dot-dot": f"../{private.name}", "symlink beside": "beside.txt"}[how]
    if how == "symlink beside":
        (tmp_path / "beside.txt").symlink_to(private)
    line = json.loads(candidates.read_text().splitlines()[0])  # the beam's first candidate
    line["params"]["inputs"]["tables"] = [{"path": named, "sha256": digest}]
    forged = tmp_path / "forged.jsonl"
    forged.write_text(json.dumps(line) + "\n", encoding="utf-8")
    status = main(["reproduce", str(forged), "--processes", "1"])
    out, err = capsys.readouterr()
    assert status == 2
    assert "first line of someone" not in out + err and "password" not in out + err
    assert f"outside the candidates' folder {tmp_path}: {private}" in err
    assert err.index("outside the candidates' folder") < err.index("refused")


def test_a_changed_recorded_source_is_named_as_such(candidates, capsys):
    lines = candidates.read_text().splitlines()
    changed = json.loads(lines[1])  # the beam's sentence 0, rank 2: another source than rank 1 has
    changed["source"] = "the cat runs after the dog"
    lines[1] = json.dumps(changed, ensure_ascii=False)
    candidates.write_text("\n".join(lines) + "\n")
    assert main(["reproduce", str(candidates), "--processes", "1"]) == 2
    err = capsys.readouterr().err
    assert f"{candidates}:2: expected the source that sentence 0 has on line 1" in err and "changed" in err


@pytest.mark.parametrize("threshold", [float("nan"), float("inf"), -0.1, 1.5])
def test_an_impossible_beam_threshold_is_refused(candidates, tmp_path, capsys, threshold):
    line = json.loads(candidates.read_text().splitlines()[0])
    line["params"]["decoder"]["beam_threshold"] = threshold
    forged = tmp_path / "forged.jsonl"
    forged.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert main(["reproduce", str(forged), "--processes", "1"]) == 2  # refused as the file is read, none run
    assert f"{forged}:1: expected params this code can run: decoder.beam_threshold must be a ratio" \
        in capsys.readouterr().err


@pytest.mark.parametrize("processes", ["0", "-1"])
def test_no_workers_is_refused(candidates, capsys, processes):
    with pytest.raises(SystemExit) as stop:  # refused as the options are read, before the file is opened
        main(["reproduce", str(candidates), "--processes", processes])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err == f"parastudio: error: --processes: expected a whole number of at least 1, not '{processes}'\n"
