"""Slots of a paraphrase pattern and the tag sets that may form one (seed 002 §3.2, §4).

A slot is written ``[TAG_n]``: the Penn Treebank tag of the word it stands
for and its number (seed 002 Figure 3 writes ``NN_1``; Table 3 ``[NN 1]``).
The brackets keep a slot apart from any corpus word: the corpus is lowercased
and never holds a bracketed token with an upper-case tag.

Only nouns, verbs and adjectives form slots (seed 002 §4: "we only focused on
three kinds of POSes ... nouns (NN, NNS, NNP, NNPS), verbs (VB, VBD, VBG, VBN,
VBP, VBZ), and adjectives (JJ, JJS, JJR)"); spaCy's English tagger uses the
same Penn Treebank tags, so they map one to one.
"""

from __future__ import annotations

NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})
VERB_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})
ADJECTIVE_TAGS = frozenset({"JJ", "JJR", "JJS"})
SLOT_TAGS = NOUN_TAGS | VERB_TAGS | ADJECTIVE_TAGS
# Open-class words: "a pattern must contain at least one content word so as to filter patterns like
# 'the [NN_1]'" (seed 002 §4). The paper does not list them; we take nouns, verbs, adjectives and adverbs.
CONTENT_TAGS = SLOT_TAGS | frozenset({"RB", "RBR", "RBS"})


def slot_kind(tag: str) -> str:
    """``N``, ``V`` or ``J`` (seed 002 Table 5's slot types)."""
    if tag in NOUN_TAGS:
        return "N"
    if tag in VERB_TAGS:
        return "V"
    if tag in ADJECTIVE_TAGS:
        return "J"
    raise ValueError(f"{tag!r} is not a slot tag; expected one of {', '.join(sorted(SLOT_TAGS))}")
