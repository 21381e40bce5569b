"""Round-trip test cases (seed 001 §4.1.1): blocks through two segmentations, and three verses end to end."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.decoders.cat.graph_store import GraphStore
from parastudio.core.engine.decoders.cat.segmentation import Translation, parse_segmentation
from parastudio.core.engine.decoders.cat.translate import translate_all
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.evaldata.roundtrip import RoundTripReport, aligned_blocks, roundtrip_cases
from parastudio.core.evaldata.translation_stages import MAX_PHRASE_LENGTH, ROUNDTRIP

DEMO = demo_files()


def test_the_papers_example_gives_american_states():
    """Fig. 4.1 (romanized): "us states |5-6|" is Russian words 5-6, which translated "american states". The round
    trip also lost "the" (Russian has no article; "kanady , |2-4|" covered "canada , the", "canada , |3-4|" gives
    "canada ,"), a difference adjacent to it, so the two merge as the paper says sequential differences do."""
    original = "unlike in canada , the american states are responsible".split()
    first = parse_segmentation("v otlichie ot |0-1| kanady , |2-4| amerikanskie |5-5| shtaty |6-6| "
                               "otvetstvenny |7-8|")
    second = parse_segmentation("unlike in |0-2| canada , |3-4| us states |5-6| are responsible |7-7|")
    report = RoundTripReport()
    cases = roundtrip_cases("s", 0, original, first, second, report)
    assert [(c["span"], c["gold"]) for c in cases] == [([2, 6], "canada , the american states")]
    assert cases[0]["sentence"].split()[2:6] == ["canada", ",", "us", "states"]
    assert report.cases == 1 and report.span_lengths == {4: 1}


def test_adjacent_differences_merge_and_dropped_words_are_counted():
    original = "a b c d".split()
    first = Translation.from_phrases([(["x"], 0, 1), (["y"], 1, 2), (["z"], 2, 3), (["w"], 3, 4)])
    second = Translation.from_phrases([(["e"], 0, 1), (["f"], 1, 2), (["c"], 2, 3), ([], 3, 4)])
    report = RoundTripReport()
    cases = roundtrip_cases("s", 0, original, first, second, report)
    assert [(c["span"], c["gold"]) for c in cases] == [([0, 2], "a b")]
    assert report.differences == 2 and report.dropped_by_round_trip == 1
    only_punctuation = Translation.from_phrases([(["a", ","], 0, 1), (["b"], 1, 2), (["c"], 2, 3), (["d"], 3, 4)])
    report = RoundTripReport()
    assert roundtrip_cases("s", 0, original, first, only_punctuation, report) == []
    assert report.punctuation_only_difference == 1


@st.composite
def two_passes(draw):
    """A random original, a first pass cutting it into phrases, a second pass re-cutting the pivot."""
    n = draw(st.integers(1, 8))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=n - 1))) if n > 1 else []
    spans = list(zip([0, *cuts], [*cuts, n]))
    pivot_lengths = draw(st.lists(st.integers(1, 3), min_size=len(spans), max_size=len(spans)))
    first = Translation.from_phrases(([f"p{i}"] * k, a, b) for i, ((a, b), k) in enumerate(zip(spans, pivot_lengths)))
    m = len(first.tokens)
    cuts2 = sorted(draw(st.sets(st.integers(1, m - 1), max_size=m - 1))) if m > 1 else []
    spans2 = list(zip([0, *cuts2], [*cuts2, m]))
    words = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=len(spans2), max_size=len(spans2)))
    second = Translation.from_phrases(([w], a, b) for w, (a, b) in zip(words, spans2))
    original = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    return original, first, second


@settings(max_examples=200, deadline=None)
@given(two_passes())
def test_blocks_tile_both_sentences_at_shared_cut_points(passes):
    original, first, second = passes
    blocks = aligned_blocks(first, second)
    assert [b.original_start for b in blocks] == [0, *[b.original_end for b in blocks[:-1]]]
    assert blocks[-1].original_end == len(original) and blocks[-1].end == len(second.tokens)
    assert [b.start for b in blocks] == [0, *[b.end for b in blocks[:-1]]]
    for case in roundtrip_cases("s", 0, original, first, second, RoundTripReport()):
        start, end = case["span"]
        assert case["sentence"].split()[start:end] != case["gold"].split()
        # a case never starts or ends inside a second-pass phrase: the paraphraser can select it exactly
        assert start in {p.start for p in second.phrases} and end in {p.end for p in second.phrases}


def test_three_verses_end_to_end_reproduce_the_bundled_graphs_and_cases(tmp_path):
    """The demo's tables and LMs re-run the round trip of the first three test verses: same graph, same cases."""
    web = [line.split() for line in DEMO.test_sentences.read_text(encoding="utf-8").splitlines()[:3]]
    en_es = ParaphraseTable.load_for(DEMO.en_es_table, web, max_length=MAX_PHRASE_LENGTH)
    first = translate_all(BeamDecoder(en_es, LanguageModel(DEMO.spanish_lm),
                                      DecoderSettings(stack_size=ROUNDTRIP["first_pass_stack"],
                                                      option_limit=ROUNDTRIP["option_limit"])), web)
    spanish = [t.tokens for t in first]
    es_en = ParaphraseTable.load_for(DEMO.es_en_table, spanish, max_length=MAX_PHRASE_LENGTH)
    graph_file = tmp_path / "graph.txt"
    with open(graph_file, "w", encoding="utf-8") as handle:
        second = translate_all(BeamDecoder(es_en, LanguageModel(DEMO.lm),
                                           DecoderSettings(stack_size=ROUNDTRIP["second_pass_stack"],
                                                           option_limit=ROUNDTRIP["option_limit"])),
                               spanish, graph=handle)
    bundled = [json.loads(line) for line in DEMO.roundtrip_cases.read_text(encoding="utf-8").splitlines()]
    ids = (DEMO.directory.parent / "split" / "test.ids").read_text().split()
    report = RoundTripReport()
    cases = [c for i in range(3) for c in roundtrip_cases(ids[i], i, web[i], first[i], second[i], report)]
    assert cases == [c for c in bundled if c["sentence_id"] < 3] and cases
    with GraphStore.build(tmp_path / "mine.sqlite", [graph_file]) as mine, \
            GraphStore.build(tmp_path / "bundled.sqlite", [DEMO.roundtrip_graph]) as theirs:
        for sentence in range(3):
            ours = mine.sentence_graph(sentence)
            assert ours.translation() == theirs.sentence_graph(sentence).translation() == second[sentence]
            assert sorted(mine._within(sentence, 0, len(spanish[sentence])), key=repr) == \
                sorted(theirs._within(sentence, 0, len(spanish[sentence])), key=repr)
