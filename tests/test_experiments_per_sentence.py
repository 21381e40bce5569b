"""Per-sentence outputs (issue 23, Deliver 5): each experiment run on a tiny input writes a JSONL file from which
the Markdown's main table is recomputed here, independently, with plain Python; and the file format itself."""

from __future__ import annotations

import gzip
import json
import math

import pytest
from experiment_inputs import write_experiment_inputs

from parastudio.core.cli import main
from parastudio.core.errors import InputFormatError
from parastudio.core.experiments.per_sentence import read_per_sentence, run_provenance, write_per_sentence

SENTENCES = ["the dog runs after the young cat", "the big house near the garden", "it sees a small dog",
             "the dog sees the big house"]
REFERENCES = ["the beast runs after the kitten", "a big house near a garden", "it finds a small dog",
              "the beast finds the home"]


@pytest.fixture
def inputs(tmp_path, tiny_lm):
    return {**write_experiment_inputs(tmp_path, SENTENCES, REFERENCES), "lm": tiny_lm["binary"],
            "out": tmp_path / "results"}


def table_row(markdown: str, label: str) -> list[str]:
    """The cells of the Markdown table row whose first cell is ``label``."""
    for line in markdown.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == label:
            return cells
    raise AssertionError(f"no row {label!r}")


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values)


def mean_and_population_sd(values) -> tuple[float, float]:
    values = list(values)
    average = mean(values)
    return average, math.sqrt(sum((v - average) ** 2 for v in values) / len(values))


def checked_provenance(header: dict, inputs: dict, experiment: str) -> None:
    assert header["experiment"] == experiment and header["commit"] and header["version"]
    assert header["command"].startswith(("parastudio experiment", "python -m core.experiments"))
    for name in ("lm", "input"):
        recorded = header["inputs"][name]
        data = inputs[name].read_bytes()
        import hashlib

        assert recorded["sha256"] == hashlib.sha256(data).hexdigest() and recorded["bytes"] == len(data)


# --- the file format ---------------------------------------------------------------------------------------

def test_a_file_round_trips_and_its_gzip_bytes_repeat(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text("abc\n", encoding="utf-8")
    header = run_provenance("x", "parastudio experiment x", {"input": source, "none": None, "many": [source]},
                            {"sentence": "s", "value": "v"}, seed=3)
    records = [{"sentence": 1, "value": 0.1 + 0.2}, {"sentence": 2, "value": None}]
    write_per_sentence(tmp_path / "a.jsonl.gz", header, records)
    first = (tmp_path / "a.jsonl.gz").read_bytes()
    write_per_sentence(tmp_path / "a.jsonl.gz", header, records)
    assert (tmp_path / "a.jsonl.gz").read_bytes() == first  # gzip with mtime 0
    read_header, read_records = read_per_sentence(tmp_path / "a.jsonl.gz")
    assert read_records == records and read_records[0]["value"] == 0.1 + 0.2  # every digit kept
    assert read_header["inputs"]["input"]["sha256"] == \
        "edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb"  # sha256 of b"abc\n"
    assert read_header["inputs"]["none"] is None and read_header["seed"] == 3
    assert json.loads(gzip.decompress(first).splitlines()[0])["provenance"]["fields"] == {"sentence": "s",
                                                                                          "value": "v"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl.gz", "in.txt"]  # no temporary left


def test_a_record_with_other_fields_is_refused_and_nothing_is_written(tmp_path):
    header = run_provenance("x", "c", {}, {"sentence": "s"})
    with pytest.raises(ValueError, match="differ from the header"):
        write_per_sentence(tmp_path / "a.jsonl", header, [{"sentence": 1}, {"sentence": 2, "extra": 0}])
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text, line", [("", 1), ("[1]\n", 1), ('{"provenance": {}}\n{"a": 1}\nnot json\n', 3),
                                        ('{"provenance": {}}\n[2]\n', 2), ('{"a": 1}\n', 1)])
def test_a_malformed_file_names_its_line(tmp_path, text, line):
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFormatError, match=f"bad.jsonl:{line}: expected"):
        read_per_sentence(path)


# --- spg-rates ---------------------------------------------------------------------------------------------

