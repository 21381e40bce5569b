"""Our search keeps what Moses keeps: the real Moses search graph of tests/data/moses (three sentences, stack 10,
beam threshold 1e-5) against ours on the same options, hypothesis for hypothesis.

Moses made the dump with ``table-limit=20`` counting each word's pass-through rule among a span's 20 options;
ours keeps its identity option beside them. So the table given to ours is the demo table with the pass-through
rules, kept per source phrase to Moses' 20 (by estimate, the pass-through competing), decoded without a further
limit: both then have the same options. Every connected hypothesis, winner or recombined arc, must be in both
graphs with the same segmentation and output and the same score (Moses' natural logs, printed to 3 decimals).
"""

import gzip
import math
import re
from pathlib import Path

import pytest

from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.translation_options import OptionCache
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule

MOSES = Path(__file__).resolve().parent / "data" / "moses"
DEMO = demo_files()
pytestmark = pytest.mark.skipif(not (DEMO.es_en_table.is_file() and DEMO.lm.is_file()), reason="needs the demo")


def moses_graphs() -> dict[int, dict[int, tuple]]:
    """Per sentence: hypothesis id -> (stack, back, score, recombined into, output)."""
    graphs: dict[int, dict[int, tuple]] = {}
    with gzip.open(MOSES / "search-graph.txt.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            fields = dict(re.findall(r"(\w+)=(\S+)", line))
            if fields["hyp"] == "0":
                continue
            output = line.split(" out=", 1)[1].strip()
            graphs.setdefault(int(line.split()[0]), {})[int(fields["hyp"])] = (
                int(fields["stack"]), int(fields["back"]), float(fields["score"]), int(fields.get("recombined", -1)),
                output)
    return graphs


def by_content(graph: dict[int, tuple]) -> dict[tuple, float]:
    """(stack, the phrases' outputs from the first, winner or arc) -> score: what the hypothesis is, not its id."""
    paths: dict[int, str] = {0: ""}

    def path(hypothesis: int) -> str:
        if hypothesis not in paths:
            stack, back, score, recombined, output = graph[hypothesis]
            paths[hypothesis] = path(back) + " | " + output
        return paths[hypothesis]

    return {(stack, path(h), recombined != -1): score for h, (stack, back, score, recombined, output) in graph.items()}


@pytest.fixture(scope="module")
def sentences_and_table():
    sentences = [line.split() for line in (MOSES / "input.es").read_text(encoding="utf-8").splitlines()]
    loaded = ParaphraseTable.load_for(DEMO.es_en_table, sentences)
    probability = {(rule.source, rule.target): rule.prob for source in loaded.sources()
                   for rule in loaded.rules_for(source)}
    for sentence in sentences:
        for word in sentence:
            probability[((word,), (word,))] = 1.0  # the dump's pass-through rules
    full = ParaphraseTable(Rule(source, target, p) for (source, target), p in sorted(probability.items()))
    full.sort()
    lm = LanguageModel(DEMO.lm)
    moses_limit = OptionCache(full, lm, limit=20, identities=False)  # table-limit 20, pass-through among them
    table = ParaphraseTable(Rule(source, option.target, option.rule.prob) for source in full.sources()
                            for option in moses_limit.ranked(source, full.rules_for(source)))
    table.sort()
    return sentences, table, lm


@pytest.mark.parametrize("core", ["python", "compiled"])
def test_our_search_graph_is_moses_hypothesis_for_hypothesis(sentences_and_table, core):
    sentences, table, lm = sentences_and_table
    decoder = BeamDecoder(table, lm, DecoderSettings(stack_size=10, beam_threshold=1e-5, option_limit=None), core=core)
    for number, graph in moses_graphs().items():
        result = decoder.decode(tuple(sentences[number]))
        ours = {edge.id: (edge.covered, edge.back.id, edge.score * math.log(10),
                          edge.winner.id if edge.winner is not None else -1, " ".join(edge.option.target))
                for winner in result.connected() for edge in (winner, *winner.arcs) if edge.back is not None}
        theirs, mine = by_content(graph), by_content(ours)
        assert len(theirs) > 1000 and set(mine) == set(theirs)
        assert all(abs(mine[key] - theirs[key]) < 6e-3 for key in theirs)
