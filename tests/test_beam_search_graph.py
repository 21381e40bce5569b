"""Search graphs in Moses' -output-search-graph format: ours round-trips, a real Moses dump parses."""

import pytest
from conftest import EXAMPLE1_RULES
from hypothesis import HealthCheck, given, settings
from test_beam_decoder import SOURCE, sentence_and_table, table_of

from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.decoders.search_graph import (
    best_path,
    group_by_sentence,
    parse_line,
    read_search_graph,
    search_graph_lines,
    write_search_graph,
)
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.errors import InputFormatError

# Lines in the layout Moses' OutputSearchNode prints (traditional format, newer
# root line without forward/fscore, natural-log scores, trailing space after out=).
MOSES_DUMP = """\
3 hyp=0 stack=0
3 hyp=1 stack=1 back=0 score=-4.60517 transition=-4.60517 forward=4 fscore=-9.5 covered=0-0 out=la 
3 hyp=2 stack=2 back=0 score=-6.1 transition=-6.1 forward=5 fscore=-8.0 covered=0-1 out=la maison 
3 hyp=4 stack=2 back=1 score=-7.2 transition=-2.59483 recombined=2 forward=5 fscore=-8.0 covered=1-1 out=maison 
3 hyp=5 stack=3 back=2 score=-14.1 transition=-8.0 forward=-1 fscore=0 covered=2-2 out=bleue 
"""


@pytest.fixture(scope="module")
def lm(tiny_lm):
    return LanguageModel(tiny_lm["binary"])


def test_moses_dump_parses_and_gives_its_best_path(tmp_path):
    path = tmp_path / "graph.txt"
    path.write_text(MOSES_DUMP)
    lines = list(read_search_graph(path))
    assert lines[0].is_root and lines[0].forward is None
    loser = lines[3]
    assert (loser.hyp, loser.back, loser.recombined, loser.covered, loser.out) == (4, 1, 2, (1, 1), ("maison",))
    assert loser.transition == pytest.approx(-2.59483)
    best = best_path(group_by_sentence(lines)[3])
    assert [" ".join(l.out) for l in best] == ["la maison", "bleue"]


def test_root_with_forward_and_covered_spans():
    line = parse_line("0 hyp=0 stack=0 forward=1 fscore=-1.234")
    assert line.is_root and line.forward == 1 and line.fscore == pytest.approx(-1.234)
    line = parse_line("0 hyp=10 stack=1 back=0 score=-1.497 transition=-1.497 forward=3437 fscore=-8.900 "
                      "covered=0-0 out=it is")
    assert line.covered == (0, 0) and line.out == ("it", "is") and line.forward == 3437


@pytest.mark.parametrize("text", [
    "x hyp=0 stack=0",
    "0 stack=0",
    "0 hyp=3 stack=1 back=0 score=-1 transition=-1 forward=-1 fscore=0 out=a",
    "0 hyp=3 stack=1 back=0 score=abc transition=-1 covered=0-0 out=a",
])
def test_malformed_lines_name_file_and_line(tmp_path, text):
    path = tmp_path / "bad.txt"
    path.write_text("0 hyp=0 stack=0\n" + text + "\n")
    with pytest.raises(InputFormatError) as raised:
        list(read_search_graph(path))
    assert f"{path}:2" in str(raised.value)


def test_our_graph_reconstructs_the_best_path(lm, tmp_path):
    table = table_of(EXAMPLE1_RULES)
    result = BeamDecoder(table, lm).decode(SOURCE)
    best = result.nbest(1)[0]
    path = tmp_path / "graph.txt.gz"
    write_search_graph(path, [(7, result)])
    lines = list(read_search_graph(path))
    assert all(l.sentence_id == 7 for l in lines)
    root = lines[0]
    assert root.is_root and root.fscore is None and root.forward is None  # Moses' traditional root line
    chain = best_path(lines)
    assert tuple(w for l in chain for w in l.out) == best.tokens
    assert sum(l.transition for l in chain) == pytest.approx(best.score, abs=1e-4)
    assert [l.covered for l in chain] == [(s.src_start, s.src_end - 1) for s in best.segments]
    # every back pointer names a hypothesis that is in the graph; recombined arcs name a winner in the graph
    ids = {l.hyp for l in lines}
    assert all(l.back in ids for l in lines if not l.is_root)
    assert all(l.recombined in ids for l in lines if l.recombined is not None)
    assert any(l.recombined is not None for l in lines)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=sentence_and_table())
def test_graph_lines_are_consistent(lm, case):
    source, rules = case
    result = BeamDecoder(table_of(rules), lm, DecoderSettings(stack_size=3)).decode(source)
    lines = [parse_line(text) for text in search_graph_lines(0, result)]
    by_id = {l.hyp: l for l in lines}
    assert len(by_id) == len(lines)
    for line in lines:
        if line.is_root:
            continue
        back = by_id[line.back]
        back_score = 0.0 if back.is_root else back.score
        assert line.score == pytest.approx(back_score + line.transition, abs=1e-3)
        assert line.stack == line.covered[1] + 1  # monotone: covered words = end of the last phrase + 1
    chain = best_path(lines)
    assert tuple(w for l in chain for w in l.out) == result.nbest(1)[0].tokens


def test_the_traditional_root_line_is_moses_own_and_the_extended_one_adds_forward_scores_and_source(lm, tmp_path):
    table = table_of(EXAMPLE1_RULES)
    result = BeamDecoder(table, lm).decode(SOURCE)
    best = result.nbest(1)[0]
    traditional = list(search_graph_lines(3, result))
    assert traditional[0] == "3 hyp=0 stack=0"
    extended = list(search_graph_lines(3, result, extended=True))
    lines = [parse_line(text) for text in extended]
    root = lines[0]
    assert root.is_root and root.fscore == pytest.approx(best.score, abs=1e-4)
    weights = result.settings.weights
    for line, text in zip(lines[1:], extended[1:]):
        rule_log10, lm_log10, words = line.scores
        assert (weights.phrase * rule_log10 + weights.lm * lm_log10 + weights.word_penalty * words
                == pytest.approx(line.transition, abs=1e-4))
        assert line.source_phrase == tuple(SOURCE[line.covered[0]:line.covered[1] + 1])
        # The traditional line of the same hypothesis is the extended one without the extras.
        assert any(t.split(" covered=")[0] == text.split(" covered=")[0] for t in traditional)
    assert tuple(w for l in best_path(lines) for w in l.out) == best.tokens