def test_spg_rates_table_recomputed_from_its_jsonl(inputs):
    out = inputs["out"]
    assert main(["experiment", "spg-rates", "--table", str(inputs["table"]), "--lm", str(inputs["lm"]),
                 "--input", str(inputs["input"]), "--reference", str(inputs["reference"]), "--out", str(out),
                 "--no-progress"]) == 0
    markdown = (out / "spg-rates.md").read_text(encoding="utf-8")
    header, records = read_per_sentence(out / "spg-rates.jsonl")
    checked_provenance(header, inputs, "spg-rates")
    assert "`spg-rates.jsonl`" in markdown and markdown.count("**Per-sentence outputs.**") == 1
    assert len(records) == 3 * len(SENTENCES)
    for application in ("compression", "simplification", "similarity"):
        rows = [r for r in records if r["application"] == application]
        assert [r["sentence_id"] for r in rows] == [0, 1, 2, 3]
        n = len(rows)
        paraphrased = [r for r in rows if r["replacements"] > 0]
        units = [u for r in rows for u in r["units"]]
        cells = table_row(markdown, application)
        assert cells[1] == str(n)
        assert cells[3] == f"{100 * len(paraphrased) / n:.1f} % ({len(paraphrased)} / {n})"
        assert cells[5] == f"{sum(r['replacements'] for r in rows) / n:.2f}"
        assert cells[6] == (f"{mean(r['replacements'] for r in paraphrased):.2f}" if paraphrased else "n/a")
        assert cells[7].split(" (")[0] == f"{100 * sum(r['achieves'] for r in rows) / n:.1f} %"
        assert cells[8] == (f"{100 * sum(u['shortens'] for u in units) / len(units):.1f} %" if units else "n/a")
        assert cells[9] == (f"{100 * sum(u['drops_content_word'] for u in units) / len(units):.1f} %"
                            if units else "n/a")
        assert cells[10] == f"{mean(r['seconds'] for r in rows):.3f}"
    assert any(r["units"] for r in records)  # the tiny table does rewrite something


# --- mcpg-vs-beam ------------------------------------------------------------------------------------------

def test_mcpg_vs_beam_tables_recomputed_from_its_jsonl(inputs):
    out = inputs["out"]
    assert main(["experiment", "mcpg-vs-beam", "--table", str(inputs["table"]), "--lm", str(inputs["lm"]),
                 "--input", str(inputs["input"]), "--out", str(out), "--profiles", "tuned-no-polish,faithful",
                 "--episodes-per-step", "20", "--processes", "1", "--no-progress"]) == 0
    markdown = (out / "mcpg-vs-beam.md").read_text(encoding="utf-8")
    header, records = read_per_sentence(out / "mcpg-vs-beam.jsonl")
    checked_provenance(header, inputs, "mcpg-vs-beam")
    assert header["episodes_per_step"] == {"faithful": 20, "tuned-no-polish": 20} and header["time_cap"] is None
    assert "every η = 20 episodes" in markdown and "`mcpg-vs-beam.jsonl`" in markdown
    systems = [f"MCPG {mode}, {profile}" for profile in ("tuned-no-polish", "faithful")
               for mode in ("true-score", "translator")]
    assert len(records) == len(SENTENCES) * (1 + len(systems))
    beam = [r for r in records if r["system"] == "beam decoder"]
    assert table_row(markdown, "beam decoder (reference)")[-1] == f"{mean(r['seconds'] for r in beam):.2f} (100-best)"

    def against(rows, reference):
        differences = [r["true_score"] - r[reference] for r in rows
                       if r["true_score"] is not None and r[reference] is not None]
        average, sd = mean_and_population_sd(differences)
        reached = sum(d >= -1e-4 for d in differences)
        return (f"{average:+.3f} ± {sd:.3f}",
                f"{100 * reached / len(differences):.1f} % ({reached} / {len(differences)})")

    for system in systems:
        rows = [r for r in records if r["system"] == system]
        assert [r["sentence_id"] for r in rows] == [0, 1, 2, 3] and not any(r["cut"] for r in rows)
        assert all(eta == 20 for r in rows for eta in r["episodes_per_decision"])
        cells = table_row(markdown, system)
        assert cells[2:4] == list(against(rows, "beam_best"))
        assert cells[4:6] == list(against(rows, "beam_best_paraphrase"))
        assert cells[6] == f"{sum(r['output'] is not None for r in rows)} / {len(rows)}"
        decisions = [len(r["episodes_per_decision"]) for r in rows]
        assert cells[7] == (f"{mean(decisions):.1f} commits, η ≈ "
                            f"{mean(e for r in rows for e in r['episodes_per_decision']):,.0f}")
        assert cells[8] == f"{mean(r['seconds'] for r in rows):.2f}"
    for profile in ("tuned-no-polish", "faithful"):
        true_rows = [r for r in records if r["system"] == f"MCPG true-score, {profile}"]
        translator = {r["sentence_id"]: r["true_score"] for r in records if r["system"] == f"MCPG translator, {profile}"}
        gains = [r["true_score"] - translator[r["sentence_id"]] for r in true_rows]
        average, sd = mean_and_population_sd(gains)
        at_least = sum(g >= -1e-4 for g in gains)
        assert table_row(markdown, profile)[2:4] == [f"{average:+.3f} ± {sd:.3f}",
                                                     f"{100 * at_least / len(gains):.1f} % ({at_least} / {len(gains)})"]


