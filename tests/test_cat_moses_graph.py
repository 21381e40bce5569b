"""A real Moses search graph (tests/data/moses, made by the Moses decoder) loads and serves suggestions."""

from __future__ import annotations

import json
from pathlib import Path

from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.cat.approaches import APPROACHES
from parastudio.core.engine.decoders.cat.graph_store import GraphStore, open_graph
from parastudio.core.engine.decoders.cat.paraphraser import suggest
from parastudio.core.engine.decoders.cat.segmentation import parse_segmentation
from parastudio.core.engine.lm.language_model import LanguageModel

MOSES = Path(__file__).parent / "data" / "moses"


def test_a_moses_dump_with_its_segmentation_serves_the_round_trip_cases(tmp_path):
    segmentations = (MOSES / "report-segmentation.txt").read_text(encoding="utf-8").splitlines()
    with GraphStore.build(tmp_path / "moses.sqlite", [MOSES / "search-graph.txt.gz"],
                          translations=segmentations) as moses, \
            GraphStore.build(tmp_path / "bare.sqlite", [MOSES / "search-graph.txt.gz"]) as bare:
        for sentence, text in enumerate(segmentations):
            moses_output = parse_segmentation(text)
            assert moses.sentence_graph(sentence).translation() == moses_output
            # without the decoder's output, the graph's best path spells the same words
            assert bare.sentence_graph(sentence).translation().tokens == moses_output.tokens
        ours = open_graph(demo_files().roundtrip_graph)
        lm = LanguageModel(demo_files().lm)
        cases = [json.loads(line) for line in demo_files().roundtrip_cases.read_text(encoding="utf-8").splitlines()]
        served = 0
        for case in (c for c in cases if c["sentence_id"] < len(segmentations)):
            tokens = case["sentence"].split()
            assert ours.sentence_graph(case["sentence_id"]).translation().tokens == tuple(tokens)
            moses_words = set(moses.sentence_graph(case["sentence_id"]).translation().tokens)
            selection = tokens[case["span"][0]:case["span"][1]]
            for name in ("approach-1", "approach-10"):
                result = suggest(moses.sentence_graph(case["sentence_id"]), *case["span"], APPROACHES[name], lm=lm,
                                 tokens=tokens)
                if not moses_words & set(selection):  # Moses translated those words otherwise: nothing to align to
                    assert result.error.startswith("the selection matches nothing in the machine translation")
                    continue
                assert result.error is None and result.alignment is not None
                assert all(s.words for s in result.suggestions)
                assert result.explain(case["gold"].split())["fate"]
                served += bool(result.suggestions)
        assert served > 0
