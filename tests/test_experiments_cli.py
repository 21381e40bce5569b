"""``parastudio experiment ...``: each subcommand writes its Markdown and PNG, atomically."""

import pytest
from conftest import EXAMPLE1_RULES
from experiment_inputs import write_experiment_inputs

from parastudio.core.cli import main

RULES = EXAMPLE1_RULES + [("runs", "walks", 0.5), ("dog", "beast", 0.3), ("big house", "home", 0.5),
                          ("near", "by", 0.4), ("sees", "finds", 0.4)]
SENTENCES = ["the dog runs after the young cat", "the big house near the garden", "it sees a small dog"]
REFERENCES = ["the beast runs after the kitten", "a big house near a garden", "it finds a small dog"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def inputs(tmp_path, tiny_lm):
    files = write_experiment_inputs(tmp_path, SENTENCES, REFERENCES, RULES)
    common = ["--table", str(files["table"]), "--lm", str(tiny_lm["binary"]), "--input", str(files["input"])]
    return {"common": common, "reference": str(files["reference"]), "out": tmp_path / "results"}


COMMANDS = {
    "spg-rates": lambda i: ["--reference", i["reference"], "--no-progress"],
    "mcpg-vs-beam": lambda i: ["--time-budget", "0.05", "--profiles", "tuned", "--no-progress"],
    "seed000-reranking": lambda i: ["--nbest", "5", "--stack-sizes", "5", "--processes", "1"],
}


@pytest.mark.parametrize("experiment", sorted(COMMANDS))
def test_each_experiment_writes_markdown_and_png(experiment, inputs):
    out = inputs["out"]
    argv = ["experiment", experiment, *inputs["common"], "--limit", "2", "--out", str(out),
            *COMMANDS[experiment](inputs)]
    assert main(argv) == 0
    markdown = (out / f"{experiment}.md").read_text(encoding="utf-8")
    assert markdown.startswith("# Seed 00")
    assert "first 2" in markdown  # --limit reached the experiment
    assert (out / f"{experiment}.png").read_bytes().startswith(PNG_MAGIC)
    per_sentence = {"seed000-reranking": "seed000-reranking.jsonl.gz"}.get(experiment, f"{experiment}.jsonl")
    # no temporary files
    assert sorted(p.name for p in out.iterdir()) == sorted([f"{experiment}.md", f"{experiment}.png", per_sentence])


@pytest.mark.parametrize("experiment", ["spg-rates", "mcpg-vs-beam"])
def test_a_failing_plot_leaves_previous_results_untouched(experiment, inputs, monkeypatch):
    import matplotlib.figure

    out = inputs["out"]
    out.mkdir()
    (out / f"{experiment}.md").write_text("old report\n", encoding="utf-8")
    (out / f"{experiment}.png").write_bytes(PNG_MAGIC + b"old")

    def broken_savefig(self, handle, **kwargs):
        handle.write(b"half a picture")
        raise RuntimeError("disk full")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", broken_savefig)
    argv = ["experiment", experiment, *inputs["common"], "--limit", "1", "--out", str(out),
            *COMMANDS[experiment](inputs)]
    with pytest.raises(RuntimeError, match="disk full"):
        main(argv)
    assert (out / f"{experiment}.md").read_text(encoding="utf-8") == "old report\n"
    assert (out / f"{experiment}.png").read_bytes() == PNG_MAGIC + b"old"
    assert sorted(p.name for p in out.iterdir()) == [f"{experiment}.md", f"{experiment}.png"]


def test_unknown_profile_is_refused(inputs, capsys):
    argv = ["experiment", "mcpg-vs-beam", *inputs["common"], "--profiles", "greedy", "--out", str(inputs["out"])]
    assert main(argv) == 1
    assert "unknown MCPG profile 'greedy'" in capsys.readouterr().err
    assert not inputs["out"].exists()


def test_missing_input_is_an_error(inputs, capsys):
    argv = ["experiment", "spg-rates", "--lm", inputs["common"][3], "--input", "/nonexistent/test.en",
            "--table", inputs["common"][1], "--out", str(inputs["out"]), "--no-progress"]
    assert main(argv) == 1
    assert "/nonexistent/test.en not found" in capsys.readouterr().err


def test_recorded_command_spells_out_every_option():
    import argparse

    from parastudio.core.cli.experiment_cmd import recorded_command

    args = argparse.Namespace(func=print, command="experiment", experiment="spg-rates", progress=False,
                              table=["a.gz", "b.gz"], limit=3, out="res", reference=None, usability=1.0)
    assert recorded_command("spg-rates", args) == (
        "parastudio experiment spg-rates --limit 3 --out res --table a.gz --table b.gz --usability 1.0")