# --- seed000-reranking -------------------------------------------------------------------------------------

def test_mcpg_records_made_on_another_table_are_not_reused(inputs, capsys):
    """--records keeps each search; --recorded-only reports from them, but only from searches made on this table
    and LM (the committed results once mixed a table's beam with another table's MCPG outputs, unsaid)."""
    out, records = inputs["out"], inputs["out"] / "searches.jsonl"

    def run(*extra: str) -> str:
        assert main(["experiment", "mcpg-vs-beam", "--table", str(inputs["table"]), "--lm", str(inputs["lm"]),
                     "--input", str(inputs["input"]), "--out", str(out), "--profiles", "faithful",
                     "--episodes-per-step", "20", "--processes", "1", "--no-progress", "--records", str(records),
                     *extra]) == 0
        return (out / "mcpg-vs-beam.md").read_text(encoding="utf-8")

    searched = run()
    assert len(records.read_text(encoding="utf-8").splitlines()) == 2 * len(SENTENCES)
    capsys.readouterr()
    assert table_row(run("--recorded-only"), "MCPG true-score, faithful") == \
        table_row(searched, "MCPG true-score, faithful")
    assert "not reused" not in capsys.readouterr().err
    first = inputs["table"].read_text(encoding="utf-8").splitlines()[0]
    with open(inputs["table"], "a", encoding="utf-8") as table:  # the same rules and one more: another table
        table.write("zebra ||| zebras ||| " + first.split(" ||| ")[2] + "\n")
    again = run("--recorded-only")
    assert f"{2 * len(SENTENCES)} record(s)" in capsys.readouterr().err
    assert table_row(again, "MCPG true-score, faithful") != table_row(searched, "MCPG true-score, faithful")


def tau_a(scores: list[float], tolerance: float) -> float:
    n = len(scores)
    pairs = [(scores[i], scores[j]) for i in range(n) for j in range(i + 1, n)]
    preserved = sum(a - b > tolerance for a, b in pairs)
    inverted = sum(b - a > tolerance for a, b in pairs)
    return (preserved - inverted) / len(pairs)


def check_seed000_table(markdown: str, header: dict, records: list[dict], stacks: tuple[int, ...]) -> None:
    """Every row of seed000-reranking.md's main table, recomputed from the records."""
    tolerance, n = 1e-4, header["nbest"]
    for column, stack in enumerate(stacks):
        rows = [r for r in records if r["stack_size"] == stack]
        full = [r for r in rows if len(r["decoder_scores"]) >= n]
        assert table_row(markdown, f"sentences with a full {n}-best list (the others are left out, as in the paper)"
                         )[2 + column] == f"{len(full)} / {len(rows)}"
        if not full:
            assert table_row(markdown, f"mean τ_A at {n}-best")[2 + column] == "n/a"
            continue
        taus = [tau_a(r["true_scores"][:n], tolerance) for r in full]
        average, sd = mean_and_population_sd(taus)
        assert table_row(markdown, f"mean τ_A at {n}-best")[2 + column] == f"{average:.3f} ± {sd:.2f}"
        changed = [abs(t - d) > tolerance for r in full for d, t in zip(r["decoder_scores"], r["true_scores"])]
        assert table_row(markdown, "candidates whose score changes")[2 + column] == \
            f"{100 * sum(changed) / len(changed):.1f} %"
        not_optimal = [r for r in full if max(r["true_scores"]) - r["true_scores"][0] > tolerance]
        assert table_row(markdown, "1-best no longer optimal")[2 + column] == \
            f"{100 * len(not_optimal) / len(full):.1f} %"
        # Reranking is stable: the old 1-best moves behind exactly the candidates clearly better than it.
        ranks = [1 + sum(t > r["true_scores"][0] + tolerance for t in r["true_scores"]) for r in full]
        average, sd = mean_and_population_sd(ranks)
        assert table_row(markdown, "new rank of the old 1-best")[2 + column] == \
            f"{average:.2f} ± {sd:.2f} (max {max(ranks)})"
        gaps = [round(r["decoder_scores"][0] - r["decoder_scores"][n - 1], 3) for r in full]
        average, sd = mean_and_population_sd(gaps)
        assert table_row(markdown, f"decoder score gap 1st - {n}th")[2 + column] == \
            f"{average:.2f} ± {sd:.2f} (max {max(gaps)})"


