"""Hand-built parses and alignments of seed 002's own example (Figures 2 and 3) for the pattern tests."""

from __future__ import annotations

from parastudio.core.engine.tables.patterns.dependency_parse import DependencyParse

# "We should first take market demand into consideration", parsed as seed 002 Figure 2 draws it
# (MaltParser's Penn2Malt shape): "should" is the root, "take" hangs from it, "market" from "demand".
FIGURE2 = DependencyParse.of(
    ["we", "should", "first", "take", "market", "demand", "into", "consideration"],
    ["PRP", "MD", "RB", "VB", "NN", "NN", "IN", "NN"],
    [1, -1, 1, 1, 5, 3, 3, 6],
    ["SBJ", "ROOT", "ADV", "VC", "NMOD", "OBJ", "ADV", "PMOD"],
)

# The same sentence as spaCy's English models parse it (ClearNLP labels: the verb heads its auxiliary).
SPACY_SHAPE = DependencyParse.of(
    ["we", "should", "first", "take", "market", "demand", "into", "consideration"],
    ["PRP", "MD", "RB", "VB", "NN", "NN", "IN", "NN"],
    [3, 3, 3, -1, 5, 3, 3, 6],
    ["nsubj", "aux", "advmod", "ROOT", "compound", "dobj", "prep", "pobj"],
)

# Its Chinese translation (seed 002's pivot language) "我们 应该 首先 考虑 市场 需求" and a word alignment:
# 考虑 (consider) is aligned with "take" and "consideration", 市场 with "market", 需求 with "demand".
CHINESE = ["我们", "应该", "首先", "考虑", "市场", "需求"]
CHINESE_LINKS = [(0, 0), (1, 1), (2, 2), (3, 3), (7, 3), (4, 4), (5, 5)]  # (English, Chinese)

# Figure 3: "NN_1 考虑 NN_2" pivots "NN_1 consider NN_2" and "NN_2 is considered by NN_1".
ACTIVE = DependencyParse.of(
    ["the", "government", "considers", "the", "demand"],
    ["DT", "NN", "VBZ", "DT", "NN"],
    [1, 2, -1, 4, 2],
    ["NMOD", "SBJ", "ROOT", "NMOD", "OBJ"],
)
PASSIVE = DependencyParse.of(
    ["the", "demand", "is", "considered", "by", "the", "government"],
    ["DT", "NN", "VBZ", "VBN", "IN", "DT", "NN"],
    [1, 2, -1, 2, 3, 6, 4],
    ["NMOD", "SBJ", "ROOT", "VC", "LGS", "NMOD", "PMOD"],
)
CHINESE_3 = ["政府", "考虑", "需求"]
ACTIVE_LINKS = [(1, 0), (2, 1), (4, 2)]
PASSIVE_LINKS = [(6, 0), (3, 1), (1, 2)]


def parse_for(parses: dict[tuple[str, ...], DependencyParse]):
    """A parser (tokens -> parse) that knows only the given hand-made parses."""
    def parse(tokens):
        return parses[tuple(tokens)]
    return parse


# "we should consider market demand" (paper shape) and its Chinese translation, word for word.
CONSIDER = DependencyParse.of(
    ["we", "should", "consider", "market", "demand"],
    ["PRP", "MD", "VB", "NN", "NN"],
    [1, -1, 1, 4, 2],
    ["SBJ", "ROOT", "VC", "NMOD", "OBJ"],
)
CONSIDER_CHINESE = ["我们", "应该", "考虑", "市场", "需求"]
CONSIDER_LINKS = [(0, 0), (1, 1), (2, 2), (3, 3), (4, 4)]


def figure_sentences():
    """The sentence pairs of the build tests: Figure 2's sentence and its paraphrase, and Figure 3's two."""
    from parastudio.core.engine.tables.patterns.induction import induce_patterns

    for parse, pivot, links in ((FIGURE2, CHINESE, CHINESE_LINKS), (CONSIDER, CONSIDER_CHINESE, CONSIDER_LINKS),
                                (ACTIVE, CHINESE_3, ACTIVE_LINKS), (PASSIVE, CHINESE_3, PASSIVE_LINKS)):
        yield parse.words, [p.elements for p in induce_patterns(parse, reshape=False)], pivot, links
