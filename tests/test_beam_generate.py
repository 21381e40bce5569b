"""``parastudio generate`` and the core.engine.candidates.generation API with the beam decoder."""

import json
import subprocess
import sys

import pytest
from conftest import ROOT, toy_corpus

from parastudio.core.engine.candidates.generation import GENERATORS, SYSTEMS, generate, merged_table
from parastudio.core.engine.candidates.generation_options import OPTIONS_OF_SYSTEM, options_for
from parastudio.core.engine.candidates.generation_resources import GenerationResources
from parastudio.core.engine.decoders.mcpg import FAITHFUL, TUNED
from parastudio.core.engine.decoders.search_graph import best_path, group_by_sentence, read_search_graph
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule

CONTRACT_KEYS = ["sentence_id", "system", "rank", "text", "model_score", "true_score", "derivation", "params",
                 "source"]


def run(system, sentences, table, lm, *, processes=1, references=None, progress=None, **values):
    """``generate`` with the options object built from ``values`` and the resources from ``table`` and ``lm``."""
    extra = {"progress": progress} if progress else {}
    return generate(options_for(system, **values), sentences, GenerationResources((table,), lm), processes=processes,
                    references=references, **extra)


@pytest.fixture
def example_table(example1_table_path):
    return ParaphraseTable.load(example1_table_path)


def test_cli_json_lines_follow_the_contract(tiny_lm, example1_table_path, tmp_path):
    sentences = ["the dog runs after the young cat", "a young cat sees the dog"]
    graph = tmp_path / "graph.txt"
    completed = subprocess.run(
        [sys.executable, "-m", "parastudio", "generate", "--system", "beam", "--table", str(example1_table_path),
         "--lm", str(tiny_lm["binary"]), "--nbest", "4", "--json", "--search-graph", str(graph)],
        input="\n".join(sentences) + "\n", capture_output=True, text=True, cwd=ROOT, check=True,
    )
    rows = [json.loads(line) for line in completed.stdout.splitlines()]
    assert [list(row) for row in rows] == [CONTRACT_KEYS] * len(rows)
    assert [row["sentence_id"] for row in rows] == [0] * 4 + [1] * 4
    assert [row["rank"] for row in rows] == [1, 2, 3, 4] * 2
    table = ParaphraseTable.load(example1_table_path)
    scorer = TrueScorer(table, LanguageModel(tiny_lm["binary"]))
    for row in rows:
        assert row["system"] == "beam"
        source = sentences[row["sentence_id"]].split()
        assert row["true_score"] == pytest.approx(scorer.score(source, row["text"].split()).log10_score)
        assert row["model_score"] <= row["true_score"] + 1e-4
        assert " ".join(d["target"] for d in row["derivation"]) == row["text"]
        assert row["params"]["decoder"]["stack_size"] == 200
    graphs = group_by_sentence(read_search_graph(graph))
    for sentence_id in (0, 1):
        first = next(r for r in rows if r["sentence_id"] == sentence_id and r["rank"] == 1)
        assert " ".join(w for l in best_path(graphs[sentence_id]) for w in l.out) == first["text"]


def test_cli_rejects_search_graph_for_other_systems(tiny_lm, example1_table_path, tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "parastudio", "generate", "--system", "mcpg-true", "--table", str(example1_table_path),
         "--lm", str(tiny_lm["binary"]), "--search-graph", str(tmp_path / "g")],
        input="the dog\n", capture_output=True, text=True, cwd=ROOT,
    )
    assert completed.returncode == 2 and "--search-graph needs --system beam" in completed.stderr, completed.stderr


def test_parallel_and_sequential_runs_agree(tiny_lm, example_table):
    lm = LanguageModel(tiny_lm["binary"])
    sentences = [line.split() for line in toy_corpus(seed=3, sentences=10)]
    done = []
    sequential = list(run("beam", sentences, example_table, lm, nbest=2, processes=1))
    parallel = list(run("beam", sentences, example_table, lm, nbest=2, processes=2,
                        progress=lambda d, t, message="": done.append((d, t))))
    assert done[-1] == (10, 10)
    strip = lambda c: (c.sentence_id, c.rank, c.text, round(c.model_score, 6), round(c.true_score, 6))
    assert [strip(c) for c in sequential] == [strip(c) for c in parallel]


def test_merged_tables_keep_each_rule_once_with_its_best_probability():
    first = ParaphraseTable([Rule(("a",), ("b",), 0.2), Rule(("a",), ("c",), 0.5)], name="one")
    second = ParaphraseTable([Rule(("a",), ("b",), 0.6)], name="two")
    merged = merged_table([first, second])
    assert sorted((r.target, r.prob) for r in merged.rules_for(("a",))) == [(("b",), 0.6), (("c",), 0.5)]


def test_unknown_or_missing_systems_fail_clearly(tiny_lm, example_table):
    lm = LanguageModel(tiny_lm["binary"])
    with pytest.raises(ValueError, match="unknown system"):
        list(run("moses", [["a"]], example_table, lm))
    with pytest.raises(ValueError, match="needs a reference"):
        list(run("spg-similarity", [["a"]], example_table, lm, processes=1))