def test_seed000_reranking_table_recomputed_from_its_jsonl(inputs):
    out = inputs["out"]
    assert main(["experiment", "seed000-reranking", "--table", str(inputs["table"]), "--lm", str(inputs["lm"]),
                 "--input", str(inputs["input"]), "--out", str(out), "--nbest", "3", "--stack-sizes", "1", "2", "50",
                 "--processes", "1"]) == 0
    markdown = (out / "seed000-reranking.md").read_text(encoding="utf-8")
    header, records = read_per_sentence(out / "seed000-reranking.jsonl.gz")
    checked_provenance(header, inputs, "seed000-reranking")
    assert "`seed000-reranking.jsonl.gz`" in markdown and header["nbest"] == 3
    assert [r["sentence_id"] for r in records] == [0, 1, 2, 3] * 3
    check_seed000_table(markdown, header, records, (1, 2, 50))


def test_seed000_reranking_table_with_search_errors_recomputed(tmp_path):
    """Hand-made lists where the pruned decoder's scores fall below the true scores (the tiny table has none)."""
    from parastudio.core.experiments import seed000_reranking as experiment

    lists = {5: [([-1.0, -2.0, -3.0], [-1.0, -1.5, -3.0]), ([-2.0, -2.5, -4.0], [-2.0, -2.5, -4.0]),
                 ([-1.0, -1.2], [-1.0, -1.2])],
             20: [([-1.0, -2.0, -3.0], [-1.0, -0.8, -2.5]), ([-2.0, -2.5, -4.0], [-2.0, -2.5, -3.9]),
                  ([-1.0, -1.2, -1.3], [-1.0, -1.1, -1.3])]}
    reports = [experiment.StackReport(stack, 3, [experiment.SentenceRerank(d, t) for d, t in pairs])
               for stack, pairs in lists.items()]
    header = run_provenance("seed000-reranking", "c", {}, experiment.PER_SENTENCE_FIELDS, nbest=3)
    write_per_sentence(tmp_path / experiment.PER_SENTENCE, header, experiment.per_sentence_records(reports))
    experiment.write_markdown(tmp_path / "r.md", reports, {"command": "c"}, [2, 3], header)
    _, records = read_per_sentence(tmp_path / experiment.PER_SENTENCE)
    markdown = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert table_row(markdown, "1-best no longer optimal")[2:4] == ["0.0 %", "33.3 %"]  # by hand: 0 of 2, 1 of 3
    check_seed000_table(markdown, header, records, (5, 20))


# --- seed002-patterns (its run needs evaldata/build: the records from hand-made models) ---------------------

