"""Seed 001's approaches, user-defined ones, and the ``suggest`` / ``autoeval`` / ``generate`` contracts."""

from __future__ import annotations

import json

import pytest

from parastudio.core.cli import main
from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.cat.approaches import APPROACHES, PAPER_SUCCESSES, load_approaches
from parastudio.core.engine.decoders.cat.autoeval import read_cases
from parastudio.core.engine.decoders.cat.graph_store import open_graph
from parastudio.core.errors import InputFileError, InputFormatError
from tests.cat_graph_fixture import GRAPH

DEMO = demo_files()

FIG_4_2 = {  # seed 001 Fig. 4.2, column by column
    1: ("PTPF", "SDSF", "", ""), 2: ("PTPF FWPF SDPF", "SDSF", "", ""), 3: ("PTPF FWPF SDPF", "BFSF", "", ""),
    4: ("PTPF FWPF SDPF", "LMSF", "", ""), 5: ("PTPF FWPF SDPF", "SDSF BFSF", "", ""),
    6: ("PTPF FWPF SDPF", "SDSF LMSF BFSF", "", ""), 7: ("PTPF FWPF SDPF", "SDSF LMSF BFSF", "PTRF FNRF", "LMBS"),
    8: ("PTPF FWPF SDPF", "SDSF LMSF BFSF", "PTRF FNRF", "CDBS"),
    9: ("PTPF FWPF SDPF", "SDSF LMSF BFSF", "SBRF", "LMBS"),
    10: ("PTPF FWPF SDPF", "SDSF LMSF BFSF", "SBRF", "LMBS CDBS"),
}


def test_the_ten_approaches_are_exactly_fig_4_2():
    assert list(APPROACHES) == [f"approach-{i}" for i in range(1, 11)]
    for number, columns in FIG_4_2.items():
        approach = APPROACHES[f"approach-{number}"]
        assert (" ".join(approach.partial_filters), " ".join(approach.score_functions), " ".join(approach.filters),
                " ".join(approach.sorters)) == columns
    assert PAPER_SUCCESSES["approach-1"] == 135 and PAPER_SUCCESSES["approach-10"] == 691


def test_approaches_from_toml_and_their_errors(tmp_path):
    good = tmp_path / "mine.toml"
    good.write_text('[approach.lean]\npartial_filters = ["PTPF"]\nscore_functions = ["LMSF"]\n'
                    'sorters = ["LMBS"]\nparameters = { sdpf_threshold = 2 }\n', encoding="utf-8")
    approach = load_approaches(good)["lean"]
    assert approach.sorters == ("LMBS",) and approach.filters == () and approach.parameters == {"sdpf_threshold": 2}
    for text, message in (('[approach.x]\nsorters = ["NOPE"]\n', "no stage 'NOPE'"),
                          ('[approach.x]\nparameters = { colour = 1 }\n', "unknown parameters"),
                          ('[approach.x]\nfilter = ["PTRF"]\n', "keys among"),
                          ('[other]\n', "at least one"), ('[approach.x\n', "TOML")):
        bad = tmp_path / "bad.toml"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises((InputFileError, InputFormatError), match=message):  # a TOML syntax error has a line
            load_approaches(bad)


def test_a_bad_cases_line_names_its_file_and_line(tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "a", "sentence_id": 0, "sentence": "x y", "span": [0, 1], "gold": "z"}\n'
                     '{"id": "b", "sentence_id": 0, "sentence": "x y", "span": [1, 5], "gold": "z"}\n',
                     encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"cases\.jsonl:2: expected"):
        read_cases(cases)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PARASTUDIO_CACHE", str(tmp_path / "cache"))