@pytest.mark.parametrize("system", ["mcpg-true", "mcpg-translator"])
def test_mcpg_candidates_carry_exact_true_scores_and_the_profile(tiny_lm, example_table, system):
    lm = LanguageModel(tiny_lm["binary"])
    sentences = [s.split() for s in ("the dog runs after the young cat", "the young cat sees the dog")]
    candidates = list(run(system, sentences, example_table, lm, nbest=3, max_episodes=300))
    assert {c.sentence_id for c in candidates} == {0, 1}
    scorer = TrueScorer(example_table, lm)
    for candidate in candidates:
        assert candidate.params["profile"] == "tuned" and candidate.params["max_episodes"] == 300
        # eta and the episode count are recorded once, at the top (issue 39), not again in the search options
        assert candidate.params["search_options"] == {k: v for k, v in TUNED.to_json().items()
                                                      if k not in ("episodes_per_step", "max_episodes")}
        assert candidate.search["episodes"] <= 300 and not candidate.search["cut"]
        assert candidate.text.split() != sentences[candidate.sentence_id]
        assert candidate.true_score == pytest.approx(
            scorer.score(sentences[candidate.sentence_id], candidate.text.split()).log10_score, abs=1e-9)
        if system == "mcpg-true":
            assert candidate.model_score == pytest.approx(candidate.true_score, abs=1e-6)
        else:
            assert candidate.model_score <= candidate.true_score + 1e-6  # one derivation vs the best one


def test_every_registered_system_generates_and_its_params_come_from_the_options_that_ran(tiny_lm, example_table):
    lm = LanguageModel(tiny_lm["binary"])
    sentence = "the dog runs after the young cat".split()
    # One registry: each system's generator runs the options class that names the system, and no system lacks one.
    assert SYSTEMS == tuple(GENERATORS) == tuple(OPTIONS_OF_SYSTEM)
    assert all(GENERATORS[system].options_class is OPTIONS_OF_SYSTEM[system] for system in SYSTEMS)
    for system in SYSTEMS:
        values = {"max_episodes": 200} if system.startswith("mcpg") else {}
        candidates = list(run(system, [sentence], example_table, lm, nbest=2,
                              references=[sentence] if system == "spg-similarity" else None, **values))
        assert candidates and all(c.system == system for c in candidates)
    faithful = list(run("mcpg-true", [sentence], example_table, lm, profile="faithful", episodes_per_step=50))
    assert faithful[0].params["profile"] == "faithful"
    assert faithful[0].params["search_options"] == {k: v for k, v in FAITHFUL.to_json().items()
                                                    if k not in ("episodes_per_step", "max_episodes")}
    assert faithful[0].params["episodes_per_step"] == 50
    assert set(faithful[0].search["episodes_per_decision"][:-1]) == {50}  # the last one may end the search early


def test_exclude_source_drops_the_unchanged_sentence_and_keeps_nbest(tiny_lm, example_table):
    lm = LanguageModel(tiny_lm["binary"])
    # A sentence no rule of the table touches: the beam's only output is the source itself.
    untouched = "zebra quietly".split()
    assert [c.text for c in run("beam", [untouched], example_table, lm, nbest=3)] == ["zebra quietly"]
    assert list(run("beam", [untouched], example_table, lm, nbest=3, exclude_source=True)) == []
    sentence = "the dog runs after the young cat".split()
    kept = list(run("beam", [sentence], example_table, lm, nbest=3))
    dropped = list(run("beam", [sentence], example_table, lm, nbest=3, exclude_source=True))
    assert all(c.text.split() != sentence for c in dropped)
    expected = [c.text for c in run("beam", [sentence], example_table, lm, nbest=4)
                if c.text.split() != sentence][:3]
    assert [c.text for c in dropped] == expected and [c.rank for c in dropped] == list(range(1, len(dropped) + 1))
    assert dropped[0].params["exclude_source"] is True and kept[0].params["exclude_source"] is False


def test_the_cli_runs_the_seeds_mcpg_and_refuses_a_reward_of_the_other_mode(tiny_lm, example1_table_path, capsys,
                                                                              monkeypatch):
    import io
    import json

    from parastudio.core.cli import main

    common = ["--table", str(example1_table_path), "--lm", str(tiny_lm["binary"]), "--json", "--processes", "1",
              "--time-budget", "0.1"]
    monkeypatch.setattr("sys.stdin", io.StringIO("the dog runs after the young cat\n"))
    assert main(["generate", "--system", "mcpg-translator", "--profile", "faithful", "--episodes-per-step", "40",
                 "--exploration", "500", "--reward", "seed003", *common]) == 0
    params = json.loads(capsys.readouterr().out.splitlines()[0])["params"]
    assert (params["profile"], params["episodes_per_step"], params["exploration"],
            params["reward"]) == ("faithful", 40, 500.0, "seed003")
    monkeypatch.setattr("sys.stdin", io.StringIO("the dog runs\n"))
    assert main(["generate", "--system", "mcpg-true", "--reward", "seed003", *common]) == 2
    assert "translator-mode reward" in capsys.readouterr().err