def test_seed002_pattern_records_hold_each_models_table_row():
    from parastudio.core.experiments.seed002_patterns import per_sentence_records

    models = [{"name": "LL, all", "kept": [(-1.0, "take [NN_1] into account", "consider [NN_1]"),
                                           (-3.0, "[NN_1] gave [NN_2]", "[NN_2] was given by [NN_1]"),
                                           (-2.0, "take [NN_1] into account", "heed [NN_1]")]},
              {"name": "LL, tuned", "kept": [(-1.5, "take [NN_1] into account", "consider [NN_1]")]},
              {"name": "DIRT top-1", "kept": [(0.4, "[NN_1] saw [NN_2]", "[NN_1] beheld it")]}]
    attested = {("take [NN_1] into account", "consider [NN_1]"), ("[NN_1] saw [NN_2]", "[NN_1] beheld it")}
    records = per_sentence_records(models, attested)
    assert [(r["e1"], r["e2"]) for r in records] == sorted({(e1, e2) for m in models for _, e1, e2 in m["kept"]})
    for model in models:
        mine = [r for r in records if model["name"] in r["scores"]]
        assert len(mine) == len(model["kept"])  # "#PP"
        assert sorted((r["scores"][model["name"]], r["e1"], r["e2"]) for r in mine) == sorted(model["kept"])
    by_pair = {(r["e1"], r["e2"]): r for r in records}
    assert by_pair[("[NN_1] gave [NN_2]", "[NN_2] was given by [NN_1]")]["slots"] == 2
    assert by_pair[("take [NN_1] into account", "heed [NN_1]")]["slots"] == 1
    assert by_pair[("[NN_1] saw [NN_2]", "[NN_1] beheld it")]["slots"] == 2  # e1's slots, not e2's
    assert [r["attested"] for r in records].count(True) == 2
    # the top 2 of "LL, all" by score, ties by e1 then e2: the two "take ... into account" pairs
    ranked = sorted((r for r in records if "LL, all" in r["scores"]),
                    key=lambda r: (-r["scores"]["LL, all"], r["e1"], r["e2"]))[:2]
    assert [r["e2"] for r in ranked] == ["consider [NN_1]", "heed [NN_1]"]


def test_mcpg_vs_beam_records_resume_shards_and_report_a_partial_run(inputs, tmp_path, capsys):
    """--records: two shards fill one file; a run with the file searches nothing again (its searches' seconds
    are the recorded ones, so the per-sentence file is the same); --recorded-only reports what the file holds
    and says how many sentences each system searched; a malformed line is one line, exit 2."""
    records = tmp_path / "records.jsonl"
    common = ["experiment", "mcpg-vs-beam", "--table", str(inputs["table"]), "--lm", str(inputs["lm"]),
              "--input", str(inputs["input"]), "--profiles", "faithful", "--modes", "true-score,translator",
              "--translator-rewards", "channel,seed003", "--episodes-per-step", "20", "--processes", "1",
              "--no-progress", "--core", "native", "--records", str(records)]
    assert main([*common, "--out", str(tmp_path / "a"), "--shard", "0/2"]) == 0
    lines = records.read_text(encoding="utf-8").splitlines()
    assert sorted({json.loads(line)["sentence_id"] for line in lines}) == [0, 2]
    partial = (tmp_path / "a" / "mcpg-vs-beam.md").read_text(encoding="utf-8")
    assert "MCPG translator (reward seed003), faithful on 2 of 4" in partial
    assert main([*common, "--out", str(tmp_path / "b"), "--shard", "1/2"]) == 0
    assert len(records.read_text(encoding="utf-8").splitlines()) == 3 * len(SENTENCES)
    assert main([*common, "--out", str(tmp_path / "c")]) == 0  # everything recorded: nothing searched again
    assert len(records.read_text(encoding="utf-8").splitlines()) == 3 * len(SENTENCES)
    assert main([*common, "--out", str(tmp_path / "d"), "--recorded-only"]) == 0
    _, complete = read_per_sentence(tmp_path / "c" / "mcpg-vs-beam.jsonl")
    _, reported = read_per_sentence(tmp_path / "d" / "mcpg-vs-beam.jsonl")
    recorded = {(r["sentence_id"], r["system"]): r for r in map(json.loads, lines)}
    for record in complete:
        if record["system"] != "beam decoder":
            assert record["true_score"] == recorded.get((record["sentence_id"], record["system"]),
                                                        {"score": record["true_score"]})["score"]
    assert [r for r in complete if r["system"] != "beam decoder"] == \
        [r for r in reported if r["system"] != "beam decoder"]
    assert "**Partial run.**" not in (tmp_path / "d" / "mcpg-vs-beam.md").read_text(encoding="utf-8")
    records.write_text(records.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    capsys.readouterr()
    assert main([*common, "--out", str(tmp_path / "e"), "--recorded-only"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and f"{records}:{3 * len(SENTENCES) + 1}: expected one JSON search record" in error[0]