def test_suggest_prints_suggestions_and_every_candidates_fate(tmp_path, capsys, cache):
    graph = tmp_path / "graph.txt"
    graph.write_text(GRAPH, encoding="utf-8")
    assert main(["suggest", "--graph", str(graph), "--sentence", "0", "--span", "1", "5", "--approach",
                 "approach-7", "--gold", "was the first nation", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["alignment"]["coverage"] == [1, 4] and out["translation"].startswith("indiana |0-0|")
    assert [s["rank"] for s in out["suggestions"]] == list(range(1, len(out["suggestions"]) + 1))
    fates = {c["text"]: c["fate"] for c in out["candidates"]}
    assert all(f.startswith(("shown", "ranked", "dropped by")) for f in fates.values())
    assert out["gold"]["fate"] == fates["was the first nation"]
    assert main(["suggest", "--graph", str(graph), "--sentence", "7", "--span", "0", "1"]) == 2


@pytest.mark.parametrize("span, text", [(("0", "1000000"), None), (("3", "1"), None), (("0", "0"), None),
                                        (("2", "2"), None), (("0", "9"), "a b c")])
def test_a_span_outside_the_tokens_is_a_usage_error(tmp_path, capsys, cache, span, text):
    graph = tmp_path / "graph.txt"
    graph.write_text(GRAPH, encoding="utf-8")
    edited = ["--text", text] if text else []
    assert main(["suggest", "--graph", str(graph), "--sentence", "0", "--span", *span, *edited]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"parastudio: error: --span {span[0]} {span[1]}: expected 0 <= I < J <= ") and \
        len(err.splitlines()) == 1, err


def test_suggest_on_an_edited_translation_and_feedback(tmp_path, capsys, cache):
    graph = tmp_path / "graph.txt"
    graph.write_text(GRAPH, encoding="utf-8")
    edited = "indiana then became the very first state ."
    assert main(["suggest", "--graph", str(graph), "--sentence", "0", "--span", "2", "7", "--text", edited,
                 "--approach", "approach-1", "--feedback", "was the first nation", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["alignment"]["fuzzy"] and out["alignment"]["coverage"] == [1, 4]
    assert out["suggestions"][0]["text"] == "was the first nation"  # UFBS: the feedback itself first


def test_autoeval_contract_on_the_bundled_cases(capsys, cache):
    assert main(["autoeval", "--approach", "approach-1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"approach", "cases", "successes", "by_length", "ties"}
    cases = read_cases(DEMO.roundtrip_cases)
    assert out["approach"] == "approach-1" and out["cases"] == len(cases)
    assert sum(n for n, _ in out["by_length"].values()) == len(cases)
    assert out["successes"] == sum(s for _, s in out["by_length"].values()) <= len(cases)
    lengths = {str(c.length) for c in cases}
    assert set(out["by_length"]) == lengths


def test_feedback_never_loses_a_success_and_cases_match_their_graph(tmp_path, capsys, cache):
    cases = read_cases(DEMO.roundtrip_cases)[:40]
    store = open_graph(DEMO.roundtrip_graph)
    for case in cases:  # the round-trip sentence is the graph's 1-best: exact alignment applies
        assert store.sentence_graph(case.sentence_id).translation().tokens == case.sentence
    subset = tmp_path / "subset.jsonl"
    lines = DEMO.roundtrip_cases.read_text(encoding="utf-8").splitlines()[:40]
    subset.write_text("\n".join(lines) + "\n", encoding="utf-8")
    details = tmp_path / "details.jsonl"
    assert main(["autoeval", "--approach", "approach-1", "--cases", str(subset), "--graph",
                 str(DEMO.roundtrip_graph), "--details", str(details), "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["autoeval", "--approach", "approach-1", "--cases", str(subset), "--graph",
                 str(DEMO.roundtrip_graph), "--feedback", "--json"]) == 0
    with_feedback = json.loads(capsys.readouterr().out)
    assert with_feedback["successes"] >= plain["successes"]
    rows = [json.loads(line) for line in details.read_text(encoding="utf-8").splitlines()]
    assert sum(r["success"] for r in rows) == plain["successes"]
    assert all(r["fate"].startswith("shown") == r["success"] for r in rows)
    assert main(["autoeval", "--cases", str(subset)]) == 2  # a cases file needs its graph


def test_generate_reports_the_segmentation_as_moses_does(tmp_path, capsys):
    spanish = DEMO.spanish_test_sentences.read_text(encoding="utf-8").splitlines()[0]
    import io
    import sys

    stdin = sys.stdin
    sys.stdin = io.StringIO(spanish + "\n")
    try:
        assert main(["generate", "--system", "beam", "--table", str(DEMO.es_en_table), "--lm", str(DEMO.lm),
                     "--report-segmentation", "--processes", "1"]) == 0
    finally:
        sys.stdin = stdin
    line = capsys.readouterr().out.strip()
    spans = [token for token in line.split() if token.startswith("|")]
    assert spans and spans[0].startswith("|0-") and spans[-1].endswith(f"-{len(spanish.split()) - 1}|")
